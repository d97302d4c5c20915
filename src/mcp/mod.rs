//! The MCP server (rmcp): the handler that turns `tools/list` and
//! `tools/call` into supervisor calls, and the transports (stdio, the Unix
//! socket) plus the `airlock connect` relay.

use std::sync::Arc;

use crate::session::Session;
use crate::supervisor::Supervisor;

pub mod relay;

/// Serve one MCP connection on stdin/stdout until stdin closes.
pub async fn serve_stdio(supervisor: Arc<Supervisor>) -> anyhow::Result<()> {
    let _ = supervisor;
    anyhow::bail!("not implemented yet: serve --stdio")
}

/// The supervisor without a TUI: listen on the workspace's socket, print
/// where agents connect, serve until SIGINT/SIGTERM.
pub async fn run_supervisor(session: &Session) -> anyhow::Result<()> {
    let _ = session;
    anyhow::bail!("not implemented yet: the socket supervisor")
}
