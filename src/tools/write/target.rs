//! Where a write may go: resolving a target path inside the write scope.

use std::path::{Path, PathBuf};

use super::chain::Level;
use super::protect::Protection;
use crate::dirs::PROJECT_CONFIG;
use crate::sandbox::repo::{self, Planned};
use crate::scope::{FileKind, Scope, ScopeError};

/// Names inside the workspace that writes never touch, whatever the
/// exclusions say (at any depth, case-insensitively): git's internals and
/// airlock's own project config (a nested one configures an airlock
/// started in its directory). Git repositories by their shape too: see
/// [`check_repository`].
pub const PROTECTED: &[&str] = &[".git", PROJECT_CONFIG];

/// A checked write target.
#[derive(Debug, Clone)]
pub struct Target {
    /// The path as the agent gave it.
    pub shown: String,
    /// The canonical directory the file lives in (may not exist yet).
    pub dir: PathBuf,
    /// The file name inside `dir`.
    pub name: std::ffi::OsString,
    /// The first ancestor of `dir` that exists (canonical); directories
    /// below it are created on write.
    pub existing_ancestor: PathBuf,
}

impl Target {
    /// The full canonical path.
    pub fn path(&self) -> PathBuf {
        self.dir.join(&self.name)
    }
}

/// [`resolve_with`] no [`Protection`]: the scope, the protected names and
/// repositories only. For looking at an agent's own write (the hooks'
/// diff): the supervisor checks its paths with the session's protection
/// before anything is decided.
pub fn resolve(scope: &Scope, path: &str) -> Result<Target, ScopeError> {
    resolve_with(scope, &Protection::default(), path)
}

/// Resolve `path` for writing: relative to the workspace; an existing
/// symlink is followed (and must stay in scope); a missing file's deepest
/// existing ancestor is canonicalised and the rest appended. The result
/// must be in a root, not excluded, not protected (by name, by
/// `protection`, or as a repository's control file), and not an existing
/// non-regular file. These are checks of paths: the write itself checks
/// again the directories it opens ([`super::apply::open_for_write`]).
pub fn resolve_with(
    scope: &Scope,
    protection: &Protection,
    path: &str,
) -> Result<Target, ScopeError> {
    let lexical = scope.absolute(path)?;
    check_names(scope, path, &lexical)?;
    let real = match std::fs::symlink_metadata(&lexical) {
        Ok(_) => std::fs::canonicalize(&lexical).map_err(|e| io(path, &e))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let (ancestor, rest) = split_existing(&lexical).map_err(|e| io(path, &e))?;
            let canon = std::fs::canonicalize(&ancestor).map_err(|e| io(path, &e))?;
            if !canon.is_dir() {
                let kind = std::fs::metadata(&canon)
                    .map_or_else(|_| "file".into(), |m| FileKind::of(&m).as_str().to_string());
                return Err(ScopeError::NotADirectory {
                    path: scope.display(&canon),
                    kind,
                });
            }
            canon.join(rest)
        }
        Err(e) => return Err(io(path, &e)),
    };
    scope.check_real(path, &real)?;
    check_names(scope, path, &real)?;
    protection.check(scope, path, &real)?;
    check_repository(scope, path, &real)?;
    if let Ok(meta) = std::fs::metadata(&real) {
        let kind = FileKind::of(&meta);
        if kind != FileKind::File {
            return Err(ScopeError::NotRegularFile {
                path: path.to_string(),
                kind: kind.as_str().into(),
            });
        }
    }
    let (Some(dir), Some(name)) = (real.parent(), real.file_name()) else {
        return Err(ScopeError::Invalid {
            path: path.into(),
            message: "not a file path".into(),
        });
    };
    let (existing_ancestor, _) = split_existing(dir).map_err(|e| io(path, &e))?;
    Ok(Target {
        shown: path.to_string(),
        dir: dir.to_path_buf(),
        name: name.to_os_string(),
        existing_ancestor,
    })
}

