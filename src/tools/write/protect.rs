//! What the write tools never write, in any mode and whatever a rule or
//! grant says: what configures or runs something outside the sandbox
//! later, the same set the sandbox keeps read-only.
//!
//! * the sandbox's `protect` list (`sandbox.protect`; the session hands
//!   the write tools the list it hands the sandbox): the agents' project
//!   settings (`.claude/`, `.mcp.json`, `.codex/`, `.gemini/`), airlock's
//!   project config, and whatever the user adds. Matched below every root
//!   (an extra root may be a home directory, whose `.claude/` is the
//!   user's own) and at any depth (an agent started in a subdirectory
//!   reads that directory's), ignoring letter case as exclusions do;
//! * the directory `core.hooksPath` of an enclosing repository names
//!   (husky's `.husky/`): git runs what is in it (the sandbox's rule,
//!   [`crate::sandbox::git::hooks_dir`], remembered per session while the
//!   config files git read stay the same,
//!   [`crate::sandbox::hooks_path::HooksPathCache`]);
//! * airlock's own user configuration directory, the config files in
//!   force, its data directory (trails, logs, `init` records) and runtime
//!   directories: a write there would configure the next session (the
//!   list of [`crate::sandbox::own`], the one the sandbox keeps read-only
//!   where the shell may write).
//!
//! `.git` and `.airlock.toml` at any depth, and git repositories by their
//! shape, are refused by [`super::target`] whatever this says.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::sandbox::hooks_path::HooksPathCache;
use crate::sandbox::own::{OwnPath, below_folded, canonical_or_lexical, lexical};
use crate::scope::{Scope, ScopeError, same_name};

/// The names of git's hooks: in a hooks directory that is a root itself
/// (`core.hooksPath = .`), these are what git would run.
const GIT_HOOKS: &[&str] = &[
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "p4-changelist",
    "p4-prepare-changelist",
    "p4-post-changelist",
    "p4-pre-submit",
    "post-index-change",
];

/// A protected path relative to a root, matched at any depth.
#[derive(Debug, Clone)]
struct Name {
    /// As configured (`.claude/`), for the refusal.
    entry: String,
    /// Its components.
    parts: Vec<String>,
}

/// What the write tools refuse besides excluded names, `.git` and the
/// project config (see the module documentation). The default refuses
/// nothing more.
#[derive(Debug, Clone, Default)]
pub struct Protection {
    /// `protect` entries relative to a root.
    names: Vec<Name>,
    /// Absolute paths refused with everything below them.
    paths: Vec<PathBuf>,
    /// Refuse what is in a `core.hooksPath` directory.
    hooks: bool,
    /// The repositories' `core.hooksPath`, remembered while their config
    /// files stay the same (shared by the clones: one per session).
    hooks_paths: Arc<HooksPathCache>,
}

impl Protection {
    /// The protection of the `protect` list (the sandbox's spelling: a
    /// trailing `/` or `?` is the sandbox's business, the path is protected
    /// either way; `~/…` is below `home`; a relative entry with `..` or an
    /// absolute one names that path alone) plus `own`, airlock's own paths
    /// ([`crate::sandbox::own::airlock_paths`], the list the session hands
    /// the sandbox too).
    pub fn new(protect: &[String], workspace: &Path, home: Option<&Path>, own: &[OwnPath]) -> Self {
        let mut p = Self {
            names: Vec::new(),
            paths: own.iter().map(|o| o.path.clone()).collect(),
            hooks: true,
            hooks_paths: Arc::default(),
        };
        for entry in protect {
            let bare = entry.trim_end_matches('?').trim_end_matches('/');
            if bare.is_empty() {
                continue;
            }
            if let Some(rest) = bare.strip_prefix("~/") {
                if let Some(h) = home {
                    p.paths.push(h.join(rest));
                }
                continue;
            }
            let path = Path::new(bare);
            let plain = path.components().all(|c| matches!(c, Component::Normal(_)));
            if plain {
                p.names.push(Name {
                    entry: entry.clone(),
                    parts: path
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy().into_owned())
                        .collect(),
                });
            } else {
                p.paths.push(lexical(&workspace.join(path)));
            }
        }
        p
    }

    /// The protection of the default `sandbox.protect` and airlock's
    /// default paths: what the built-in tools (asked about calls, not
    /// configured by a session) and tests use.
    pub fn builtin() -> Arc<Self> {
        static BUILTIN: OnceLock<Arc<Protection>> = OnceLock::new();
        BUILTIN
            .get_or_init(|| {
                let cfg = crate::sandbox::SandboxConfig::default();
                let home = std::env::var_os("HOME").map(PathBuf::from);
                let data = crate::dirs::data_dir(None);
                let own = crate::sandbox::own::airlock_paths(Path::new("/"), &data, &[]);
                Arc::new(Self::new(
                    &cfg.protect,
                    Path::new("/"),
                    home.as_deref(),
                    &own,
                ))
            })
            .clone()
    }

    /// How many times it has run `git config` for `core.hooksPath` (for
    /// tests and measurements: an unchanged repository runs it once).
    pub fn git_runs(&self) -> u64 {
        self.hooks_paths.git_runs()
    }

    /// Refuse `real` (canonical, in a root of `scope`; `shown` as the agent
    /// gave it) when it is protected.
    pub fn check(&self, scope: &Scope, shown: &str, real: &Path) -> Result<(), ScopeError> {
        let refuse = |pattern: String| {
            Err(ScopeError::Excluded {
                path: shown.to_string(),
                pattern,
            })
        };
        if let Some((_, rel)) = scope.within_root(real) {
            let parts: Vec<&OsStr> = rel.components().map(Component::as_os_str).collect();
            for n in &self.names {
                if contains_run(&parts, &n.parts) {
                    return refuse(format!(
                        "{} (protected: sandbox.protect; it configures what runs outside the sandbox)",
                        n.entry
                    ));
                }
            }
        }
        for p in &self.paths {
            if below_folded(real, &canonical_or_lexical(p)) {
                return refuse(format!(
                    "{} (protected: airlock's own configuration and data)",
                    scope.display(p)
                ));
            }
        }
        if let Some(hooks) = self
            .hooks
            .then(|| hooks_dir_holding(&self.hooks_paths, scope, real))
            .flatten()
        {
            return refuse(format!(
                "{} (protected: a repository's core.hooksPath; git runs what is in it)",
                scope.display(&hooks)
            ));
        }
        Ok(())
    }
}

