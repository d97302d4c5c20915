//! What the forked shell does to itself before `exec`: a list of steps
//! prepared in the supervisor (every string, descriptor and buffer made
//! beforehand) and applied in the child with async-signal-safe system
//! calls only: no allocation, no locks.

#![allow(unsafe_code)] // system calls with no safe wrapper here; each block says why it is sound

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::PathBuf;

use super::landlock::Ruleset;

const OPEN_TREE_CLONE: libc::c_uint = 1;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 4;

/// Where a hidden file's mount points: a path that cannot exist (its
/// parent is not writable inside the sandbox), so the file reads as absent.
pub const HIDDEN_TARGET: &str = "/.airlock-sandbox-hidden/absent";

/// One thing the child does.
#[derive(Debug)]
pub enum Step {
    /// `unshare(flags)`; `what` names the namespace for messages.
    Unshare {
        /// `CLONE_NEW*`.
        flags: libc::c_int,
        /// "user namespace" …
        what: &'static str,
    },
    /// Write `text` to a file of `/proc/self` (id maps, setgroups).
    WriteProc {
        /// The file.
        path: &'static CStr,
        /// What to write.
        text: CString,
    },
    /// Make every mount a slave: nothing mounted here shows outside.
    Propagation,
    /// Mount an empty tmpfs on `target`: read-only to hide a directory's
    /// contents, writable for a private `/dev/shm`.
    Tmpfs {
        /// The directory.
        target: CString,
        /// Mount it read-only.
        readonly: bool,
        /// tmpfs options.
        options: CString,
    },
    /// Mount the symlink `link` (pointing to [`HIDDEN_TARGET`]) over the
    /// non-directory `target`: opening it fails with "No such file".
    HideFile {
        /// The dangling symlink, prepared by the supervisor.
        link: CString,
        /// The file to hide.
        target: CString,
    },
    /// Mount the symlink `link` onto itself (neither followed): a mount
    /// point, it cannot be removed, renamed or replaced, and still leads
    /// where it did.
    PinLink {
        /// The symlink.
        link: CString,
    },
    /// Bind `src` (with what is mounted below it) onto `dst`; with
    /// `readonly`, then remount it read-only keeping these flags (the
    /// source mount's nosuid/nodev/… which may not be dropped).
    Bind {
        /// Source path.
        src: CString,
        /// Mount point.
        dst: CString,
        /// Read-only, keeping these `MS_*` flags.
        readonly: Option<libc::c_ulong>,
    },
    /// After `unshare(CLONE_NEWPID)`: fork. The child becomes the new PID
    /// namespace's init (and goes on to `exec` the shell; it dies with its
    /// parent); the parent closes every descriptor, waits for it and ends
    /// the same way, so whoever waits for the shell's pid sees its status.
    /// When the init ends, the kernel kills everything left in the
    /// namespace: nothing the shell started (`setsid`, double forks)
    /// outlives it. With `mount_proc`, the child mounts a `/proc` of the
    /// new namespace (only in a private mount namespace).
    PidInit {
        /// Mount a fresh `/proc`.
        mount_proc: bool,
    },
    /// Join the namespace `fd` refers to (a helper entering a live shell's
    /// namespaces).
    SetNs {
        /// `/proc/<pid>/ns/…`, opened by the supervisor.
        fd: OwnedFd,
        /// `CLONE_NEWUSER`, `CLONE_NEWNS` …
        nstype: libc::c_int,
    },
    /// Bring up `lo` in a fresh network namespace (local servers of the
    /// sandbox keep working).
    LoopbackUp,
    /// `chdir` again once the mounts are in place.
    Chdir(CString),
    /// Enforce the Landlock ruleset.
    Landlock(Ruleset),
    /// Replace `/dev` with a private one (see [`super::dev`]).
    PrivateDev,
    /// Drop every capability and set `no_new_privs` (see [`super::caps`]).
    DropCaps,
    /// Install the seccomp filters (see [`super::seccomp`]); the last step.
    Seccomp(Box<super::seccomp::Filters>),
}

fn path_of(c: &CStr) -> String {
    c.to_string_lossy().into_owned()
}

