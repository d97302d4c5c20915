//! Reading and writing configuration files safely: a backup beside the file,
//! an atomic replace (temporary file in the same directory, fsync, rename,
//! fsync of the directory), the file's permissions kept, and a symlinked
//! file (dotfile managers) written through to its target.

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
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
    let target = resolve_symlink(path);
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
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.airlock-tmp-{}", std::process::id()));
    let result = write_new(&tmp, text.as_bytes(), mode.unwrap_or(0o600))
        .and_then(|()| std::fs::rename(&tmp, &target));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(&target)(e));
    }
    // The rename is durable once the directory is synced.
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
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
    write_new(&tmp, &bytes, mode)
        .and_then(|()| std::fs::rename(&tmp, &backup))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            io(e)
        })?;
    Ok(backup)
}

/// Create `path` (which must not exist) with `mode`, write, fsync.
fn write_new(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    let _ = std::fs::remove_file(path);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)?;
    // The umask may have narrowed the mode: set it exactly.
    f.set_permissions(std::fs::Permissions::from_mode(mode))?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// A symlink's final target (the file is written there, the link kept);
/// anything else as it is.
fn resolve_symlink(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}
