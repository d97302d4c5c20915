//! What this kernel offers: Landlock (and its ABI), and user, mount and
//! network namespaces, found by trying them in a forked child exactly as
//! the shell's child will use them.

#![allow(unsafe_code)] // system calls with no safe wrapper here; each block says why it is sound

use std::collections::BTreeSet;
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::child::{HIDDEN_TARGET, Step, Steps};
use super::landlock;

/// The test-only override: a comma-separated list of mechanisms
/// (`landlock`, `userns`, `mountns`, `netns`, `pidns`, `caps`, `seccomp`,
/// `dev`, `sockets`) or `1`/`all`, reported as
/// unavailable whatever the kernel says.
pub const FORCE_UNAVAILABLE_ENV: &str = "AIRLOCK_SANDBOX_FORCE_UNAVAILABLE";

/// What the kernel offers; each `Err` says why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Support {
    /// Landlock's ABI version.
    pub landlock: Result<u32, String>,
    /// User namespaces (capabilities confined to the sandbox; what lets an
    /// unprivileged supervisor create the others).
    pub userns: Result<(), String>,
    /// Mount namespaces (hidden paths, private `/tmp`).
    pub mountns: Result<(), String>,
    /// Network namespaces (no network).
    pub netns: Result<(), String>,
    /// PID namespaces (nothing a shell started outlives it).
    pub pidns: Result<(), String>,
    /// Dropping every capability (the shell cannot undo its mounts).
    pub caps: Result<(), String>,
    /// A seccomp filter (mount and namespace calls refused).
    pub seccomp: Result<(), String>,
    /// A private `/dev` (needs a mount namespace).
    pub dev: Result<(), String>,
    /// Hiding the host's Unix sockets (with the network off; needs a mount
    /// namespace).
    pub sockets: Result<(), String>,
}

impl Support {
    /// Nothing at all, for `why`.
    pub fn none(why: &str) -> Self {
        Self {
            landlock: Err(why.into()),
            userns: Err(why.into()),
            mountns: Err(why.into()),
            netns: Err(why.into()),
            pidns: Err(why.into()),
            caps: Err(why.into()),
            seccomp: Err(why.into()),
            dev: Err(why.into()),
            sockets: Err(why.into()),
        }
    }
}

const FORCED: &str = "reported unavailable by AIRLOCK_SANDBOX_FORCE_UNAVAILABLE (test override)";

fn forced() -> BTreeSet<String> {
    let Ok(v) = std::env::var(FORCE_UNAVAILABLE_ENV) else {
        return BTreeSet::new();
    };
    let v = v.trim();
    if v.is_empty() || v == "0" {
        return BTreeSet::new();
    }
    if v == "1" || v.eq_ignore_ascii_case("all") {
        return [
            "landlock", "userns", "mountns", "netns", "pidns", "caps", "seccomp", "dev", "sockets",
        ]
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    }
    v.split(',').map(|s| s.trim().to_lowercase()).collect()
}

fn landlock_reason(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::ENOSYS) => "the kernel lacks Landlock (ENOSYS)".into(),
        Some(libc::EOPNOTSUPP) => "Landlock is disabled in this kernel (EOPNOTSUPP)".into(),
        _ => format!("Landlock is unavailable: {e}"),
    }
}

/// Which mechanism a probe step belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Mech {
    Landlock,
    Userns,
    Mountns,
    Netns,
    Pidns,
    Caps,
    Seccomp,
    Dev,
}

/// What is believed to work before probing: everything, except what
/// `AIRLOCK_SANDBOX_DISABLE` forces off (and Landlock when the kernel has no ABI).
fn initial_support() -> Support {
    let forced = forced();
    let gate = |name: &str| -> Result<(), String> {
        if forced.contains(name) {
            Err(FORCED.into())
        } else {
            Ok(())
        }
    };
    Support {
        landlock: gate("landlock").and_then(|()| landlock::abi().map_err(|e| landlock_reason(&e))),
        userns: gate("userns"),
        mountns: gate("mountns"),
        netns: gate("netns"),
        pidns: gate("pidns"),
        caps: gate("caps"),
        seccomp: gate("seccomp"),
        dev: gate("dev"),
        sockets: gate("sockets"),
    }
}

