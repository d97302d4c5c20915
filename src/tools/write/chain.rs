//! The directories of a write, opened from their root down by name with
//! descriptors, never through a symbolic link: each directory is opened
//! in the one above it (`openat(O_NOFOLLOW | O_DIRECTORY)` of one plain
//! name, which is what `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`
//! makes of a path of plain names, on every kernel), so a directory on
//! the way swapped for a symlink fails the open instead of being
//! followed, and the checks that follow look at the directories opened
//! (through `/proc/self/fd`), not at a path looked up again.

use std::ffi::{OsStr, OsString};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

use rustix::fs::{Mode, OFlags};

use super::apply::WriteError;
use crate::scope::{Scope, ScopeError};

/// What a directory (or file) is, whatever its name: its device and inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    dev: u64,
    ino: u64,
}

impl Identity {
    /// The identity of the open `fd`.
    pub fn of(fd: impl AsFd, shown: &str) -> Result<Self, WriteError> {
        let st = rustix::fs::fstat(fd).map_err(|e| WriteError::Io {
            path: shown.to_string(),
            source: e.into(),
        })?;
        Ok(Self::from_stat(&st))
    }

    /// The identity `stat` describes.
    pub fn from_stat(st: &rustix::fs::Stat) -> Self {
        Self {
            dev: st.st_dev,
            ino: st.st_ino,
        }
    }
}

/// A root of the scope and directories below it, each opened in the one
/// before it.
pub struct Chain {
    /// The root (canonical).
    root: PathBuf,
    /// The root's descriptor, then each directory's.
    fds: Vec<OwnedFd>,
    /// Each directory's name in the one above it (one fewer than `fds`).
    names: Vec<OsString>,
}

const DIR_FLAGS: OFlags = OFlags::DIRECTORY
    .union(OFlags::RDONLY)
    .union(OFlags::CLOEXEC)
    .union(OFlags::NOFOLLOW);

impl Chain {
    /// Open `dir` (canonical, in a root of `scope`) from its root down.
    pub fn open(scope: &Scope, shown: &str, dir: &Path) -> Result<Self, WriteError> {
        let Some((root, rel)) = scope.within_root(dir) else {
            scope.check_real(shown, dir)?;
            return Err(moved(shown, dir, "is outside the roots"));
        };
        let fd = rustix::fs::open(root, DIR_FLAGS, Mode::empty()).map_err(|e| WriteError::Io {
            path: shown.to_string(),
            source: e.into(),
        })?;
        let mut chain = Self {
            root: root.to_path_buf(),
            fds: vec![fd],
            names: Vec::new(),
        };
        for c in rel.components() {
            let Component::Normal(name) = c else {
                return Err(moved(shown, dir, "is not a canonical path"));
            };
            chain.descend(shown, name, false)?;
        }
        Ok(chain)
    }

    /// Open `name` in the last directory (making it first with `create`),
    /// refusing a symlink or anything but a directory there.
    pub fn descend(&mut self, shown: &str, name: &OsStr, create: bool) -> Result<(), WriteError> {
        let parent = self.dir();
        if create {
            match rustix::fs::mkdirat(parent, name, Mode::from_raw_mode(0o777)) {
                Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                Err(e) => {
                    return Err(WriteError::Io {
                        path: shown.to_string(),
                        source: e.into(),
                    });
                }
            }
        }
        match rustix::fs::openat(parent, name, DIR_FLAGS, Mode::empty()) {
            Ok(fd) => {
                self.fds.push(fd);
                self.names.push(name.to_os_string());
                Ok(())
            }
            Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
                let at = self.expected().join(name);
                Err(moved(shown, &at, "is a symlink or not a directory now"))
            }
            Err(e) => Err(WriteError::Io {
                path: shown.to_string(),
                source: e.into(),
            }),
        }
    }

    /// The last directory opened.
    pub fn dir(&self) -> &OwnedFd {
        self.fds
            .last()
            .unwrap_or_else(|| unreachable!("a chain has its root"))
    }

    /// The last directory, for the write.
    pub fn into_dir(mut self) -> OwnedFd {
        self.fds
            .pop()
            .unwrap_or_else(|| unreachable!("a chain has its root"))
    }

    /// The identity of the last directory.
    pub fn identity(&self, shown: &str) -> Result<Identity, WriteError> {
        Identity::of(self.dir(), shown)
    }

    /// The path the last directory was opened by: its root and the names.
    pub fn expected(&self) -> PathBuf {
        self.names.iter().fold(self.root.clone(), |p, n| p.join(n))
    }

    /// Refuse unless the last directory opened is, by the kernel's own
    /// account of it (`/proc/self/fd`), at the path it was opened by.
    pub fn check_named(&self, shown: &str) -> Result<(), WriteError> {
        let opened = std::fs::read_link(fd_path(self.dir())).map_err(|e| WriteError::Io {
            path: shown.to_string(),
            source: e,
        })?;
        let expected = self.expected();
        if opened == expected {
            Ok(())
        } else {
            Err(moved(
                shown,
                &expected,
                "was moved while the write was checked",
            ))
        }
    }

    /// Each opened directory from the last up to the root, as a path
    /// through its descriptor (`/proc/self/fd/N`: the directory opened,
    /// whatever is at its name now), its path relative to the root, and
    /// the name of the entry below it on the way to the file: `next` for
    /// the last directory, whether that is a directory or the file.
    pub fn upward<'a>(
        &'a self,
        next: &'a OsStr,
        next_is_dir: bool,
    ) -> impl Iterator<Item = Level<'a>> + 'a {
        (0..self.fds.len()).rev().map(move |i| {
            let last = i + 1 == self.fds.len();
            Level {
                through: fd_path(&self.fds[i]),
                rel: self.names[..i].iter().collect(),
                child: if last { next } else { &self.names[i] },
                child_is_dir: !last || next_is_dir,
            }
        })
    }
}

