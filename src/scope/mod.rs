//! Path scope: which paths an agent may touch.
//!
//! A path is resolved against the workspace, fully canonicalised (`..`,
//! symlinks, dangling symlinks), and must land inside an allowed root and
//! match no exclusion pattern. Files are then opened and the opened object is
//! checked again through `/proc/self/fd` (or opened with
//! `openat2(RESOLVE_NO_SYMLINKS)` on a filesystem that cannot fold case,
//! where the checked name is the opened file's name), so the I/O happens on
//! exactly what was checked (no check-then-open race).

mod canonical;
mod config;
mod denied;
mod dir;
mod exact;
mod exclude;
mod links;
mod open;

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

pub use config::ScopeConfig;
pub use dir::{CheckedDir, LinkTarget, Lstat};
pub use exclude::{Exclusions, fold_path, fold_pattern, same_name};
pub use links::{HardLinks, PACKAGE_DIRS};
pub use open::FileKind;

/// The default exclusion patterns (matched ignoring letter case; `.env~`
/// is an editor's backup of `.env`).
pub const DEFAULT_EXCLUDED: &[&str] =
    &[".env", ".env.*", ".env~", ".ssh", ".aws", "*.pem", "*.key"];

/// Why a path was refused.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum ScopeError {
    /// The resolved path is not inside any allowed root.
    #[error(
        "{path}: outside the allowed roots ({roots}); airlock only gives access to the workspace and configured roots"
    )]
    OutsideRoots {
        /// The path as given.
        path: String,
        /// The allowed roots, comma-separated.
        roots: String,
    },
    /// The path (or an ancestor) matches an exclusion pattern.
    #[error("{path}: excluded by pattern {pattern:?}; airlock never gives access to it")]
    Excluded {
        /// The path as given.
        path: String,
        /// The pattern that matched.
        pattern: String,
    },
    /// Nothing exists there.
    #[error("{path}: not found")]
    NotFound {
        /// The path as given.
        path: String,
    },
    /// A file was expected, something else is there.
    #[error("{path}: not a regular file (it is a {kind})")]
    NotRegularFile {
        /// The path as given.
        path: String,
        /// What it is: directory, FIFO, socket, device …
        kind: String,
    },
    /// A directory was expected.
    #[error("{path}: not a directory (it is a {kind})")]
    NotADirectory {
        /// The path as given.
        path: String,
        /// What it is.
        kind: String,
    },
    /// The path is not usable (empty, NUL byte, too long …).
    #[error("{path}: invalid path: {message}")]
    Invalid {
        /// The path as given.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A file with several hard links that may be a secret's other name.
    #[error("{path}: refused: the file has more than one hard link and {reason}")]
    HardLink {
        /// The path as given.
        path: String,
        /// Why it is refused.
        reason: String,
    },
    /// A search the agent runs itself (its own recursive tool, which
    /// airlock does not run and cannot filter) could reach a path the
    /// scope refuses somewhere below where it starts.
    #[error(
        "{root}: {tool} searches below it and could read {found}; so the whole search is refused (name a directory or pattern that leaves it out, or use airlock's {instead}, which hides such entries)"
    )]
    SearchReaches {
        /// Where the search starts, as shown.
        root: String,
        /// The agent's tool.
        tool: String,
        /// airlock's own tool for the same search.
        instead: String,
        /// Why the path below is refused.
        found: Box<ScopeError>,
    },
    /// Another I/O error (permissions, a symlink loop …).
    #[error("{path}: {message}")]
    Io {
        /// The path as given.
        path: String,
        /// The OS error.
        message: String,
    },
}

/// The allowed roots and exclusion patterns of a supervisor session.
#[derive(Debug, Clone)]
pub struct Scope {
    workspace: PathBuf,
    roots: Vec<PathBuf>,
    exclusions: Exclusions,
    /// Where files are never read under another name (the hard-link
    /// check's walk): `deny_read` paths and the data directory.
    deny_read: Vec<PathBuf>,
    /// Paths refused like excluded names (`denied`).
    denied: Vec<denied::Denied>,
    hard_links: HardLinks,
    secret_inodes: Arc<links::SecretInodes>,
    /// Devices of roots whose filesystem cannot fold case: there a checked
    /// name is the name of what it opens (`exact`).
    exact_devices: Vec<u64>,
}

