//! Reading and writing configuration files safely: a backup beside the file,
//! an atomic replace ([`crate::files::replace`]: temporary file in the same
//! directory, fsync, rename, fsync of the directory), the file's
//! permissions kept, and a symlinked file (dotfile managers) written
//! through to its target.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::InitError;

/// The suffix of the backup written beside a changed file.
pub const BACKUP_SUFFIX: &str = ".airlock-backup";

/// The file's text; `None` when it does not exist.
pub fn read(path: &Path) -> Result<Option<String>, InitError> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|e| InitError::Parse {
                path: path.to_path_buf(),
                message: format!("not UTF-8 text ({e})"),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(InitError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Replace `path`'s content with `text` atomically. With `backup`, an
/// existing file is first copied to `<path>.airlock-backup` (same
/// permissions); the backup's path is returned. A new file gets mode 0600.
pub fn write(path: &Path, text: &str, backup: bool) -> Result<Option<PathBuf>, InitError> {
    let target = crate::files::link_target(path).unwrap_or_else(|| path.to_path_buf());
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |source| InitError::Io { path: p, source }
    };
    let mode = match std::fs::metadata(&target) {
        Ok(m) => Some(m.permissions().mode() & 0o7777),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(&target)(e)),
    };
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let saved = match (backup, mode) {
        (true, Some(mode)) => Some(write_backup(&target, mode)?),
        _ => None,
    };
    crate::files::replace(&target, text.as_bytes(), 0o600).map_err(io(&target))?;
    Ok(saved)
}

/// Where the backup of `path` goes.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(BACKUP_SUFFIX);
    path.with_file_name(name)
}

fn write_backup(target: &Path, mode: u32) -> Result<PathBuf, InitError> {
    let backup = backup_path(target);
    let bytes = std::fs::read(target).map_err(|source| InitError::Io {
        path: target.to_path_buf(),
        source,
    })?;
    let io = |source| InitError::Io {
        path: backup.clone(),
        source,
    };
    let tmp = backup_path(&target.with_file_name(format!(
        ".{}.{}",
        target.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    )));
    crate::files::write_new(&tmp, &bytes, mode)
        .and_then(|()| std::fs::rename(&tmp, &backup))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            io(e)
        })?;
    Ok(backup)
}
