//! Git's control files: what host-side git reads and runs later (config,
//! hooks, the indirections to other repositories), kept out of reach of a
//! sandboxed shell, while what `git add`, `commit` and `checkout` write
//! (objects, refs, logs, the index, `HEAD` and the other state files at
//! the top of the repository) stays writable.
//!
//! From gitrepository-layout(5), the entries of a repository directory
//! that configure git or point it elsewhere:
//! * `config`, `config.worktree`: every setting (`core.hooksPath`,
//!   `core.fsmonitor`, `include.path`, aliases, filters, pagers …);
//! * `hooks/`; `info/` (attributes, exclude, sparse-checkout, grafts);
//!   `branches/`, `remotes/` (legacy remote URLs);
//! * `commondir` (another repository's config and hooks), `worktrees/`
//!   (linked worktrees' `commondir` and `gitdir`), `objects/info/`
//!   (`alternates`, `http-alternates`);
//! * in the work tree, a `.git` file (`gitdir: …`) and the `.git`
//!   directory itself (replacing it replaces everything).
//!
//! Existing entries are bound read-only; absent directories and
//! `config.worktree` get an empty placeholder first (git's own layout has
//! them); `commondir` and new repositories cannot have a placeholder and
//! are handled by the guard (`guard.rs`, which uses this file), which
//! removes them.

use std::io;
use std::path::{Path, PathBuf};

/// Control files of a repository directory (placeholder: an empty file).
pub const CONTROL_FILES: &[&str] = &["config", "config.worktree"];
/// Control directories (placeholder: an empty directory).
pub const CONTROL_DIRS: &[&str] = &[
    "hooks",
    "info",
    "branches",
    "remotes",
    "worktrees",
    "objects/info",
];
/// Control entries that cannot have a placeholder (an empty one would
/// break git): present ones are bound read-only, planted ones removed.
pub const INDIRECTIONS: &[&str] = &["commondir"];

/// What one repository directory needs: the paths to bind read-only, and
/// whether the directory itself is bound onto itself first (so it cannot
/// be moved away and replaced).
#[derive(Debug, Default)]
pub struct Protection {
    /// Bound onto themselves (plain).
    pub pinned: Vec<PathBuf>,
    /// Bound read-only.
    pub readonly: Vec<PathBuf>,
    /// Placeholders created for it (for the log).
    pub created: Vec<PathBuf>,
}

/// Make the placeholders of `gitdir` and list what to bind.
pub fn protect_gitdir(gitdir: &Path, ws: &Path, p: &mut Protection) -> io::Result<()> {
    if gitdir != ws {
        p.pinned.push(gitdir.to_path_buf());
    }
    // `objects/` stays writable but pinned: moved away, a fresh one could
    // bring its own `info/alternates`.
    if gitdir.join("objects").is_dir() {
        p.pinned.push(gitdir.join("objects"));
    }
    for f in CONTROL_FILES {
        let path = gitdir.join(f);
        if std::fs::symlink_metadata(&path).is_err() {
            std::fs::File::create_new(&path)?;
            p.created.push(path.clone());
        }
        p.readonly.push(path);
    }
    for d in CONTROL_DIRS {
        let path = gitdir.join(d);
        if std::fs::symlink_metadata(&path).is_err() {
            std::fs::create_dir_all(&path)?;
            p.created.push(path.clone());
        }
        p.readonly.push(path);
    }
    for f in INDIRECTIONS {
        let path = gitdir.join(f);
        if std::fs::symlink_metadata(&path).is_ok() {
            p.readonly.push(path);
        }
    }
    if let Some(hooks) = hooks_path(gitdir, ws) {
        if std::fs::symlink_metadata(&hooks).is_err() {
            std::fs::create_dir_all(&hooks)?;
            p.created.push(hooks.clone());
        }
        p.readonly.push(hooks);
    }
    Ok(())
}

