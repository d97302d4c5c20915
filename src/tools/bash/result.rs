//! A shell's report turned into the agent's result.

use std::path::Path;

use serde_json::json;

use super::pool::PoolOutcome;
use super::session::Ending;
use crate::tools::ToolOutput;

const RESET: &str = "cwd, variables and functions are reset";

/// The result for the agent.
pub fn render(outcome: PoolOutcome, timeout_secs: u64, workspace: &Path) -> ToolOutput {
    let ws = workspace.display().to_string();
    match outcome {
        PoolOutcome::Restarted => ToolOutput::ok(format!(
            "the shell was restarted: the next command starts in {ws} ({RESET})"
        ))
        .with_structured(json!({ "restarted": true, "cwd": ws })),
        PoolOutcome::CancelledBeforeStart => {
            ToolOutput::error("the command was cancelled before it started; nothing ran")
        }
        PoolOutcome::Ran {
            outcome,
            restarted,
            replaced,
        } => {
            let mut text = String::new();
            if restarted {
                text.push_str(&format!("[the shell was restarted first ({RESET})]\n"));
            } else if replaced {
                text.push_str(&format!(
                    "[the previous shell had ended; this command ran in a fresh shell in {ws} ({RESET})]\n"
                ));
            }
            text.push_str(&outcome.output.text);
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            let (exit_code, is_error, timed_out) = match outcome.ending {
                Ending::Finished { status } => {
                    text.push_str(&format!("exit code: {status}"));
                    (Some(status), status != 0, false)
                }
                Ending::ShellExited { code, signal } => {
                    let how = match signal {
                        Some(sig) => format!("the shell was killed by signal {sig}"),
                        None => format!("the shell exited with status {code}"),
                    };
                    text.push_str(&format!(
                        "[{how}; the next command starts a fresh shell in {ws} ({RESET})]\nexit code: {code}"
                    ));
                    (Some(code), true, false)
                }
                Ending::TimedOut => {
                    text.push_str(&format!(
                        "error: the command timed out after {timeout_secs} s; every process it \
                         started was killed and the shell session was restarted ({RESET}; the \
                         next command starts in {ws})"
                    ));
                    (None, true, true)
                }
                Ending::Cancelled => {
                    text.push_str(&format!(
                        "the command was cancelled; every process it started was killed and the \
                         shell session was restarted ({RESET})"
                    ));
                    (None, true, false)
                }
            };
            let session_restarted = !matches!(outcome.ending, Ending::Finished { .. });
            let cwd = outcome.cwd.unwrap_or(ws);
            let truncated = outcome.output.truncated;
            let mut out = if is_error {
                ToolOutput::error(text)
            } else {
                ToolOutput::ok(text)
            };
            out.truncated = truncated;
            out.with_structured(json!({
                "exit_code": exit_code,
                "duration_ms": outcome.duration.as_millis() as u64,
                "truncated": truncated,
                "timed_out": timed_out,
                "cwd": cwd,
                "session_restarted": session_restarted,
                "output_bytes": outcome.output.total_bytes,
            }))
        }
    }
}
