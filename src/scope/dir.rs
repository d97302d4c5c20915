//! Directory listing and `lstat` for checked paths: a walk lists exactly the
//! directory it checked, and `stat` can show a symlink as a symlink while
//! still requiring its target to be in scope.

use std::ffi::OsStr;
use std::fs::{Metadata, OpenOptions, ReadDir};
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use super::{Scope, ScopeError, io_error};

/// A path looked at without following its final symlink.
#[derive(Debug, Clone)]
pub struct Lstat {
    /// Where the object named by the path lives: the canonical parent
    /// directory joined with the final name (not followed).
    pub location: PathBuf,
    /// `lstat` of `location`.
    pub meta: Metadata,
    /// The symlink's target as stored in the link, when it is one.
    pub link_target: Option<PathBuf>,
    /// The fully resolved path (the final target), checked against the scope.
    pub resolved: PathBuf,
}

/// A directory opened and checked by [`Scope::read_dir_checked`], with its
/// listing.
#[derive(Debug)]
pub struct CheckedDir {
    dir: std::fs::File,
    entries: ReadDir,
}

impl CheckedDir {
    /// `lstat` of the entry `name` in this very directory (through its
    /// descriptor, not by path).
    pub fn lstat_at(&self, name: &OsStr) -> std::io::Result<Metadata> {
        lstat_at(&self.dir, name)
    }
}

impl Iterator for CheckedDir {
    type Item = std::io::Result<std::fs::DirEntry>;

    fn next(&mut self) -> Option<Self::Item> {
        self.entries.next()
    }
}

/// `lstat` of `name` in the directory `dir`: an `O_PATH` descriptor opened
/// without following a final symlink (no FIFO blocks, no device is
/// opened), then `fstat`.
fn lstat_at(dir: &impl AsFd, name: &OsStr) -> std::io::Result<Metadata> {
    let flags =
        rustix::fs::OFlags::PATH | rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::CLOEXEC;
    let fd = rustix::fs::openat(dir, name, flags, rustix::fs::Mode::empty())?;
    std::fs::File::from(fd).metadata()
}

/// What may be shown of a symlink's target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkTarget {
    /// The target as stored in the link: it resolves inside the roots and
    /// outside the exclusions (as written, lexically and fully resolved).
    Shown(PathBuf),
    /// It points outside the allowed roots.
    Outside,
    /// It names or resolves to an excluded path.
    Excluded,
    /// The link cannot be read.
    Unreadable,
}

impl LinkTarget {
    /// `a.txt`, `(outside the workspace)`, `(excluded)`, `?`.
    pub fn display(&self) -> String {
        match self {
            LinkTarget::Shown(p) => p.to_string_lossy().into_owned(),
            LinkTarget::Outside => "(outside the workspace)".into(),
            LinkTarget::Excluded => "(excluded)".into(),
            LinkTarget::Unreadable => "?".into(),
        }
    }
}

impl Scope {
    /// The target of the symlink at `link` (a path inside a root), shown
    /// only when it stays in scope: the stored text, joined to the link's
    /// directory as written (every component checked against the
    /// exclusions), normalised lexically, and fully resolved where it
    /// exists, must all be inside a root and not excluded. Otherwise only
    /// the fact is shown, never the path.
    pub fn link_target(&self, link: &Path) -> LinkTarget {
        let Ok(stored) = std::fs::read_link(link) else {
            return LinkTarget::Unreadable;
        };
        let base = link.parent().unwrap_or(link);
        let joined = base.join(&stored);
        let lexical = lexical(&joined);
        let resolved = std::fs::canonicalize(link).ok();
        let candidates = std::iter::once(&lexical)
            .chain(resolved.as_ref())
            .chain(std::iter::once(&joined));
        for p in candidates {
            if self.root_of(p).is_none() {
                return LinkTarget::Outside;
            }
            if self.excluded_by(p).is_some() {
                return LinkTarget::Excluded;
            }
        }
        LinkTarget::Shown(stored)
    }

    /// List a directory found by a walk or resolved by [`Scope::resolve`]
    /// (a canonical path). The directory is opened without following a
    /// final symlink and the opened object is checked again, so the listing
    /// is of what was checked even if the path is swapped meanwhile; its
    /// entries are looked at through the same descriptor
    /// ([`CheckedDir::lstat_at`]), never by path.
    pub fn read_dir_checked(&self, real: &Path) -> Result<CheckedDir, ScopeError> {
        let shown = self.display(real);
        let dir = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
            .open(real)
            .map_err(|e| io_error(&shown, &e))?;
        let link = PathBuf::from(format!("/proc/self/fd/{}", dir.as_raw_fd()));
        let entries = if let Ok(opened) = std::fs::read_link(&link) {
            self.check_real(&shown, &opened)?;
            // Listing through the descriptor's magic link lists the very
            // directory that was opened and checked.
            std::fs::read_dir(&link).map_err(|e| io_error(&shown, &e))?
        } else {
            let meta = dir.metadata().map_err(|e| io_error(&shown, &e))?;
            self.check_real(&shown, real)?;
            let rd = std::fs::read_dir(real).map_err(|e| io_error(&shown, &e))?;
            let now = std::fs::symlink_metadata(real).map_err(|e| io_error(&shown, &e))?;
            if now.dev() != meta.dev() || now.ino() != meta.ino() {
                return Err(ScopeError::Io {
                    path: shown,
                    message: "the directory changed while it was being opened".into(),
                });
            }
            rd
        };
        Ok(CheckedDir { dir, entries })
    }

