//! What a hook answers, and how each agent wants to read it.
//!
//! The contract of `airlock hook AGENT` (stdout, stderr, exit code):
//!
//! | answer | Claude Code | Codex | Gemini CLI |
//! |---|---|---|---|
//! | allow | exit 0, `hookSpecificOutput.permissionDecision: "allow"` (+ `updatedInput`) | exit 0, empty stdout; with a rewrite `permissionDecision: "allow"` + `updatedInput` | exit 0, `decision: "allow"` (+ `hookSpecificOutput.tool_input`) |
//! | deny | exit 0, `permissionDecision: "deny"`, `permissionDecisionReason` | exit 0, `permissionDecision: "deny"`, `permissionDecisionReason` | exit 0, `decision: "deny"`, `reason` |
//! | ask | exit 0, `permissionDecision: "ask"`, the note as reason | exit 0, `systemMessage` (Codex's own approval flow goes on; it has no hook "ask") | exit 0, `decision: "ask"`, `systemMessage` |
//! | pass (post-tool events) | exit 0, empty stdout | exit 0, empty stdout | exit 0, empty stdout |
//! | refuse (unreadable event, airlock failed) | exit 2, reason on stderr | exit 2, reason on stderr | exit 2, reason on stderr |
//!
//! Exit 2 is the one code all three read as "block" (Claude Code and
//! Gemini run the tool after any other non-zero exit; Codex after any exit
//! but 0 and 2), so every failure path ends in it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::event::{HookAgent, Phase};

/// The exit code every agent reads as "block this call".
pub const BLOCK_EXIT: u8 = 2;

/// The supervisor's answer to one hook event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "answer")]
pub enum Answer {
    /// Let the agent run the call (with `updated_input` when the human
    /// edited it: the complete input to run instead).
    Allow {
        /// The input to run instead of the agent's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        updated_input: Option<Map<String, Value>>,
    },
    /// Do not run it; the model reads the reason.
    Deny {
        /// Why, for the model.
        reason: String,
    },
    /// Hand the call to the agent's own approval flow.
    Ask {
        /// A one-line note for the user.
        note: String,
    },
    /// Nothing to say (post-tool events).
    Pass,
    /// Block the call by exit code: the event could not be handled.
    Refuse {
        /// Why, for the model and the user.
        reason: String,
    },
}

/// What the hook process writes and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The answer on stdout (may be empty).
    pub stdout: String,
    /// A message on stderr (may be empty).
    pub stderr: String,
    /// The exit code.
    pub exit: u8,
}

impl Rendered {
    fn json(v: &Value) -> Self {
        Self {
            stdout: format!("{v}\n"),
            stderr: String::new(),
            exit: 0,
        }
    }

    fn empty() -> Self {
        Self {
            stdout: String::new(),
            stderr: String::new(),
            exit: 0,
        }
    }
}

/// `answer` in the format `agent` reads for an event of `phase`.
pub fn render(agent: HookAgent, phase: Phase, answer: &Answer) -> Rendered {
    if let Answer::Refuse { reason } = answer {
        return Rendered {
            stdout: String::new(),
            stderr: format!("{}\n", one_line(reason)),
            exit: BLOCK_EXIT,
        };
    }
    if phase == Phase::Post {
        return Rendered::empty();
    }
    match agent {
        HookAgent::Claude => claude(answer),
        HookAgent::Codex => codex(answer),
        HookAgent::Gemini => gemini(answer),
    }
}

fn claude(answer: &Answer) -> Rendered {
    let (decision, reason, input) = match answer {
        Answer::Allow { updated_input } => ("allow", "approved in airlock", updated_input.as_ref()),
        Answer::Deny { reason } => ("deny", reason.as_str(), None),
        Answer::Ask { note } => ("ask", note.as_str(), None),
        Answer::Pass | Answer::Refuse { .. } => return Rendered::empty(),
    };
    let mut out = json!({
        "hookEventName": "PreToolUse",
        "permissionDecision": decision,
        "permissionDecisionReason": reason,
    });
    if let Some(input) = input {
        out["updatedInput"] = Value::Object(input.clone());
    }
    Rendered::json(&json!({ "hookSpecificOutput": out }))
}

