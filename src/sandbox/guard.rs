//! The workspace guard: an inotify watch on every directory of the
//! workspace, kept while the session runs, for what a mount made at shell
//! start cannot cover because the path did not exist yet:
//! * an excluded file (or a hard link to a secret) that appears later is
//!   hidden in every live shell at once (a mount made from outside, in the
//!   shell's namespaces);
//! * a git repository planted while a shell lives (a new `.git` directory,
//!   file or symlink anywhere, a directory that becomes a repository, a
//!   `commondir` in a known one) is removed or stripped of its control
//!   files, and the next command's result says so.
//!
//! Events are handled by a thread of the guard as they come (background
//! processes of a shell), and once more, synchronously, when a command
//! ends ([`Guard::settle`]), so its result is exact.

#![allow(unsafe_code)] // system calls with no safe wrapper here; each block says why it is sound

use std::collections::{HashMap, HashSet};
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::child::{Step, Steps};
use super::scan::{self, FileId, Scan};
use crate::scope::Exclusions;

/// New entries; changed ones (`chmod +x objects`, `HEAD` rewritten) for
/// the repository check only.
const MASK: u32 = libc::IN_CREATE
    | libc::IN_MOVED_TO
    | libc::IN_ATTRIB
    | libc::IN_CLOSE_WRITE
    | libc::IN_DONT_FOLLOW
    | libc::IN_EXCL_UNLINK;
const NEW: u32 = libc::IN_CREATE | libc::IN_MOVED_TO;
/// Most directories kept for re-checking ([`State::pending`]).
const MAX_PENDING: usize = 4096;
// Past it, the next re-check walks the whole workspace instead (fails
// closed: a flood of decoys cannot hide the one that matters).

/// A live shell the guard hides late files in.
#[derive(Debug, Clone)]
struct ShellNs {
    /// A process in the shell's namespaces.
    pid: i32,
    /// Its dangling symlink (mounted over a file to hide it).
    link: CString,
    /// It has a user namespace of its own.
    userns: bool,
}

#[expect(
    clippy::struct_excessive_bools,
    reason = "independent switches and flags of one guard"
)]
struct State {
    ws: PathBuf,
    ex: Exclusions,
    protect_git: bool,
    hide: bool,
    wds: HashMap<i32, PathBuf>,
    known: HashSet<FileId>,
    /// Directories with an entry git looks at (`HEAD`, `objects`, `refs`,
    /// `commondir`) that were not repositories when last looked at: what
    /// completes them later (a dangling symlink's target made, a file made
    /// executable, anywhere) is caught when any event comes, when a
    /// command ends and when the shell ends.
    pending: HashSet<PathBuf>,
    /// A directory did not fit in `pending`: the next re-check walks the
    /// whole workspace.
    pending_overflow: bool,
    secret: HashSet<FileId>,
    shells: Vec<ShellNs>,
    /// Hidden after start, in every shell (applied to shells that start later too).
    later: Vec<PathBuf>,
    notes: Vec<String>,
    watch_failed: bool,
}

/// See the module documentation.
pub struct Guard {
    fd: OwnedFd,
    state: Mutex<State>,
    stop: Mutex<Option<OwnedFd>>,
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard").finish_non_exhaustive()
    }
}

