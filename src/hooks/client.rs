//! `airlock hook AGENT`: the short-lived process an agent runs for each
//! tool event. Blocking I/O, no async runtime, no configuration read on
//! the fast path: read the event, find the supervisor, send one line, wait
//! for one line, print the agent's answer.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use super::WhenAbsent;
use super::answer::{Answer, Rendered, render};
use super::event::{HookAgent, Phase, phase_of};
use super::wire::{MAX_REQUEST_BYTES, Request, Response, hook_socket_path};

/// How `airlock hook` was started.
#[derive(Debug, Clone)]
pub struct Options {
    /// The agent whose hook this is.
    pub agent: HookAgent,
    /// The supervisor's MCP socket (`--socket` / `AIRLOCK_SOCKET`); the hook
    /// socket beside it is used. Default: discovery from the event's `cwd`.
    pub socket: Option<PathBuf>,
    /// Refuse the call when no answer came within this time (set it below
    /// the agent's own hook timeout, after which the agent decides).
    pub timeout: Option<Duration>,
    /// `--config FILE`, read only when no supervisor answers.
    pub config_file: Option<PathBuf>,
    /// `--data-dir` (its trust store says whether the project's
    /// `.airlock.toml` may loosen `when_absent`).
    pub data_dir: Option<PathBuf>,
}

/// Handle one event read from `input`: what to print and the exit code.
/// Never panics on input; every failure is a refusal (exit 2).
pub fn run(opts: &Options, input: &mut dyn Read) -> Rendered {
    let mut bytes = Vec::new();
    let limit = MAX_REQUEST_BYTES as u64;
    if let Err(e) = input.take(limit + 1).read_to_end(&mut bytes) {
        return refuse(
            opts.agent,
            Phase::Pre,
            format!("airlock hook could not read the event: {e}"),
        );
    }
    if bytes.len() as u64 > limit {
        return refuse(
            opts.agent,
            Phase::Pre,
            format!("the hook event is larger than {limit} bytes; airlock refused it"),
        );
    }
    // Unreadable events still go to the supervisor, which audits them.
    let event: Value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    let phase = event
        .get("hook_event_name")
        .and_then(Value::as_str)
        .and_then(|n| phase_of(opts.agent, n).ok());
    let cwd = event_cwd(&event);
    let answer = match connect(opts.socket.as_deref(), &cwd) {
        Some(stream) => ask(&stream, opts, event),
        None => absent(opts, phase, &cwd),
    };
    render(opts.agent, phase.unwrap_or(Phase::Pre), &answer)
}

fn refuse(agent: HookAgent, phase: Phase, reason: String) -> Rendered {
    render(agent, phase, &Answer::Refuse { reason })
}

/// The directory the agent works in: the event's `cwd`, else ours.
fn event_cwd(event: &Value) -> PathBuf {
    let dir = event
        .get("cwd")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("/"));
    std::fs::canonicalize(&dir).unwrap_or(dir)
}

/// The hook socket of the supervisor for `cwd` (or of `socket`), connected.
fn connect(socket: Option<&Path>, cwd: &Path) -> Option<UnixStream> {
    if let Some(s) = socket {
        return connect_ours(&hook_socket_path(s));
    }
    let runtimes = crate::dirs::runtime_dir_candidates();
    crate::mcp::discovery::find_sessions(&runtimes, cwd)
        .into_iter()
        .find_map(|info| connect_ours(&hook_socket_path(&info.socket)))
}

/// Send the event, wait for the answer. A supervisor that closes without
/// answering, garbles its answer or takes too long gets a refusal.
fn ask(stream: &UnixStream, opts: &Options, event: Value) -> Answer {
    let failed = |what: String| Answer::Refuse {
        reason: format!("airlock refused the call: {what}; it was not run"),
    };
    if stream.set_read_timeout(opts.timeout).is_err() {
        return failed("the hook socket is unusable".into());
    }
    let request = Request {
        agent: opts.agent,
        event,
        misread_locale: super::locale::misread_locale(|k| std::env::var_os(k)),
    };
    let mut line = match serde_json::to_vec(&request) {
        Ok(l) => l,
        Err(e) => return failed(format!("the event could not be encoded ({e})")),
    };
    line.push(b'\n');
    let mut w = stream;
    if let Err(e) = w.write_all(&line).and_then(|()| w.flush()) {
        return failed(format!("the supervisor did not take the event ({e})"));
    }
    let mut reply = String::new();
    match BufReader::new(stream).read_line(&mut reply) {
        Ok(0) => failed("the supervisor closed without answering".into()),
        Ok(_) => match serde_json::from_str::<Response>(&reply) {
            Ok(r) => r.answer,
            Err(e) => failed(format!("the supervisor's answer is unreadable ({e})")),
        },
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            failed(format!(
                "no decision within {} s (airlock hook --timeout)",
                opts.timeout.map_or(0, |t| t.as_secs())
            ))
        }
        Err(e) => failed(format!("the supervisor's answer was lost ({e})")),
    }
}

/// No supervisor for this workspace: never let the call through silently.
fn absent(opts: &Options, phase: Option<Phase>, cwd: &Path) -> Answer {
    match phase {
        Some(Phase::Post) => return Answer::Pass,
        Some(Phase::Pre) => {}
        None => {
            return Answer::Refuse {
                reason: format!(
                    "airlock hook {} could not read the event (no {} hook_event_name); the call was refused",
                    opts.agent.as_str(),
                    opts.agent.as_str()
                ),
            };
        }
    }
    let given = super::root::project_dir_var(opts.agent).and_then(|v| std::env::var(v).ok());
    let workspace = super::root::workspace_of(given.as_deref(), cwd);
    let start = format!(
        "start it with `airlock --workspace {}`",
        workspace.display()
    );
    match when_absent(&workspace, opts) {
        Ok(WhenAbsent::Ask) => Answer::Ask {
            note: format!(
                "airlock is not running for {}, so it did not check this call; {start}",
                workspace.display()
            ),
        },
        Ok(WhenAbsent::Deny) => Answer::Deny {
            reason: format!(
                "airlock is not running for {} and hooks.when_absent is \"deny\", so the call was not run; {start}, then try again",
                workspace.display()
            ),
        },
        Err(e) => Answer::Deny {
            reason: format!(
                "airlock is not running and its configuration is unreadable ({e}); the call was not run; {start}"
            ),
        },
    }
}

/// `[hooks] when_absent` from the configuration of `workspace`, read as
/// the supervisor reads it: a project file the user has not trusted may
/// make it stricter, never looser.
fn when_absent(workspace: &Path, opts: &Options) -> Result<WhenAbsent, crate::config::ConfigError> {
    let data = crate::dirs::data_dir(opts.data_dir.as_deref());
    let trust = crate::config::TrustStore::new(&data);
    Ok(
        crate::config::load(workspace, opts.config_file.as_deref(), &trust)?
            .config
            .hooks
            .when_absent,
    )
}

/// Connect to a hook socket that is ours: a socket owned by this user in a
/// directory no one else may write (what the supervisor creates).
fn connect_ours(socket: &Path) -> Option<UnixStream> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let meta = std::fs::symlink_metadata(socket).ok()?;
    let dir_ok = socket.parent().is_some_and(crate::dirs::is_private_dir);
    if !meta.file_type().is_socket() || meta.uid() != crate::dirs::uid() || !dir_ok {
        return None;
    }
    UnixStream::connect(socket).ok()
}
