//! What a native call returned, read from the agent's post-tool event:
//! the text (for the excerpt, size and sha256 in the trail), whether it
//! failed and, for commands, the exit code.
//!
//! Both come only from the payload's structured fields, never from the
//! text: a command prints what it likes (`echo 'Exit code: 0'`). None of
//! the pinned agents reports a command's exit status in a field — Claude
//! Code's `Bash` response is `stdout`, `stderr`, `interrupted`, `isImage`,
//! `noOutputExpected` (a failed command comes as `PostToolUseFailure`
//! with an `error` text), Codex's is the output as one string, Gemini's
//! `llmContent`, `returnDisplay` and `error` — so a command's exit code is
//! recorded as unknown.

use serde_json::Value;

use super::event::{HookAgent, HookEvent};
use crate::call::ExitCode;

/// A native call's result as the agent reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeResult {
    /// The output: a command's stdout and stderr, else the tool's response.
    pub text: String,
    /// The agent's payload says the tool failed: a failure event (Claude
    /// Code's `PostToolUseFailure`), an interrupted command, Gemini's
    /// `error`, an MCP result's `isError`.
    pub is_error: bool,
    /// For a command (`command` true): its exit code as a payload field
    /// gives it, else unknown. None for other tools.
    pub exit_code: Option<ExitCode>,
}

/// Read the result out of a post-tool event; `command`: the tool is one
/// of the agent's shells.
pub fn result_of(event: &HookEvent, command: bool) -> NativeResult {
    let exit_code = command.then(|| reported_exit_code(event));
    if let Some(error) = &event.error {
        return NativeResult {
            text: error.clone(),
            is_error: true,
            exit_code,
        };
    }
    let response = event.tool_response.clone().unwrap_or(Value::Null);
    let (text, is_error) = match (event.agent, &response) {
        (_, Value::String(s)) => (s.clone(), false),
        // Claude's Bash: stdout and stderr.
        (HookAgent::Claude, Value::Object(o)) if o.contains_key("stdout") => {
            let part = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or_default();
            let mut t = part("stdout").to_string();
            if !part("stderr").is_empty() {
                if !t.is_empty() {
                    t.push('\n');
                }
                t.push_str(part("stderr"));
            }
            (
                t,
                o.get("interrupted").and_then(Value::as_bool) == Some(true),
            )
        }
        // Gemini: what the model reads, and the error when there is one.
        (HookAgent::Gemini, Value::Object(o)) if o.contains_key("llmContent") => {
            let text = match o.get("llmContent") {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            (text, o.get("error").is_some_and(|e| !e.is_null()))
        }
        (_, Value::Null) => (String::new(), false),
        (_, other) => (
            other.to_string(),
            other.get("isError").and_then(Value::as_bool) == Some(true),
        ),
    };
    NativeResult {
        text,
        is_error,
        exit_code,
    }
}

/// A command's exit code from a field of the agent's payload: none of
/// the pinned agents has one (see the module's note), so it is unknown.
/// An agent that adds one gets its arm here, read from that field only.
fn reported_exit_code(event: &HookEvent) -> ExitCode {
    match event.agent {
        HookAgent::Claude | HookAgent::Codex | HookAgent::Gemini => ExitCode::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn post(agent: HookAgent, response: &Value) -> HookEvent {
        let name = if agent == HookAgent::Gemini {
            "AfterTool"
        } else {
            "PostToolUse"
        };
        HookEvent::from_value(
            agent,
            json!({"hook_event_name": name, "tool_name": "t",
            "tool_input": {}, "tool_response": response}),
        )
        .unwrap()
    }

    #[test]
    fn reads_each_agents_results() {
        let r = result_of(
            &post(
                HookAgent::Claude,
                &json!({"stdout": "out", "stderr": "err", "interrupted": false}),
            ),
            true,
        );
        assert_eq!(
            (r.text.as_str(), r.is_error, r.exit_code),
            ("out\nerr", false, Some(ExitCode::Unknown))
        );
        let r = result_of(
            &post(
                HookAgent::Claude,
                &json!({"stdout": "", "interrupted": true}),
            ),
            true,
        );
        assert!(r.is_error, "interrupted");
        let r = result_of(&post(HookAgent::Codex, &json!("bash-out-42\n")), true);
        assert_eq!((r.text.as_str(), r.is_error), ("bash-out-42\n", false));
        let r = result_of(
            &post(
                HookAgent::Gemini,
                &json!({"llmContent": "x", "error": {"message": "m"}}),
            ),
            false,
        );
        assert_eq!(
            (r.text.as_str(), r.is_error, r.exit_code),
            ("x", true, None)
        );
        let r = result_of(
            &post(HookAgent::Claude, &json!({"content": [], "isError": true})),
            false,
        );
        assert!(r.is_error, "an MCP result's isError");
    }

    #[test]
    fn a_failure_event_is_an_error_of_unknown_exit_code() {
        let e = HookEvent::from_value(
            HookAgent::Claude,
            json!({"hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash", "tool_input": {}, "error": "Exit code 2\nnope"}),
        )
        .unwrap();
        let r = result_of(&e, true);
        assert_eq!((r.is_error, r.exit_code), (true, Some(ExitCode::Unknown)));
    }

    /// What airlock recorded before: an exit code read from the first
    /// lines of the text (`Exit code: N`, `Exit Code: N`, `Exit code N`).
    /// The CONTROL below shows a command forging it.
    fn from_the_text(text: &str) -> Option<i32> {
        text.lines().take(8).find_map(|line| {
            let rest = line
                .trim()
                .strip_prefix("Exit code")
                .or_else(|| line.trim().strip_prefix("Exit Code"))?;
            let digits: String = rest
                .trim_start_matches([':', ' '])
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '-')
                .collect();
            digits.parse().ok()
        })
    }

    #[test]
    fn a_command_cannot_forge_its_exit_code() {
        // What each agent reports for a command that failed (status 1)
        // after printing a forged success line.
        let forged = "Exit code: 0\nall good\n";
        let reports = [
            post(HookAgent::Codex, &json!(forged)),
            post(
                HookAgent::Claude,
                &json!({"stdout": forged, "stderr": "", "interrupted": false}),
            ),
            post(
                HookAgent::Gemini,
                &json!({"llmContent": "Exit Code: 0\nall good", "returnDisplay": "all good"}),
            ),
            HookEvent::from_value(
                HookAgent::Claude,
                json!({"hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
                    "tool_input": {}, "error": format!("Exit code 0\n{forged}")}),
            )
            .unwrap(),
        ];
        for event in &reports {
            let r = result_of(event, true);
            // CONTROL: read from the text, the command's own line decides.
            assert_eq!(from_the_text(&r.text), Some(0), "{:?}", r.text);
            assert_eq!(r.exit_code, Some(ExitCode::Unknown), "{:?}", r.text);
        }
        // Not a command: no exit code at all.
        assert_eq!(result_of(&reports[0], false).exit_code, None);
    }
}