/// Find out what works here (a fork or a few; a few milliseconds).
pub fn probe() -> Support {
    let mut s = initial_support();
    let dir = match ProbeDir::create() {
        Ok(d) => d,
        Err(e) => {
            let why = format!("cannot prepare the probe: {e}");
            s.userns = Err(why.clone());
            s.mountns = Err(why.clone());
            s.netns = Err(why.clone());
            s.pidns = Err(why.clone());
            s.dev = Err(why);
            return s;
        }
    };
    if s.seccomp.is_ok()
        && let Err(e) = super::seccomp::build()
    {
        s.seccomp = Err(e.to_string());
    }
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    for _ in 0..8 {
        let (steps, owners) = match probe_steps(&s, &dir) {
            Ok(x) => x,
            Err(e) => {
                s.landlock = Err(format!("cannot build a Landlock ruleset: {e}"));
                continue;
            }
        };
        if steps.steps().is_empty() {
            break;
        }
        let Err((idx, err)) = run_forked(&steps) else {
            break;
        };
        let why = match idx.and_then(|i| steps.steps().get(i)) {
            Some(step) => format!("{} failed: {err}", step.describe()),
            None => format!("the probe failed: {err}"),
        };
        let owner = idx.and_then(|i| owners.get(i).copied());
        match owner {
            Some(Mech::Landlock) => s.landlock = Err(why),
            Some(Mech::Userns) => {
                if !root {
                    let needs = format!("needs a user namespace, and {why}");
                    s.mountns = s.mountns.and(Err(needs.clone()));
                    s.netns = s.netns.and(Err(needs.clone()));
                    s.pidns = s.pidns.and(Err(needs));
                }
                s.userns = Err(why);
            }
            Some(Mech::Mountns) => s.mountns = Err(why),
            Some(Mech::Netns) => s.netns = Err(why),
            Some(Mech::Pidns) => s.pidns = Err(why),
            Some(Mech::Caps) => s.caps = Err(why),
            Some(Mech::Seccomp) => s.seccomp = Err(why),
            Some(Mech::Dev) => s.dev = Err(why),
            None => {
                s.userns = s.userns.and(Err(why.clone()));
                s.mountns = s.mountns.and(Err(why.clone()));
                s.netns = s.netns.and(Err(why.clone()));
                s.pidns = s.pidns.and(Err(why));
            }
        }
    }
    s
}

/// The steps that try everything still believed to work, and which
/// mechanism each belongs to.
fn probe_steps(s: &Support, dir: &ProbeDir) -> io::Result<(Steps, Vec<Mech>)> {
    let mut steps = Vec::new();
    let mut owners = Vec::new();
    let mut push = |m: Mech, st: Step| {
        owners.push(m);
        steps.push(st);
    };
    if s.userns.is_ok() && (s.mountns.is_ok() || s.netns.is_ok() || s.pidns.is_ok()) {
        for st in super::plan::userns_steps() {
            push(Mech::Userns, st);
        }
    }
    if s.mountns.is_ok() {
        push(
            Mech::Mountns,
            Step::Unshare {
                flags: libc::CLONE_NEWNS,
                what: "mount namespace",
            },
        );
        push(Mech::Mountns, Step::Propagation);
        push(
            Mech::Mountns,
            Step::Tmpfs {
                target: cstring(&dir.path.join("d"))?,
                readonly: true,
                options: c"size=4k,mode=0555".into(),
            },
        );
        push(
            Mech::Mountns,
            Step::HideFile {
                link: cstring(&dir.path.join("l"))?,
                target: cstring(&dir.path.join("f"))?,
            },
        );
    }
    if s.mountns.is_ok() && s.dev.is_ok() {
        push(Mech::Dev, Step::PrivateDev);
    }
    if s.pidns.is_ok() {
        push(
            Mech::Pidns,
            Step::Unshare {
                flags: libc::CLONE_NEWPID,
                what: "PID namespace",
            },
        );
        push(
            Mech::Pidns,
            Step::PidInit {
                mount_proc: s.mountns.is_ok(),
            },
        );
    }
    if s.netns.is_ok() {
        push(
            Mech::Netns,
            Step::Unshare {
                flags: super::plan::NETWORK_NAMESPACES,
                what: super::plan::NETWORK_NAMESPACES_WHAT,
            },
        );
        push(Mech::Netns, Step::LoopbackUp);
    }
    if let Ok(abi) = s.landlock {
        let mut r = landlock::Ruleset::new(abi, false, 0)?;
        r.allow(Path::new("/"), landlock::fs::READ)?;
        push(Mech::Landlock, Step::Landlock(r));
    }
    if s.caps.is_ok() {
        push(Mech::Caps, Step::DropCaps);
    }
    if s.seccomp.is_ok() {
        // Built once already in `probe`: this cannot fail.
        if let Ok(f) = super::seccomp::build() {
            push(Mech::Seccomp, Step::Seccomp(Box::new(f)));
        }
    }
    Ok((Steps::new(steps, dir.path.clone())?, owners))
}

