//! One long-lived bash in a pseudo-terminal, which starts a fresh bash
//! for each command.
//!
//! Programs see a terminal on stdout and stderr (the PTY slave, opened
//! with `O_NOCTTY`; the shell is a session leader without a controlling
//! terminal, so a program that wants to prompt on `/dev/tty` — sudo, ssh —
//! fails at once instead of waiting for a human who is not there). The
//! shell does not read its commands from the terminal: its stdin is a socket
//! only we write to, so it is non-interactive (no prompt, no echo, no
//! job-control chatter). Each command travels in one dispatch line and runs
//! in a fresh bash of its own (see [`dispatch`]): this long-lived one only
//! dispatches.

#![allow(unsafe_code)] // system calls with no safe wrapper here; each block says why it is sound

use std::ffi::OsString;
use std::fs::File;
use std::future::Future;
use std::io::Write;
use std::net::Shutdown;
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use portable_pty::{MasterPty, PtySize};
use tokio::sync::mpsc;

use super::capture::{Capture, Captured};
use super::dispatch::{self, Asked};
use super::plumbing::{self, ExitCell, PrivateDir};
use super::procs;
use super::sentinel::{Scanner, Token};
use crate::sandbox::{Sandbox, SandboxError, child::Steps};

/// How long a fresh shell may take to answer its first command.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(10);
/// How long we keep reading after a shell died or was killed.
const DRAIN_GRACE: Duration = Duration::from_millis(300);

/// What a shell is started with.
#[derive(Debug, Clone)]
pub struct ShellConfig {
    /// Its first working directory.
    pub workspace: PathBuf,
    /// Its complete environment.
    pub env: Vec<(OsString, OsString)>,
    /// Most bytes of output kept per command (head and tail).
    pub max_output_bytes: usize,
    /// The sandbox the shell runs in (`None`: none).
    pub sandbox: Option<Arc<Sandbox>>,
}

/// A shell could not be started or fed.
#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    /// The PTY or the process could not be created.
    #[error("cannot start bash: {0}")]
    Spawn(String),
    /// bash started but did not answer.
    #[error("bash did not start properly: {0}")]
    Startup(String),
    /// The command could not be handed over.
    #[error("cannot pass the command to bash: {0}")]
    Io(#[from] std::io::Error),
    /// The sandbox could not be applied (or is required and unavailable).
    #[error("{0}")]
    Sandbox(#[from] SandboxError),
}

/// How a command's call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The command finished; the shell lives on.
    Finished {
        /// `$?`.
        status: i32,
    },
    /// The shell itself ended (killed; a command's own `exit` or `exec`
    /// ends only that command's bash).
    ShellExited {
        /// Its exit status (128 + n for signal n).
        code: i32,
        /// The signal that ended it, if any.
        signal: Option<i32>,
    },
    /// The timeout hit; everything was killed.
    TimedOut,
    /// Cancelled (agent, disconnect, shutdown); everything was killed.
    Cancelled,
}

/// The result of one command.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// How it ended.
    pub ending: Ending,
    /// What it printed.
    pub output: Captured,
    /// The shell's working directory afterwards (`None` once it is gone).
    pub cwd: Option<String>,
    /// Wall-clock time on the shell.
    pub duration: Duration,
    /// What the sandbox's guard did meanwhile (planted git repositories
    /// removed), for the result.
    pub sandbox_notes: Vec<String>,
}

/// One bash process in its PTY.
pub struct Shell {
    pid: i32,
    /// The bash process itself: `pid`, or in a PID namespace its only
    /// child (`pid` is then the namespace's waiting parent); 0 when it
    /// could not be found.
    bash_pid: i32,
    max_output: usize,
    /// The PTY's master side, open as long as the shell's terminal is.
    master: Box<dyn MasterPty + Send>,
    commands: UnixStream,
    dir: PrivateDir,
    rx: mpsc::Receiver<Vec<u8>>,
    exit: Arc<ExitCell>,
    wake: Option<std::os::fd::OwnedFd>,
    carry: Vec<u8>,
    last_status: i32,
    cwd: String,
    dead: bool,
    cleaned: bool,
    sandbox: Option<Arc<Sandbox>>,
}

