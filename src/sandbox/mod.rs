//! The kernel-enforced sandbox around the bash tool's shells: defence in
//! depth under the approval prompt, so an approved command still cannot
//! write outside the workspace, read hidden paths, reach the network or
//! see the host's environment.
//!
//! Linux mechanisms, each probed at start-up ([`probe`]):
//! * Landlock confines writes (and reads, if `allow_read` is narrowed),
//!   applies to root too, forbids mounts, and scopes signals and ptrace to
//!   the sandbox;
//! * a user namespace confines the shell's capabilities (and lets an
//!   unprivileged supervisor create the others);
//! * a mount namespace hides `deny_read` paths (a directory shows empty,
//!   a file reads as absent), keeps `protect` paths, git's control files
//!   and airlock's own files ([`own`]) read-only, and gives the shell a
//!   private `/tmp`;
//! * a network namespace with only its own loopback cuts the network, and
//!   an IPC namespace the host's System V IPC and message queues;
//!
//! What the kernel lacks is reported (log, status line, audit), never
//! silently skipped; with `required = true` the shell is refused instead.

#![allow(unsafe_code)] // system calls with no safe wrapper here; each block says why it is sound

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::scope::Exclusions;

mod caps;
pub mod child;
mod dev;
pub mod git;
pub mod guard;
pub mod hooks_path;
pub mod landlock;
mod mount_parts;
pub mod own;
mod own_mounts;
pub mod plan;
pub mod probe;
pub mod repo;
pub mod scan;
pub mod seccomp;
mod settings;

pub use probe::{FORCE_UNAVAILABLE_ENV, Support};

/// The subdirectory of a shell's private directory that the shell may
/// write (the rest of it it may only read): where each command leaves its
/// working directory and exported variables for the next.
pub const STATE_DIR: &str = "state";
pub use settings::{
    AllowEnvError, DEFAULT_ALLOW_ENV, DEFAULT_DENY_READ, EnvAllowlist, SandboxConfig, SandboxMode,
    SandboxOverrides,
};

/// How much of the sandbox is in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SandboxState {
    /// Everything asked for.
    Enforced,
    /// Some of it: `missing` says what is not.
    Partial,
    /// None: configured off, or the kernel has nothing usable.
    Off,
    /// `required = true` and something is missing: shells are refused.
    Refused,
}

/// The effective sandbox, as the audit trail records it and the status
/// bar shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "serialized status: one bool per independent protection"
)]
pub struct SandboxStatus {
    /// Enforced, partial, off or refused.
    pub state: SandboxState,
    /// One line for a status bar: `sandbox: workspace-write, no network
    /// (landlock+userns+mountns+netns+pidns)`, `sandbox: off — reason`.
    pub summary: String,
    /// The configured mode.
    pub mode: SandboxMode,
    /// Whether a missing mechanism refuses the shell.
    pub required: bool,
    /// The mechanisms in use.
    pub mechanisms: Vec<String>,
    /// Landlock's ABI version, when it is used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landlock_abi: Option<u32>,
    /// What is not enforced, and why.
    #[serde(default)]
    pub missing: Vec<String>,
    /// Where the shell may write.
    #[serde(default)]
    pub allow_write: Vec<String>,
    /// Where it may read.
    #[serde(default)]
    pub allow_read: Vec<String>,
    /// What is hidden (besides the workspace's excluded paths).
    #[serde(default)]
    pub deny_read: Vec<String>,
    /// Whether the workspace's excluded paths are hidden.
    #[serde(default)]
    pub deny_excluded: bool,
    /// Paths in the workspace kept read-only.
    #[serde(default)]
    pub protect: Vec<String>,
    /// Whether every repository's git control files are kept read-only
    /// (and planted repositories moved aside).
    #[serde(default)]
    pub protect_git: bool,
    /// airlock's own paths (user config directory, config files in force,
    /// data and runtime directories) that a path the shell may write
    /// holds, kept read-only there (with a mount namespace: `missing`
    /// says when there is none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub protect_own: Vec<String>,
    /// Whether the network is reachable.
    #[serde(default)]
    pub allow_network: bool,
    /// Which host variables the shell sees.
    #[serde(default)]
    pub allow_env: Vec<String>,
}

impl SandboxStatus {
    /// Whether shells run inside a sandbox (fully or partly).
    pub fn is_active(&self) -> bool {
        matches!(self.state, SandboxState::Enforced | SandboxState::Partial)
    }
}

/// A sandbox cannot be applied.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SandboxError {
    /// `required = true` and the kernel lacks something.
    #[error("the sandbox is required but {0}")]
    Refused(String),
    /// The settings are unusable.
    #[error("the sandbox is misconfigured: {0}")]
    Config(String),
    /// Preparing the shell's sandbox failed.
    #[error("cannot prepare the sandbox: {0}")]
    Prepare(String),
    /// The shell's child could not enter it.
    #[error("cannot enter the sandbox: {0}")]
    Enter(String),
}