impl Guard {
    /// A guard for `ws`; `protect_git`: remove planted repositories;
    /// `hide`: hide excluded files that appear later.
    pub fn new(ws: &Path, ex: &Exclusions, protect_git: bool, hide: bool) -> io::Result<Arc<Self>> {
        // SAFETY: plain syscall; the result is a descriptor we own.
        let raw = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fresh descriptor.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let g = Arc::new(Self {
            fd,
            state: Mutex::new(State {
                ws: ws.to_path_buf(),
                ex: ex.clone(),
                protect_git,
                hide,
                wds: HashMap::new(),
                known: HashSet::new(),
                pending: HashSet::new(),
                pending_overflow: false,
                secret: HashSet::new(),
                shells: Vec::new(),
                later: Vec::new(),
                notes: Vec::new(),
                watch_failed: false,
            }),
            stop: Mutex::new(None),
        });
        let (stop_r, stop_w) = pipe()?;
        *g.stop
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(stop_w);
        let weak = Arc::downgrade(&g);
        let fd = g.fd.as_raw_fd();
        std::thread::Builder::new()
            .name("airlock-sandbox-guard".into())
            .spawn(move || {
                loop {
                    let mut fds = [
                        libc::pollfd {
                            fd,
                            events: libc::POLLIN,
                            revents: 0,
                        },
                        libc::pollfd {
                            fd: stop_r.as_raw_fd(),
                            events: libc::POLLIN,
                            revents: 0,
                        },
                    ];
                    // SAFETY: two valid pollfd entries.
                    let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
                    if n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                        continue;
                    }
                    if n < 0 || fds[1].revents != 0 {
                        break;
                    }
                    let Some(g) = weak.upgrade() else { break };
                    let mut st = g.lock();
                    g.drain(&mut st);
                }
            })?;
        Ok(g)
    }

    /// Watch `dir` (before it is read, so nothing created in it is missed).
    pub fn watch(&self, dir: &Path) {
        let mut st = self.lock();
        self.add_watch(&mut st, dir);
    }

    /// What a shell's start-up walk found: its repositories are legitimate,
    /// its secrets' inodes are secret.
    pub fn learn(&self, s: &Scan) {
        let mut st = self.lock();
        for p in s
            .gitdirs
            .iter()
            .chain(&s.gitfiles)
            .chain(&s.project_configs)
        {
            if let Some(id) = scan::file_id(p) {
                st.known.insert(id);
            }
        }
        for c in &s.candidates {
            Self::remember(&mut st, c);
        }
        st.secret.extend(s.secret_inodes.iter().copied());
        for p in &s.planted {
            Self::neutralise_planted(&mut st, p);
        }
    }

    /// A shell started in its namespaces (`pid`); hide in it what appeared
    /// since its walk.
    pub fn attach(&self, pid: i32, link: &Path, userns: bool) {
        let Ok(link) = CString::new(link.as_os_str().as_bytes()) else {
            return;
        };
        let sh = ShellNs { pid, link, userns };
        let mut st = self.lock();
        self.drain(&mut st);
        for p in st.later.clone() {
            hide_in(&sh, &p);
        }
        st.shells.push(sh);
    }

    /// The shell `pid` is gone (what it left is looked at once more while
    /// it still counts as live).
    pub fn detach(&self, pid: i32) {
        let mut st = self.lock();
        self.drain(&mut st);
        Self::recheck_pending(&mut st);
        st.shells.retain(|s| s.pid != pid);
    }

    /// Handle every pending event now; what was done since the last call,
    /// in words.
    pub fn settle(&self) -> Vec<String> {
        let mut st = self.lock();
        self.drain(&mut st);
        Self::recheck_pending(&mut st);
        std::mem::take(&mut st.notes)
    }

    /// Whether a watch could not be added (the inotify limit).
    pub fn watch_failed(&self) -> bool {
        self.lock().watch_failed
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn add_watch(&self, st: &mut State, dir: &Path) {
        let Ok(c) = CString::new(dir.as_os_str().as_bytes()) else {
            return;
        };
        // SAFETY: a valid C string and our inotify descriptor.
        let wd = unsafe { libc::inotify_add_watch(self.fd.as_raw_fd(), c.as_ptr(), MASK) };
        if wd < 0 {
            if !st.watch_failed {
                tracing::warn!(
                    dir = %dir.display(),
                    "sandbox guard: cannot watch: {} (fs.inotify.max_user_watches?)",
                    io::Error::last_os_error()
                );
            }
            st.watch_failed = true;
            return;
        }
        st.wds.insert(wd, dir.to_path_buf());
    }

    fn drain(&self, st: &mut State) {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            // SAFETY: reading into our buffer from our descriptor.
            let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            let n = match usize::try_from(n) {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            let mut off = 0usize;
            let head = std::mem::size_of::<libc::inotify_event>();
            while off + head <= n {
                // SAFETY: the kernel wrote a whole event here.
                let ev: libc::inotify_event =
                    unsafe { std::ptr::read_unaligned(buf[off..].as_ptr().cast()) };
                let name_bytes = &buf[off + head..off + head + ev.len as usize];
                off += head + ev.len as usize;
                if ev.mask & libc::IN_Q_OVERFLOW != 0 {
                    self.rescan(st);
                    continue;
                }
                if ev.mask & libc::IN_IGNORED != 0 {
                    st.wds.remove(&ev.wd);
                    continue;
                }
                let Some(dir) = st.wds.get(&ev.wd).cloned() else {
                    continue;
                };
                let end = name_bytes
                    .iter()
                    .position(|b| *b == 0)
                    .unwrap_or(name_bytes.len());
                let name = std::ffi::OsString::from_vec(name_bytes[..end].to_vec());
                let p = dir.join(name);
                if ev.mask & NEW != 0 {
                    self.consider(st, &p, 0);
                } else {
                    // Changed, not new: only whether a repository is now complete.
                    Self::check_gitdir_shape(st, &dir, &p);
                    if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir()) {
                        Self::check_gitdir_shape(st, &p, &p);
                    }
                }
            }
            Self::recheck_pending(st);
        }
    }

    /// Keep `dir` for re-checking.
    fn remember(st: &mut State, dir: &Path) {
        if st.pending.len() < MAX_PENDING {
            st.pending.insert(dir.to_path_buf());
        } else if !st.pending.contains(dir) {
            st.pending_overflow = true;
        }
    }

    /// Move aside the control files of a directory only a plant has the
    /// shape of (see [`super::repo::is_planted_shape`]).
    fn neutralise_planted(st: &mut State, dir: &Path) {
        if st.protect_git {
            Self::neutralise(
                st,
                dir,
                "a planted git repository (its objects or refs is not a directory)",
            );
        }
    }

    /// Move aside the control files of the repository `dir` (it is no
    /// longer pending) and say so: "… the control files of `what`: …".
    fn neutralise(st: &mut State, dir: &Path, what: &str) {
        st.pending.remove(dir);
        let removed = super::git::neutralise(dir);
        if !removed.is_empty() {
            let names: Vec<String> = removed.iter().map(|p| rel(&st.ws, p)).collect();
            let note = format!(
                "airlock moved aside the control files of {what}: {}",
                names.join(", ")
            );
            tracing::warn!("sandbox guard: {note}");
            st.notes.push(note);
        }
    }

    /// A new entry `p` (unless known or made while no shell runs, then the
    /// user's) is moved aside, and the note says why: "… aside to …: `why`".
    fn quarantine_new(st: &mut State, p: &Path, why: &str) {
        let Some(id) = scan::file_id(p) else { return };
        if !st.protect_git || st.known.contains(&id) {
            return;
        }
        if !Self::live(st) {
            // Made on the host while no shell runs: the user's.
            st.known.insert(id);
            return;
        }
        if let Some(q) = super::git::quarantine(p) {
            let note = format!(
                "airlock moved {} aside to {}: {why}",
                rel(&st.ws, p),
                rel(&st.ws, &q)
            );
            tracing::warn!("sandbox guard: {note}");
            st.notes.push(note);
        }
    }

    /// Whether a pending directory became a repository. Also while no
    /// shell runs: what completes a directory the sandbox (or a walk) left
    /// one step short is not the user's new repository (`write_file`
    /// making the target of a dangling `objects` symlink, say).
    fn recheck_pending(st: &mut State) {
        if st.pending.is_empty() || !st.protect_git {
            return;
        }
        let dirs: Vec<PathBuf> = st.pending.iter().cloned().collect();
        for d in dirs {
            if std::fs::symlink_metadata(&d).is_err() {
                st.pending.remove(&d);
                continue;
            }
            if super::repo::is_planted_shape(&d) {
                Self::neutralise_planted(st, &d);
                continue;
            }
            Self::shape_now(st, &d, &d);
        }
        if std::mem::take(&mut st.pending_overflow) {
            // Too many to keep: every directory of the workspace again.
            let (ws, ex) = (st.ws.clone(), st.ex.clone());
            let s = scan::scan(&ws, &ex, &[], &mut |_| {});
            for p in &s.planted {
                Self::neutralise_planted(st, p);
            }
            for p in &s.gitdirs {
                if p.file_name().is_none_or(|n| n != ".git") {
                    Self::shape_now(st, p, &p.join("HEAD"));
                }
            }
        }
    }

    /// Everything again (the event queue overflowed).
    fn rescan(&self, st: &mut State) {
        let ws = st.ws.clone();
        let ex = st.ex.clone();
        let mut dirs = Vec::new();
        let s = scan::scan(&ws, &ex, &[], &mut |d| dirs.push(d.to_path_buf()));
        for d in dirs {
            self.add_watch(st, &d);
        }
        for p in s.excluded.iter().chain(&s.linked) {
            Self::hide_late(st, p);
        }
        for p in s.gitdirs.iter().chain(&s.gitfiles) {
            if p.file_name().is_some_and(|n| n == ".git") {
                Self::check_git(st, p);
            } else {
                Self::check_gitdir_shape(st, p, &p.join("HEAD"));
            }
        }
        for c in &s.candidates {
            Self::remember(st, c);
        }
        for p in &s.planted {
            Self::neutralise_planted(st, p);
        }
        for p in &s.project_configs {
            Self::check_project_config(st, p);
        }
    }

    /// A new entry `p`.
    fn consider(&self, st: &mut State, p: &Path, depth: usize) {
        let Ok(m) = std::fs::symlink_metadata(p) else {
            return;
        };
        let Ok(rel) = p.strip_prefix(&st.ws) else {
            return;
        };
        if st.ex.matches(rel).is_some() || (m.is_file() && st.secret.contains(&(m.dev(), m.ino())))
        {
            Self::hide_late(st, p);
            return;
        }
        if p.file_name().is_some_and(|n| n == ".git") {
            Self::check_git(st, p);
            if std::fs::symlink_metadata(p).is_err() {
                return;
            }
        }
        if p.parent().is_some_and(|d| d != st.ws)
            && p.file_name()
                .is_some_and(|n| crate::scope::same_name(n, crate::dirs::PROJECT_CONFIG))
        {
            Self::check_project_config(st, p);
            if std::fs::symlink_metadata(p).is_err() {
                return;
            }
        }
        // Any new entry may complete its directory (the target of a
        // dangling `objects` symlink made beside it).
        if let Some(parent) = p.parent() {
            Self::check_gitdir_shape(st, parent, p);
        }
        if m.is_dir() && depth < 64 {
            self.add_watch(st, p);
            if let Ok(entries) = std::fs::read_dir(p) {
                for e in entries.flatten() {
                    self.consider(st, &e.path(), depth + 1);
                }
            }
        }
    }

    fn live(st: &State) -> bool {
        !st.shells.is_empty()
    }

    /// A `.git` entry (directory, file, symlink).
    fn check_git(st: &mut State, p: &Path) {
        Self::quarantine_new(
            st,
            p,
            "a git repository or gitdir link created while the sandboxed shell runs (host-side git would read its config and hooks)",
        );
    }

    /// A nested `.airlock.toml` (the project config of an airlock started
    /// in its directory) created while a shell runs.
    fn check_project_config(st: &mut State, p: &Path) {
        Self::quarantine_new(
            st,
            p,
            "an airlock project config created while the sandboxed shell runs (an airlock started there would obey it)",
        );
    }

    /// `what` appeared or changed in `dir`: a repository not known before?
    fn check_gitdir_shape(st: &mut State, dir: &Path, what: &Path) {
        if !st.protect_git || !Self::live(st) {
            return;
        }
        Self::shape_now(st, dir, what);
    }

    fn shape_now(st: &mut State, dir: &Path, what: &Path) {
        let known = scan::file_id(dir).is_some_and(|id| st.known.contains(&id));
        if known {
            // In a repository that existed: only an indirection can be new
            // (everything else is read-only or a placeholder).
            if what.file_name().is_some_and(|n| n == "commondir")
                && let Some(q) = super::git::quarantine(what)
            {
                let note = format!(
                    "airlock moved {} aside to {} (a planted git indirection)",
                    rel(&st.ws, what),
                    rel(&st.ws, &q)
                );
                tracing::warn!("sandbox guard: {note}");
                st.notes.push(note);
            }
            return;
        }
        if !super::repo::is_repository(dir) {
            let shaped = what.file_name().is_some_and(super::repo::is_shape_name);
            if shaped && what.parent() == Some(dir) {
                Self::remember(st, dir);
            }
            return;
        }
        Self::neutralise(
            st,
            dir,
            "a git repository created while the sandboxed shell runs",
        );
    }

    fn hide_late(st: &mut State, p: &Path) {
        if !st.hide || st.later.iter().any(|l| l == p) {
            return;
        }
        for sh in &st.shells {
            hide_in(sh, p);
        }
        st.later.push(p.to_path_buf());
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(w) = self
            .stop
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
        {
            // SAFETY: one byte to our pipe.
            unsafe { libc::write(w.as_raw_fd(), b"x".as_ptr().cast(), 1) };
        }
    }
}

