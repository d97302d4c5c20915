//! The words and small transformations the pipeline applies: what the
//! prompt shows, the agent's message for a call that did not run, one-line
//! summaries, the notice after an edit, the output cap.

use serde_json::Value;
use std::fmt::Write as _;

use crate::audit::excerpt;
use crate::call::{DecidedBy, Decision};
use crate::tools::ToolOutput;

/// Tell the agent that the human edited its command: what it proposed and
/// what ran, in the text and the structured result.
pub(super) fn say_what_ran(out: &mut ToolOutput, proposed: &str, ran: &str) {
    out.add_notice(&format!(
        "[the user edited the command before approving it]\nproposed: {proposed}\nran: {ran}\n"
    ));
    if let Some(Value::Object(m)) = &mut out.structured {
        m.insert(
            "proposed_command".into(),
            Value::String(proposed.to_string()),
        );
        m.insert("command".into(), Value::String(ran.to_string()));
    }
}

/// Cap a result at `max` bytes (a safety net; tools cap their own output).
pub(super) fn cap_output(out: &mut ToolOutput, max: usize) {
    if out.text.len() <= max {
        return;
    }
    let mut cut = max;
    while !out.text.is_char_boundary(cut) {
        cut -= 1;
    }
    out.text.truncate(cut);
    out.text.push_str("\n[truncated: output limit reached]");
    out.truncated = true;
}

/// `s` with control characters escaped (`\n`, `\t`, `\x1b` …), so a
/// summary is always one line on screen.
pub fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// [`one_line`] of a string the caller owns: returned as it is when it has
/// nothing to escape.
pub fn one_line_owned(s: String) -> String {
    if s.chars().any(char::is_control) {
        one_line(&s)
    } else {
        s
    }
}

/// A one-line description of a call that could not be prepared, from its
/// raw arguments, as its tool names it: `cat .env`, `bash rm -rf /`,
/// `grep {"pattern":…}`.
pub(super) fn short_call(tool: &dyn crate::tools::Tool, args: &Value) -> String {
    excerpt(
        one_line(&crate::tools::unprepared_summary(tool, args)).as_str(),
        120,
    )
}

/// The message the agent gets for a call that was not run.
pub fn refusal_message(d: &Decision) -> String {
    let reason = d.reason().map(str::trim).filter(|r| !r.is_empty());
    match &d.by() {
        DecidedBy::User => match reason {
            Some(r) => format!("denied by the user: {r}. The call was not run."),
            None => "denied by the user. The call was not run.".into(),
        },
        DecidedBy::Rule { rule, source } => {
            format!("blocked by the policy rule {rule} (from {source}); the call was not run.")
        }
        DecidedBy::Grant { rule } => {
            format!("blocked by the session rule {rule}; the call was not run.")
        }
        DecidedBy::Timeout => {
            "no answer from the user in time (they may be away); the call was not run. \
             It was not denied: you may try again later."
                .into()
        }
        DecidedBy::Cancelled => "the call was cancelled before it ran.".into(),
        DecidedBy::Disconnected => {
            "the agent disconnected while the call waited; it was not run.".into()
        }
        DecidedBy::Shutdown => "the airlock supervisor closed; the call was not run.".into(),
        DecidedBy::ConfirmerFailed => {
            "the approval prompt failed, so the call was not run (treated as denied).".into()
        }
        DecidedBy::Headless
        | DecidedBy::Scope
        | DecidedBy::InvalidArguments
        | DecidedBy::ApproveAll => reason.unwrap_or("the call was not run.").to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_owned_summary_is_escaped_as_a_borrowed_one() {
        for s in [
            "",
            "read_file src/main.rs",
            "a\nb",
            "tab\there",
            "cr\r",
            "\u{1b}[31mred\u{1b}[0m",
            "\u{7f}\u{85}\u{2028}",
            "é 𝄞",
        ] {
            assert_eq!(one_line_owned(s.to_string()), one_line(s), "{s:?}");
        }
    }
}
