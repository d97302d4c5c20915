//! The events the agents send their hooks, read into one shape.
//!
//! Claude Code 2.1 and Codex 0.171 send `PreToolUse` / `PostToolUse` with
//! `session_id`, `cwd`, `tool_name`, `tool_input`, `tool_use_id` and, after
//! the call, `tool_response`. Gemini CLI 0.61 sends `BeforeTool` /
//! `AfterTool` with `session_id`, `cwd`, `tool_name`, `tool_input`,
//! `tool_response` (`llmContent`, `returnDisplay`, `error`) and
//! `mcp_context` for MCP tools, but no tool-use id.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The agents whose hooks airlock answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum HookAgent {
    /// Claude Code.
    Claude,
    /// OpenAI Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
}

impl HookAgent {
    /// The command-line word (`airlock hook claude`).
    pub fn as_str(self) -> &'static str {
        match self {
            HookAgent::Claude => "claude",
            HookAgent::Codex => "codex",
            HookAgent::Gemini => "gemini",
        }
    }

    /// The client name the supervisor records for this agent's hook calls
    /// (the names its MCP client uses, so both paths show the same agent).
    pub fn client_name(self) -> &'static str {
        match self {
            HookAgent::Claude => "claude-code",
            HookAgent::Codex => "codex",
            HookAgent::Gemini => "gemini-cli",
        }
    }

    /// The agent's names for the two events.
    fn event_names(self) -> (&'static str, &'static str) {
        match self {
            HookAgent::Claude | HookAgent::Codex => ("PreToolUse", "PostToolUse"),
            HookAgent::Gemini => ("BeforeTool", "AfterTool"),
        }
    }
}

/// Before or after the tool runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The call is about to run: the hook decides.
    Pre,
    /// The call ran: the hook reports its result.
    Post,
}

/// One hook event, whatever the agent.
#[derive(Debug, Clone, PartialEq)]
pub struct HookEvent {
    /// Who sent it.
    pub agent: HookAgent,
    /// Before or after the tool.
    pub phase: Phase,
    /// The agent's name of the tool (`Bash`, `apply_patch`, `read_file`,
    /// `mcp__github__create_issue` …).
    pub tool_name: String,
    /// The tool's arguments as the agent will run them.
    pub tool_input: Value,
    /// The agent's id of this tool use (Claude Code, Codex).
    pub tool_use_id: Option<String>,
    /// The agent's session.
    pub session_id: Option<String>,
    /// The agent's working directory.
    pub cwd: Option<PathBuf>,
    /// After the call: what the tool returned.
    pub tool_response: Option<Value>,
    /// Gemini: the MCP server of an MCP tool (`mcp_context.server_name`).
    pub mcp_server: Option<String>,
    /// After a failed call: the agent's error (Claude Code's
    /// `PostToolUseFailure` `error`).
    pub error: Option<String>,
}

/// Why an event could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    /// Not JSON, or not a JSON object.
    #[error("the hook event is not a JSON object: {0}")]
    NotJson(String),
    /// A required field is missing or has the wrong type.
    #[error("the hook event has no {0}")]
    Missing(&'static str),
    /// An event this hook does not handle.
    #[error("airlock hook {agent} handles {pre} and {post} events, not {got:?}")]
    UnknownEvent {
        /// The agent.
        agent: &'static str,
        /// Its pre-tool event name.
        pre: &'static str,
        /// Its post-tool event name.
        post: &'static str,
        /// What arrived.
        got: String,
    },
}

impl HookEvent {
    /// Read the bytes an agent wrote on the hook's stdin.
    pub fn parse(agent: HookAgent, bytes: &[u8]) -> Result<Self, EventError> {
        let value: Value =
            serde_json::from_slice(bytes).map_err(|e| EventError::NotJson(e.to_string()))?;
        Self::from_value(agent, value)
    }

