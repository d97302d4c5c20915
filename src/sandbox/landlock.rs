//! Landlock, through its three system calls: the ruleset is built in the
//! supervisor (paths opened, rules added), the forked shell only calls
//! `landlock_restrict_self` on it before `exec`.
//!
//! Landlock applies to root too, and a restricted process can neither
//! mount nor unmount, nor ptrace (or read `/proc/<pid>/root` of) a process
//! outside its domain.

#![allow(unsafe_code)] // system calls with no safe wrapper here; each block says why it is sound

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

const CREATE_RULESET_VERSION: u32 = 1;
const RULE_PATH_BENEATH: libc::c_int = 1;

/// Filesystem rights, with the ABI that introduced them.
pub mod fs {
    /// Execute a file.
    pub const EXECUTE: u64 = 1 << 0;
    /// Open a file for writing.
    pub const WRITE_FILE: u64 = 1 << 1;
    /// Open a file for reading.
    pub const READ_FILE: u64 = 1 << 2;
    /// List a directory.
    pub const READ_DIR: u64 = 1 << 3;
    /// Remove a directory.
    pub const REMOVE_DIR: u64 = 1 << 4;
    /// Unlink a file.
    pub const REMOVE_FILE: u64 = 1 << 5;
    /// Create a character device.
    pub const MAKE_CHAR: u64 = 1 << 6;
    /// Create a directory.
    pub const MAKE_DIR: u64 = 1 << 7;
    /// Create a regular file.
    pub const MAKE_REG: u64 = 1 << 8;
    /// Create a Unix socket.
    pub const MAKE_SOCK: u64 = 1 << 9;
    /// Create a FIFO.
    pub const MAKE_FIFO: u64 = 1 << 10;
    /// Create a block device.
    pub const MAKE_BLOCK: u64 = 1 << 11;
    /// Create a symlink.
    pub const MAKE_SYM: u64 = 1 << 12;
    /// Link or rename across directories (ABI 2).
    pub const REFER: u64 = 1 << 13;
    /// Truncate (ABI 3).
    pub const TRUNCATE: u64 = 1 << 14;
    /// ioctl on device files (ABI 5).
    pub const IOCTL_DEV: u64 = 1 << 15;

    /// Reading and running.
    pub const READ: u64 = EXECUTE | READ_FILE | READ_DIR;
    /// Everything (clipped to the ABI before use).
    pub const ALL: u64 = (1 << 16) - 1;
    /// The rights that make sense on a file (not a directory).
    pub const FILE: u64 = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV;
    /// Using a device file (`/dev/null`, a terminal).
    pub const DEVICE: u64 = READ_FILE | WRITE_FILE | TRUNCATE | IOCTL_DEV;
}

/// TCP bind and connect (ABI 4).
const NET_ALL: u64 = 0b11;
/// Abstract Unix sockets and signals outside the domain (ABI 6).
pub const SCOPE_ABSTRACT_UNIX: u64 = 1 << 0;
/// Signals to processes outside the domain (ABI 6).
pub const SCOPE_SIGNAL: u64 = 1 << 1;

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The filesystem rights this ABI knows.
pub fn fs_rights(abi: u32) -> u64 {
    match abi {
        0 => 0,
        1 => (1 << 13) - 1,
        2 => (1 << 14) - 1,
        3 | 4 => (1 << 15) - 1,
        _ => fs::ALL,
    }
}

/// The kernel's Landlock ABI version, or why there is none.
pub fn abi() -> Result<u32, io::Error> {
    // SAFETY: the documented version query: no attribute, size 0.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<RulesetAttr>(),
            0usize,
            CREATE_RULESET_VERSION,
        )
    };
    if v < 0 {
        return Err(io::Error::last_os_error());
    }
    u32::try_from(v).map_err(|_| io::Error::other("unexpected Landlock version"))
}

/// A ruleset being built (in the supervisor) and later enforced (in the
/// forked shell).
#[derive(Debug)]
pub struct Ruleset {
    fd: OwnedFd,
    rights: u64,
    /// Rules added in the child just before enforcing, on paths that only
    /// exist there (a PID namespace's own `/proc`).
    late: Vec<(CString, u64)>,
}

