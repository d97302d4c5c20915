//! Atomic writes on the checked directory: a temporary file in the same
//! directory, fsync, rename. The directory is opened from its root down
//! without following a link ([`Chain`]), must be the very directory the
//! change was computed in ([`Identity`]), is checked as opened, and every
//! later step (`openat`, `renameat`) happens relative to that open
//! directory, so a swapped symlink or directory cannot redirect it.

use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use rustix::fs::{AtFlags, Mode, OFlags};

use super::chain::{self, Chain, Identity};
use super::protect::Protection;
use super::target::{self, Target};
use crate::scope::Scope;

/// A write failure, phrased for the agent.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The directory (or file) is not where it was checked to be.
    #[error("{0}")]
    Scope(#[from] crate::scope::ScopeError),
    /// An OS error.
    #[error("{path}: {source}")]
    Io {
        /// The path as shown.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

fn io(path: &str) -> impl Fn(std::io::Error) -> WriteError + '_ {
    move |source| WriteError::Io {
        path: path.to_string(),
        source,
    }
}

fn errno(path: &str) -> impl Fn(rustix::io::Errno) -> WriteError + '_ {
    move |e| WriteError::Io {
        path: path.to_string(),
        source: e.into(),
    }
}

/// The part of `target`'s directory that exists, opened from its root
/// ([`Chain`]) and checked as it was opened: by the kernel's name for it,
/// in a root, not excluded, not a protected name, not (about to be) a git
/// repository. (The [`Protection`] of that path was checked when
/// `target` was resolved, a moment before.) Its [`Identity`] is what
/// [`open_for_write`] must find again.
pub fn open_existing(scope: &Scope, target: &Target) -> Result<Chain, WriteError> {
    let chain = Chain::open(scope, &target.shown, &target.existing_ancestor)?;
    check_opened(scope, None, target, &chain)?;
    Ok(chain)
}

/// Open `target`'s directory for the write (after approval): the part
/// that existed must be the directory `pinned` names (what
/// [`open_existing`] found when the change was computed), the missing
/// directories are made and opened one by one in the ones above them,
/// never through a symlink, and every check is made again on what was
/// opened. A directory swapped for a symlink, or for another directory,
/// is refused: nothing is written anywhere but where the change was
/// checked.
pub fn open_for_write(
    scope: &Scope,
    protection: &Protection,
    target: &Target,
    pinned: Identity,
) -> Result<OwnedFd, WriteError> {
    let shown = target.shown.as_str();
    let mut chain = Chain::open(scope, shown, &target.existing_ancestor)?;
    if chain.identity(shown)? != pinned {
        return Err(chain::replaced(shown, &target.existing_ancestor));
    }
    // Before anything is made: a directory made could complete a
    // repository.
    check_opened(scope, Some(protection), target, &chain)?;
    let rest = target
        .dir
        .strip_prefix(&target.existing_ancestor)
        .unwrap_or(Path::new(""));
    if rest.as_os_str().is_empty() {
        return Ok(chain.into_dir());
    }
    for comp in rest.components() {
        chain.descend(shown, comp.as_os_str(), true)?;
    }
    check_opened(scope, None, target, &chain)?;
    Ok(chain.into_dir())
}

/// The checks of the directories `chain` opened on the way to `target`:
/// the last is at the path it was opened by, and the file below it (the
/// rest of the way made of plain names) is in a root, not excluded, not a
/// protected name, not what `protection` protects (when given), and in no
/// directory that is, or would with the write become, a git repository
/// (each looked at through its descriptor).
fn check_opened(
    scope: &Scope,
    protection: Option<&Protection>,
    target: &Target,
    chain: &Chain,
) -> Result<(), WriteError> {
    let shown = target.shown.as_str();
    chain.check_named(shown)?;
    let opened = chain.expected();
    let below = target.dir.strip_prefix(&opened).map_err(|_| {
        WriteError::Scope(crate::scope::ScopeError::Io {
            path: shown.to_string(),
            message: format!("{} is not on the way to the file", opened.display()),
        })
    })?;
    let real = opened.join(below).join(&target.name);
    scope.check_real(shown, &real)?;
    target::check_names(scope, shown, &real)?;
    if let Some(p) = protection {
        p.check(scope, shown, &real)?;
    }
    let (next, next_is_dir) = match below.components().next() {
        Some(c) => (c.as_os_str(), true),
        None => (target.name.as_os_str(), false),
    };
    target::check_repository_along(shown, chain.upward(next, next_is_dir))?;
    Ok(())
}

