//! Denied paths: refused inside the roots like excluded names, for reads
//! and writes alike. They are the sandbox's `deny_read` paths (`~/.ssh`,
//! `~/.config/gcloud` …), which the shell cannot see, and airlock's own
//! data directory (every session's audit trail, with output excerpts of
//! other projects, and the logs). Without this, an extra root holding
//! them (the home directory) or a data directory inside the workspace
//! served them to the read tools, and to the write tools to truncate.
//!
//! A denied path is compared with the checked path component by component,
//! in any letter case (as exclusions are: a case-folding filesystem opens
//! `~/.Config/gcloud` as `~/.config/gcloud`), by its absolute form and by
//! its canonical one. A denied path that holds the workspace does not deny
//! the workspace (nothing could be read), only the rest of it.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use super::{Scope, same_name};

/// One denied path.
#[derive(Debug, Clone)]
pub(super) struct Denied {
    /// What a refusal names: `~/.ssh (sandbox.deny_read)`.
    label: String,
    /// Its absolute form and, where different, its canonical one.
    forms: Vec<PathBuf>,
    /// It holds the workspace, which stays readable.
    holds_workspace: bool,
}

impl Denied {
    /// Whether `p` (absolute) is this path or below it.
    fn covers(&self, p: &Path, workspace: &Path) -> bool {
        self.forms.iter().any(|f| under(p, f)) && !(self.holds_workspace && under(p, workspace))
    }
}

/// Whether `p` is `prefix` or below it, comparing names in any letter case.
pub(super) fn under(p: &Path, prefix: &Path) -> bool {
    let mut names = p.components();
    prefix.components().all(|c| {
        names
            .next()
            .is_some_and(|n| same(n.as_os_str(), c.as_os_str()))
    })
}

/// Two names equal in any letter case (as exclusions compare them).
fn same(a: &OsStr, b: &OsStr) -> bool {
    a == b || b.to_str().is_some_and(|b| same_name(a, b))
}

/// `entry` as a path, as the sandbox reads `deny_read`: `~` is the home
/// directory, a relative path is in the workspace.
fn expand(entry: &str, workspace: &Path, home: Option<&Path>) -> Option<PathBuf> {
    if entry == "~" {
        return home.map(Path::to_path_buf);
    }
    if let Some(rest) = entry.strip_prefix("~/") {
        return home.map(|h| h.join(rest));
    }
    Some(workspace.join(entry))
}

