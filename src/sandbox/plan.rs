//! Turning the settings into the steps of one shell's child: which paths
//! to hide, how to give it a private `/tmp` while keeping the workspace
//! (and the command files) at their paths, and the Landlock rules.

#![allow(unsafe_code)] // system calls with no safe wrapper here; each block says why it is sound

use std::ffi::CString;
use std::io;
use std::path::{Path, PathBuf};

use super::child::{HIDDEN_TARGET, Step, Steps};
use super::landlock::{self, Ruleset, fs};
use super::mount_parts::{cstring, locked_flags, outermost};
use super::scan::{self, SCAN_LIMIT};
use super::{Effective, Sandbox, SandboxMode};

/// Most paths hidden (each is a mount).
const MAX_HIDDEN: usize = 512;

/// Directories programs need to run, readable even when `allow_read` is
/// narrowed.
const SYSTEM_READ: &[&str] = &[
    "/bin", "/sbin", "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc",
    "/sys", "/dev",
];

/// Device files every shell uses.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
];

/// The namespaces that cut the shell off from the host's processes with
/// the network off: its own network (only a loopback; abstract Unix
/// sockets are per network namespace too) and its own System V IPC and
/// POSIX message queues (a host process's shared memory, semaphores and
/// queues are otherwise reachable by key or name whatever the network).
pub const NETWORK_NAMESPACES: libc::c_int = libc::CLONE_NEWNET | libc::CLONE_NEWIPC;

/// What [`NETWORK_NAMESPACES`] is called in an error.
pub const NETWORK_NAMESPACES_WHAT: &str = "network and IPC namespace";

/// Steps that enter a user namespace where we keep our own uid and gid.
pub fn userns_steps() -> Vec<Step> {
    // SAFETY: geteuid/getegid have no preconditions.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    let text = |s: String| CString::new(s).unwrap_or_default();
    vec![
        Step::Unshare {
            flags: libc::CLONE_NEWUSER,
            what: "user namespace",
        },
        Step::WriteProc {
            path: c"/proc/self/setgroups",
            text: text("deny".into()),
        },
        Step::WriteProc {
            path: c"/proc/self/uid_map",
            text: text(format!("{uid} {uid} 1\n")),
        },
        Step::WriteProc {
            path: c"/proc/self/gid_map",
            text: text(format!("{gid} {gid} 1\n")),
        },
    ]
}

/// `entry` as a path: `~` is the home directory, relative paths are in
/// the workspace.
pub fn expand(entry: &str, workspace: &Path, home: Option<&Path>) -> Option<PathBuf> {
    if entry == "~" {
        return home.map(Path::to_path_buf);
    }
    if let Some(rest) = entry.strip_prefix("~/") {
        return home.map(|h| h.join(rest));
    }
    let p = Path::new(entry);
    Some(if p.is_absolute() {
        p.to_path_buf()
    } else {
        workspace.join(p)
    })
}

/// The existing, canonical paths of `entries`.
pub fn resolve_all(entries: &[String], workspace: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    entries
        .iter()
        .filter_map(|e| expand(e, workspace, home))
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect()
}

/// Where Unix sockets of services live (Docker, D-Bus, the session's
/// agents and supervisors); hidden with the network off, since a socket
/// reached by path is not cut by the network namespace.
fn socket_roots(home: Option<&Path>) -> Vec<PathBuf> {
    let mut roots = vec![
        PathBuf::from("/run"),
        PathBuf::from("/var/run"),
        PathBuf::from("/var/lib/docker"),
        PathBuf::from("/var/snap"),
        PathBuf::from("/tmp/.X11-unix"),
    ];
    for var in ["XDG_RUNTIME_DIR", "AIRLOCK_RUNTIME_DIR", "DOCKER_HOST"] {
        if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            let p = PathBuf::from(v);
            let p = p
                .strip_prefix("unix://")
                .map(Path::to_path_buf)
                .unwrap_or(p);
            roots.push(p);
        }
    }
    // An agent socket (ssh, gpg) names its directory.
    for var in ["SSH_AUTH_SOCK", "GPG_AGENT_INFO"] {
        if let Some(dir) = std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .and_then(|v| PathBuf::from(v).parent().map(Path::to_path_buf))
        {
            roots.push(dir);
        }
    }
    if let Some(h) = home {
        for rel in [".gnupg", ".docker/run", ".ssh", ".local/share/containers"] {
            roots.push(h.join(rel));
        }
    }
    roots
}

