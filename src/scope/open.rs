//! Opening checked objects without a check-then-open race.

use std::fs::{File, Metadata, OpenOptions};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use super::{Scope, ScopeError, io_error};

/// What kind of object a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link.
    Symlink,
    /// A named pipe.
    Fifo,
    /// A Unix socket.
    Socket,
    /// A character device.
    CharDevice,
    /// A block device.
    BlockDevice,
}

impl FileKind {
    /// Classify metadata (from `lstat` or `fstat`).
    pub fn of(meta: &Metadata) -> Self {
        let t = meta.file_type();
        if t.is_symlink() {
            FileKind::Symlink
        } else if t.is_dir() {
            FileKind::Directory
        } else if t.is_fifo() {
            FileKind::Fifo
        } else if t.is_socket() {
            FileKind::Socket
        } else if t.is_char_device() {
            FileKind::CharDevice
        } else if t.is_block_device() {
            FileKind::BlockDevice
        } else {
            FileKind::File
        }
    }

    /// Human name: `file`, `directory`, `FIFO` …
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::File => "file",
            FileKind::Directory => "directory",
            FileKind::Symlink => "symlink",
            FileKind::Fifo => "FIFO (named pipe)",
            FileKind::Socket => "socket",
            FileKind::CharDevice => "character device",
            FileKind::BlockDevice => "block device",
        }
    }
}

impl Scope {
    /// Resolve, check and open a regular file for reading. Returns the open
    /// file, its canonical path and its metadata (from `fstat`).
    pub fn open_file(&self, path: &str) -> Result<(File, PathBuf, Metadata), ScopeError> {
        let lexical = self.absolute(path)?;
        self.check_excluded(path, &lexical)?;
        if let Some(opened) = self.open_unlinked(path, &lexical) {
            return opened;
        }
        let real = self.canonical(path, &lexical)?;
        self.check_real(path, &real)?;
        self.open_checked(path, &real, false)
    }

    /// The common case of [`Scope::open_file`] without resolving the path
    /// first: a path with no symbolic link anywhere on it is its own
    /// canonical form, so the lexical path is checked and then opened with
    /// `openat2(RESOLVE_NO_SYMLINKS)`, which fails rather than follow a
    /// link (`tests/scope_open_race.rs`). The kernel followed no link on
    /// the way and the lexical path has no `..` left, so on a filesystem
    /// that cannot fold case (`exact`) the object opened is the one named
    /// by the checked path, and its name need not be asked of
    /// `/proc/self/fd` again; elsewhere it is. Its kind and links are
    /// checked either way. `None`: take the general way (a link on the
    /// path, no `openat2`, the path refused or not a regular file — the
    /// general way says why, in its words).
    fn open_unlinked(
        &self,
        shown: &str,
        lexical: &Path,
    ) -> Option<Result<(File, PathBuf, Metadata), ScopeError>> {
        // Exclusions were checked on this path by the caller.
        self.root_of(lexical)?;
        // Refuse special files before opening them (as `open_checked`).
        let pre = std::fs::symlink_metadata(lexical).ok()?;
        if FileKind::of(&pre) != FileKind::File {
            return None;
        }
        let flags = rustix::fs::OFlags::RDONLY
            | rustix::fs::OFlags::NONBLOCK
            | rustix::fs::OFlags::NOCTTY
            | rustix::fs::OFlags::CLOEXEC;
        let fd = rustix::fs::openat2(
            rustix::fs::CWD,
            lexical,
            flags,
            rustix::fs::Mode::empty(),
            rustix::fs::ResolveFlags::NO_SYMLINKS,
        )
        .ok()?;
        let file = File::from(fd);
        let meta = match regular_file(shown, &file) {
            Ok(meta) => meta,
            Err(e) => return Some(Err(e)),
        };
        if !self.exact_devices.contains(&meta.dev()) {
            return Some(self.verify_named(shown, lexical, file, meta));
        }
        Some(
            self.check_links(shown, lexical, &meta)
                .map(|()| (file, lexical.to_path_buf(), meta)),
        )
    }

