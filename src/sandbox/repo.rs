//! The one rule for "this directory is a git repository", used by the
//! start-up walk ([`super::scan`]), the live guard ([`super::guard`]) and
//! the write tools (`tools::write::target`): git's own, from `setup.c`
//! (`is_git_directory`, `validate_headref`, `get_common_dir_noenv`):
//! * `HEAD` is a symlink whose target starts with `refs/`, or anything
//!   else that reads as `ref: refs/…` or as a hexadecimal object id;
//! * and `objects` and `refs` (in the directory, or in the one `commondir`
//!   names) pass `access(X_OK)` — whatever their type: executable regular
//!   files and symlinks to anything searchable count.
//!
//! Where git's answer depends on what cannot be read safely (a `HEAD` that
//! is a FIFO) or on where `commondir` points, the answer is "yes": a
//! superset of git's, so nothing git takes for a repository is missed.
//! A `.git` *file* (`gitdir: …`) is the other way git finds a repository;
//! the walk and the guard treat every `.git` entry by its name.

#![allow(unsafe_code)] // access(2) has no safe wrapper; the block says why it is sound

use std::ffi::{CString, OsStr};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

/// The entries whose appearance (or change) may make their directory a
/// repository.
pub const SHAPE_NAMES: &[&str] = &["HEAD", "objects", "refs", "commondir"];

/// What a write is about to put at `dir/name`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Planned {
    /// A regular file (content and mode not known yet).
    File,
    /// A directory (created to hold the file).
    Dir,
}

/// Whether git takes `dir` for a repository directory.
pub fn is_repository(dir: &Path) -> bool {
    shape(dir, None)
}

/// Whether `dir` would be a repository once `name` is created in it as
/// `planned` (its content assumed the worst: a valid `HEAD`, an
/// executable `objects`, a `commondir` pointing at a repository). An
/// `objects` or `refs` symlink counts even when dangling: the write may be
/// what completes it.
pub fn would_be_repository(dir: &Path, name: &OsStr, planned: Planned) -> bool {
    shape(dir, Some((name, planned)))
}

/// Whether `dir` has the shape only a plant has: a directory not named
/// `.git` whose `objects` or `refs` is there but is not a real directory (a
/// symlink, dangling or not, or a file). git itself makes them directories
/// (`git-new-workdir`'s symlinks live inside a `.git`), so such a
/// directory is never the user's repository, whether it is one yet or one
/// `mkdir` away from it.
pub fn is_planted_shape(dir: &Path) -> bool {
    if dir.file_name().is_some_and(|n| n == ".git") {
        return false;
    }
    ["objects", "refs"]
        .iter()
        .any(|n| std::fs::symlink_metadata(dir.join(n)).is_ok_and(|m| !m.file_type().is_dir()))
}

/// Whether `name` is one of [`SHAPE_NAMES`] (case-insensitively: on a
/// case-insensitive file system `head` is `HEAD`).
pub fn is_shape_name(name: &OsStr) -> bool {
    SHAPE_NAMES.iter().any(|n| crate::scope::same_name(name, n))
}

fn shape(dir: &Path, planned: Option<(&OsStr, Planned)>) -> bool {
    let is = |n: &str| planned.filter(|(p, _)| crate::scope::same_name(p, n));
    let head = match is("HEAD") {
        Some((_, Planned::File)) => true,
        Some((_, Planned::Dir)) => false,
        None => valid_head(&dir.join("HEAD")),
    };
    if !head {
        return false;
    }
    // A `commondir` sends git elsewhere for objects and refs: wherever it
    // points (or whatever it becomes), treat the directory as a repository.
    if is("commondir").is_some() || std::fs::symlink_metadata(dir.join("commondir")).is_ok() {
        return true;
    }
    let searchable = |n: &str| {
        is(n).is_some()
            || access_x(&dir.join(n))
            || (planned.is_some()
                && std::fs::symlink_metadata(dir.join(n)).is_ok_and(|m| m.file_type().is_symlink()))
    };
    let objects = searchable("objects") || std::env::var_os("GIT_OBJECT_DIRECTORY").is_some();
    objects && searchable("refs")
}