impl Ruleset {
    /// A ruleset handling every filesystem right of `abi`; with
    /// `block_tcp` (ABI 4+) every TCP bind and connect is refused; `scopes`
    /// (ABI 6+) are clipped to what the ABI knows.
    pub fn new(abi: u32, block_tcp: bool, scopes: u64) -> io::Result<Self> {
        let rights = fs_rights(abi);
        let attr = RulesetAttr {
            handled_access_fs: rights,
            handled_access_net: if block_tcp && abi >= 4 { NET_ALL } else { 0 },
            scoped: if abi >= 6 { scopes } else { 0 },
        };
        // SAFETY: a valid attribute of the size we pass; the result is a
        // fresh close-on-exec descriptor.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                &raw const attr,
                std::mem::size_of::<RulesetAttr>(),
                0u32,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let fd = libc::c_int::try_from(fd).map_err(|_| io::Error::other("bad descriptor"))?;
        Ok(Self {
            // SAFETY: `fd` was just returned by the kernel and is ours alone.
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
            rights,
            late: Vec::new(),
        })
    }

    /// Allow `access` beneath `path` (on the file itself if it is not a
    /// directory; only file rights apply then).
    pub fn allow(&mut self, path: &Path, access: u64) -> io::Result<()> {
        let c = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::other("path contains NUL"))?;
        // SAFETY: a valid C string; the result is a descriptor we own.
        let raw = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is fresh.
        let file = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: fstat into a zeroed struct on our descriptor.
        let is_dir = unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            libc::fstat(raw, &raw mut st) == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFDIR
        };
        let mut allowed = access & self.rights;
        if !is_dir {
            allowed &= fs::FILE;
        }
        if allowed == 0 {
            return Ok(());
        }
        let attr = PathBeneathAttr {
            allowed_access: allowed,
            parent_fd: file.as_raw_fd(),
        };
        // SAFETY: a valid rule for our ruleset descriptor.
        let r = unsafe {
            libc::syscall(
                libc::SYS_landlock_add_rule,
                self.fd.as_raw_fd(),
                RULE_PATH_BENEATH,
                &raw const attr,
                0u32,
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Allow `access` beneath the directory `path` as the child sees it
    /// when it enforces the ruleset (a mount made in the child).
    pub fn allow_late(&mut self, path: &Path, access: u64) -> io::Result<()> {
        let c = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::other("path contains NUL"))?;
        self.late.push((c, access & self.rights));
        Ok(())
    }

    /// Enforce the ruleset on the calling process (and everything it
    /// starts). Async-signal-safe: for the forked child before `exec`.
    pub fn restrict_self(&self) -> io::Result<()> {
        // SAFETY: plain system calls on a descriptor we hold and on
        // prepared C strings.
        unsafe {
            for (path, access) in &self.late {
                let raw = libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
                if raw < 0 {
                    return Err(io::Error::last_os_error());
                }
                let attr = PathBeneathAttr {
                    allowed_access: *access,
                    parent_fd: raw,
                };
                let r = libc::syscall(
                    libc::SYS_landlock_add_rule,
                    self.fd.as_raw_fd(),
                    RULE_PATH_BENEATH,
                    &raw const attr,
                    0u32,
                );
                libc::close(raw);
                if r < 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::syscall(libc::SYS_landlock_restrict_self, self.fd.as_raw_fd(), 0u32) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rights_grow_with_the_abi() {
        assert_eq!(fs_rights(1) & fs::REFER, 0);
        assert_ne!(fs_rights(2) & fs::REFER, 0);
        assert_eq!(fs_rights(2) & fs::TRUNCATE, 0);
        assert_ne!(fs_rights(3) & fs::TRUNCATE, 0);
        assert_eq!(fs_rights(4) & fs::IOCTL_DEV, 0);
        assert_eq!(fs_rights(7), fs::ALL);
    }

    #[test]
    fn this_kernel_has_landlock() {
        // The machine (and CI) run a kernel with Landlock ABI 7.
        assert!(abi().unwrap() >= 1);
    }
}