    /// The checks of an opened file: a regular file, at a path inside the
    /// scope (the object opened, not the name it was opened by), and not
    /// another name of a secret.
    fn verify_opened(
        &self,
        shown: &str,
        real: &Path,
        file: File,
    ) -> Result<(File, PathBuf, Metadata), ScopeError> {
        let meta = regular_file(shown, &file)?;
        self.verify_named(shown, real, file, meta)
    }

    /// The checks of an opened regular file by its own name (through
    /// `/proc/self/fd`): inside the scope, and not another name of a
    /// secret.
    fn verify_named(
        &self,
        shown: &str,
        real: &Path,
        file: File,
        meta: Metadata,
    ) -> Result<(File, PathBuf, Metadata), ScopeError> {
        // Check the object actually opened, not the name we opened it by.
        let opened = opened_path(&file, real, &meta).map_err(|e| io_error(shown, &e))?;
        self.check_real(shown, &opened)?;
        self.check_links(shown, &opened, &meta)?;
        Ok((file, opened, meta))
    }

    /// Open a path found by a walk (already canonical and checked) without
    /// following a final symlink, and verify the opened object again.
    pub fn open_walked_file(&self, real: &Path) -> Result<(File, Metadata), ScopeError> {
        let shown = self.display(real);
        self.open_checked(&shown, real, true)
            .map(|(f, _, m)| (f, m))
    }

    /// Resolve and check a path that must be a directory.
    pub fn resolve_dir(&self, path: &str) -> Result<PathBuf, ScopeError> {
        let real = self.resolve(path)?;
        let meta = self.lstat_real(path, &real)?;
        if !meta.is_dir() {
            return Err(ScopeError::NotADirectory {
                path: path.to_string(),
                kind: FileKind::of(&meta).as_str().to_string(),
            });
        }
        Ok(real)
    }

    fn open_checked(
        &self,
        shown: &str,
        real: &Path,
        nofollow: bool,
    ) -> Result<(File, PathBuf, Metadata), ScopeError> {
        // Refuse special files before opening them: opening a FIFO blocks and
        // opening some devices has side effects.
        // A walked path is looked at without following a final symlink.
        // What it is, or why it cannot be opened, is told only as seen
        // through its checked parent: by path, a parent swapped for a link
        // meanwhile shows an object outside the scope.
        let pre = if nofollow {
            std::fs::symlink_metadata(real)
        } else {
            std::fs::metadata(real)
        }
        .map_err(|e| self.failed_by_path(shown, real, &e))?;
        if FileKind::of(&pre) != FileKind::File {
            let kind = FileKind::of(&self.lstat_real(shown, real)?);
            if kind != FileKind::File {
                return Err(ScopeError::NotRegularFile {
                    path: shown.to_string(),
                    kind: kind.as_str().into(),
                });
            }
        }
        let mut flags = libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC;
        if nofollow {
            flags |= libc::O_NOFOLLOW;
        }
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(flags)
            .open(real)
            .map_err(|e| self.failed_by_path(shown, real, &e))?;
        self.verify_opened(shown, real, file)
    }
}

/// The `fstat` of an opened file, which must be a regular file.
fn regular_file(shown: &str, file: &File) -> Result<Metadata, ScopeError> {
    let meta = file.metadata().map_err(|e| io_error(shown, &e))?;
    let kind = FileKind::of(&meta);
    if kind != FileKind::File {
        return Err(ScopeError::NotRegularFile {
            path: shown.to_string(),
            kind: kind.as_str().into(),
        });
    }
    Ok(meta)
}

/// The canonical path of an open file, via `/proc/self/fd`; where `/proc` is
/// unavailable, the checked path is accepted only if it is still the same
/// inode.
fn opened_path(file: &File, expected: &Path, meta: &Metadata) -> std::io::Result<PathBuf> {
    let link = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
    if let Ok(p) = std::fs::read_link(&link) {
        return Ok(p);
    }
    let now = std::fs::metadata(expected)?;
    if now.dev() == meta.dev() && now.ino() == meta.ino() {
        Ok(expected.to_path_buf())
    } else {
        Err(std::io::Error::other(
            "the file changed while it was being opened",
        ))
    }
}