/// git's `validate_headref`.
fn valid_head(p: &Path) -> bool {
    let Ok(m) = std::fs::symlink_metadata(p) else {
        return false;
    };
    let ft = m.file_type();
    if ft.is_symlink() {
        return std::fs::read_link(p).is_ok_and(|t| t.as_os_str().as_bytes().starts_with(b"refs/"));
    }
    if ft.is_dir() {
        return false;
    }
    if ft.is_fifo() || ft.is_socket() || ft.is_char_device() || ft.is_block_device() {
        return true; // not read here (it could block); git might read a valid one
    }
    let mut buf = Vec::with_capacity(256);
    let Ok(f) = std::fs::File::open(p) else {
        return false;
    };
    if f.take(255).read_to_end(&mut buf).is_err() {
        return false;
    }
    if let Some(rest) = buf.strip_prefix(b"ref:") {
        let rest = rest.trim_ascii_start();
        if rest.starts_with(b"refs/") {
            return true;
        }
    }
    // A detached HEAD: an object id of any hash (SHA-1's 40 digits first).
    buf.len() >= 40 && buf[..40].iter().all(u8::is_ascii_hexdigit)
}

/// `access(p, X_OK)`, as git calls it (following symlinks).
fn access_x(p: &Path) -> bool {
    let Ok(c) = CString::new(p.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated string; access only reads it.
    unsafe { libc::access(c.as_ptr(), libc::X_OK) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{PermissionsExt, symlink};

    fn exec_file(p: &Path) {
        std::fs::write(p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn git_rule_any_type_that_passes_x_ok() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        assert!(!is_repository(d));
        std::fs::write(d.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        exec_file(&d.join("objects"));
        std::fs::write(d.join("refs"), "").unwrap();
        assert!(!is_repository(d), "refs not executable");
        assert!(would_be_repository(d, OsStr::new("refs"), Planned::File));
        std::fs::set_permissions(d.join("refs"), std::fs::Permissions::from_mode(0o700)).unwrap();
        assert!(is_repository(d));
        std::fs::write(d.join("HEAD"), "nonsense").unwrap();
        assert!(!is_repository(d));
        std::fs::write(d.join("HEAD"), "0123456789abcdef0123456789abcdef01234567").unwrap();
        assert!(is_repository(d));
        std::fs::remove_file(d.join("HEAD")).unwrap();
        symlink("refs/heads/x", d.join("HEAD")).unwrap();
        assert!(is_repository(d), "a dangling refs/ symlink is a valid HEAD");
    }

    #[test]
    fn dangling_links_count_once_completed_and_planned_entries_count() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        std::fs::write(d.join("HEAD"), "ref:\trefs/heads/main\n").unwrap();
        symlink("o", d.join("objects")).unwrap();
        symlink("r", d.join("refs")).unwrap();
        assert!(!is_repository(d));
        assert!(would_be_repository(d, OsStr::new("o"), Planned::Dir));
        std::fs::create_dir(d.join("o")).unwrap();
        std::fs::create_dir(d.join("r")).unwrap();
        assert!(is_repository(d));
        let e = tempfile::tempdir().unwrap();
        let e = e.path();
        std::fs::create_dir(e.join("refs")).unwrap();
        assert!(!would_be_repository(e, OsStr::new("HEAD"), Planned::File));
        std::fs::create_dir(e.join("objects")).unwrap();
        assert!(would_be_repository(e, OsStr::new("HEAD"), Planned::File));
        assert!(!would_be_repository(e, OsStr::new("HEAD"), Planned::Dir));
        std::fs::write(e.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::remove_dir(e.join("objects")).unwrap();
        assert!(would_be_repository(
            e,
            OsStr::new("commondir"),
            Planned::File
        ));
        assert!(would_be_repository(e, OsStr::new("OBJECTS"), Planned::Dir));
        assert!(!would_be_repository(e, OsStr::new("src"), Planned::Dir));
    }

    /// A dangling `commondir` symlink counts (its target may be what a
    /// write makes next); the shape only a plant has is told apart from a
    /// repository git made.
    #[test]
    fn dangling_commondir_and_planted_shapes() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("sub");
        std::fs::create_dir(&d).unwrap();
        std::fs::write(d.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        symlink("t", d.join("commondir")).unwrap();
        assert!(is_repository(&d), "a dangling commondir symlink");
        assert!(would_be_repository(&d, OsStr::new("t"), Planned::File));
        std::fs::remove_file(d.join("commondir")).unwrap();
        std::fs::create_dir(d.join("objects")).unwrap();
        std::fs::create_dir(d.join("refs")).unwrap();
        assert!(
            is_repository(&d) && !is_planted_shape(&d),
            "git's own shape"
        );
        std::fs::remove_dir(d.join("refs")).unwrap();
        symlink("../elsewhere", d.join("refs")).unwrap();
        assert!(is_planted_shape(&d), "a refs symlink outside a .git");
        let g = t.path().join(".git");
        std::fs::create_dir(&g).unwrap();
        symlink("../elsewhere", g.join("refs")).unwrap();
        assert!(
            !is_planted_shape(&g),
            "git-new-workdir's links live in a .git"
        );
    }
}