impl std::fmt::Debug for Shell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shell")
            .field("pid", &self.pid)
            .field("dead", &self.dead)
            .finish_non_exhaustive()
    }
}

/// bash without startup files, with only `cfg.env`, in the workspace,
/// reading its commands from `commands` and writing to the terminal `slave`.
fn bash_command(
    cfg: &ShellConfig,
    commands: OwnedFd,
    slave: File,
) -> std::io::Result<std::process::Command> {
    let mut cmd = std::process::Command::new("bash");
    cmd.args(["--noprofile", "--norc"])
        .stdin(std::process::Stdio::from(commands))
        .stdout(std::process::Stdio::from(slave.try_clone()?))
        .stderr(std::process::Stdio::from(slave))
        .env_clear()
        .envs(cfg.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&cfg.workspace);
    Ok(cmd)
}

/// Spawn `cmd`; in a sandbox, its `steps` are applied in the child before
/// `exec` (a failure names the step that failed).
fn spawn_child(
    cmd: &mut std::process::Command,
    steps: Option<Steps>,
) -> Result<std::process::Child, ShellError> {
    match steps {
        None => {
            // SAFETY: child_setup only makes async-signal-safe calls.
            unsafe {
                cmd.pre_exec(plumbing::child_setup);
            }
            cmd.spawn().map_err(|e| ShellError::Spawn(e.to_string()))
        }
        Some(steps) => {
            let steps = Arc::new(steps);
            let inner = steps.clone();
            cmd.env("TMPDIR", &steps.tmpdir);
            // SAFETY: child_setup and Steps::enter only make
            // async-signal-safe calls on data prepared beforehand.
            unsafe {
                cmd.pre_exec(move || {
                    plumbing::child_setup()?;
                    inner.enter()
                });
            }
            Ok(cmd
                .spawn()
                .map_err(|e| SandboxError::Enter(steps.failure(&e)))?)
        }
    }
}