/// One directory of a [`Chain`] as [`Chain::upward`] gives it.
pub struct Level<'a> {
    /// The directory, through its descriptor.
    pub through: PathBuf,
    /// Its path relative to the root (empty: the root).
    pub rel: PathBuf,
    /// The entry below it on the way to the file.
    pub child: &'a OsStr,
    /// Whether that entry is a directory (or the file).
    pub child_is_dir: bool,
}

/// `/proc/self/fd/N` of `fd`: the object open, through the kernel.
fn fd_path(fd: &OwnedFd) -> PathBuf {
    PathBuf::from(format!("/proc/self/fd/{}", fd.as_raw_fd()))
}

/// The refusal of a directory that is not what was checked.
fn moved(shown: &str, at: &Path, what: &str) -> WriteError {
    WriteError::Scope(ScopeError::Io {
        path: shown.to_string(),
        message: format!(
            "{} {what}: not the directory that was checked",
            at.display()
        ),
    })
}

/// The refusal of a directory replaced since the change was checked.
pub fn replaced(shown: &str, dir: &Path) -> WriteError {
    moved(shown, dir, "was replaced after the change was checked")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::write::target::{check_repository, check_repository_along};

    fn ws() -> (tempfile::TempDir, PathBuf, Scope) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        let scope = Scope::new(&root, &[], &[]).unwrap();
        (dir, root, scope)
    }

    #[test]
    fn upward_names_each_directory_and_the_entry_below_it() {
        let (_d, root, scope) = ws();
        let chain = Chain::open(&scope, "a/b/f", &root.join("a/b")).unwrap();
        assert_eq!(chain.expected(), root.join("a/b"));
        chain.check_named("a/b/f").unwrap();
        let got: Vec<(PathBuf, String, bool)> = chain
            .upward(OsStr::new("f"), false)
            .map(|l| {
                (
                    l.rel,
                    l.child.to_string_lossy().into_owned(),
                    l.child_is_dir,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (PathBuf::from("a/b"), "f".into(), false),
                (PathBuf::from("a"), "b".into(), true),
                (PathBuf::new(), "a".into(), true),
            ]
        );
    }

    #[test]
    fn a_symlink_on_the_way_is_refused_and_the_path_way_follows_it() {
        let (_d, root, scope) = ws();
        std::os::unix::fs::symlink("a", root.join("l")).unwrap();
        let refused = Chain::open(&scope, "l/b", &root.join("l/b"));
        assert!(matches!(refused, Err(WriteError::Scope(_))));
        // Control: by path, the link is followed to a/b.
        let by_path = std::fs::File::open(root.join("l/b")).unwrap();
        let a_b = std::fs::File::open(root.join("a/b")).unwrap();
        assert_eq!(
            Identity::of(&by_path, "").unwrap(),
            Identity::of(&a_b, "").unwrap()
        );
    }

    #[test]
    fn the_repository_check_through_descriptors_is_the_path_check() {
        let (_d, root, scope) = ws();
        std::fs::write(root.join("a/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::create_dir(root.join("a/objects")).unwrap();
        // a/refs/x would complete the repository `a`.
        let chain = Chain::open(&scope, "a/refs/x", &root.join("a")).unwrap();
        let through = check_repository_along("a/refs/x", chain.upward(OsStr::new("refs"), true));
        let by_path = check_repository(&scope, "a/refs/x", &root.join("a/refs/x"));
        assert!(through.is_err(), "{through:?}");
        assert_eq!(through, by_path);
        // Control: beside it, nothing to complete.
        let chain = Chain::open(&scope, "a/b/x", &root.join("a/b")).unwrap();
        assert!(check_repository_along("a/b/x", chain.upward(OsStr::new("x"), false)).is_ok());
    }
}
