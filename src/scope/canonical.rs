//! Canonicalising an agent's path without answering for what exists
//! outside the scope.
//!
//! `realpath` fails on a missing name, so "not found" for
//! `/root/.nonexistent` beside "outside the allowed roots" for
//! `/root/.bashrc` told an agent which files exist anywhere on the
//! machine (also through a symlink in the workspace: `out/sub` against
//! `out/nosuch`, or a dangling link). When resolving fails, the path is
//! resolved as far as it exists, as the kernel would (symlinks followed,
//! `..` taken on the resolved directory), and the point reached is checked
//! like a resolved path: outside every root it is "outside the allowed
//! roots", excluded or denied it is "excluded", and only inside the scope
//! is the real error (not found, a loop, permissions) told.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use super::{Scope, ScopeError, io_error};

/// Most symlinks followed while resolving (Linux's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

impl Scope {
    /// `realpath` of `lexical` (absolute), or why not in words that depend
    /// only on what is inside the scope (see the module's documentation).
    pub fn canonical(&self, shown: &str, lexical: &Path) -> Result<PathBuf, ScopeError> {
        std::fs::canonicalize(lexical).map_err(|e| self.unresolved(shown, lexical, &e))
    }

    /// The error for `lexical`, which `realpath` could not resolve with
    /// `e`: a scope refusal of the point reached, else `e`.
    fn unresolved(&self, shown: &str, lexical: &Path, e: &std::io::Error) -> ScopeError {
        let (reached, rest) = resolve_partly(lexical);
        if let Err(refused) = self.check_real(shown, &reached) {
            return refused;
        }
        // What the missing rest would be named (`link -> .env` with no
        // `.env` is refused as `.env` is).
        let mut would_be = reached;
        for name in rest {
            if name == ".." {
                would_be.pop();
            } else if name != "." {
                would_be.push(name);
            }
        }
        if let Err(refused) = self.check_excluded(shown, &would_be) {
            return refused;
        }
        io_error(shown, e)
    }
}

/// `path` (absolute) resolved as far as it can be looked at: the canonical
/// path reached and the names left when a name is missing, cannot be
/// looked at, is not a directory to go through or too many symlinks were
/// followed.
pub(super) fn resolve_partly(path: &Path) -> (PathBuf, Vec<OsString>) {
    let mut pending: VecDeque<OsString> = VecDeque::new();
    push_front(&mut pending, path);
    let mut at = PathBuf::from("/");
    let mut links = 0usize;
    while let Some(name) = pending.pop_front() {
        if name == "/" {
            at = PathBuf::from("/");
            continue;
        }
        if name == "." {
            continue;
        }
        if name == ".." {
            at.pop();
            continue;
        }
        let next = at.join(&name);
        let stop = |pending: VecDeque<OsString>| {
            let mut rest = vec![name.clone()];
            rest.extend(pending);
            rest
        };
        let Ok(meta) = std::fs::symlink_metadata(&next) else {
            return (at, stop(pending));
        };
        if meta.file_type().is_symlink() {
            links += 1;
            let target = match std::fs::read_link(&next) {
                Ok(t) if links <= MAX_LINKS => t,
                _ => return (at, stop(pending)),
            };
            push_front(&mut pending, &target);
            continue;
        }
        if !meta.is_dir() && !pending.is_empty() {
            // A file cannot be gone through: it is the point reached.
            return (next, pending.into());
        }
        at = next;
    }
    (at, Vec::new())
}

