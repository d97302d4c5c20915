//! The plumbing of one shell: its private directory (command files), the
//! terminal and pipe it is spawned with, the thread that reads the PTY, the
//! thread that reaps the shell.

#![allow(unsafe_code)] // system calls with no safe wrapper here; each block says why it is sound

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tokio::sync::{Notify, mpsc};

/// A 0700 directory of our own under the temp dir, removed on drop.
#[derive(Debug)]
pub struct PrivateDir {
    path: PathBuf,
}

/// Prefix of our directories' names; the pid of the supervisor follows.
const DIR_PREFIX: &str = "airlock-bash-";

impl PrivateDir {
    /// Create a fresh one (a name that exists already is never reused).
    /// Directories left behind by supervisors that were killed are removed
    /// first.
    pub fn create() -> io::Result<Self> {
        let base = std::env::temp_dir();
        sweep_stale(&base);
        let me = std::process::id();
        let mut last = None;
        for _ in 0..16 {
            let name = format!("{DIR_PREFIX}{me}-{:016x}", rand::random::<u64>());
            let path = base.join(name);
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => {
                    let dir = Self { path };
                    std::fs::DirBuilder::new()
                        .mode(0o700)
                        .create(dir.path.join(crate::sandbox::STATE_DIR))?;
                    return Ok(dir);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no free directory name")))
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file in which each command leaves its working directory and
    /// exported variables for the next (see `super::dispatch`), in the
    /// one subdirectory a sandboxed shell may write.
    pub fn state_file(&self) -> PathBuf {
        self.path.join(crate::sandbox::STATE_DIR).join("env")
    }

    /// A `tmp` directory inside it (mode 1777, like `/tmp`: the directory
    /// itself stays private), for a sandboxed shell's temporary files.
    pub fn tmp(&self) -> io::Result<PathBuf> {
        use std::os::unix::fs::PermissionsExt;
        let tmp = self.path.join("tmp");
        std::fs::DirBuilder::new().mode(0o700).create(&tmp)?;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o1777))?;
        Ok(tmp)
    }
}

/// Remove our directories whose supervisor process is gone (it was killed
/// before it could clean up). A directory of a live process is never
/// touched; one of another user is never touched.
fn sweep_stale(base: &Path) {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(DIR_PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let ours = std::fs::symlink_metadata(e.path()).is_ok_and(|m| m.is_dir() && m.uid() == uid);
        let gone = i32::try_from(pid)
            .ok()
            .and_then(super::procs::stat)
            .is_none_or(|p| p.state == 'Z' || p.state == 'X');
        if ours && gone {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.path) {
            tracing::warn!(dir = %self.path.display(), "cannot remove the shell's directory: {e}");
        }
    }
}

/// Open the PTY slave at `path` for the shell's stdout and stderr, without
/// making it anyone's controlling terminal.
pub fn open_slave(path: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOCTTY)
        .open(path)
}

/// In the forked child, before exec: a session of its own (no controlling
/// terminal: nothing in it can wait on `/dev/tty`) and default signal
/// dispositions. Only async-signal-safe calls.
pub fn child_setup() -> io::Result<()> {
    // SAFETY: setsid and signal are async-signal-safe.
    unsafe {
        for sig in [
            libc::SIGCHLD,
            libc::SIGHUP,
            libc::SIGINT,
            libc::SIGQUIT,
            libc::SIGTERM,
            libc::SIGALRM,
            libc::SIGPIPE,
        ] {
            libc::signal(sig, libc::SIG_DFL);
        }
        if libc::setsid() == -1 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// A duplicate of `fd`, close-on-exec.
pub fn dup_cloexec(fd: RawFd) -> io::Result<OwnedFd> {
    // SAFETY: plain syscall; the result is a new descriptor we own.
    let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
    if new < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `new` is a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(new) })
}

/// A close-on-exec pipe: (read end, write end).
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both are fresh descriptors we own.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Size of one read from the PTY (and of one streamed chunk at most).
const READ_CHUNK: usize = 16 * 1024;