impl Scope {
    /// A scope of `workspace` plus `extra_roots`, excluding `excluded`
    /// globs. Every root must exist; roots are canonicalised.
    pub fn new(
        workspace: &Path,
        extra_roots: &[PathBuf],
        excluded: &[String],
    ) -> Result<Self, ScopeError> {
        let canon = |p: &Path| {
            std::fs::canonicalize(p).map_err(|e| ScopeError::Io {
                path: p.display().to_string(),
                message: format!("cannot use as a root: {e}"),
            })
        };
        let workspace = canon(workspace)?;
        let mut roots = vec![workspace.clone()];
        for r in extra_roots {
            let r = if r.is_relative() {
                workspace.join(r)
            } else {
                r.clone()
            };
            let r = canon(&r)?;
            if !roots.contains(&r) {
                roots.push(r);
            }
        }
        let kernel = exact::Kernel::probe();
        let exact_devices = roots
            .iter()
            .filter_map(|r| exact::exact_device(r, kernel))
            .collect();
        let exclusions = Exclusions::new(excluded).map_err(|message| ScopeError::Invalid {
            path: "excluded".into(),
            message,
        })?;
        Ok(Self {
            workspace,
            roots,
            exclusions,
            deny_read: Vec::new(),
            denied: Vec::new(),
            hard_links: HardLinks::default(),
            secret_inodes: Arc::default(),
            exact_devices,
        })
    }

    /// The canonical workspace directory.
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// The canonical allowed roots; the workspace is first.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The exclusion patterns.
    pub fn exclusions(&self) -> &Exclusions {
        &self.exclusions
    }

    /// The agent-supplied path made absolute (relative paths are against the
    /// workspace) and normalised lexically, without touching the disk.
    pub fn absolute(&self, path: &str) -> Result<PathBuf, ScopeError> {
        if path.is_empty() {
            return Err(ScopeError::Invalid {
                path: path.into(),
                message: "empty path".into(),
            });
        }
        if path.contains('\0') {
            return Err(ScopeError::Invalid {
                path: path.replace('\0', "\\0"),
                message: "contains a NUL byte".into(),
            });
        }
        if path.len() > MAX_PATH_BYTES {
            return Err(ScopeError::Invalid {
                path: shorten(path),
                message: format!(
                    "name too long: the path is {} bytes (the limit is {MAX_PATH_BYTES})",
                    path.len()
                ),
            });
        }
        let p = Path::new(path);
        if let Some(long) = p
            .components()
            .map(|c| c.as_os_str().len())
            .find(|n| *n > MAX_NAME_BYTES)
        {
            return Err(ScopeError::Invalid {
                path: shorten(path),
                message: format!(
                    "name too long: a path component is {long} bytes (the limit is {MAX_NAME_BYTES})"
                ),
            });
        }
        // `workspace.join(p)`, normalised as it is built (one allocation).
        let base = if p.is_absolute() {
            Path::new("")
        } else {
            self.workspace.as_path()
        };
        let mut out = PathBuf::with_capacity(base.as_os_str().len() + path.len() + 1);
        for c in base.components().chain(p.components()) {
            match c {
                Component::ParentDir => {
                    out.pop();
                }
                Component::CurDir => {}
                other => out.push(other.as_os_str()),
            }
        }
        Ok(out)
    }

    /// The root containing `real` (a canonical path), if any.
    pub fn root_of(&self, real: &Path) -> Option<&Path> {
        self.within_root(real).map(|(root, _)| root)
    }

    /// The root containing `real` and `real` relative to it.
    pub(crate) fn within_root<'s, 'p>(&'s self, real: &'p Path) -> Option<(&'s Path, &'p Path)> {
        self.roots.iter().find_map(|r| {
            let rel = below(real, r)?;
            Some((r.as_path(), rel))
        })
    }

    /// Check a canonical path: inside a root, not excluded and not
    /// denied (a `deny_read` path, the data directory).
    pub fn check_real(&self, shown: &str, real: &Path) -> Result<(), ScopeError> {
        if self.root_of(real).is_none() {
            return Err(ScopeError::OutsideRoots {
                path: shown.to_string(),
                roots: self.roots_display(),
            });
        }
        self.check_excluded(shown, real)?;
        Ok(())
    }

    /// Refuse `p` (absolute, under a root) when it or an ancestor matches an
    /// exclusion pattern or is denied; paths outside every root pass (the
    /// root check reports them).
    pub fn check_excluded(&self, shown: &str, p: &Path) -> Result<(), ScopeError> {
        match self.excluded_by(p) {
            Some(pattern) => Err(ScopeError::Excluded {
                path: shown.to_string(),
                pattern: pattern.to_string(),
            }),
            None => Ok(()),
        }
    }