/// Most entries looked at when finding sockets.
const SOCKET_SCAN_LIMIT: usize = 5_000;

/// The Unix sockets under `roots` (not following symlinks, at most
/// [`SOCKET_SCAN_LIMIT`] entries, eight levels deep).
pub fn scan_sockets(roots: &[PathBuf]) -> Vec<PathBuf> {
    use std::os::unix::fs::FileTypeExt;
    let mut found = Vec::new();
    let mut seen = 0usize;
    let mut stack: Vec<(PathBuf, usize)> = roots
        .iter()
        .filter_map(|r| std::fs::canonicalize(r).ok())
        .map(|r| (r, 0))
        .collect();
    stack.sort();
    stack.dedup();
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > SOCKET_SCAN_LIMIT {
                return found;
            }
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_socket() {
                found.push(e.path());
            } else if ft.is_dir() && depth < 8 {
                stack.push((e.path(), depth + 1));
            }
        }
    }
    found
}

/// One shell's plan.
pub struct Built {
    /// The steps.
    pub steps: Steps,
    /// What was hidden.
    pub hidden: Vec<PathBuf>,
    /// Notes for the log (a cut scan, a deny path that would hide the
    /// workspace).
    pub notes: Vec<String>,
}

/// What the settings let the shell read and write, resolved once.
struct Access {
    /// `workspace-write` mode: the workspace is writable.
    writable_ws: bool,
    /// `allow_read` holds `/`: nothing is narrowed.
    read_all: bool,
    /// `allow_read`, resolved.
    allow_read: Vec<PathBuf>,
    /// `allow_write`, resolved.
    allow_write: Vec<PathBuf>,
    /// Landlock confines writes (without it the shell may write anywhere
    /// the user may).
    confined: bool,
}

impl Access {
    /// The paths the shell may write besides its private `/tmp`.
    fn writable_roots(&self, ws: &Path) -> Vec<PathBuf> {
        writable_roots(ws, self.writable_ws, self.confined, &self.allow_write)
    }
}

/// The paths a shell may write besides its private `/tmp`: `allow_write`
/// and, when it is writable, the workspace; everything (`/`) when writes
/// are not confined.
pub(super) fn writable_roots(
    ws: &Path,
    writable_ws: bool,
    confined: bool,
    allow_write: &[PathBuf],
) -> Vec<PathBuf> {
    if !confined {
        return vec![PathBuf::from("/")];
    }
    let mut roots = allow_write.to_vec();
    if writable_ws {
        roots.push(ws.to_path_buf());
    }
    roots
}

/// What the mount namespace's steps leave for the rest of the plan.
struct Mounts {
    /// The `TMPDIR` the shell gets.
    tmpdir: PathBuf,
    /// What was hidden.
    hidden: Vec<PathBuf>,
    /// `/dev/shm` is a private tmpfs.
    private_shm: bool,
    /// `/dev` is private, with its own devpts.
    private_dev: bool,
}

/// Build the steps for a shell whose command files are in `private` and
/// whose temporary directory is `tmp` (inside `private`).
pub fn build(sb: &Sandbox, eff: &Effective, private: &Path, tmp: &Path) -> io::Result<Built> {
    let ws = sb.workspace.as_path();
    let home = sb.home.as_deref();
    let cfg = &sb.cfg;
    let access = Access {
        writable_ws: cfg.mode == SandboxMode::WorkspaceWrite,
        read_all: cfg.allow_read.iter().any(|r| r == "/"),
        allow_read: resolve_all(&cfg.allow_read, ws, home),
        allow_write: resolve_all(&cfg.allow_write, ws, home),
        confined: eff.landlock.is_some(),
    };
    let mut notes = Vec::new();
    let mut steps = Vec::new();

    if eff.userns {
        steps.extend(userns_steps());
    }
    let mut mounts = Mounts {
        tmpdir: tmp.to_path_buf(),
        hidden: Vec::new(),
        private_shm: false,
        private_dev: false,
    };
    if eff.mountns {
        mounts = mount_steps(sb, &access, private, tmp, &mut steps, &mut notes)?;
    }
    if eff.pidns {
        steps.push(Step::Unshare {
            flags: libc::CLONE_NEWPID,
            what: "PID namespace",
        });
        steps.push(Step::PidInit {
            mount_proc: eff.mountns,
        });
    }
    if eff.netns {
        steps.push(Step::Unshare {
            flags: NETWORK_NAMESPACES,
            what: NETWORK_NAMESPACES_WHAT,
        });
        steps.push(Step::LoopbackUp);
    }
    if let Some(abi) = eff.landlock {
        let r = ruleset(sb, eff, abi, &access, private, tmp, &mounts)?;
        steps.push(Step::Landlock(r));
    }
    if eff.caps {
        // After every mount and the loopback (they need capabilities); Landlock
        // and seccomp follow, with `no_new_privs` set here.
        let at = steps
            .iter()
            .position(|s| matches!(s, Step::Landlock(_)))
            .unwrap_or(steps.len());
        steps.insert(at, Step::DropCaps);
    }
    if eff.seccomp {
        steps.push(Step::Seccomp(Box::new(super::seccomp::build()?)));
    }
    Ok(Built {
        steps: Steps::new(steps, mounts.tmpdir)?,
        hidden: mounts.hidden,
        notes,
    })
}