impl Shell {
    /// Start bash in `cfg.workspace` and wait until it answers.
    pub async fn spawn(cfg: &ShellConfig) -> Result<Shell, ShellError> {
        let spawn_err = |e: &dyn std::fmt::Display| ShellError::Spawn(e.to_string());
        let dir = PrivateDir::create().map_err(|e| spawn_err(&e))?;
        let steps = match &cfg.sandbox {
            Some(sb) => prepare_sandbox(sb, &dir).await?,
            None => None,
        };
        let pair = portable_pty::native_pty_system()
            .openpty(PtySize {
                rows: 50,
                cols: 200,
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(|e| spawn_err(&e))?;
        let slave_path = pair
            .master
            .tty_name()
            .ok_or_else(|| ShellError::Spawn("the PTY has no name".into()))?;
        let slave = plumbing::open_slave(&slave_path).map_err(|e| spawn_err(&e))?;
        drop(pair.slave);
        // The shell reads its commands from a socket, not a pipe: a command
        // it starts cannot open a socket through `/proc/<pid>/fd/0` (ENXIO)
        // to feed it lines of its own or read the next command's.
        let (ours, theirs) = UnixStream::pair()?;
        ours.shutdown(Shutdown::Read)?;
        let mut cmd = bash_command(cfg, OwnedFd::from(theirs), slave)?;
        let forks = steps.as_ref().is_some_and(|s| {
            s.steps()
                .iter()
                .any(|step| matches!(step, crate::sandbox::child::Step::PidInit { .. }))
        });
        let child = spawn_child(&mut cmd, steps)?;
        let pid = i32::try_from(child.id())
            .map_err(|_| ShellError::Spawn("process id out of range".into()))?;
        drop(cmd); // our copies of the slave and the pipe's read end
        drop(child); // reaped by our own thread below, by pid
        let exit = plumbing::spawn_reaper(pid).map_err(|e| {
            procs::kill_tree(pid);
            spawn_err(&e)
        })?;
        let mut shell = Shell {
            pid,
            bash_pid: 0,
            max_output: cfg.max_output_bytes,
            master: pair.master,
            commands: ours,
            dir,
            rx: mpsc::channel(1).1,
            exit,
            wake: None,
            carry: Vec::new(),
            last_status: 0,
            cwd: cfg.workspace.display().to_string(),
            dead: false,
            cleaned: false,
            sandbox: cfg.sandbox.clone(),
        };
        if let Some(sb) = &shell.sandbox {
            sb.attach(pid, &shell.dir.path().join("hidden"));
        }
        // From here on, Drop kills the shell if anything fails.
        shell.start_reader()?;
        let prelude = dispatch::prelude(&shell.dir.state_file());
        shell.commands.write_all(prelude.as_bytes())?;
        let ready = shell
            .run("", STARTUP_TIMEOUT, std::future::pending(), &mut |_| {})
            .await?;
        match ready.ending {
            Ending::Finished { .. } => {
                // It has answered: bash runs (in a PID namespace, as the
                // only child of the waiting parent).
                shell.bash_pid = if forks {
                    procs::only_child(pid).unwrap_or(0)
                } else {
                    pid
                };
                Ok(shell)
            }
            other => Err(ShellError::Startup(format!(
                "{other:?}; it printed: {}",
                ready.output.text.trim()
            ))),
        }
    }

    /// Start the thread that reads the terminal into `rx` (`wake` stops
    /// it).
    fn start_reader(&mut self) -> Result<(), ShellError> {
        let raw = self
            .master
            .as_raw_fd()
            .ok_or_else(|| ShellError::Spawn("the PTY has no descriptor".into()))?;
        let reader_fd = plumbing::dup_cloexec(raw)?;
        let (wake_r, wake_w) = plumbing::pipe()?;
        let (tx, rx) = mpsc::channel(32);
        plumbing::spawn_reader(reader_fd, wake_r, tx)?;
        self.rx = rx;
        self.wake = Some(wake_w);
        Ok(())
    }

    /// The shell's pid (its session and process group id too).
    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// The bash process's pid, whose working directory is the shell's (0:
    /// not found). In a PID namespace it is not [`Shell::pid`].
    pub fn bash_pid(&self) -> i32 {
        self.bash_pid
    }

    /// Whether it can take the next command.
    pub fn is_alive(&self) -> bool {
        !self.dead && self.exit.status().is_none()
    }

    /// Run `command`: at most `timeout`, or until `stop` resolves. Raw output
    /// (without the sentinel) goes to `on_output` as it arrives. After any
    /// ending but `Finished` the shell is dead and everything it started is
    /// killed.
    pub async fn run(
        &mut self,
        command: &str,
        timeout: Duration,
        stop: impl Future<Output = ()>,
        on_output: &mut (dyn FnMut(&[u8]) + Send),
    ) -> Result<RunOutcome, ShellError> {
        self.run_as(command, Asked::Yes, timeout, stop, on_output)
            .await
    }

    /// [`Shell::run`] for a command that was `asked` about or not: one
    /// that runs without asking (a known read-only command) runs without
    /// the variables that load code into programs ([`dispatch::LOADS_CODE`]).
    pub async fn run_as(
        &mut self,
        command: &str,
        asked: Asked,
        timeout: Duration,
        stop: impl Future<Output = ()>,
        on_output: &mut (dyn FnMut(&[u8]) + Send),
    ) -> Result<RunOutcome, ShellError> {
        let started = Instant::now();
        // What appeared since the last command is hidden (or moved aside)
        // before this one runs.
        let mut sandbox_notes = match &self.sandbox {
            Some(sb) => sb.settle(),
            None => Vec::new(),
        };
        let mut capture = Capture::new(self.max_output);
        let token = Token::new();
        let mut scanner = Scanner::new(&token);
        let line = dispatch::dispatch_line(command, &token, self.last_status, asked);
        // A long command is a long line, which bash reads a byte at a time:
        // the write waits for it, at most the command's timeout.
        let sent = self
            .commands
            .set_write_timeout(Some(timeout.max(Duration::from_secs(1))))
            .and_then(|()| self.commands.write_all(line.as_bytes()));
        let mut emit = |b: &[u8]| {
            capture.push(b);
            on_output(b);
        };
        let mut ending = None;
        if let Err(e) = sent {
            self.kill();
            return Err(e.into());
        }
        let carry = std::mem::take(&mut self.carry);
        if !carry.is_empty() {
            scanner.feed(&carry, &mut emit);
        }
        let deadline = tokio::time::Instant::now() + timeout;
        tokio::pin!(stop);
        let exit = self.exit.clone();
        while ending.is_none() {
            tokio::select! {
                biased;
                chunk = self.rx.recv() => match chunk {
                    Some(c) => if let Some(done) = scanner.feed(&c, &mut emit) {
                        self.carry = done.rest;
                        self.last_status = done.status;
                        self.cwd = done.cwd;
                        ending = Some(Ending::Finished { status: done.status });
                    },
                    // The terminal closed: the shell is gone.
                    None => ending = Some(self.exited().await),
                },
                () = exit.notify.notified() => ending = Some(self.exited().await),
                () = tokio::time::sleep_until(deadline) => ending = Some(Ending::TimedOut),
                () = &mut stop => ending = Some(Ending::Cancelled),
            }
        }
        let ending = ending.unwrap_or(Ending::Cancelled);
        if !matches!(ending, Ending::Finished { .. }) {
            self.kill();
            let until = tokio::time::Instant::now() + DRAIN_GRACE;
            loop {
                tokio::select! {
                    chunk = self.rx.recv() => match chunk {
                        Some(c) => { scanner.feed(&c, &mut emit); }
                        None => break,
                    },
                    () = tokio::time::sleep_until(until) => break,
                }
            }
            scanner.flush(&mut emit);
        }
        let cwd = self.is_alive().then(|| self.cwd.clone());
        let duration = started.elapsed();
        if let Some(sb) = &self.sandbox {
            sandbox_notes.extend(sb.settle());
        }
        Ok(RunOutcome {
            ending,
            output: capture.finish(),
            cwd,
            duration,
            sandbox_notes,
        })
    }

    /// The shell ended by itself: wait (briefly) for its status.
    async fn exited(&mut self) -> Ending {
        self.dead = true;
        let until = Instant::now() + Duration::from_secs(2);
        loop {
            if let Some(raw) = self.exit.status() {
                let (code, signal) = plumbing::decode_status(raw);
                return Ending::ShellExited { code, signal };
            }
            if Instant::now() >= until {
                return Ending::ShellExited {
                    code: -1,
                    signal: None,
                };
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Kill the shell and everything it started (idempotent).
    pub fn kill(&mut self) {
        self.dead = true;
        if !self.cleaned {
            procs::kill_tree(self.pid);
            self.cleaned = true;
            if let Some(sb) = &self.sandbox {
                sb.detach(self.pid);
            }
        }
    }
}

/// The sandbox steps of a shell whose private directory is `dir` (the
/// workspace scan and file creation run off the async threads).
async fn prepare_sandbox(sb: &Arc<Sandbox>, dir: &PrivateDir) -> Result<Option<Steps>, ShellError> {
    let sb = sb.clone();
    let private = dir.path().to_path_buf();
    let tmp = dir.tmp()?;
    tokio::task::spawn_blocking(move || sb.prepare(&private, &tmp))
        .await
        .map_err(|e| ShellError::Spawn(format!("the sandbox preparation failed: {e}")))?
        .map_err(ShellError::from)
}

impl Drop for Shell {
    fn drop(&mut self) {
        self.kill();
        if let Some(w) = self.wake.take() {
            let _ = File::from(w).write_all(b"x");
        }
    }
}