/// Whether `parts` holds `run` as consecutive components (letter case
/// ignored).
fn contains_run(parts: &[&OsStr], run: &[String]) -> bool {
    !run.is_empty()
        && parts.len() >= run.len()
        && parts
            .windows(run.len())
            .any(|w| w.iter().zip(run).all(|(p, r)| same_name(p, r)))
}

/// The hooks directory (`core.hooksPath`) of a repository enclosing
/// `real` that holds it: anything below a hooks directory inside a root,
/// or a hook's name directly in one that is a root (or above one).
fn hooks_dir_holding(cache: &HooksPathCache, scope: &Scope, real: &Path) -> Option<PathBuf> {
    let root = scope.root_of(real)?;
    let parent = real.parent()?;
    for dir in parent.ancestors() {
        let Some((config, base)) = repository_config(dir) else {
            continue;
        };
        let Some(hooks) = cache.hooks_dir(&config, &base) else {
            continue;
        };
        if !below_folded(real, &hooks) || real == hooks {
            continue;
        }
        if !below_folded(root, &hooks) {
            return Some(hooks); // a directory inside the root: all of it
        }
        let is_hook = real
            .file_name()
            .and_then(OsStr::to_str)
            .is_some_and(|n| GIT_HOOKS.iter().any(|h| same_name(OsStr::new(n), h)));
        if parent == hooks && is_hook {
            return Some(hooks);
        }
    }
    None
}

/// The config file and work tree of the repository whose `.git` is in
/// `dir`: a `.git` directory's `config`, or a `.git` file's (`gitdir: …`,
/// a linked worktree or submodule) repository's, its `commondir`
/// followed. None: no `.git` there.
fn repository_config(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let dot = dir.join(".git");
    let meta = std::fs::metadata(&dot).ok()?;
    let gitdir = if meta.is_dir() {
        dot
    } else {
        let text = std::fs::read_to_string(&dot).ok()?;
        let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
        dir.join(target)
    };
    let common = match std::fs::read_to_string(gitdir.join("commondir")) {
        Ok(c) => gitdir.join(c.trim_end_matches('\n')),
        Err(_) => gitdir,
    };
    Some((common.join("config"), dir.to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(ToString::to_string).collect()
    }

    fn parts(s: &str) -> Vec<&OsStr> {
        Path::new(s).iter().collect()
    }

    #[test]
    fn entries_match_below_every_root_at_any_depth_in_any_case() {
        let p = Protection::new(
            &strings(&[".claude/", ".mcp.json?", "a/b"]),
            Path::new("/w"),
            None,
            &[],
        );
        let hit = |rel: &str| p.names.iter().any(|n| contains_run(&parts(rel), &n.parts));
        for yes in [
            ".claude/settings.json",
            "sub/.claude/x",
            ".CLAUDE/settings.json",
            ".mcp.json",
            "x/.MCP.json",
            "a/b/c",
            "z/a/b",
        ] {
            assert!(hit(yes), "{yes}");
        }
        for no in [
            "claude/x",
            ".claude.json",
            "src/.mcp.json.bak",
            "a/c/b",
            "b/a",
        ] {
            assert!(!hit(no), "{no}");
        }
    }

    #[test]
    fn other_spellings_are_paths() {
        let p = Protection::new(
            &strings(&["~/x/", "/abs/y", "../sib"]),
            Path::new("/w/ws"),
            Some(Path::new("/home/u")),
            &[OwnPath {
                path: PathBuf::from("/own"),
                kind: crate::sandbox::own::OwnKind::Dir,
            }],
        );
        assert!(p.names.is_empty());
        assert_eq!(
            p.paths,
            [
                PathBuf::from("/own"),
                PathBuf::from("/home/u/x"),
                PathBuf::from("/abs/y"),
                PathBuf::from("/w/sib"),
            ]
        );
    }
}