fn codex(answer: &Answer) -> Rendered {
    match answer {
        // Codex 0.171 reads `allow` only together with a rewrite; a plain
        // allow is silence.
        Answer::Allow {
            updated_input: None,
        }
        | Answer::Pass
        | Answer::Refuse { .. } => Rendered::empty(),
        Answer::Allow {
            updated_input: Some(input),
        } => Rendered::json(&json!({ "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": input,
        }})),
        // A deny without a non-empty reason is ignored by Codex.
        Answer::Deny { reason } => Rendered::json(&json!({ "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": non_empty(reason),
        }})),
        // Codex has no "ask" from a hook: its own approval policy decides.
        Answer::Ask { note } => Rendered::json(&json!({ "systemMessage": note })),
    }
}

fn gemini(answer: &Answer) -> Rendered {
    match answer {
        Answer::Allow { updated_input } => {
            let mut out = json!({ "decision": "allow" });
            if let Some(input) = updated_input {
                out["hookSpecificOutput"] = json!({ "tool_input": input });
            }
            Rendered::json(&out)
        }
        Answer::Deny { reason } => {
            Rendered::json(&json!({ "decision": "deny", "reason": non_empty(reason) }))
        }
        Answer::Ask { note } => {
            Rendered::json(&json!({ "decision": "ask", "systemMessage": note }))
        }
        Answer::Pass | Answer::Refuse { .. } => Rendered::empty(),
    }
}

fn non_empty(reason: &str) -> &str {
    if reason.trim().is_empty() {
        "refused by airlock"
    } else {
        reason
    }
}

/// One line, for stderr (agents show the first line).
fn one_line(s: &str) -> String {
    let s = non_empty(s);
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(agent: HookAgent, answer: &Answer) -> (Value, u8) {
        let r = render(agent, Phase::Pre, answer);
        let v = if r.stdout.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&r.stdout).unwrap()
        };
        (v, r.exit)
    }

    #[test]
    fn claude_reads_permission_decisions() {
        let (v, code) = out(
            HookAgent::Claude,
            &Answer::Deny {
                reason: "no".into(),
            },
        );
        assert_eq!(code, 0);
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(v["hookSpecificOutput"]["permissionDecisionReason"], "no");
        let mut input = Map::new();
        input.insert("command".into(), "ls -a".into());
        let (v, _) = out(
            HookAgent::Claude,
            &Answer::Allow {
                updated_input: Some(input),
            },
        );
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "allow");
        assert_eq!(v["hookSpecificOutput"]["updatedInput"]["command"], "ls -a");
    }

    #[test]
    fn codex_allows_by_silence_and_never_gets_an_empty_reason() {
        let (v, code) = out(
            HookAgent::Codex,
            &Answer::Allow {
                updated_input: None,
            },
        );
        assert_eq!((v, code), (Value::Null, 0));
        let (v, _) = out(HookAgent::Codex, &Answer::Deny { reason: " ".into() });
        assert_eq!(
            v["hookSpecificOutput"]["permissionDecisionReason"],
            "refused by airlock"
        );
        let (v, _) = out(HookAgent::Codex, &Answer::Ask { note: "n".into() });
        assert_eq!(v, json!({"systemMessage": "n"}));
    }

    #[test]
    fn gemini_reads_decision_and_reason() {
        let (v, _) = out(HookAgent::Gemini, &Answer::Deny { reason: "r".into() });
        assert_eq!(v, json!({"decision": "deny", "reason": "r"}));
        let (v, _) = out(HookAgent::Gemini, &Answer::Ask { note: "n".into() });
        assert_eq!(v["decision"], "ask");
    }

    #[test]
    fn refusals_exit_2_for_every_agent_and_phase() {
        for agent in [HookAgent::Claude, HookAgent::Codex, HookAgent::Gemini] {
            for phase in [Phase::Pre, Phase::Post] {
                let r = render(
                    agent,
                    phase,
                    &Answer::Refuse {
                        reason: "bad\nevent".into(),
                    },
                );
                assert_eq!(r.exit, BLOCK_EXIT);
                assert_eq!(r.stderr, "bad event\n");
                assert!(r.stdout.is_empty());
            }
        }
    }

    #[test]
    fn post_events_get_nothing() {
        let r = render(HookAgent::Claude, Phase::Post, &Answer::Pass);
        assert_eq!(r, Rendered::empty());
    }
}
