//! The line protocol between `airlock hook` and the supervisor: one JSON
//! request line, one JSON answer line, on the hook socket beside the MCP
//! socket (`<runtime>/<workspace-id>.hooks.sock`, mode 0600, peer UID
//! checked). No MCP handshake: a hook is a short-lived process on the hot
//! path of every native tool call.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::answer::Answer;
use super::event::HookAgent;

/// Largest request line the supervisor reads (a `Write` of a large file
/// carries the whole content).
pub const MAX_REQUEST_BYTES: usize = 80 * 1024 * 1024;

/// The hook socket of the supervisor whose MCP socket is `mcp_socket`
/// (`dirs` names it).
pub use crate::dirs::hook_socket_path;

/// What the hook sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Which agent's hook this is.
    pub agent: HookAgent,
    /// The event exactly as the agent sent it.
    pub event: Value,
    /// A locale of the agent's environment under which its shell reads
    /// some commands otherwise than airlock (`NAME=value`), if any
    /// ([`super::locale`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub misread_locale: Option<String>,
}

/// What the supervisor answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// The decision.
    #[serde(flatten)]
    pub answer: Answer,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_round_trip() {
        let r = Response {
            answer: Answer::Deny { reason: "x".into() },
        };
        let line = serde_json::to_string(&r).unwrap();
        assert_eq!(line, r#"{"answer":"deny","reason":"x"}"#);
        assert_eq!(serde_json::from_str::<Response>(&line).unwrap(), r);
    }
}
