//! A private `/dev` for the shell: an empty tmpfs with only the devices a
//! shell uses bound in from the host (`null`, `zero`, `full`, `random`,
//! `urandom`, `tty`), a devpts of its own for new terminals, a private
//! `/dev/shm`, and the `fd`/`stdin`/`stdout`/`stderr` links. The host's
//! disks, `/dev/mem`, `/dev/kmsg` and the rest are absent.

#![allow(unsafe_code)] // open_tree, move_mount and mount have no safe wrapper here; each block says why it is sound

use std::ffi::CStr;
use std::io;

const OPEN_TREE_CLONE: libc::c_uint = 1;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 4;

/// The devices bound in, as paths on the host and in the new `/dev`.
pub const DEVICES: [&CStr; 6] = [
    c"/dev/null",
    c"/dev/zero",
    c"/dev/full",
    c"/dev/random",
    c"/dev/urandom",
    c"/dev/tty",
];

const LINKS: [(&CStr, &CStr); 5] = [
    (c"/proc/self/fd", c"/dev/fd"),
    (c"/proc/self/fd/0", c"/dev/stdin"),
    (c"/proc/self/fd/1", c"/dev/stdout"),
    (c"/proc/self/fd/2", c"/dev/stderr"),
    (c"pts/ptmx", c"/dev/ptmx"),
];

fn check(r: libc::c_int) -> io::Result<()> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Close what `trees` holds. Async-signal-safe.
fn close_all(trees: &[libc::c_int]) {
    for t in trees.iter().filter(|t| **t >= 0) {
        // SAFETY: a descriptor open_tree gave us, closed once.
        unsafe { libc::close(*t) };
    }
}

/// Build the private `/dev`. Async-signal-safe: for the forked child
/// before `exec`, in its own mount namespace.
pub fn private_dev() -> io::Result<()> {
    let mut trees = [-1 as libc::c_int; DEVICES.len()];
    for (slot, dev) in trees.iter_mut().zip(DEVICES) {
        // SAFETY: open_tree on a NUL-terminated constant; the result is a
        // descriptor we close below.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_open_tree,
                libc::AT_FDCWD,
                dev.as_ptr(),
                OPEN_TREE_CLONE | libc::O_CLOEXEC as libc::c_uint,
            )
        };
        // A device the host lacks is absent here too.
        *slot = libc::c_int::try_from(fd).unwrap_or(-1);
    }
    let r = build(&trees);
    close_all(&trees);
    r
}

fn build(trees: &[libc::c_int]) -> io::Result<()> {
    let null = std::ptr::null::<libc::c_char>();
    // SAFETY: (the whole block) mount, open, mkdir, symlink and move_mount
    // on NUL-terminated constants and on the descriptors open_tree gave
    // us; nothing allocates.
    unsafe {
        check(libc::mount(
            c"tmpfs".as_ptr(),
            c"/dev".as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            c"size=64k,mode=0755".as_ptr().cast(),
        ))?;
        for (tree, dev) in trees.iter().zip(DEVICES) {
            if *tree < 0 {
                continue;
            }
            let fd = libc::open(
                dev.as_ptr(),
                libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
                0o666,
            );
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            libc::close(fd);
            if libc::syscall(
                libc::SYS_move_mount,
                *tree,
                c"".as_ptr(),
                libc::AT_FDCWD,
                dev.as_ptr(),
                MOVE_MOUNT_F_EMPTY_PATH,
            ) < 0
            {
                return Err(io::Error::last_os_error());
            }
        }
        check(libc::mkdir(c"/dev/pts".as_ptr(), 0o755))?;
        check(libc::mount(
            c"devpts".as_ptr(),
            c"/dev/pts".as_ptr(),
            c"devpts".as_ptr(),
            libc::MS_NOSUID | libc::MS_NOEXEC,
            c"newinstance,ptmxmode=0666,mode=0620".as_ptr().cast(),
        ))?;
        check(libc::mkdir(c"/dev/shm".as_ptr(), 0o1777))?;
        check(libc::mount(
            c"tmpfs".as_ptr(),
            c"/dev/shm".as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            c"mode=1777".as_ptr().cast(),
        ))?;
        for (target, link) in LINKS {
            check(libc::symlink(target.as_ptr(), link.as_ptr()))?;
        }
        // The tmpfs itself read-only: nothing new appears in /dev.
        check(libc::mount(
            null,
            c"/dev".as_ptr(),
            null,
            libc::MS_REMOUNT
                | libc::MS_BIND
                | libc::MS_RDONLY
                | libc::MS_NOSUID
                | libc::MS_NODEV
                | libc::MS_NOEXEC,
            std::ptr::null(),
        ))?;
    }
    Ok(())
}