/// Which mechanisms a shell gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "one bool per independent kernel protection that took effect"
)]
pub struct Effective {
    /// Landlock, at this ABI.
    pub landlock: Option<u32>,
    /// A user namespace.
    pub userns: bool,
    /// A mount namespace.
    pub mountns: bool,
    /// A network namespace.
    pub netns: bool,
    /// A PID namespace with the shell as its init.
    pub pidns: bool,
    /// Every capability dropped before `exec`.
    pub caps: bool,
    /// The seccomp filter.
    pub seccomp: bool,
    /// A private `/dev` (with a mount namespace).
    pub dev: bool,
    /// The host's Unix sockets hidden (network off, mount namespace).
    pub sockets: bool,
}

/// The sandbox of one session: settings, what the kernel offers, and the
/// resulting status.
#[derive(Debug)]
pub struct Sandbox {
    cfg: SandboxConfig,
    workspace: PathBuf,
    home: Option<PathBuf>,
    exclusions: Exclusions,
    /// airlock's own paths, kept read-only where the shell may write them
    /// (none with `protect_airlock = false`).
    own: Vec<own::OwnPath>,
    env: Result<EnvAllowlist, AllowEnvError>,
    eff: Effective,
    status: SandboxStatus,
    guard: Option<Arc<guard::Guard>>,
    /// Placeholders made in the workspace, removed (when still empty) when
    /// the sandbox ends.
    placeholders: std::sync::Mutex<Vec<PathBuf>>,
}

fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf()))
}

impl Sandbox {
    /// The sandbox for `workspace` (canonical), probing the kernel unless
    /// the mode is off; `own` is airlock's own paths
    /// ([`own::airlock_paths`], the list the write tools refuse).
    pub fn new(
        cfg: &SandboxConfig,
        workspace: &Path,
        exclusions: &Exclusions,
        own: &[own::OwnPath],
    ) -> Arc<Self> {
        let support = if cfg.mode == SandboxMode::Off {
            Support::none("mode = off")
        } else {
            probe::probe()
        };
        Arc::new(Self::with_support(
            cfg, workspace, exclusions, own, &support,
        ))
    }

