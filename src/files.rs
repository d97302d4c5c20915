//! Replacing one of the user's configuration files (or one of airlock's own
//! records) safely: a temporary file in the same directory, written and
//! synced, renamed over the file, then the directory synced; the file's
//! permissions kept. And an advisory lock, so two airlocks editing the same
//! file one after the other do not lose each other's change.
//!
//! Plain file system work with no policy: who may write where, and what to
//! do with a symlink, is the caller's decision ([`link_target`] says where
//! a symlink leads).

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::{FlockOperation, flock};

/// Replace the content of `path` (not a symlink: see [`link_target`]) with
/// `bytes`, atomically and durably. An existing file keeps its permission
/// bits; a new one gets `new_mode`. The parent directory must exist.
pub fn replace(path: &Path, bytes: &[u8], new_mode: u32) -> std::io::Result<()> {
    let mode = match std::fs::metadata(path) {
        Ok(m) => m.permissions().mode() & 0o7777,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => new_mode,
        Err(e) => return Err(e),
    };
    let dir = parent(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".{name}.airlock-tmp-{}-{:08x}",
        std::process::id(),
        rand::random::<u32>()
    ));
    let result = write_new(&tmp, bytes, mode).and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    // The rename is durable once the directory is synced (best effort:
    // the new content is in place either way).
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Create `path` (removing a stale one first) with exactly `mode`, write
/// `bytes`, fsync.
pub fn write_new(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
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

/// Where a write of `path` lands: a symlink's final target (canonical), or
/// `path` itself when it is not a symlink (or does not exist). `None` for
/// a symlink whose target cannot be resolved (dangling, a loop).
pub fn link_target(path: &Path) -> Option<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path).ok(),
        _ => Some(path.to_path_buf()),
    }
}

/// The directory `path` is in (`.` for a bare name).
fn parent(path: &Path) -> &Path {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// An exclusive advisory lock (`flock`) on the directory a file is in,
/// held until dropped. Taken around read-modify-write of a file that is
/// replaced by rename (the file's own inode changes with each write, so
/// the lock is on its directory).
#[derive(Debug)]
pub struct DirLock {
    _dir: std::fs::File,
}

impl DirLock {
    /// Lock the directory that holds `file`, waiting for another holder.
    pub fn for_file(file: &Path) -> std::io::Result<DirLock> {
        let dir = std::fs::File::open(parent(file))?;
        flock(&dir, FlockOperation::LockExclusive)?;
        Ok(DirLock { _dir: dir })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_keeps_the_mode_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.toml");
        replace(&p, b"one", 0o600).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode(&p), 0o600);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        replace(&p, b"two", 0o600).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(mode(&p), 0o640);
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn link_target_follows_links_and_refuses_dangling_ones() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.toml");
        std::fs::write(&real, "x").unwrap();
        let link = dir.path().join("link.toml");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(
            link_target(&link),
            Some(std::fs::canonicalize(&real).unwrap())
        );
        assert_eq!(link_target(&real), Some(real.clone()));
        let dangling = dir.path().join("dangling.toml");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
        assert_eq!(link_target(&dangling), None);
    }

    #[test]
    fn the_lock_excludes_a_second_holder() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c.toml");
        let held = DirLock::for_file(&file).unwrap();
        let other = std::fs::File::open(dir.path()).unwrap();
        assert!(flock(&other, FlockOperation::NonBlockingLockExclusive).is_err());
        drop(held);
        assert!(flock(&other, FlockOperation::NonBlockingLockExclusive).is_ok());
    }
}