impl Step {
    /// What the step does, for error messages (supervisor side only).
    pub fn describe(&self) -> String {
        match self {
            Step::Unshare { what, .. } => format!("creating a {what}"),
            Step::WriteProc { path, .. } => format!("writing {}", path_of(path)),
            Step::Propagation => "making mounts private".into(),
            Step::Tmpfs {
                target,
                readonly: true,
                ..
            }
            | Step::HideFile { target, .. } => format!("hiding {}", path_of(target)),
            Step::PinLink { link } => format!("pinning the symlink {}", path_of(link)),
            Step::Tmpfs { target, .. } => format!("mounting a private {}", path_of(target)),
            Step::Bind { src, dst, .. } => {
                format!("binding {} onto {}", path_of(src), path_of(dst))
            }
            Step::PidInit { mount_proc: false } => "starting the PID namespace's init".into(),
            Step::PidInit { mount_proc: true } => "mounting /proc of the PID namespace".into(),
            Step::SetNs { .. } => "entering the shell's namespaces".into(),
            Step::LoopbackUp => "bringing up the loopback interface".into(),
            Step::Chdir(p) => format!("entering {}", path_of(p)),
            Step::Landlock(_) => "enforcing the Landlock ruleset".into(),
            Step::PrivateDev => "mounting a private /dev".into(),
            Step::DropCaps => "dropping capabilities".into(),
            Step::Seccomp(_) => "installing the seccomp filter".into(),
        }
    }

    /// Apply it. Async-signal-safe.
    fn apply(&self) -> io::Result<()> {
        let null = std::ptr::null::<libc::c_char>();
        // SAFETY: (the whole match) system calls on prepared, NUL-terminated
        // strings and on descriptors we own; nothing allocates.
        unsafe {
            match self {
                Step::Unshare { flags, .. } => check(libc::unshare(*flags)),
                Step::WriteProc { path, text } => {
                    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                    if fd < 0 {
                        return Err(io::Error::last_os_error());
                    }
                    let bytes = text.as_bytes();
                    let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
                    let err = io::Error::last_os_error();
                    libc::close(fd);
                    if usize::try_from(n).ok() != Some(bytes.len()) {
                        return Err(err);
                    }
                    Ok(())
                }
                Step::Propagation => check(libc::mount(
                    null,
                    c"/".as_ptr(),
                    null,
                    libc::MS_REC | libc::MS_SLAVE,
                    std::ptr::null(),
                )),
                Step::Tmpfs {
                    target,
                    readonly,
                    options,
                } => {
                    let mut flags = libc::MS_NOSUID | libc::MS_NODEV;
                    if *readonly {
                        flags |= libc::MS_RDONLY | libc::MS_NOEXEC;
                    }
                    check(libc::mount(
                        c"tmpfs".as_ptr(),
                        target.as_ptr(),
                        c"tmpfs".as_ptr(),
                        flags,
                        options.as_ptr().cast(),
                    ))
                }
                Step::HideFile { link, target } => mount_link(link, target),
                Step::PinLink { link } => mount_link(link, link),
                Step::Bind { src, dst, readonly } => {
                    check(libc::mount(
                        src.as_ptr(),
                        dst.as_ptr(),
                        null,
                        libc::MS_BIND | libc::MS_REC,
                        std::ptr::null(),
                    ))?;
                    match readonly {
                        Some(keep) => check(libc::mount(
                            null,
                            dst.as_ptr(),
                            null,
                            libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | keep,
                            std::ptr::null(),
                        )),
                        None => Ok(()),
                    }
                }
                Step::PidInit { mount_proc } => pid_init(*mount_proc),
                Step::SetNs { fd, nstype } => check(libc::setns(fd.as_raw_fd(), *nstype)),
                Step::LoopbackUp => loopback_up(),
                Step::Chdir(p) => check(libc::chdir(p.as_ptr())),
                Step::Landlock(r) => r.restrict_self(),
                Step::PrivateDev => super::dev::private_dev(),
                Step::DropCaps => super::caps::drop_all(),
                Step::Seccomp(f) => f.apply(),
            }
        }
    }
}

/// Mount a clone of the symlink `link` onto `target`, following neither
/// (`open_tree` and `move_mount`). Async-signal-safe.
fn mount_link(link: &CStr, target: &CStr) -> io::Result<()> {
    // SAFETY: open_tree, move_mount and close on NUL-terminated strings
    // prepared beforehand and on the descriptor open_tree returned, which
    // is closed here; nothing allocates.
    unsafe {
        let tree = libc::syscall(
            libc::SYS_open_tree,
            libc::AT_FDCWD,
            link.as_ptr(),
            OPEN_TREE_CLONE
                | libc::O_CLOEXEC as libc::c_uint
                | libc::AT_SYMLINK_NOFOLLOW as libc::c_uint,
        );
        if tree < 0 {
            return Err(io::Error::last_os_error());
        }
        #[expect(
            clippy::cast_possible_truncation,
            reason = "a descriptor from the kernel is an int; syscall() widens it to long"
        )]
        let tree = tree as libc::c_int;
        let r = libc::syscall(
            libc::SYS_move_mount,
            tree,
            c"".as_ptr(),
            libc::AT_FDCWD,
            target.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        );
        let err = io::Error::last_os_error();
        libc::close(tree);
        if r < 0 { Err(err) } else { Ok(()) }
    }
}

