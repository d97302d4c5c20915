//! `airlock init AGENT --http`: register airlock's Streamable HTTP endpoint
//! (the capability URL of the running supervisor, secret included) instead
//! of the `airlock connect` command. The keys, as each pinned agent reads
//! them:
//!
//! * Claude Code 2.1.197: `mcpServers.airlock = {"type": "http", "url": …}`
//!   (its server schema: `type: literal("http"), url, headers?`; what
//!   `claude mcp add --transport http` writes).
//! * Codex 0.171.0: `[mcp_servers.airlock] url = "…"` (streamable HTTP;
//!   `command` and `url` are alternatives).
//! * Gemini CLI 0.61.0: `mcpServers.airlock.httpUrl` ("Streaming HTTP
//!   transport URL"; `url` there means SSE unless a `type` is given).
//!
//! The secret is the supervisor's: a restarted supervisor has a new one, so
//! init is run again then (the note says so).

use super::Val;

/// The server entry's transport fields for Claude Code.
pub fn claude(url: &str) -> Vec<(&'static str, Val)> {
    vec![("type", Val::from("http")), ("url", Val::from(url))]
}

/// The server entry's transport fields for Codex.
pub fn codex(url: &str) -> Vec<(&'static str, Val)> {
    vec![("url", Val::from(url))]
}

/// The server entry's transport fields for Gemini CLI.
pub fn gemini(url: &str) -> Vec<(&'static str, Val)> {
    vec![("httpUrl", Val::from(url))]
}

/// What the report says about an HTTP registration.
pub fn note() -> String {
    "registered over Streamable HTTP: the URL holds this supervisor's secret, so run this \
     `airlock init … --http` again after restarting airlock (a stdio entry written before \
     keeps its `command`: run `airlock init … --remove` first to switch)."
        .to_string()
}
