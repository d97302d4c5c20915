//! A shell's report turned into the agent's result.
//!
//! One [`BashResult`] is the single source of both forms: its fields are
//! the `structuredContent` and [`BashResult::text`] renders the text
//! content from the same fields, so clients that read either get the whole
//! result (the output included).

use std::path::Path;

use serde::Serialize;
use serde_json::{Value, json};

use super::pool::PoolOutcome;
use super::session::Ending;
use crate::tools::ToolOutput;
use crate::tools::output::with_error_alternative;

const RESET: &str = "the working directory and exported variables are reset";

/// How a bash call ended, as the agent sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BashStatus {
    /// The command finished (any exit code).
    Exited,
    /// The shell itself ended (killed; a command's own `exit` or `exec`
    /// ends only that command).
    ShellExited,
    /// The timeout hit; everything was killed.
    TimedOut,
    /// Cancelled; everything was killed.
    Cancelled,
    /// `restart: true`: the shell was restarted, nothing ran.
    Restarted,
}

/// One bash result: the structured form, from which the text is rendered.
#[derive(Debug, Clone, Serialize)]
pub struct BashResult {
    /// What happened before the command (a restarted or replaced shell).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
    /// What the command printed (terminal escapes stripped, capped with head
    /// and tail kept).
    pub output: String,
    /// The last line(s) of the text: `exit code: N`, or what went wrong.
    pub message: String,
    /// How it ended.
    pub status: BashStatus,
    /// `$?` (or the shell's status); null when it was killed.
    pub exit_code: Option<i32>,
    /// Whether output was left out (a marker line stands in `output`).
    pub truncated: bool,
    /// Raw bytes the command printed.
    pub output_bytes: u64,
    /// The timeout hit.
    pub timed_out: bool,
    /// The next command starts in a fresh shell.
    pub session_restarted: bool,
    /// The shell's working directory afterwards.
    pub cwd: String,
    /// Wall-clock time on the shell.
    pub duration_ms: u64,
}

impl BashResult {
    /// The text content: notice, output, message, one per line.
    pub fn text(&self) -> String {
        let mut text = String::new();
        if let Some(n) = &self.notice {
            text.push_str(n);
            text.push('\n');
        }
        text.push_str(&self.output);
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&self.message);
        text
    }

    fn into_output(self, is_error: bool) -> ToolOutput {
        let text = self.text();
        let mut out = if is_error {
            ToolOutput::error(text)
        } else {
            ToolOutput::ok(text)
        };
        out.truncated = self.truncated;
        out.shell_cwd = Some(self.cwd.clone());
        match serde_json::to_value(&self) {
            Ok(v) => out.with_structured(v),
            Err(e) => ToolOutput::error(format!("internal error: bash result ({e})")),
        }
    }
}

/// The `outputSchema` of `bash`.
pub fn output_schema() -> serde_json::Map<String, Value> {
    let s = |d: &str| json!({"type": "string", "description": d});
    let b = |d: &str| json!({"type": "boolean", "description": d});
    with_error_alternative(json!({
        "type": "object",
        "properties": {
            "notice": s("What happened before the command ran (shell restarted, command edited by the user)."),
            "output": s("The command's output: terminal escapes stripped, capped (head and tail kept, a marker where bytes were left out)."),
            "message": s("The result's last line(s): `exit code: N`, or what went wrong."),
            "status": {"type": "string", "enum": ["exited", "shell_exited", "timed_out", "cancelled", "restarted"]},
            "exit_code": {"type": ["integer", "null"], "description": "Exit status; null when the command was killed."},
            "truncated": b("Output was left out."),
            "output_bytes": {"type": "integer", "minimum": 0, "description": "Bytes the command printed."},
            "timed_out": b("The timeout hit; every process the command started was killed."),
            "session_restarted": b("The next command starts in a fresh shell."),
            "cwd": s("The shell's working directory afterwards."),
            "duration_ms": {"type": "integer", "minimum": 0},
            "proposed_command": s("The command the agent proposed, when the user edited it before approving."),
            "command": s("The command that ran, when the user edited it before approving."),
        },
        "required": ["output", "message", "status", "exit_code", "truncated", "output_bytes",
                     "timed_out", "session_restarted", "cwd", "duration_ms"],
    }))
}

/// The result for the agent.
pub fn render(outcome: PoolOutcome, timeout_secs: u64, workspace: &Path) -> ToolOutput {
    let ws = workspace.display().to_string();
    match outcome {
        PoolOutcome::Restarted => BashResult {
            notice: None,
            output: String::new(),
            message: format!("the shell was restarted: the next command starts in {ws} ({RESET})"),
            status: BashStatus::Restarted,
            exit_code: None,
            truncated: false,
            output_bytes: 0,
            timed_out: false,
            session_restarted: true,
            cwd: ws,
            duration_ms: 0,
        }
        .into_output(false),
        PoolOutcome::CancelledBeforeStart => {
            ToolOutput::cancelled("the command was cancelled before it started; nothing ran")
        }
        PoolOutcome::NotRun { reason } => ToolOutput::error(format!(
            "not run: it was allowed as a known-safe read-only command, but where the shell is \
             now it is not ({reason}); nothing ran, send it again to have it judged again"
        )),
        PoolOutcome::Ran {
            outcome,
            restarted,
            replaced,
        } => {
            let notice = if restarted {
                Some(format!("[the shell was restarted first ({RESET})]"))
            } else if replaced {
                Some(format!(
                    "[the previous shell had ended; this command ran in a fresh shell in {ws} ({RESET})]"
                ))
            } else {
                None
            };
            let (status, exit_code, is_error, message) = match outcome.ending {
                Ending::Finished { status } => (
                    BashStatus::Exited,
                    Some(status),
                    status != 0,
                    format!("exit code: {status}"),
                ),
                Ending::ShellExited { code, signal } => {
                    let how = match signal {
                        Some(sig) => format!("the shell was killed by signal {sig}"),
                        None => format!("the shell exited with status {code}"),
                    };
                    let message = format!(
                        "[{how}; the next command starts a fresh shell in {ws} ({RESET})]\nexit code: {code}"
                    );
                    (BashStatus::ShellExited, Some(code), true, message)
                }
                Ending::TimedOut => (
                    BashStatus::TimedOut,
                    None,
                    true,
                    format!(
                        "error: the command timed out after {timeout_secs} s; every process it \
                         started was killed and the shell session was restarted ({RESET}; the \
                         next command starts in {ws})"
                    ),
                ),
                Ending::Cancelled => (
                    BashStatus::Cancelled,
                    None,
                    true,
                    format!(
                        "the command was cancelled; every process it started was killed and the \
                         shell session was restarted ({RESET})"
                    ),
                ),
            };
            let cancelled = matches!(outcome.ending, Ending::Cancelled);
            let mut out = BashResult {
                notice,
                output: outcome.output.text,
                message,
                status,
                exit_code,
                truncated: outcome.output.truncated,
                output_bytes: outcome.output.total_bytes,
                timed_out: status == BashStatus::TimedOut,
                session_restarted: !matches!(outcome.ending, Ending::Finished { .. }),
                cwd: outcome.cwd.unwrap_or(ws),
                duration_ms: u64::try_from(outcome.duration.as_millis()).unwrap_or(u64::MAX),
            }
            .into_output(is_error);
            out.cancelled = cancelled;
            out
        }
    }
}