fn check(r: libc::c_int) -> io::Result<()> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// See [`Step::PidInit`]. Async-signal-safe.
fn pid_init(mount_proc: bool) -> io::Result<()> {
    // SAFETY: fork, prctl, mount, waitpid, kill, close and _exit are
    // async-signal-safe; the parent never returns.
    unsafe {
        let pid = libc::fork();
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0))?;
            if mount_proc {
                check(libc::mount(
                    c"proc".as_ptr(),
                    c"/proc".as_ptr(),
                    c"proc".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    std::ptr::null(),
                ))?;
            }
            return Ok(());
        }
        // The waiting parent: hold nothing (the terminal, the pipes).
        if libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) != 0 {
            for fd in 0..4096 {
                libc::close(fd);
            }
        }
        let mut status = 0;
        loop {
            let r = libc::waitpid(pid, &raw mut status, 0);
            if r == pid {
                break;
            }
            if r < 0 && *libc::__errno_location() != libc::EINTR {
                libc::_exit(127);
            }
        }
        if libc::WIFSIGNALED(status) {
            let sig = libc::WTERMSIG(status);
            libc::signal(sig, libc::SIG_DFL);
            libc::kill(libc::getpid(), sig);
        }
        libc::_exit(libc::WEXITSTATUS(status))
    }
}

/// `ip link set lo up`, by ioctl. Async-signal-safe.
fn loopback_up() -> io::Result<()> {
    // SAFETY: a socket we close again, and a zeroed ifreq on the stack.
    unsafe {
        let s = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if s < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut ifr: libc::ifreq = std::mem::zeroed();
        for (i, b) in b"lo".iter().enumerate() {
            ifr.ifr_name[i] = libc::c_char::from_ne_bytes([*b]);
        }
        let mut r = libc::ioctl(s, libc::SIOCGIFFLAGS, &mut ifr);
        if r == 0 {
            ifr.ifr_ifru.ifru_flags |= UP_RUNNING;
            r = libc::ioctl(s, libc::SIOCSIFFLAGS, &ifr);
        }
        let err = io::Error::last_os_error();
        libc::close(s);
        if r != 0 { Err(err) } else { Ok(()) }
    }
}

/// The interface flags `lo` is brought up with (`ifru_flags` is a short).
#[expect(
    clippy::cast_possible_truncation,
    reason = "IFF_UP | IFF_RUNNING is 0x41, well inside a short"
)]
const UP_RUNNING: libc::c_short = (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;

/// A close-on-exec pipe: (read end, write end).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both are fresh descriptors we own.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// The steps of one child, with the pipe that tells the supervisor which
/// one failed.
#[derive(Debug)]
pub struct Steps {
    list: Vec<Step>,
    report_r: OwnedFd,
    report_w: OwnedFd,
    /// The `TMPDIR` the shell gets.
    pub tmpdir: PathBuf,
}

impl Steps {
    /// Wrap `steps`.
    pub fn new(steps: Vec<Step>, tmpdir: PathBuf) -> io::Result<Self> {
        let (report_r, report_w) = pipe()?;
        Ok(Self {
            list: steps,
            report_r,
            report_w,
            tmpdir,
        })
    }

    /// The steps, in order.
    pub fn steps(&self) -> &[Step] {
        &self.list
    }

    /// Apply every step; on failure the step's index goes to the report
    /// pipe. Async-signal-safe: for the forked child before `exec`.
    pub fn enter(&self) -> io::Result<()> {
        for (i, s) in self.list.iter().enumerate() {
            if let Err(e) = s.apply() {
                // Saturated, an index no step has: "some step failed".
                let idx = u32::try_from(i).unwrap_or(u32::MAX).to_le_bytes();
                // SAFETY: writing four bytes to our pipe.
                unsafe {
                    libc::write(self.report_w.as_raw_fd(), idx.as_ptr().cast(), idx.len());
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// After a failed spawn or probe: the index of the step that failed.
    pub fn failed_step(&self) -> Option<usize> {
        let fd: RawFd = self.report_r.as_raw_fd();
        let mut idx = [0u8; 4];
        // SAFETY: a non-blocking read into our buffer.
        let n = unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
            libc::read(fd, idx.as_mut_ptr().cast(), idx.len())
        };
        (n == 4).then(|| u32::from_le_bytes(idx) as usize)
    }

    /// After a failed spawn: which step failed, and how, in words.
    pub fn failure(&self, err: &io::Error) -> String {
        match self.failed_step().and_then(|i| self.list.get(i)) {
            Some(step) => format!("{} failed: {err}", step.describe()),
            None => err.to_string(),
        }
    }
}