/// The steps of a private mount namespace: the hidden paths, the protected
/// paths and repositories, a private `/tmp` and `/dev/shm`, and a `chdir`
/// back into the workspace once they are in place.
fn mount_steps(
    sb: &Sandbox,
    access: &Access,
    private: &Path,
    tmp: &Path,
    steps: &mut Vec<Step>,
    notes: &mut Vec<String>,
) -> io::Result<Mounts> {
    let ws = sb.workspace.as_path();
    let cfg = &sb.cfg;
    steps.push(Step::Unshare {
        flags: libc::CLONE_NEWNS,
        what: "mount namespace",
    });
    steps.push(Step::Propagation);

    // Hidden paths: deny_read, and from one walk of the whole
    // workspace its excluded paths and hard links to secrets.
    let mut deny = resolve_all(&cfg.deny_read, ws, sb.home.as_deref());
    let git = access.writable_ws && cfg.protect_git;
    if git {
        root_placeholder(sb, notes);
    }
    let found = if cfg.deny_excluded || git {
        walk_workspace(sb, &deny, notes)
    } else {
        scan::Scan::default()
    };
    if cfg.deny_excluded {
        deny.extend(found.excluded.iter().cloned());
        deny.extend(found.linked.iter().cloned());
    }
    if sb.eff.sockets {
        deny.extend(scan_sockets(&socket_roots(sb.home.as_deref())));
    }
    let hidden = hide_steps(ws, private, deny, steps, notes)?;
    if access.writable_ws {
        let mut made = Vec::new();
        steps.extend(protect_steps(ws, &cfg.protect, &mut made, notes)?);
        sb.placeholders
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend(made);
    }
    if git {
        steps.extend(git_steps(ws, &found, notes)?);
    }
    let roots = access.writable_roots(ws);
    let mut made = Vec::new();
    steps.extend(super::own_mounts::steps(
        &sb.own, &roots, &hidden, &mut made, notes,
    )?);
    sb.placeholders
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .extend(made);

    let mut tmpdir = tmp.to_path_buf();
    if private_tmp_steps(ws, access, private, tmp, steps)? {
        tmpdir = PathBuf::from("/tmp");
    }
    let private_dev = sb.eff.dev;
    let private_shm = private_dev || Path::new("/dev/shm").is_dir();
    if private_dev {
        steps.push(Step::PrivateDev);
    } else if private_shm {
        steps.push(Step::Tmpfs {
            target: c"/dev/shm".into(),
            readonly: false,
            options: c"mode=1777".into(),
        });
    }
    steps.push(Step::Chdir(cstring(ws)?));
    Ok(Mounts {
        tmpdir,
        hidden,
        private_shm,
        private_dev,
    })
}