/// Put `p`'s components in front of `pending`, in order (`/` for a root).
fn push_front(pending: &mut VecDeque<OsString>, p: &Path) {
    for c in p.components().rev() {
        let name = match c {
            Component::RootDir | Component::Prefix(_) => OsString::from("/"),
            Component::CurDir => OsString::from("."),
            Component::ParentDir => OsString::from(".."),
            Component::Normal(n) => n.to_os_string(),
        };
        pending.push_front(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn canon(p: &Path) -> PathBuf {
        std::fs::canonicalize(p).unwrap()
    }

    #[test]
    fn resolves_as_far_as_it_exists() {
        let dir = tempfile::tempdir().unwrap();
        let d = canon(dir.path());
        std::fs::create_dir_all(d.join("a/b")).unwrap();
        std::fs::write(d.join("a/f"), "").unwrap();
        symlink(d.join("a"), d.join("la")).unwrap();
        symlink("a/b/../missing/x", d.join("dangling")).unwrap();
        symlink("loop", d.join("loop")).unwrap();
        let r = |p: &str| resolve_partly(&d.join(p));
        let names = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(r("a/b"), (d.join("a/b"), vec![]));
        assert_eq!(r("la/b/nosuch/y"), (d.join("a/b"), names(&["nosuch", "y"])));
        assert_eq!(r("dangling"), (d.join("a"), names(&["missing", "x"])));
        assert_eq!(r("a/f/x"), (d.join("a/f"), names(&["x"])));
        assert_eq!(r("loop").0, d);
        // Where it resolves, it is `realpath`.
        assert_eq!(r("la/b/../f").0, canon(&d.join("la/b/../f")));
    }

    /// A workspace with a link `out` to a directory outside holding
    /// `there.txt`, dangling and live links into it, and a link to a
    /// missing `.env`.
    fn fixture() -> (tempfile::TempDir, tempfile::TempDir, Scope) {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let o = canon(outside.path());
        std::fs::write(o.join("there.txt"), "x").unwrap();
        std::fs::create_dir(o.join("sub")).unwrap();
        let w = ws.path();
        symlink(&o, w.join("out")).unwrap();
        symlink(o.join("there.txt"), w.join("live")).unwrap();
        symlink(o.join("nosuch.txt"), w.join("dangling")).unwrap();
        symlink(".env", w.join("to-env")).unwrap();
        std::fs::create_dir(w.join(".ssh")).unwrap();
        symlink(".ssh", w.join("to-ssh")).unwrap();
        let scope = Scope::new(w, &[], &[".env".into(), ".ssh".into()]).unwrap();
        (ws, outside, scope)
    }

    #[test]
    fn what_exists_outside_the_scope_is_never_told() {
        let (_ws, outside, scope) = fixture();
        let o = canon(outside.path());
        let abs = |name: &str| o.join(name).display().to_string();
        // Pairs that differ only in whether something outside exists.
        let pairs = [
            (abs("there.txt"), abs("nosuch.txt")),
            (abs("sub/x"), abs("nosuch/x")),
            ("out/there.txt".into(), "out/nosuch.txt".into()),
            ("out/sub".into(), "out/nosuch".into()),
            ("live".into(), "dangling".into()),
            ("out/there.txt/x".into(), "out/nosuch.txt/x".into()),
        ];
        for (exists, missing) in &pairs {
            for p in [exists, missing] {
                let e = scope.resolve(p).unwrap_err();
                assert!(matches!(e, ScopeError::OutsideRoots { .. }), "{p}: {e}");
                let e = scope.open_file(p).unwrap_err();
                assert!(matches!(e, ScopeError::OutsideRoots { .. }), "{p}: {e}");
                let e = scope.lstat(p).unwrap_err();
                assert!(matches!(e, ScopeError::OutsideRoots { .. }), "{p}: {e}");
            }
            // CONTROL: `realpath` tells them apart, and the error it gives
            // the missing one is what the scope used to answer.
            let missing_abs = scope.absolute(missing).unwrap();
            let e = std::fs::canonicalize(&missing_abs).unwrap_err();
            assert!(matches!(io_error(missing, &e), ScopeError::NotFound { .. }));
        }
        // Excluded whether or not it exists; not found only inside.
        for p in ["to-env", "to-ssh/id_rsa", "to-ssh/nosuch"] {
            let e = scope.resolve(p).unwrap_err();
            assert!(matches!(e, ScopeError::Excluded { .. }), "{p}: {e}");
        }
        for p in ["nosuch", "out-nosuch/../nosuch"] {
            let e = scope.resolve(p).unwrap_err();
            assert!(matches!(e, ScopeError::NotFound { .. }), "{p}: {e}");
        }
    }
}
