//! Who makes calls: an agent connection.

use serde::{Deserialize, Serialize};

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