/// One walk of the whole workspace (the guard, if any, watches every
/// directory it enters and learns the repositories found).
fn walk_workspace(sb: &Sandbox, deny: &[PathBuf], notes: &mut Vec<String>) -> scan::Scan {
    let guard = sb.guard.as_ref();
    let started = std::time::Instant::now();
    let s = scan::scan(&sb.workspace, &sb.exclusions, deny, &mut |d| {
        if let Some(g) = guard {
            g.watch(d);
        }
    });
    tracing::debug!(
        entries = s.entries,
        dirs = s.dirs,
        ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        "sandbox: workspace walked"
    );
    if s.cut {
        notes.push(format!(
            "the workspace has more than {SCAN_LIMIT} entries: excluded paths and repositories beyond them are not covered"
        ));
    }
    if let Some(g) = guard {
        g.learn(&s);
    } else if sb.cfg.protect_git && sb.cfg.mode == super::SandboxMode::WorkspaceWrite {
        // No guard to do it: what only a plant looks like is moved aside
        // here (see `repo::is_planted_shape`).
        for p in &s.planted {
            let removed = super::git::neutralise(p);
            if !removed.is_empty() {
                notes.push(format!(
                    "airlock moved aside the control files of a planted git repository in {} (its objects or refs is not a directory)",
                    p.display()
                ));
            }
        }
    }
    s
}

/// Hide each outermost `deny` path (at most [`MAX_HIDDEN`]): a read-only
/// empty tmpfs over a directory, a dangling symlink (made in `private`)
/// over anything else. Returns what was hidden.
fn hide_steps(
    ws: &Path,
    private: &Path,
    deny: Vec<PathBuf>,
    steps: &mut Vec<Step>,
    notes: &mut Vec<String>,
) -> io::Result<Vec<PathBuf>> {
    let link = private.join("hidden");
    std::os::unix::fs::symlink(HIDDEN_TARGET, &link)?;
    let mut hidden = Vec::new();
    for d in outermost(deny) {
        if ws.starts_with(&d) || private.starts_with(&d) {
            notes.push(format!(
                "deny_read {} is not hidden: it holds the workspace",
                d.display()
            ));
            continue;
        }
        if hidden.len() >= MAX_HIDDEN {
            notes.push(format!(
                "more than {MAX_HIDDEN} paths to hide: the rest are not"
            ));
            break;
        }
        let Ok(meta) = std::fs::metadata(&d) else {
            continue;
        };
        steps.push(if meta.is_dir() {
            Step::Tmpfs {
                target: cstring(&d)?,
                readonly: true,
                options: c"size=4k,mode=0555".into(),
            }
        } else {
            Step::HideFile {
                link: cstring(&link)?,
                target: cstring(&d)?,
            }
        });
        hidden.push(d);
    }
    Ok(hidden)
}

/// A private `/tmp` (the directory `tmp` bound over it), with what must
/// stay visible under it bound back. False when `/tmp` cannot be private.
fn private_tmp_steps(
    ws: &Path,
    access: &Access,
    private: &Path,
    tmp: &Path,
    steps: &mut Vec<Step>,
) -> io::Result<bool> {
    let Some(keeps) = tmp_keeps(
        ws,
        private,
        tmp,
        &access.allow_write,
        &access.allow_read,
        access.read_all,
    ) else {
        return Ok(false);
    };
    // The shell's state directory stays writable inside its read-only
    // private directory.
    let state = private.join(super::STATE_DIR);
    let state_kept = keeps.iter().any(|k| state.starts_with(k)) && state.is_dir();
    for k in keeps {
        let rel = k.strip_prefix("/tmp").unwrap_or(&k);
        let dst = tmp.join(rel);
        if k.is_dir() {
            std::fs::create_dir_all(&dst)?;
        } else {
            if let Some(parent) = dst.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::File::create(&dst)?;
        }
        let writable =
            (access.writable_ws && k == ws) || access.allow_write.iter().any(|w| w == &k);
        steps.push(Step::Bind {
            src: cstring(&k)?,
            dst: cstring(&dst)?,
            readonly: (!writable).then(|| locked_flags(&k)),
        });
    }
    if state_kept {
        let rel = state.strip_prefix("/tmp").unwrap_or(&state);
        steps.push(Step::Bind {
            src: cstring(&state)?,
            dst: cstring(&tmp.join(rel))?,
            readonly: None,
        });
    }
    steps.push(Step::Bind {
        src: cstring(tmp)?,
        dst: c"/tmp".into(),
        readonly: None,
    });
    Ok(true)
}