    /// Look at a path without following its final component: for `stat`.
    /// The path must resolve fully (a dangling symlink is "not found"), its
    /// final target must be in scope and not excluded, and the link itself
    /// must be in scope too.
    pub fn lstat(&self, path: &str) -> Result<Lstat, ScopeError> {
        let resolved = self.resolve(path)?;
        let lexical = self.absolute(path)?;
        let (location, meta, link_target) =
            if let (Some(parent), Some(name)) = (lexical.parent(), lexical.file_name()) {
                self.lstat_in(path, parent, name)?
            } else {
                let location = resolved.clone();
                self.check_real(path, &location)?;
                let meta = std::fs::symlink_metadata(&location).map_err(|e| io_error(path, &e))?;
                (location, meta, None)
            };
        Ok(Lstat {
            location,
            meta,
            link_target,
            resolved,
        })
    }

    /// `lstat` of `real`, a canonical path already checked (a walk's
    /// start, a symlink's resolved target), looked up through its checked
    /// parent's descriptor, never by path again: a parent swapped for a
    /// link since is not followed (the path is refused as what it now
    /// leads to), so what is shown of it is never of an object outside.
    pub fn lstat_real(&self, shown: &str, real: &Path) -> Result<Metadata, ScopeError> {
        if let (Some(parent), Some(name)) = (real.parent(), real.file_name()) {
            return self.lstat_in(shown, parent, name).map(|(_, meta, _)| meta);
        }
        // `/`, a root itself: nothing above it to swap.
        self.check_real(shown, real)?;
        std::fs::symlink_metadata(real).map_err(|e| io_error(shown, &e))
    }

    /// The error for `real` (canonical, checked) after looking at it by
    /// path failed with `e`: what its checked parent's descriptor says
    /// first (a refusal, or "not found" inside the scope), so a parent
    /// swapped for a link meanwhile tells nothing of what is outside.
    pub(super) fn failed_by_path(
        &self,
        shown: &str,
        real: &Path,
        e: &std::io::Error,
    ) -> ScopeError {
        match self.lstat_real(shown, real) {
            Err(refused) => refused,
            Ok(_) => io_error(shown, e),
        }
    }

    /// `name` in `parent` looked at without following it: the parent is
    /// opened and checked, and the name looked at through it, so a parent
    /// swapped for a link meanwhile is not followed. The location, its
    /// `lstat` and, for a symlink, its stored target.
    fn lstat_in(
        &self,
        path: &str,
        parent: &Path,
        name: &OsStr,
    ) -> Result<(PathBuf, Metadata, Option<PathBuf>), ScopeError> {
        let parent = self.canonical(path, parent)?;
        // `O_PATH`: a directory that may be searched but not listed (a
        // root's parent such as a 0711 home) is looked into too.
        let flags = rustix::fs::OFlags::PATH
            | rustix::fs::OFlags::DIRECTORY
            | rustix::fs::OFlags::NOFOLLOW
            | rustix::fs::OFlags::CLOEXEC;
        let dir = rustix::fs::open(&parent, flags, rustix::fs::Mode::empty())
            .map_err(|e| io_error(path, &e.into()))?;
        let link = PathBuf::from(format!("/proc/self/fd/{}", dir.as_raw_fd()));
        let opened = std::fs::read_link(&link).unwrap_or(parent);
        let location = opened.join(name);
        self.check_real(path, &location)?;
        let meta = lstat_at(&dir, name).map_err(|e| io_error(path, &e))?;
        let target = if meta.file_type().is_symlink() {
            let t = rustix::fs::readlinkat(&dir, name, Vec::new())
                .map_err(|e| io_error(path, &e.into()))?;
            Some(PathBuf::from(std::ffi::OsString::from_vec(t.into_bytes())))
        } else {
            None
        };
        Ok((location, meta, target))
    }