/// Run `steps` in a forked child; on failure, the failing step's index (if
/// it got that far) and the error.
pub(super) fn run_forked(steps: &Steps) -> Result<(), (Option<usize>, io::Error)> {
    let (r, w) = pipe().map_err(|e| (None, e))?;
    // SAFETY: the child only makes async-signal-safe calls, then _exit.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err((None, io::Error::last_os_error()));
    }
    if pid == 0 {
        let code = match steps.enter() {
            Ok(()) => 0,
            Err(e) => {
                let errno = e.raw_os_error().unwrap_or(0).to_le_bytes();
                // SAFETY: writing four bytes to our pipe.
                unsafe { libc::write(w, errno.as_ptr().cast(), errno.len()) };
                1
            }
        };
        // SAFETY: leave the child without running any destructor.
        unsafe { libc::_exit(code) };
    }
    // SAFETY: closing our copy of the write end; the child has its own.
    unsafe { libc::close(w) };
    let mut status = 0;
    loop {
        // SAFETY: waiting for our own child.
        let got = unsafe { libc::waitpid(pid, &raw mut status, 0) };
        if got == pid {
            break;
        }
        if got < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            // SAFETY: closing our read end.
            unsafe { libc::close(r) };
            return Err((None, io::Error::last_os_error()));
        }
    }
    let mut errno = [0u8; 4];
    // SAFETY: reading into our buffer, then closing our read end.
    let n = unsafe {
        let n = libc::read(r, errno.as_mut_ptr().cast(), errno.len());
        libc::close(r);
        n
    };
    if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
        return Ok(());
    }
    let err = if n == 4 {
        io::Error::from_raw_os_error(i32::from_le_bytes(errno))
    } else {
        io::Error::other(format!("the probe child ended with status {status}"))
    };
    Err((steps.failed_step(), err))
}

fn pipe() -> io::Result<(libc::c_int, libc::c_int)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((fds[0], fds[1]))
}

fn cstring(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| io::Error::other("path contains NUL"))
}

/// A scratch directory with what the mount probe needs.
struct ProbeDir {
    path: PathBuf,
}

impl ProbeDir {
    fn create() -> io::Result<Self> {
        let path = std::env::temp_dir().join(format!(
            "airlock-probe-{}-{:016x}",
            std::process::id(),
            rand::random::<u64>()
        ));
        std::fs::create_dir(&path)?;
        let d = Self { path };
        std::fs::create_dir(d.path.join("d"))?;
        std::fs::write(d.path.join("f"), "probe")?;
        std::os::unix::fs::symlink(HIDDEN_TARGET, d.path.join("l"))?;
        Ok(d)
    }
}

impl Drop for ProbeDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machine_has_every_mechanism() {
        // Landlock and namespaces are available here and in CI; a probe
        // that finds less is a bug (or a changed machine: read the reason).
        let s = probe();
        assert!(s.landlock.is_ok(), "{s:?}");
        assert!(s.userns.is_ok(), "{s:?}");
        assert!(s.mountns.is_ok(), "{s:?}");
        assert!(s.netns.is_ok(), "{s:?}");
        assert!(s.pidns.is_ok(), "{s:?}");
        assert!(s.caps.is_ok(), "{s:?}");
        assert!(s.seccomp.is_ok(), "{s:?}");
        assert!(s.dev.is_ok(), "{s:?}");
    }
}
