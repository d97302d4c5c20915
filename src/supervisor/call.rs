//! The identity of agents and calls, and what a call is about.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// An agent connection: one MCP session, named from its `clientInfo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentInfo {
    /// Unique within a supervisor session, starting at 1.
    pub id: u64,
    /// The client's name (`clientInfo.name`), or `agent-<id>` when unknown.
    pub name: String,
    /// The client's version, when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

impl AgentInfo {
    /// The name shown on screen and in `airlock log`: a short name for a
    /// known client (`codex-mcp-client` → `codex`), else the client's own.
    /// The trail keeps [`AgentInfo::name`] as the client sent it.
    pub fn display_name(&self) -> &str {
        known(&self.name).map_or(self.name.as_str(), |k| k.0)
    }

    /// Seconds after which this client gives up waiting for a tool call by
    /// default, when airlock knows it (Codex: 300 s unless its
    /// `tool_timeout_sec` says otherwise).
    pub fn gives_up_after(&self) -> Option<u64> {
        known(&self.name).and_then(|k| k.1)
    }
}

/// Known MCP clients: `clientInfo.name` → (display name, default tool-call
/// timeout in seconds, when known).
fn known(name: &str) -> Option<(&'static str, Option<u64>)> {
    Some(match name {
        "codex-mcp-client" | "codex" => ("codex", Some(300)),
        "gemini-cli-mcp-client" | "gemini-cli" => ("gemini", None),
        "claude-code" => ("claude-code", None),
        _ => return None,
    })
}

/// Unique within a supervisor session, starting at 1.
pub type CallId = u64;

/// What a tool does, which decides its default policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// Reads the workspace, changes nothing (allowed by default).
    Read,
    /// Writes files (asks by default).
    Write,
    /// Runs commands (asks by default).
    Exec,
}

impl ToolKind {
    /// The lowercase name used in the audit trail and on screen.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolKind::Read => "read",
            ToolKind::Write => "write",
            ToolKind::Exec => "exec",
        }
    }
}

/// What the policy matches a call against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Subject {
    /// The call touches these resolved paths.
    Paths {
        /// Fully resolved paths, already inside the scope.
        paths: Vec<std::path::PathBuf>,
    },
    /// The call runs this shell command.
    Command {
        /// The command text exactly as it will run.
        command: String,
    },
    /// Nothing to match beyond the tool name (e.g. `pwd`).
    None,
}

/// A call as the supervisor knows it once it arrived: shown to the human,
/// broadcast on the event bus and written to the audit trail.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CallInfo {
    /// The call's id.
    pub id: CallId,
    /// Who made it.
    pub agent: AgentInfo,
    /// The tool's name as the agent sent it.
    pub tool: String,
    /// The tool's kind, when the tool exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ToolKind>,
    /// The arguments as the agent sent them.
    pub args: Value,
    /// A one-line human summary (`read_file src/main.rs`).
    pub summary: String,
    /// When it arrived (RFC 3339, UTC).
    pub received_at: chrono::DateTime<chrono::Utc>,
    /// For writes: what would change, computed before anyone is asked. Not
    /// part of the `call_requested` record; the diff is kept in
    /// `call_finished`.
    #[serde(skip)]
    pub proposal: Option<std::sync::Arc<Proposal>>,
}

/// What a file write would do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteAction {
    /// The file does not exist yet.
    Create,
    /// The whole file is replaced.
    Overwrite,
    /// Text is added at the end.
    Append,
    /// Exact text is replaced.
    Edit,
}

/// A proposed file change, shown to the human before it happens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    /// The file, as shown (relative to the workspace when inside it).
    pub path: String,
    /// Create, overwrite, append or edit.
    pub action: WriteAction,
    /// Unified diff (`a/…`, `b/…` headers); `None` for binary content.
    pub diff: Option<String>,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// Old or new content is binary: no diff is shown.
    pub binary: bool,
    /// Size before (0 when new).
    pub old_bytes: u64,
    /// Size after.
    pub new_bytes: u64,
}

impl Proposal {
    /// `+a −b` for humans.
    pub fn summary(&self) -> String {
        if self.binary {
            format!("binary, {} → {} bytes", self.old_bytes, self.new_bytes)
        } else {
            format!("+{} −{}", self.added, self.removed)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_clients_get_short_names_and_their_timeouts() {
        let a = |name: &str| AgentInfo {
            id: 1,
            name: name.into(),
            version: None,
        };
        assert_eq!(a("codex-mcp-client").display_name(), "codex");
        assert_eq!(a("gemini-cli-mcp-client").display_name(), "gemini");
        assert_eq!(a("claude-code").display_name(), "claude-code");
        assert_eq!(a("my-sdk-script").display_name(), "my-sdk-script");
        assert_eq!(a("codex-mcp-client").gives_up_after(), Some(300));
        assert_eq!(a("claude-code").gives_up_after(), None);
    }
}
