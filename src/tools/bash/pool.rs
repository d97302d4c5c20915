//! One shell per agent: started lazily, calls of one agent take turns on
//! it, and it ends when the agent disconnects, the supervisor stops, or
//! the pool is dropped.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::dispatch::Asked;
use super::procs;
use super::session::{RunOutcome, Shell, ShellConfig, ShellError};
use crate::tools::ShellCheck;

/// What one call asks of its agent's shell.
#[derive(Debug, Clone)]
pub struct Request {
    /// The command; `None` only with `restart`.
    pub command: Option<String>,
    /// End the current shell first.
    pub restart: bool,
    /// How long the command may run.
    pub timeout: Duration,
    /// Checked with the shell's working directory just before the command
    /// is sent; the command does not run when it fails.
    pub check: Option<ShellCheck>,
}

/// What happened.
#[derive(Debug)]
pub enum PoolOutcome {
    /// The command ran (or ended some other way).
    Ran {
        /// The shell's report.
        outcome: RunOutcome,
        /// The agent's shell had ended between calls (killed from outside):
        /// this command ran in a fresh one.
        replaced: bool,
        /// The shell was restarted on request first.
        restarted: bool,
    },
    /// Only a restart was asked for.
    Restarted,
    /// Cancelled before the command reached the shell.
    CancelledBeforeStart,
    /// The request's check refused the shell's working directory: the
    /// command was not sent.
    NotRun {
        /// Why.
        reason: String,
    },
}

struct Slot {
    shell: tokio::sync::Mutex<Option<Shell>>,
    closed: CancellationToken,
    /// The current shell's pid (0: none), for killing it without the lock.
    pid: AtomicI32,
    /// The current bash process's pid, for its working directory.
    bash_pid: AtomicI32,
}

/// The shells of all agents.
pub struct Pool {
    slots: Mutex<HashMap<u64, Arc<Slot>>>,
}

impl Default for Pool {
    fn default() -> Self {
        Self::new()
    }
}

impl Pool {
    /// No shells yet.
    pub fn new() -> Self {
        Self {
            slots: Mutex::new(HashMap::new()),
        }
    }

    fn slot(&self, agent: u64) -> Arc<Slot> {
        let mut slots = self
            .slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        slots
            .entry(agent)
            .or_insert_with(|| {
                Arc::new(Slot {
                    shell: tokio::sync::Mutex::new(None),
                    closed: CancellationToken::new(),
                    pid: AtomicI32::new(0),
                    bash_pid: AtomicI32::new(0),
                })
            })
            .clone()
    }

    /// Number of agents with a live shell (for tests and diagnostics).
    pub fn live_shells(&self) -> Vec<i32> {
        let slots = self
            .slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        slots
            .values()
            .map(|s| s.pid.load(Ordering::SeqCst))
            .filter(|p| *p > 0)
            .collect()
    }

    /// Where `agent`'s next command would run: its live shell's working
    /// directory as the kernel has it, or `fresh` (where a new shell
    /// starts) when it has none; `None` when it cannot be read.
    pub fn cwd(&self, agent: u64, fresh: &Path) -> Option<PathBuf> {
        let (leader, shell) = {
            let slots = self
                .slots
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            slots.get(&agent).map_or((0, 0), |s| {
                (
                    s.pid.load(Ordering::SeqCst),
                    s.bash_pid.load(Ordering::SeqCst),
                )
            })
        };
        match (leader, shell) {
            (0, _) => Some(fresh.to_path_buf()),
            (_, 0) => None,
            (_, shell) => procs::cwd(shell),
        }
    }

    /// Run `req` on `agent`'s shell, starting one with `cfg` if needed.
    pub async fn run(
        &self,
        agent: u64,
        cfg: &ShellConfig,
        req: &Request,
        cancel: &CancellationToken,
        on_output: &mut (dyn FnMut(&[u8]) + Send),
    ) -> Result<PoolOutcome, ShellError> {
        let slot = self.slot(agent);
        let mut guard = tokio::select! {
            g = slot.shell.lock() => g,
            () = cancel.cancelled() => return Ok(PoolOutcome::CancelledBeforeStart),
            () = slot.closed.cancelled() => return Ok(PoolOutcome::CancelledBeforeStart),
        };
        if req.restart {
            if let Some(mut old) = guard.take() {
                old.kill();
            }
            slot.pid.store(0, Ordering::SeqCst);
        }
        let Some(command) = req.command.as_deref() else {
            return Ok(PoolOutcome::Restarted);
        };
        let replaced = guard.as_ref().is_some_and(|s| !s.is_alive());
        let shell = match guard.take() {
            Some(s) if s.is_alive() => s,
            _ => {
                slot.pid.store(0, Ordering::SeqCst);
                let s = Shell::spawn(cfg).await?;
                slot.pid.store(s.pid(), Ordering::SeqCst);
                slot.bash_pid.store(s.bash_pid(), Ordering::SeqCst);
                s
            }
        };
        let shell = guard.insert(shell);
        if slot.closed.is_cancelled() {
            shell.kill();
        }
        if let Some(check) = &req.check {
            let checked = (shell.bash_pid() > 0)
                .then(|| procs::cwd(shell.bash_pid()))
                .flatten()
                .ok_or_else(|| "the shell's working directory cannot be read".to_string())
                .and_then(|cwd| check.check(&cwd));
            if let Err(reason) = checked {
                return Ok(PoolOutcome::NotRun { reason });
            }
        }
        let stop = async {
            tokio::select! {
                () = cancel.cancelled() => {}
                () = slot.closed.cancelled() => {}
            }
        };
        // A known-safe verdict (the request's check) means nobody was asked.
        let asked = if req.check.is_some() {
            Asked::No
        } else {
            Asked::Yes
        };
        let outcome = shell
            .run_as(command, asked, req.timeout, stop, on_output)
            .await?;
        if !shell.is_alive() || slot.closed.is_cancelled() {
            slot.pid.store(0, Ordering::SeqCst);
            *guard = None;
        }
        Ok(PoolOutcome::Ran {
            replaced,
            restarted: req.restart,
            outcome,
        })
    }

    /// End `agent`'s shell and everything it started, now.
    pub fn close(&self, agent: u64) {
        let slot = {
            let mut slots = self
                .slots
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            slots.remove(&agent)
        };
        if let Some(slot) = slot {
            close_slot(&slot);
        }
    }

    /// End every shell, now.
    pub fn close_all(&self) {
        let all: Vec<Arc<Slot>> = {
            let mut slots = self
                .slots
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            slots.drain().map(|(_, s)| s).collect()
        };
        for slot in all {
            close_slot(&slot);
        }
    }
}

/// Kill synchronously (the runtime may stop right after), then let a call
/// still running on the shell see the cancellation and tidy up.
fn close_slot(slot: &Slot) {
    slot.closed.cancel();
    let pid = slot.pid.swap(0, Ordering::SeqCst);
    if pid > 0 {
        procs::kill_tree(pid);
    }
    if let Ok(mut g) = slot.shell.try_lock() {
        g.take();
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.close_all();
    }
}
