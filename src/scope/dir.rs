//! Directory listing and `lstat` for checked paths: a walk lists exactly the
//! directory it checked, and `stat` can show a symlink as a symlink while
//! still requiring its target to be in scope.

use std::fs::{Metadata, OpenOptions, ReadDir};
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

impl Scope {
    /// List a directory found by a walk or resolved by [`Scope::resolve`]
    /// (a canonical path). The directory is opened without following a
    /// final symlink and the opened object is checked again, so the listing
    /// is of what was checked even if the path is swapped meanwhile.
    pub fn read_dir_checked(&self, real: &Path) -> Result<ReadDir, ScopeError> {
        let shown = self.display(real);
        let dir = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
            .open(real)
            .map_err(|e| io_error(&shown, &e))?;
        let link = PathBuf::from(format!("/proc/self/fd/{}", dir.as_raw_fd()));
        match std::fs::read_link(&link) {
            Ok(opened) => {
                self.check_real(&shown, &opened)?;
                // Listing through the descriptor's magic link lists the very
                // directory that was opened and checked.
                std::fs::read_dir(&link).map_err(|e| io_error(&shown, &e))
            }
            Err(_) => {
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
                Ok(rd)
            }
        }
    }

    /// Look at a path without following its final component: for `stat`.
    /// The path must resolve fully (a dangling symlink is "not found"), its
    /// final target must be in scope and not excluded, and the link itself
    /// must be in scope too.
    pub fn lstat(&self, path: &str) -> Result<Lstat, ScopeError> {
        let resolved = self.resolve(path)?;
        let lexical = self.absolute(path)?;
        let location = match (lexical.parent(), lexical.file_name()) {
            (Some(parent), Some(name)) => {
                let parent = std::fs::canonicalize(parent).map_err(|e| io_error(path, &e))?;
                parent.join(name)
            }
            _ => resolved.clone(),
        };
        self.check_real(path, &location)?;
        let meta = std::fs::symlink_metadata(&location).map_err(|e| io_error(path, &e))?;
        let link_target = if meta.file_type().is_symlink() {
            Some(std::fs::read_link(&location).map_err(|e| io_error(path, &e))?)
        } else {
            None
        };
        Ok(Lstat {
            location,
            meta,
            link_target,
            resolved,
        })
    }

    /// The exclusion pattern matching `real` (a path inside a root, such as
    /// a walk entry), if any. Paths outside every root match nothing here;
    /// [`Scope::check_real`] refuses those.
    pub fn excluded_by(&self, real: &Path) -> Option<&str> {
        let root = self.root_of(real)?;
        let rel = real.strip_prefix(root).ok()?;
        self.exclusions().matches(rel)
    }
}