/// Refuse excluded and protected names (checked on the lexical path and
/// on the resolved one).
pub(super) fn check_names(scope: &Scope, shown: &str, p: &Path) -> Result<(), ScopeError> {
    let Some(root) = scope.root_of(p) else {
        return Ok(()); // the root check reports it
    };
    let Ok(rel) = p.strip_prefix(root) else {
        return Ok(());
    };
    scope.check_excluded(shown, p)?;
    let named = |n: &str| {
        rel.components()
            .any(|c| crate::scope::same_name(c.as_os_str(), n))
    };
    for n in PROTECTED {
        if named(n) {
            return Err(ScopeError::Excluded {
                path: shown.to_string(),
                pattern: format!("{n} (protected)"),
            });
        }
    }
    Ok(())
}

/// Refuse `real` (canonical, in a root) when an ancestor directory up to
/// its root is a git repository ([`repo::is_repository`], bare ones
/// included: the write would land in its control files), or would become
/// one with the file in place (`HEAD`, `objects/…`, `refs/…`, `commondir`
/// completing it). Host-side git would read its config and run its hooks;
/// the write tools run outside the sandbox, so the guard never sees them.
/// By path; the write asks the same of the directories it opened
/// ([`check_repository_along`]).
pub(super) fn check_repository(scope: &Scope, shown: &str, real: &Path) -> Result<(), ScopeError> {
    let Some(root) = scope.root_of(real) else {
        return Ok(());
    };
    let mut levels = Vec::new();
    let mut child = real;
    while let Some(dir) = child.parent() {
        let (Ok(rel), Some(name)) = (dir.strip_prefix(root), child.file_name()) else {
            break;
        };
        levels.push(Level {
            through: dir.to_path_buf(),
            rel: rel.to_path_buf(),
            child: name,
            child_is_dir: child != real,
        });
        if dir == root {
            break;
        }
        child = dir;
    }
    check_repository_along(shown, levels)
}

/// [`check_repository`] of the directories `levels` (from the file's
/// directory up to the root), each looked at through `through`.
pub(super) fn check_repository_along<'a>(
    shown: &str,
    levels: impl IntoIterator<Item = Level<'a>>,
) -> Result<(), ScopeError> {
    let refuse = |rel: &Path, why: &str| {
        let name = if rel.as_os_str().is_empty() {
            ".".to_string()
        } else {
            rel.display().to_string()
        };
        Err(ScopeError::Excluded {
            path: shown.to_string(),
            pattern: format!("git repository {name} (protected: {why}; host git would read it)"),
        })
    };
    for l in levels {
        let dir = l.through.as_path();
        if repo::is_repository(dir) {
            return refuse(&l.rel, "its control files");
        }
        let planned = if l.child_is_dir {
            Planned::Dir
        } else {
            Planned::File
        };
        if repo::would_be_repository(dir, l.child, planned) {
            return refuse(&l.rel, "the write would make it a repository");
        }
    }
    Ok(())
}

/// Split `p` into its deepest existing ancestor and the missing rest.
fn split_existing(p: &Path) -> std::io::Result<(PathBuf, PathBuf)> {
    let mut ancestor = p.to_path_buf();
    let mut rest = Vec::new();
    loop {
        match std::fs::symlink_metadata(&ancestor) {
            Ok(_) => break,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let Some(name) = ancestor.file_name() else {
                    return Err(e);
                };
                rest.push(name.to_os_string());
                if !ancestor.pop() {
                    return Err(e);
                }
            }
            Err(e) => return Err(e),
        }
    }
    let rest: PathBuf = rest.iter().rev().collect();
    Ok((ancestor, rest))
}

fn io(path: &str, e: &std::io::Error) -> ScopeError {
    if e.kind() == std::io::ErrorKind::NotFound {
        return ScopeError::NotFound {
            path: path.to_string(),
        };
    }
    if e.raw_os_error() == Some(libc::ELOOP) {
        return ScopeError::Io {
            path: path.to_string(),
            message: "too many levels of symbolic links (a symlink loop)".into(),
        };
    }
    ScopeError::Io {
        path: path.to_string(),
        message: e.to_string(),
    }
}