    /// Read an event already parsed as JSON.
    pub fn from_value(agent: HookAgent, value: Value) -> Result<Self, EventError> {
        let Value::Object(mut o) = value else {
            return Err(EventError::NotJson("not an object".into()));
        };
        let name = o
            .get("hook_event_name")
            .and_then(Value::as_str)
            .ok_or(EventError::Missing("hook_event_name"))?;
        let phase = phase_of(agent, name)?;
        let tool_name = match o.get("tool_name") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            _ => return Err(EventError::Missing("tool_name")),
        };
        let tool_input = o
            .remove("tool_input")
            .ok_or(EventError::Missing("tool_input"))?;
        let text = |o: &serde_json::Map<String, Value>, k: &str| {
            o.get(k).and_then(Value::as_str).map(str::to_string)
        };
        let mcp_server = o
            .get("mcp_context")
            .and_then(|c| c.get("server_name"))
            .and_then(Value::as_str)
            .map(str::to_string);
        Ok(Self {
            agent,
            phase,
            tool_use_id: text(&o, "tool_use_id").filter(|s| !s.is_empty()),
            session_id: text(&o, "session_id").filter(|s| !s.is_empty()),
            cwd: text(&o, "cwd").filter(|s| !s.is_empty()).map(PathBuf::from),
            tool_response: o.remove("tool_response"),
            error: text(&o, "error"),
            tool_name,
            tool_input,
            mcp_server,
        })
    }
}

/// The phase of the event called `name`, if this agent sends it.
pub fn phase_of(agent: HookAgent, name: &str) -> Result<Phase, EventError> {
    let (pre, post) = agent.event_names();
    if name == pre {
        Ok(Phase::Pre)
    } else if name == post || (agent == HookAgent::Claude && name == "PostToolUseFailure") {
        Ok(Phase::Post)
    } else {
        Err(EventError::UnknownEvent {
            agent: agent.as_str(),
            pre,
            post,
            got: crate::audit::excerpt(name, 64),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_each_agents_event() {
        let claude = json!({"session_id": "s1", "cwd": "/w", "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"});
        let e = HookEvent::from_value(HookAgent::Claude, claude).unwrap();
        assert_eq!((e.phase, e.tool_name.as_str()), (Phase::Pre, "Bash"));
        assert_eq!(e.tool_use_id.as_deref(), Some("toolu_1"));
        assert_eq!(e.cwd, Some(PathBuf::from("/w")));
        let gemini = json!({"session_id": "g", "cwd": "/w", "hook_event_name": "AfterTool",
            "tool_name": "read_file", "tool_input": {"file_path": "a"},
            "tool_response": {"llmContent": "x"}, "mcp_context": {"server_name": "github"}});
        let e = HookEvent::from_value(HookAgent::Gemini, gemini).unwrap();
        assert_eq!(e.phase, Phase::Post);
        assert_eq!(e.tool_use_id, None);
        assert_eq!(e.mcp_server.as_deref(), Some("github"));
        assert_eq!(e.tool_response, Some(json!({"llmContent": "x"})));
    }

    #[test]
    fn refuses_malformed_and_foreign_events() {
        assert!(matches!(
            HookEvent::parse(HookAgent::Claude, b"{not json"),
            Err(EventError::NotJson(_))
        ));
        assert!(matches!(
            HookEvent::parse(HookAgent::Claude, b"[1]"),
            Err(EventError::NotJson(_))
        ));
        let no_tool = json!({"hook_event_name": "PreToolUse", "tool_input": {}});
        assert_eq!(
            HookEvent::from_value(HookAgent::Codex, no_tool),
            Err(EventError::Missing("tool_name"))
        );
        // Gemini's event name sent to the Claude hook is not understood.
        let foreign = json!({"hook_event_name": "BeforeTool", "tool_name": "x", "tool_input": {}});
        let err = HookEvent::from_value(HookAgent::Claude, foreign).unwrap_err();
        assert!(
            err.to_string().contains("PreToolUse and PostToolUse"),
            "{err}"
        );
    }
}
