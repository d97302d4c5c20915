//! Atomic writes on the checked directory: a temporary file in the same
//! directory, fsync, rename. The directory is opened once, checked through
//! `/proc/self/fd`, and every later step (`openat`, `renameat`) happens
//! relative to that open directory, so a swapped symlink cannot redirect it.

use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, Mode, OFlags};

use super::target::Target;
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

/// Open `target`'s directory, creating missing directories inside the
/// scope, and check the opened directory is where it should be.
pub fn open_dir(scope: &Scope, target: &Target, create: bool) -> Result<OwnedFd, WriteError> {
    let shown = target.shown.as_str();
    let dir_flags = OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC;
    let mut fd = rustix::fs::open(&target.existing_ancestor, dir_flags, Mode::empty())
        .map_err(errno(shown))?;
    verify_dir(scope, shown, &fd)?;
    let rest = target
        .dir
        .strip_prefix(&target.existing_ancestor)
        .unwrap_or(Path::new(""));
    for comp in rest.components() {
        let name = comp.as_os_str();
        if create {
            match rustix::fs::mkdirat(&fd, name, Mode::from_raw_mode(0o777)) {
                Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                Err(e) => return Err(errno(shown)(e)),
            }
        }
        fd = rustix::fs::openat(&fd, name, dir_flags | OFlags::NOFOLLOW, Mode::empty())
            .map_err(errno(shown))?;
        verify_dir(scope, shown, &fd)?;
    }
    Ok(fd)
}

fn verify_dir(scope: &Scope, shown: &str, fd: &OwnedFd) -> Result<(), WriteError> {
    let link = PathBuf::from(format!(
        "/proc/self/fd/{}",
        std::os::fd::AsRawFd::as_raw_fd(fd)
    ));
    let real = std::fs::read_link(&link).map_err(io(shown))?;
    scope.check_real(shown, &real)?;
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
) -> Result<Option<(Vec<u8>, u32)>, WriteError> {
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
    Ok(Some((buf, meta.mode() & 0o7777)))
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
