//! Leaving the shell without capabilities: as root (containers, CI) the
//! shell is uid 0 in its user namespace, with every capability there, so
//! it could undo the sandbox's own mounts (`umount` a hidden path, remount
//! a read-only bind) wherever Landlock is missing. Before `exec` the child
//! clears the bounding, ambient, inheritable, effective and permitted
//! sets and sets `no_new_privs`: nothing it execs regains any.

#![allow(unsafe_code)] // prctl and capset have no safe wrapper here; each block says why it is sound

use std::io;

/// `_LINUX_CAPABILITY_VERSION_3`: two 32-bit words per set.
const CAP_VERSION_3: u32 = 0x2008_0522;

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// Drop every capability for good. Async-signal-safe: for the forked
/// child before `exec`.
pub fn drop_all() -> io::Result<()> {
    // SAFETY: prctl with integer arguments only; EINVAL marks the first
    // capability this kernel does not know, where the loop ends.
    unsafe {
        for cap in 0..64 {
            if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 {
                if *libc::__errno_location() == libc::EINVAL {
                    break;
                }
                return Err(io::Error::last_os_error());
            }
        }
        // Ambient capabilities appeared in 4.3: EINVAL before, none to clear.
        if libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        ) != 0
            && *libc::__errno_location() != libc::EINVAL
        {
            return Err(io::Error::last_os_error());
        }
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    let header = CapHeader {
        version: CAP_VERSION_3,
        pid: 0,
    };
    let data = [CapData {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    // SAFETY: a valid version-3 header and the two data words it expects,
    // both on our stack; capset only reads them.
    let r = unsafe { libc::syscall(libc::SYS_capset, &raw const header, data.as_ptr()) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