    /// Resolve an agent-supplied path to its canonical form and check it.
    /// The target must exist. The lexical path is checked against the
    /// exclusions too, so a name like `.env` is refused even when it is a
    /// symlink to an innocent file. A path that does not resolve is refused
    /// as outside or excluded when the point it resolves to is, so what
    /// exists outside the scope is never told ([`Scope::canonical`]).
    pub fn resolve(&self, path: &str) -> Result<PathBuf, ScopeError> {
        let lexical = self.absolute(path)?;
        self.check_excluded(path, &lexical)?;
        let real = self.canonical(path, &lexical)?;
        self.check_real(path, &real)?;
        Ok(real)
    }

    /// How to show a path to the agent: relative to the workspace when
    /// inside it, absolute otherwise.
    pub fn display(&self, path: &Path) -> String {
        match path.strip_prefix(&self.workspace) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }

    fn roots_display(&self) -> String {
        self.roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// `path` relative to `root` when `path` is `root` or below it: what
/// `Path::strip_prefix` says, found first by comparing bytes (both
/// normalised, the common case), component by component otherwise.
fn below<'a>(path: &'a Path, root: &Path) -> Option<&'a Path> {
    use std::os::unix::ffi::OsStrExt;
    let (p, r) = (path.as_os_str().as_bytes(), root.as_os_str().as_bytes());
    if let Some(rest) = p.strip_prefix(r) {
        // `r` followed by nothing or a separator; or `r` is `/`.
        if rest.is_empty() || rest[0] == b'/' || r.ends_with(b"/") {
            let rest = rest.strip_prefix(b"/").unwrap_or(rest);
            // Another separator or a `.` next: not normalised, ask
            // `strip_prefix`.
            if !matches!(rest.first(), Some(b'/' | b'.')) {
                return Some(Path::new(std::ffi::OsStr::from_bytes(rest)));
            }
        }
    }
    path.strip_prefix(root).ok()
}

/// Longest path accepted, in bytes (Linux `PATH_MAX` less the NUL).
const MAX_PATH_BYTES: usize = 4095;
/// Longest path component accepted, in bytes (Linux `NAME_MAX`).
const MAX_NAME_BYTES: usize = 255;

/// A path cut for an error message: the first 80 characters and a count.
fn shorten(path: &str) -> String {
    match path.char_indices().nth(80) {
        Some((i, _)) => format!("{}… ({} bytes)", &path[..i], path.len()),
        None => path.to_string(),
    }
}

/// Map an OS error on `path` to a scope error.
pub(crate) fn io_error(path: &str, e: &std::io::Error) -> ScopeError {
    match e.kind() {
        std::io::ErrorKind::NotFound => ScopeError::NotFound {
            path: path.to_string(),
        },
        _ if e.raw_os_error() == Some(libc::ELOOP) => ScopeError::Io {
            path: path.to_string(),
            message: "too many levels of symbolic links (a symlink loop)".into(),
        },
        _ if e.raw_os_error() == Some(libc::ENAMETOOLONG) => ScopeError::Invalid {
            path: path.to_string(),
            message: "name too long".into(),
        },
        _ => ScopeError::Io {
            path: path.to_string(),
            message: e.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_is_strip_prefix() {
        let roots = ["/", "/ws", "/ws/sub", "/w"];
        let paths = [
            "/",
            "/ws",
            "/ws/",
            "/ws/a",
            "/ws/a/b",
            "/wsx",
            "/wsx/a",
            "/w",
            "/ws//a",
            "//ws/a",
            "/ws/./a",
            "/ws/../etc",
            "/etc/ws",
            "/ws/sub",
            "/ws/subx",
            "/ws/sub/x",
        ];
        for r in roots {
            for p in paths {
                let (p, r) = (Path::new(p), Path::new(r));
                assert_eq!(below(p, r), p.strip_prefix(r).ok(), "{p:?} below {r:?}");
            }
        }
    }

    /// `workspace.join(path)`, then `..` and `.` resolved lexically: what
    /// [`Scope::absolute`] must give.
    fn joined_then_normalised(workspace: &Path, path: &str) -> PathBuf {
        let mut out = PathBuf::new();
        for c in workspace.join(path).components() {
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

    #[test]
    fn absolute_is_join_then_normalise() {
        let dir = tempfile::tempdir().unwrap();
        let scope = Scope::new(dir.path(), &[], &[]).unwrap();
        let ws = scope.workspace().to_path_buf();
        for p in [
            "a",
            "a/b/",
            "./a",
            "a/./b",
            "a//b",
            "..",
            "../..",
            "../../../../../../../../etc/passwd",
            "a/../../b",
            ".",
            "./",
            "/",
            "/etc/../tmp",
            "//x",
            "/a/./b/../c/",
            "ü/𝄞 .txt",
            "...",
            ".hidden/..x",
        ] {
            assert_eq!(
                scope.absolute(p).unwrap(),
                joined_then_normalised(&ws, p),
                "{p:?}"
            );
        }
    }
}