/// Hide `p` in the shell's mount namespace: a forked helper joins its
/// namespaces and mounts there what the shell's own start-up would have.
/// `p` relative to the workspace `ws`, for a note.
fn rel(ws: &Path, p: &Path) -> String {
    p.strip_prefix(ws).unwrap_or(p).display().to_string()
}

fn hide_in(sh: &ShellNs, p: &Path) {
    let r = (|| -> io::Result<()> {
        let target = CString::new(p.as_os_str().as_bytes()).map_err(|_| io::Error::other("NUL"))?;
        let mut steps = Vec::new();
        if sh.userns {
            steps.push(Step::SetNs {
                fd: open_ns(sh.pid, "user")?,
                nstype: libc::CLONE_NEWUSER,
            });
        }
        steps.push(Step::SetNs {
            fd: open_ns(sh.pid, "mnt")?,
            nstype: libc::CLONE_NEWNS,
        });
        let is_dir = std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
        steps.push(if is_dir {
            Step::Tmpfs {
                target,
                readonly: true,
                options: c"size=4k,mode=0555".into(),
            }
        } else {
            Step::HideFile {
                link: sh.link.clone(),
                target,
            }
        });
        let steps = Steps::new(steps, PathBuf::from("/"))?;
        super::probe::run_forked(&steps).map_err(|(_, e)| e)
    })();
    if let Err(e) = r {
        tracing::warn!(path = %p.display(), pid = sh.pid, "sandbox guard: cannot hide: {e}");
    }
}

fn open_ns(pid: i32, ns: &str) -> io::Result<OwnedFd> {
    let f = std::fs::File::open(format!("/proc/{pid}/ns/{ns}"))?;
    Ok(OwnedFd::from(f))
}

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both are fresh descriptors we own.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}