/// The Landlock ruleset: reads of the allowed and system paths, writes of
/// `tmp`, the allowed paths (and the workspace in `workspace-write`), the
/// device files; TCP and scopes as the network setting says.
fn ruleset(
    sb: &Sandbox,
    eff: &Effective,
    abi: u32,
    access: &Access,
    private: &Path,
    tmp: &Path,
    mounts: &Mounts,
) -> io::Result<Ruleset> {
    let cfg = &sb.cfg;
    let ws = sb.workspace.as_path();
    let block_tcp = !cfg.allow_network && !eff.netns;
    let mut scopes = landlock::SCOPE_SIGNAL;
    if !cfg.allow_network {
        scopes |= landlock::SCOPE_ABSTRACT_UNIX;
    }
    let mut r = Ruleset::new(abi, block_tcp, scopes)?;
    let mut reads: Vec<PathBuf> = access.allow_read.clone();
    if !access.read_all {
        reads.extend(SYSTEM_READ.iter().map(PathBuf::from));
        if let Some(path) = std::env::var_os("PATH") {
            reads.extend(std::env::split_paths(&path));
        }
        reads.push(private.to_path_buf());
    }
    reads.push(ws.to_path_buf());
    for p in reads.iter().filter(|p| p.exists()) {
        r.allow(p, fs::READ)?;
    }
    if eff.pidns && eff.mountns && !access.read_all {
        // The PID namespace's own /proc is a new mount: rules on the
        // host's /proc do not reach beneath it.
        r.allow_late(Path::new("/proc"), fs::READ)?;
    }
    let mut writes = vec![tmp.to_path_buf(), private.join(super::STATE_DIR)];
    writes.extend(access.allow_write.iter().cloned());
    if access.writable_ws {
        writes.push(ws.to_path_buf());
    }
    for p in writes.iter().filter(|p| p.exists()) {
        r.allow(p, fs::ALL)?;
    }
    if mounts.private_shm {
        // A tmpfs mounted in the child: rules on the host's do not reach it.
        r.allow_late(Path::new("/dev/shm"), fs::ALL)?;
    }
    for d in DEVICES.iter().map(Path::new).filter(|p| p.exists()) {
        r.allow(d, fs::DEVICE)?;
    }
    if mounts.private_dev && !access.read_all {
        r.allow_late(Path::new("/dev"), fs::READ)?;
    }
    if mounts.private_dev {
        // The shell's own devpts, mounted in the child.
        r.allow_late(Path::new("/dev/pts"), fs::DEVICE | fs::READ_DIR)?;
    } else if Path::new("/dev/pts").is_dir() {
        r.allow(Path::new("/dev/pts"), fs::DEVICE | fs::READ_DIR)?;
    }
    Ok(r)
}

/// Read-only binds of the `protect` paths in the workspace (a placeholder
/// made where one is absent, unless it ends with `?`), each preceded by a plain bind of its top directory onto itself (`.git`),
/// so that directory, now a mount point, cannot be moved away and replaced.
fn protect_steps(
    ws: &Path,
    protect: &[String],
    made: &mut Vec<PathBuf>,
    notes: &mut Vec<String>,
) -> io::Result<Vec<Step>> {
    let mut tops: Vec<PathBuf> = Vec::new();
    let mut ro: Vec<PathBuf> = Vec::new();
    for entry in protect {
        // `name?`: protected when it exists, no placeholder made (a file an
        // agent parses, such as `.mcp.json`, must not appear empty).
        let (rel, when_present) = match entry.strip_suffix('?') {
            Some(rel) => (rel, true),
            None => (entry.as_str(), false),
        };
        let path = ws.join(rel);
        let absent = std::fs::symlink_metadata(&path).is_err();
        if absent && when_present {
            continue;
        }
        if absent {
            // Absent: an empty placeholder (a directory when the entry
            // ends with `/`), so it cannot be created inside the sandbox.
            let made_it = if rel.ends_with('/') {
                std::fs::create_dir_all(&path)
            } else {
                path.parent()
                    .map_or(Ok(()), std::fs::create_dir_all)
                    .and_then(|()| std::fs::File::create_new(&path).map(drop))
            };
            match made_it {
                Ok(()) => made.push(path.clone()),
                Err(e) => {
                    notes.push(format!(
                        "protect {rel} is not protected: cannot create its placeholder: {e}"
                    ));
                    continue;
                }
            }
        }
        let Ok(real) = std::fs::canonicalize(&path) else {
            continue;
        };
        let Ok(inside) = real.strip_prefix(ws) else {
            continue;
        };
        let Some(first) = inside.components().next() else {
            continue;
        };
        let top = ws.join(first);
        if top != real && top.is_dir() && !tops.contains(&top) {
            tops.push(top);
        }
        ro.push(real);
    }
    let mut steps = Vec::new();
    for t in &tops {
        steps.push(Step::Bind {
            src: cstring(t)?,
            dst: cstring(t)?,
            readonly: None,
        });
    }
    for p in outermost(ro) {
        steps.push(Step::Bind {
            src: cstring(&p)?,
            dst: cstring(&p)?,
            readonly: Some(locked_flags(&p)),
        });
    }
    Ok(steps)
}