    /// The exclusion pattern matching `real` (a path inside a root, such as
    /// a walk entry), or the denied path holding it (a `deny_read` path,
    /// the data directory: `denied`), if any. Paths outside every root
    /// match nothing here; [`Scope::check_real`] refuses those.
    pub fn excluded_by(&self, real: &Path) -> Option<&str> {
        let (_, rel) = self.within_root(real)?;
        self.exclusions()
            .matches(rel)
            .or_else(|| self.denied_by(real))
    }
}

/// `p` with `.` and `..` resolved without touching the disk.
fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn scope(dir: &Path) -> Scope {
        let ex: Vec<String> = crate::scope::DEFAULT_EXCLUDED
            .iter()
            .map(ToString::to_string)
            .collect();
        Scope::new(dir, &[], &ex).unwrap()
    }

    #[test]
    fn read_dir_checked_refuses_symlinks_and_outside() {
        let ws = tempfile::tempdir().unwrap();
        let out = tempfile::tempdir().unwrap();
        std::fs::create_dir(ws.path().join("d")).unwrap();
        std::fs::write(ws.path().join("d/f"), "").unwrap();
        symlink(out.path(), ws.path().join("link")).unwrap();
        let s = scope(ws.path());
        let root = s.workspace().to_path_buf();
        let names: Vec<_> = s
            .read_dir_checked(&root.join("d"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["f"]);
        // A symlink is never listed through, even to a directory.
        assert!(s.read_dir_checked(&root.join("link")).is_err());
        let e = s
            .read_dir_checked(&std::fs::canonicalize(out.path()).unwrap())
            .unwrap_err();
        assert!(matches!(e, ScopeError::OutsideRoots { .. }), "{e}");
    }

    #[test]
    fn entries_are_looked_at_in_the_listed_directory_not_by_path() {
        let ws = tempfile::tempdir().unwrap();
        let out = tempfile::tempdir().unwrap();
        std::fs::create_dir(ws.path().join("sub")).unwrap();
        std::fs::write(ws.path().join("sub/f"), "in").unwrap();
        std::fs::write(out.path().join("f"), "outside, longer").unwrap();
        let s = scope(ws.path());
        let sub = s.workspace().join("sub");
        let listed = s.read_dir_checked(&sub).unwrap();
        // The checked directory is swapped for a link to outside (what a
        // RENAME_EXCHANGE race does between the listing and the lstat).
        std::fs::rename(&sub, s.workspace().join("moved")).unwrap();
        symlink(out.path(), &sub).unwrap();
        // CONTROL: by path, the lstat is the outside file's.
        let by_path = std::fs::symlink_metadata(sub.join("f")).unwrap();
        assert_eq!(by_path.len(), 15);
        // Through the listed directory, it is the checked file's.
        assert_eq!(listed.lstat_at(OsStr::new("f")).unwrap().len(), 2);
        assert!(listed.lstat_at(OsStr::new("missing")).is_err());
    }

    #[test]
    fn lstat_shows_links_but_checks_targets() {
        let ws = tempfile::tempdir().unwrap();
        std::fs::write(ws.path().join("f"), "x").unwrap();
        symlink("f", ws.path().join("l")).unwrap();
        symlink("/etc/hostname", ws.path().join("out")).unwrap();
        let s = scope(ws.path());
        let l = s.lstat("l").unwrap();
        assert!(l.meta.file_type().is_symlink());
        assert_eq!(l.link_target.as_deref(), Some(Path::new("f")));
        assert_eq!(l.resolved, s.workspace().join("f"));
        assert!(matches!(
            s.lstat("out").unwrap_err(),
            ScopeError::OutsideRoots { .. }
        ));
        assert!(s.lstat(".").unwrap().meta.is_dir());
    }

    #[test]
    fn excluded_by_names_the_pattern() {
        let ws = tempfile::tempdir().unwrap();
        let s = scope(ws.path());
        let root = s.workspace().to_path_buf();
        assert_eq!(s.excluded_by(&root.join("a/.ssh/x")), Some(".ssh"));
        assert_eq!(s.excluded_by(&root.join("a/b.txt")), None);
        assert_eq!(s.excluded_by(Path::new("/etc/.env")), None);
    }

    #[test]
    fn over_long_paths_and_names_are_invalid_and_shortened() {
        let ws = tempfile::tempdir().unwrap();
        let s = scope(ws.path());
        let e = s.resolve(&"a".repeat(256)).unwrap_err().to_string();
        assert!(
            e.contains("name too long: a path component is 256 bytes"),
            "{e}"
        );
        assert!(e.len() < 300, "{e}");
        let e = s.resolve(&"d/".repeat(3000)).unwrap_err().to_string();
        assert!(e.contains("name too long: the path is 6000 bytes"), "{e}");
        assert!(e.len() < 300, "{e}");
        assert!(matches!(
            s.resolve(&"a".repeat(255)).unwrap_err(),
            ScopeError::NotFound { .. }
        ));
    }
}
