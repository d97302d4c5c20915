//! What a native call returned, read from the agent's post-tool event:
//! the text (for the excerpt, size and sha256 in the trail), whether it
//! failed and, for commands, the exit code.

use serde_json::Value;

use super::event::{HookAgent, HookEvent};

/// A native call's result as the agent reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeResult {
    /// The output: a command's stdout and stderr, else the tool's response.
    pub text: String,
    /// The tool failed (or the command exited non-zero).
    pub is_error: bool,
    /// A command's exit code, when the agent reports it.
    pub exit_code: Option<i32>,
}

/// Read the result out of a post-tool event.
pub fn result_of(event: &HookEvent) -> NativeResult {
    if let Some(error) = &event.error {
        return NativeResult {
            exit_code: exit_code_in(error),
            text: error.clone(),
            is_error: true,
        };
    }
    let response = event.tool_response.clone().unwrap_or(Value::Null);
    let (text, flagged) = match (event.agent, &response) {
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
    let exit_code = exit_code_in(&text);
    NativeResult {
        is_error: flagged || exit_code.is_some_and(|c| c != 0),
        exit_code,
        text,
    }
}

/// `Exit code: N` (Codex), `Exit Code: N` (Gemini), `Exit code N` (Claude's
/// failures), at the start of a line.
fn exit_code_in(text: &str) -> Option<i32> {
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
        let r = result_of(&post(
            HookAgent::Claude,
            &json!({"stdout": "out", "stderr": "err", "interrupted": false}),
        ));
        assert_eq!(
            (r.text.as_str(), r.is_error, r.exit_code),
            ("out\nerr", false, None)
        );
        let r = result_of(&post(
            HookAgent::Codex,
            &json!("Exit code: 3\nWall time: 0 seconds\nOutput:\nno\n"),
        ));
        assert_eq!((r.is_error, r.exit_code), (true, Some(3)));
        let r = result_of(&post(HookAgent::Codex, &json!("bash-out-42\n")));
        assert_eq!((r.text.as_str(), r.is_error), ("bash-out-42\n", false));
        let r = result_of(&post(
            HookAgent::Gemini,
            &json!({"llmContent": "x", "error": {"message": "m"}}),
        ));
        assert_eq!((r.text.as_str(), r.is_error), ("x", true));
    }

    #[test]
    fn a_failure_event_is_an_error() {
        let e = HookEvent::from_value(
            HookAgent::Claude,
            json!({"hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash", "tool_input": {}, "error": "Exit code 2\nnope"}),
        )
        .unwrap();
        let r = result_of(&e);
        assert_eq!((r.is_error, r.exit_code), (true, Some(2)));
    }
}