    /// The same with a given kernel support (tests).
    pub fn with_support(
        cfg: &SandboxConfig,
        workspace: &Path,
        exclusions: &Exclusions,
        own: &[own::OwnPath],
        support: &Support,
    ) -> Self {
        let home = home_dir();
        let (eff, mut missing) = effective(cfg, support);
        let env = EnvAllowlist::new(&cfg.allow_env);
        let guard = start_guard(cfg, workspace, exclusions, eff, &mut missing);
        let own = if cfg.protect_airlock && cfg.mode != SandboxMode::Off {
            own.to_vec()
        } else {
            Vec::new()
        };
        let exposed = own_exposed(cfg, workspace, home.as_deref(), eff, &own);
        if !exposed.is_empty() && !eff.mountns {
            missing.push(format!(
                "airlock's own files the shell may write are not read-only (no mount namespace): {}",
                exposed.join(", ")
            ));
        }
        let mut status = status(cfg, workspace, home.as_deref(), eff, missing);
        status.protect_own = exposed;
        Self {
            cfg: cfg.clone(),
            workspace: workspace.to_path_buf(),
            home,
            exclusions: exclusions.clone(),
            own,
            env,
            eff,
            status,
            guard,
            placeholders: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// A shell started: `pid` is in its namespaces, `link` its dangling
    /// symlink for hiding files. The guard hides late files in it.
    pub fn attach(&self, pid: i32, link: &Path) {
        if let Some(g) = &self.guard
            && self.eff.mountns
        {
            g.attach(pid, link, self.eff.userns);
        }
    }

    /// Whether excluded files that appear after a shell started are hidden
    /// in it (the guard runs, with a mount namespace).
    pub fn hides_late(&self) -> bool {
        self.guard.is_some() && self.eff.mountns && self.cfg.deny_excluded
    }

    /// The shell `pid` ended.
    pub fn detach(&self, pid: i32) {
        if let Some(g) = &self.guard {
            g.detach(pid);
        }
    }

    /// After a command: what the guard did since the last one (planted
    /// repositories removed), in words for the result.
    pub fn settle(&self) -> Vec<String> {
        self.guard.as_ref().map(|g| g.settle()).unwrap_or_default()
    }

    /// What is in force.
    pub fn status(&self) -> &SandboxStatus {
        &self.status
    }

    /// The settings.
    pub fn config(&self) -> &SandboxConfig {
        &self.cfg
    }

    /// The host variables (already without secrets) the shell may see: all
    /// of them with the mode off, else those `allow_env` allows.
    pub fn filter_env<I>(&self, vars: I) -> Result<Vec<(OsString, OsString)>, SandboxError>
    where
        I: IntoIterator<Item = (OsString, OsString)>,
    {
        if self.cfg.mode == SandboxMode::Off {
            return Ok(vars.into_iter().collect());
        }
        match &self.env {
            Ok(a) => Ok(a.filter(vars)),
            Err(e) => Err(SandboxError::Config(e.to_string())),
        }
    }

    /// The steps for one shell whose command files are in `private` and
    /// whose temporary directory is `tmp`; `None` when shells run without
    /// a sandbox (mode off, or nothing usable and not required).
    pub fn prepare(
        &self,
        private: &Path,
        tmp: &Path,
    ) -> Result<Option<child::Steps>, SandboxError> {
        match self.status.state {
            SandboxState::Refused => {
                return Err(SandboxError::Refused(
                    self.status.missing.join("; ") + "; the shell was not started",
                ));
            }
            SandboxState::Off => return Ok(None),
            SandboxState::Enforced | SandboxState::Partial => {}
        }
        if let Err(e) = &self.env {
            return Err(SandboxError::Config(e.to_string()));
        }
        let built = plan::build(self, &self.eff, private, tmp)
            .map_err(|e| SandboxError::Prepare(e.to_string()))?;
        for n in &built.notes {
            tracing::warn!("sandbox: {n}");
        }
        tracing::debug!(hidden = built.hidden.len(), "sandbox prepared");
        Ok(Some(built.steps))
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let list = self
            .placeholders
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for p in list.iter() {
            // Only while empty: never anything the user put there.
            match std::fs::symlink_metadata(p) {
                Ok(m) if m.is_dir() => drop(std::fs::remove_dir(p)),
                Ok(m) if m.is_file() && m.len() == 0 => drop(std::fs::remove_file(p)),
                _ => {}
            }
        }
    }
}

/// Those of `own` that a path the shell may write holds (the workspace
/// in `workspace-write` mode, `allow_write`; any path without Landlock),
/// as airlock names them.
fn own_exposed(
    cfg: &SandboxConfig,
    workspace: &Path,
    home: Option<&Path>,
    eff: Effective,
    own: &[own::OwnPath],
) -> Vec<String> {
    let roots = plan::writable_roots(
        workspace,
        cfg.mode == SandboxMode::WorkspaceWrite,
        eff.landlock.is_some(),
        &plan::resolve_all(&cfg.allow_write, workspace, home),
    );
    own_mounts::plan(own, &roots)
        .exposed
        .iter()
        .map(|p| p.display().to_string())
        .collect()
}

/// The workspace guard (see [`guard`]) when the workspace is writable or
/// excluded files are hidden; what it cannot do goes to `missing`.
fn start_guard(
    cfg: &SandboxConfig,
    ws: &Path,
    ex: &Exclusions,
    eff: Effective,
    missing: &mut Vec<String>,
) -> Option<Arc<guard::Guard>> {
    let git = cfg.mode == SandboxMode::WorkspaceWrite && cfg.protect_git;
    let hide = cfg.deny_excluded && eff.mountns;
    if cfg.mode == SandboxMode::Off || (!git && !hide) {
        return None;
    }
    if git && !eff.mountns {
        missing.push(
            "git control files and protect paths are not read-only (no mount namespace)".into(),
        );
    }
    match guard::Guard::new(ws, ex, git, hide) {
        Ok(g) => Some(g),
        Err(e) => {
            missing.push(format!(
                "excluded files created after a shell started are not hidden, and git repositories planted while it runs are not removed: inotify: {e}"
            ));
            None
        }
    }
}

fn effective(cfg: &SandboxConfig, s: &Support) -> (Effective, Vec<String>) {
    let mut missing = Vec::new();
    if cfg.mode == SandboxMode::Off {
        return (Effective::default(), missing);
    }
    let eff = Effective {
        landlock: s.landlock.as_ref().ok().copied(),
        userns: s.userns.is_ok(),
        mountns: s.mountns.is_ok(),
        netns: !cfg.allow_network && s.netns.is_ok(),
        pidns: cfg.contain_processes && s.pidns.is_ok(),
        caps: s.caps.is_ok(),
        seccomp: s.seccomp.is_ok(),
        dev: s.mountns.is_ok() && s.dev.is_ok(),
        sockets: !cfg.allow_network && s.mountns.is_ok() && s.sockets.is_ok(),
    };
    if let Err(why) = &s.landlock {
        missing.push(format!("writes are not confined: {why}"));
    }
    if let Err(why) = &s.mountns {
        missing.push(format!(
            "deny_read paths are not hidden and /tmp is not private: {why}"
        ));
    }
    if !cfg.allow_network
        && let Err(why) = &s.netns
    {
        if eff.landlock.is_some_and(|abi| abi >= 4) {
            missing.push(format!(
                "network: only TCP is blocked (Landlock), not UDP or raw sockets: {why}"
            ));
        } else {
            missing.push(format!("the network is not cut off: {why}"));
        }
    }
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if root && let Err(why) = &s.userns {
        missing.push(format!(
            "the shell keeps root's capabilities (no user namespace): {why}"
        ));
    }
    if let Err(why) = &s.caps {
        missing.push(format!(
            "the shell keeps its capabilities (it may undo the sandbox's mounts where Landlock is missing): {why}"
        ));
    }
    if let Err(why) = &s.seccomp {
        missing.push(format!(
            "mount, namespace, ptrace and kernel-interface system calls are not filtered (seccomp): {why}"
        ));
    }
    if s.mountns.is_ok()
        && let Err(why) = &s.dev
    {
        missing.push(format!("the host's devices are visible in /dev: {why}"));
    }
    if !cfg.allow_network
        && s.mountns.is_ok()
        && let Err(why) = &s.sockets
    {
        missing.push(format!(
            "the host's Unix sockets (docker, D-Bus, runtime directories) are reachable by path: {why}"
        ));
    }
    if cfg.contain_processes
        && let Err(why) = &s.pidns
    {
        missing.push(format!(
            "processes that leave the shell's session (setsid, daemons) can outlive a timeout, restart or disconnect: {why}"
        ));
    }
    (eff, missing)
}

fn status(
    cfg: &SandboxConfig,
    workspace: &Path,
    home: Option<&Path>,
    eff: Effective,
    missing: Vec<String>,
) -> SandboxStatus {
    let mut mechanisms = Vec::new();
    if eff.landlock.is_some() {
        mechanisms.push("landlock".to_string());
    }
    for (on, name) in [
        (eff.userns, "userns"),
        (eff.mountns, "mountns"),
        (eff.netns, "netns"),
        (eff.pidns, "pidns"),
    ] {
        if on {
            mechanisms.push(name.to_string());
        }
    }
    let mode = cfg.mode.as_str();
    let net = if cfg.allow_network {
        "network allowed"
    } else {
        "no network"
    };
    let mechs = mechanisms.join("+");
    let (state, summary) = if cfg.mode == SandboxMode::Off {
        (SandboxState::Off, "sandbox: off — mode = off".to_string())
    } else if missing.is_empty() {
        (
            SandboxState::Enforced,
            format!("sandbox: {mode}, {net} ({mechs})"),
        )
    } else if cfg.required {
        (
            SandboxState::Refused,
            format!(
                "sandbox: required but unavailable — {}; bash will not start",
                missing[0]
            ),
        )
    } else if eff.landlock.is_none() && !eff.mountns && !eff.netns && !eff.pidns {
        let more = match missing.len() {
            1 => String::new(),
            n => format!(" (+{} more)", n - 1),
        };
        (
            SandboxState::Off,
            format!("sandbox: off — {}{more}", missing[0]),
        )
    } else {
        (
            SandboxState::Partial,
            format!("sandbox: {mode}, {net}, partial ({mechs}) — {}", missing[0]),
        )
    };
    let show = |entries: &[String]| -> Vec<String> {
        entries
            .iter()
            .map(|e| {
                plan::expand(e, workspace, home)
                    .map_or_else(|| e.clone(), |p| p.display().to_string())
            })
            .collect()
    };
    let mut allow_write = Vec::new();
    if cfg.mode == SandboxMode::WorkspaceWrite {
        allow_write.push(workspace.display().to_string());
    }
    if cfg.mode != SandboxMode::Off {
        allow_write.push("/tmp (private)".to_string());
    }
    allow_write.extend(show(&cfg.allow_write));
    SandboxStatus {
        state,
        summary,
        mode: cfg.mode,
        required: cfg.required,
        mechanisms,
        landlock_abi: eff.landlock,
        missing,
        allow_write,
        allow_read: show(&cfg.allow_read),
        deny_read: show(&cfg.deny_read),
        deny_excluded: cfg.deny_excluded,
        protect: cfg.protect.clone(),
        protect_git: cfg.protect_git && cfg.mode == SandboxMode::WorkspaceWrite,
        protect_own: Vec::new(),
        allow_network: cfg.allow_network,
        allow_env: cfg.allow_env.clone(),
    }
}

#[cfg(test)]
mod tests;