/// With the workspace not (yet) a repository: an empty `.git` placeholder,
/// so `git init` inside the sandbox cannot make one whose config and
/// hooks host-side git would use (an empty `.git` is not a repository to
/// git: it looks further up, as before). Removed when the session ends.
fn root_placeholder(sb: &Sandbox, notes: &mut Vec<String>) {
    let dot = sb.workspace.join(".git");
    if std::fs::symlink_metadata(&dot).is_ok() {
        return;
    }
    match std::fs::create_dir(&dot) {
        Ok(()) => sb
            .placeholders
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(dot),
        Err(e) => notes.push(format!(
            ".git is not protected: cannot create its placeholder: {e}"
        )),
    }
}

/// The mounts that keep every repository's control files read-only (see
/// [`super::git`]): each repository directory bound onto itself, then its
/// control entries (placeholders made where absent) and every `.git` file
/// read-only.
fn git_steps(ws: &Path, found: &scan::Scan, notes: &mut Vec<String>) -> io::Result<Vec<Step>> {
    let mut p = super::git::Protection::default();
    let mut dirs = found.gitdirs.clone();
    dirs.sort();
    dirs.dedup();
    for g in &dirs {
        if !super::repo::is_repository(g) {
            // A `.git` that is not a repository (the placeholder): all of
            // it read-only.
            p.readonly.push(g.clone());
            continue;
        }
        if let Err(e) = super::git::protect_gitdir(g, ws, &mut p) {
            notes.push(format!(
                "the git control files of {} are not all protected: {e}",
                g.display()
            ));
        }
    }
    let mut steps = Vec::new();
    for d in &p.pinned {
        steps.push(Step::Bind {
            src: cstring(d)?,
            dst: cstring(d)?,
            readonly: None,
        });
    }
    // Nested `.airlock.toml` files configure an airlock started there.
    for f in p
        .readonly
        .iter()
        .chain(&found.gitfiles)
        .chain(&found.project_configs)
    {
        if std::fs::symlink_metadata(f).is_err() {
            continue;
        }
        steps.push(Step::Bind {
            src: cstring(f)?,
            dst: cstring(f)?,
            readonly: Some(locked_flags(f)),
        });
    }
    Ok(steps)
}

/// What must be bound back into the private `/tmp` so it stays visible
/// at its path (the workspace, the command files, allowed paths under
/// `/tmp`); `None` when `/tmp` cannot be private (an allowed path is `/tmp`
/// itself or above it).
fn tmp_keeps(
    ws: &Path,
    private: &Path,
    tmp: &Path,
    allow_write: &[PathBuf],
    allow_read: &[PathBuf],
    read_all: bool,
) -> Option<Vec<PathBuf>> {
    let host_tmp = std::fs::canonicalize("/tmp").ok()?;
    if host_tmp != Path::new("/tmp") {
        return None;
    }
    let mut wanted = vec![ws.to_path_buf(), private.to_path_buf()];
    wanted.extend(allow_write.iter().cloned());
    if !read_all {
        wanted.extend(allow_read.iter().cloned());
    }
    if wanted.iter().any(|w| host_tmp.starts_with(w)) {
        return None;
    }
    let under: Vec<PathBuf> = wanted
        .into_iter()
        .filter(|w| w.starts_with(&host_tmp) && !w.starts_with(tmp))
        .collect();
    Some(outermost(under))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_expand_from_home_and_workspace() {
        let ws = Path::new("/w");
        let home = Some(Path::new("/h"));
        assert_eq!(expand("~", ws, home), Some(PathBuf::from("/h")));
        assert_eq!(expand("~/.ssh", ws, home), Some(PathBuf::from("/h/.ssh")));
        assert_eq!(expand("/etc", ws, home), Some(PathBuf::from("/etc")));
        assert_eq!(expand("out", ws, home), Some(PathBuf::from("/w/out")));
        assert_eq!(expand("~/x", ws, None), None);
    }
}