/// Where `core.hooksPath` sends git for hooks, when that is in the
/// workspace (husky's `.husky/`, say): hooks like those of `hooks/`, so
/// kept read-only too. A relative path is taken from the work tree (the
/// repository directory when it is not a `.git`).
fn hooks_path(gitdir: &Path, ws: &Path) -> Option<PathBuf> {
    let base = if gitdir.file_name().is_some_and(|n| n == ".git") {
        gitdir.parent()?
    } else {
        gitdir
    };
    let path = hooks_dir(&gitdir.join("config"), base)?;
    (path.starts_with(ws) && path != ws).then_some(path)
}

/// The directory `core.hooksPath` in the config file `config` names (the
/// sandbox keeps it read-only; the write tools refuse to write in it),
/// canonical where it exists; a relative value is taken from `base`, the
/// work tree. husky's `.husky/_`, whose scripts run the hooks one level
/// up, gives `.husky`. Read with git itself (`--includes`), so the value
/// is git's; without git, or with no such setting, none. Runs git every
/// time; [`super::hooks_path::HooksPathCache`] remembers it while the
/// files git read stay the same.
pub fn hooks_dir(config: &Path, base: &Path) -> Option<PathBuf> {
    super::hooks_path::read(config, base).and_then(|r| r.resolved())
}

/// Take away what makes `gitdir` (planted: not there when the shell
/// started) configure or run anything: its control entries are renamed
/// aside ([`quarantine`]). Objects and refs stay. Returns the new names.
pub fn neutralise(gitdir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let names = CONTROL_FILES
        .iter()
        .chain(CONTROL_DIRS)
        .chain(INDIRECTIONS)
        .chain(&["objects/info/alternates", "objects/info/http-alternates"]);
    for n in names {
        if let Some(q) = quarantine(&gitdir.join(n)) {
            removed.push(q);
        }
    }
    removed
}

/// Suffix of what [`quarantine`] renamed.
pub const QUARANTINE: &str = ".airlock-quarantined";

/// Rename `path` (never following a symlink) to `NAME.airlock-quarantined`
/// (or `…-2`, `-3` …) in the same directory, where git does not look:
/// nothing is lost, nothing is read. The new path, if it was there.
pub fn quarantine(path: &Path) -> Option<PathBuf> {
    std::fs::symlink_metadata(path).ok()?;
    let name = path.file_name()?.to_string_lossy().into_owned();
    for n in 1..1000 {
        let suffix = if n == 1 {
            String::new()
        } else {
            format!("-{n}")
        };
        let to = path.with_file_name(format!("{name}{QUARANTINE}{suffix}"));
        if std::fs::symlink_metadata(&to).is_ok() {
            continue;
        }
        return std::fs::rename(path, &to).ok().map(|()| to);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_made_and_planted_repositories_neutralised() {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        let g = ws.join(".git");
        std::fs::create_dir_all(g.join("objects")).unwrap();
        std::fs::create_dir_all(g.join("refs")).unwrap();
        std::fs::write(g.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(g.join("config"), "[core]\n").unwrap();
        let mut p = Protection::default();
        protect_gitdir(&g, &ws, &mut p).unwrap();
        assert_eq!(p.pinned, vec![g.clone(), g.join("objects")]);
        assert!(g.join("hooks").is_dir() && g.join("objects/info").is_dir());
        assert_eq!(std::fs::read(g.join("config.worktree")).unwrap(), b"");
        assert!(!p.readonly.contains(&g.join("commondir")));
        std::fs::write(g.join("commondir"), "../elsewhere").unwrap();
        std::fs::write(g.join("hooks/pre-commit"), "x").unwrap();
        let removed = neutralise(&g);
        assert!(removed.contains(&g.join("commondir.airlock-quarantined")));
        assert!(!g.join("hooks").exists() && !g.join("config").exists());
        assert!(g.join("hooks.airlock-quarantined/pre-commit").exists());
        assert!(g.join("HEAD").exists() && g.join("objects").is_dir());
    }
}