/// `p` with `.` and `..` resolved without touching the disk.
fn normalised(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The canonical form of `p` (absolute, normalised): `realpath` where it
/// exists, else that of its deepest existing ancestor with the rest
/// appended (a data directory made later, under a symlinked parent).
fn canonical_form(p: &Path) -> Option<PathBuf> {
    let mut rest = Vec::new();
    let mut at = p;
    loop {
        if let Ok(real) = std::fs::canonicalize(at) {
            return Some(rest.iter().rev().fold(real, |acc: PathBuf, n| acc.join(n)));
        }
        rest.push(at.file_name()?);
        at = at.parent()?;
    }
}

impl Scope {
    /// Deny `paths` (the sandbox's `deny_read`; `~` expanded against
    /// `home`, relative paths in the workspace) in the scope, and never
    /// read their files under another name (see [`Scope::check_links`]).
    #[must_use]
    pub fn with_deny_read(mut self, paths: &[String], home: Option<&Path>) -> Self {
        for entry in paths {
            if let Some(p) = expand(entry, &self.workspace, home) {
                self.deny(&p, format!("{entry} (sandbox.deny_read)"));
            }
        }
        self
    }

    /// Deny airlock's data directory `dir` (its audit trails and logs) in
    /// the scope, like a `deny_read` path.
    #[must_use]
    pub fn with_data_dir(mut self, dir: &Path) -> Self {
        let abs = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        self.deny(
            &abs,
            format!("{} (airlock's data directory)", abs.display()),
        );
        self
    }

    /// Deny `p` (absolute), named `label` in refusals.
    fn deny(&mut self, p: &Path, label: String) {
        let abs = normalised(p);
        let mut forms = vec![abs.clone()];
        if let Some(real) = canonical_form(&abs).filter(|r| *r != abs) {
            forms.push(real);
        }
        let holds_workspace = forms.iter().any(|f| under(&self.workspace, f));
        // The inode walk for hard links: all but one that holds the
        // workspace (every file of the workspace would be a secret).
        if !holds_workspace {
            self.deny_read.push(forms.last().cloned().unwrap_or(abs));
        }
        // Only one a root holds or that holds a root can refuse a path
        // inside the roots; the others cost nothing at every check.
        let reaches_roots = forms
            .iter()
            .any(|f| self.roots.iter().any(|r| under(f, r) || under(r, f)));
        if reaches_roots {
            self.denied.push(Denied {
                label,
                forms,
                holds_workspace,
            });
        }
    }

    /// The denied path holding `p` (absolute), named as a refusal names
    /// it, if any.
    pub(super) fn denied_by(&self, p: &Path) -> Option<&str> {
        self.denied
            .iter()
            .find(|d| d.covers(p, &self.workspace))
            .map(|d| d.label.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn under_compares_whole_names_in_any_case() {
        let p = Path::new;
        assert!(under(p("/h/.ssh"), p("/h/.ssh")));
        assert!(under(p("/h/.ssh/id"), p("/h/.ssh")));
        assert!(under(p("/h/.SSH/id"), p("/h/.ssh")));
        assert!(under(p("/H/.config/gcloud/x"), p("/h/.Config/gcloud")));
        assert!(!under(p("/h/.sshx/id"), p("/h/.ssh")));
        assert!(!under(p("/h"), p("/h/.ssh")));
        assert!(!under(p("/x/.ssh"), p("/h/.ssh")));
    }

    #[test]
    fn deny_read_entries_expand_like_the_sandbox() {
        let ws = Path::new("/ws");
        let home = Some(Path::new("/home/u"));
        assert_eq!(expand("~", ws, home), Some(PathBuf::from("/home/u")));
        assert_eq!(
            expand("~/.ssh", ws, home),
            Some(PathBuf::from("/home/u/.ssh"))
        );
        assert_eq!(expand("~/.ssh", ws, None), None);
        assert_eq!(expand("/etc/x", ws, home), Some(PathBuf::from("/etc/x")));
        assert_eq!(expand("local", ws, home), Some(PathBuf::from("/ws/local")));
    }

    /// A workspace and a home directory (an extra root) holding gcloud's
    /// credentials; `g` in the workspace links to them.
    fn fixture() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let (ws, home) = (base.join("ws"), base.join("home"));
        std::fs::create_dir_all(home.join(".config/gcloud")).unwrap();
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::write(home.join(".config/gcloud/adc.json"), "SECRET").unwrap();
        std::fs::write(home.join("notes.txt"), "hello").unwrap();
        std::os::unix::fs::symlink(home.join(".config/gcloud"), ws.join("g")).unwrap();
        (dir, ws, home)
    }

    fn refused(e: &super::super::ScopeError, why: &str) -> bool {
        matches!(e, super::super::ScopeError::Excluded { .. }) && e.to_string().contains(why)
    }

    #[test]
    fn deny_read_paths_in_a_root_are_refused_like_exclusions() {
        let (_dir, ws, home) = fixture();
        let plain = Scope::new(&ws, std::slice::from_ref(&home), &[]).unwrap();
        let scope = plain
            .clone()
            .with_deny_read(&["~/.config/gcloud".into()], Some(&home));
        let creds = home.join(".config/gcloud/adc.json");
        for p in [
            creds.display().to_string(),
            home.join(".CONFIG/gcloud/adc.json").display().to_string(),
            home.join(".config/gcloud").display().to_string(),
            "g/adc.json".to_string(),
            "g/nosuch".to_string(),
        ] {
            let e = scope.resolve(&p).unwrap_err();
            assert!(
                refused(&e, "~/.config/gcloud (sandbox.deny_read)"),
                "{p}: {e}"
            );
        }
        let e = scope.open_file(&creds.display().to_string()).unwrap_err();
        assert!(refused(&e, "sandbox.deny_read"), "{e}");
        assert_eq!(
            scope.excluded_by(&creds),
            Some("~/.config/gcloud (sandbox.deny_read)")
        );
        assert!(
            scope
                .resolve(&home.join("notes.txt").display().to_string())
                .is_ok()
        );
        // CONTROL: without deny_read the credentials are read.
        assert!(plain.open_file(&creds.display().to_string()).is_ok());
        assert!(plain.open_file("g/adc.json").is_ok());
    }

    #[test]
    fn the_data_directory_is_refused() {
        let (_dir, ws, _home) = fixture();
        let trail = ws.join(".airlock-data/audit/s.jsonl");
        std::fs::create_dir_all(trail.parent().unwrap()).unwrap();
        std::fs::write(&trail, "{}\n").unwrap();
        let plain = Scope::new(&ws, &[], &[]).unwrap();
        let scope = plain.clone().with_data_dir(&ws.join(".airlock-data"));
        let rel = ".airlock-data/audit/s.jsonl";
        let e = scope.open_file(rel).unwrap_err();
        assert!(refused(&e, "(airlock's data directory)"), "{e}");
        // What the write tools check, for a file there or a new one
        // (`tests/scope_denied.rs` writes through the tools).
        let new = ws.join(".airlock-data/new");
        let e = scope.check_real(".airlock-data/new", &new).unwrap_err();
        assert!(refused(&e, "(airlock's data directory)"), "{e}");
        // CONTROL: without it the trail is read like any file.
        assert!(plain.open_file(rel).is_ok());
        assert!(plain.check_real(".airlock-data/new", &new).is_ok());
    }

    #[test]
    fn a_denied_path_holding_the_workspace_denies_only_the_rest() {
        let (_dir, ws, home) = fixture();
        std::fs::write(ws.join("a.txt"), "x").unwrap();
        let base = ws.parent().unwrap().to_path_buf();
        let scope = Scope::new(&ws, std::slice::from_ref(&home), &[])
            .unwrap()
            .with_deny_read(&[base.display().to_string()], None);
        assert!(scope.open_file("a.txt").is_ok());
        let e = scope
            .open_file(&home.join("notes.txt").display().to_string())
            .unwrap_err();
        assert!(refused(&e, "sandbox.deny_read"), "{e}");
    }
}