/// The current content and mode of `name` in `dir` (whose checked path
/// is `real`'s parent), or `None` when it does not exist. A symlink or
/// non-regular file there is an error, and so is a file the scope's
/// hard-link check refuses (another name of a secret): that is decided on
/// the opened file before a byte of it is read, so a refused file gives no
/// content, size, diff or match to anyone.
pub fn read_current(
    scope: &Scope,
    dir: &OwnedFd,
    name: &OsStr,
    real: &Path,
    shown: &str,
    max: u64,
) -> Result<Option<Current>, WriteError> {
    let flags =
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    let fd = match rustix::fs::openat(dir, name, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::NOENT) => return Ok(None),
        Err(rustix::io::Errno::LOOP) => {
            return Err(WriteError::Io {
                path: shown.into(),
                source: std::io::Error::other("is a symlink; refusing to write through it"),
            });
        }
        Err(e) => return Err(errno(shown)(e)),
    };
    let mut file = std::fs::File::from(fd);
    let meta = file.metadata().map_err(io(shown))?;
    if !meta.file_type().is_file() {
        return Err(WriteError::Io {
            path: shown.into(),
            source: std::io::Error::other("not a regular file"),
        });
    }
    // The same check as the read tools', on the object opened, first.
    scope.check_links(shown, real, &meta)?;
    let size = meta.len();
    if size > max {
        return Err(WriteError::Io {
            path: shown.into(),
            source: std::io::Error::other(format!(
                "file is {size} bytes; airlock edits files up to {max} bytes"
            )),
        });
    }
    // `size` is at most `max` here; the capacity is only a hint.
    let mut buf = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    Read::by_ref(&mut file)
        .take(max + 1)
        .read_to_end(&mut buf)
        .map_err(io(shown))?;
    Ok(Some(Current {
        bytes: buf,
        mode: meta.mode() & 0o7777,
        id: Identity::of(file.as_fd(), shown)?,
    }))
}

/// A file as the write found it.
pub struct Current {
    /// Its content.
    pub bytes: Vec<u8>,
    /// Its mode bits.
    pub mode: u32,
    /// What it is (a file put in its place under the same name is not it).
    pub id: Identity,
}

/// A temporary file written and synced next to its target, not yet
/// renamed into place. Dropping it removes the temporary file.
pub struct Staged {
    dir: OwnedFd,
    tmp: OsString,
    name: OsString,
    shown: String,
    done: bool,
}

impl Staged {
    /// Write `content` to a new temporary file in `dir` with `mode`
    /// (default 0666 less the umask) and fsync it.
    pub fn write(
        dir: OwnedFd,
        name: &OsStr,
        shown: &str,
        content: &[u8],
        mode: Option<u32>,
    ) -> Result<Self, WriteError> {
        let tmp = OsString::from(format!(
            ".{}.airlock-{:08x}.tmp",
            name.to_string_lossy(),
            rand::random::<u32>()
        ));
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&dir, &tmp, flags, Mode::from_raw_mode(0o666))
            .map_err(errno(shown))?;
        let staged = Self {
            dir,
            tmp,
            name: name.to_os_string(),
            shown: shown.to_string(),
            done: false,
        };
        if let Some(mode) = mode {
            rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode)).map_err(errno(shown))?;
        }
        let mut file = std::fs::File::from(fd);
        file.write_all(content).map_err(io(shown))?;
        file.sync_all().map_err(io(shown))?;
        Ok(staged)
    }

    /// The temporary file's name (for tests).
    pub fn temp_name(&self) -> &OsStr {
        &self.tmp
    }

    /// Rename into place and sync the directory.
    pub fn commit(mut self) -> Result<(), WriteError> {
        rustix::fs::renameat(&self.dir, &self.tmp, &self.dir, &self.name)
            .map_err(errno(&self.shown))?;
        self.done = true;
        rustix::fs::fsync(self.dir.as_fd()).map_err(errno(&self.shown))?;
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.done {
            let _ = rustix::fs::unlinkat(&self.dir, &self.tmp, AtFlags::empty());
        }
    }
}
