//! The pieces mount steps are made of: paths as C strings, the flags a
//! read-only remount must keep, the outermost of nested paths.

#![allow(unsafe_code)] // statvfs has no safe wrapper here; the block says why it is sound

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// `p` as a C string.
pub fn cstring(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| io::Error::other("path contains NUL"))
}

/// Keep only the outermost of nested paths.
pub fn outermost(mut paths: Vec<PathBuf>) -> Vec<PathBuf> {
    paths.sort();
    paths.dedup();
    let mut out: Vec<PathBuf> = Vec::new();
    for p in paths {
        if !out.iter().any(|o| p.starts_with(o)) {
            out.push(p);
        }
    }
    out
}

/// The `MS_*` flags of the mount holding `p` that a read-only remount
/// must keep.
pub fn locked_flags(p: &Path) -> libc::c_ulong {
    let Ok(c) = cstring(p) else { return 0 };
    // SAFETY: statvfs is plain old data; all zeroes is a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is NUL-terminated and `st` is a valid, writable statvfs.
    if unsafe { libc::statvfs(c.as_ptr(), &raw mut st) } != 0 {
        return 0;
    }
    let keep = libc::ST_NOSUID
        | libc::ST_NODEV
        | libc::ST_NOEXEC
        | libc::ST_NOATIME
        | libc::ST_NODIRATIME
        | libc::ST_RELATIME;
    st.f_flag & keep
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_paths_collapse_to_the_outermost() {
        let v = outermost(vec![
            PathBuf::from("/a/b/c"),
            PathBuf::from("/a/b"),
            PathBuf::from("/a/bc"),
            PathBuf::from("/a/b"),
        ]);
        assert_eq!(v, vec![PathBuf::from("/a/b"), PathBuf::from("/a/bc")]);
    }
}