/// Read the PTY master until it closes (every process holding the
/// terminal is gone) or `wake` becomes readable (the shell is dropped).
/// Chunks go to `tx`; a full channel holds the reader back, so a command
/// that prints faster than we consume blocks in `write`, as on a terminal.
pub fn spawn_reader(
    master: OwnedFd,
    wake: OwnedFd,
    tx: mpsc::Sender<Vec<u8>>,
) -> io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("airlock-bash-pty".into())
        .spawn(move || {
            let mut buf = vec![0u8; READ_CHUNK];
            loop {
                let mut fds = [
                    libc::pollfd {
                        fd: master.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    },
                    libc::pollfd {
                        fd: wake.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    },
                ];
                // SAFETY: two valid pollfd entries.
                let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
                if n < 0 {
                    if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                        continue;
                    }
                    break;
                }
                if fds[1].revents != 0 {
                    break;
                }
                if fds[0].revents == 0 {
                    continue;
                }
                // SAFETY: reading into our own buffer from a descriptor we own.
                let got =
                    unsafe { libc::read(master.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
                let Ok(got) = usize::try_from(got) else {
                    if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                        continue;
                    }
                    break; // EIO: the terminal's last user is gone.
                };
                if got == 0 || tx.blocking_send(buf[..got].to_vec()).is_err() {
                    break;
                }
            }
        })
}

/// How the shell ended, filled in by the reaper thread.
#[derive(Debug, Default)]
pub struct ExitCell {
    status: Mutex<Option<i32>>,
    /// Notified once when the shell was reaped.
    pub notify: Notify,
}

impl ExitCell {
    /// The raw wait status, once the shell was reaped.
    pub fn status(&self) -> Option<i32> {
        self.status.lock().map_or(None, |s| *s)
    }
}

/// Wait for `pid` (our child) in a thread of its own, so it never lingers
/// as a zombie, and record its status.
pub fn spawn_reaper(pid: i32) -> io::Result<Arc<ExitCell>> {
    let cell = Arc::new(ExitCell::default());
    let c = cell.clone();
    std::thread::Builder::new()
        .name("airlock-bash-wait".into())
        .spawn(move || {
            let mut status = 0;
            loop {
                // SAFETY: waiting for our own child.
                let r = unsafe { libc::waitpid(pid, &raw mut status, 0) };
                if r == pid {
                    break;
                }
                if r < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                    status = -1;
                    break;
                }
            }
            if let Ok(mut s) = c.status.lock() {
                *s = Some(status);
            }
            c.notify.notify_one();
        })?;
    Ok(cell)
}

/// A raw wait status as (exit code, signal): a signal counts as 128 + n,
/// like the shell reports it.
pub fn decode_status(raw: i32) -> (i32, Option<i32>) {
    if raw == -1 {
        return (-1, None);
    }
    if libc::WIFSIGNALED(raw) {
        let sig = libc::WTERMSIG(raw);
        (128 + sig, Some(sig))
    } else {
        (libc::WEXITSTATUS(raw), None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_directories_of_dead_supervisors_are_swept() {
        let base = std::env::temp_dir().join(format!("airlock-sweep-{:x}", rand::random::<u64>()));
        std::fs::create_dir(&base).unwrap();
        // pid_max is at most 2^22: this pid cannot exist.
        let dead = base.join(format!("{DIR_PREFIX}99999999-0123456789abcdef"));
        let live = base.join(format!(
            "{DIR_PREFIX}{}-0123456789abcdef",
            std::process::id()
        ));
        let other = base.join("unrelated-99999999");
        for d in [&dead, &live, &other] {
            std::fs::create_dir(d).unwrap();
        }
        std::fs::write(dead.join("c1"), "left over").unwrap();
        sweep_stale(&base);
        assert!(!dead.exists());
        assert!(live.exists());
        assert!(other.exists());
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn private_dir_is_0700_and_removed_on_drop() {
        use std::os::unix::fs::PermissionsExt;
        let d = PrivateDir::create().unwrap();
        let path = d.path.clone();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        let state = d.state_file();
        let dir = std::fs::metadata(state.parent().unwrap()).unwrap();
        assert!(dir.is_dir());
        assert_eq!(dir.permissions().mode() & 0o777, 0o700);
        drop(d);
        assert!(!path.exists());
    }
}
