//! The MCP server (rmcp): the handler that turns `tools/list` and
//! `tools/call` into supervisor calls, and the transports (stdio, the Unix
//! socket) plus the `airlock connect` relay.
//!
//! Every connection is its own rmcp service and its own agent session.
//! rmcp does the protocol (both the `initialize` handshake and the
//! stateless 2026-07-28 revision); [`transport::LineTransport`] answers
//! malformed input so one bad line never ends a session.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use rmcp::model::Tool;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

use crate::session::Session;
use crate::supervisor::Supervisor;

pub mod discovery;
pub mod handler;
pub mod http;
mod in_flight;
pub mod inline;
mod lane;
mod line_out;
mod plain_call;
pub mod relay;
mod request_id;
mod socket;
pub mod transport;

pub use handler::AirlockHandler;
pub use socket::{Listening, SocketError, SocketServer};

/// How long a closed connection's calls get to finish before the agent's
/// disconnect is recorded.
const CALLS_DRAIN: Duration = Duration::from_secs(5);

/// How a connection's requests are dispatched.
pub enum Dispatch {
    /// rmcp serves every request on a task of its own.
    Rmcp,
    /// The read-only calls that end at once are served where the transport
    /// reads them ([`inline`]), the rest by rmcp; the counter counts the
    /// calls served inline.
    Inline(Arc<AtomicU64>),
}

impl Dispatch {
    /// [`Dispatch::Inline`] with a counter of its own.
    pub fn inline() -> Self {
        Self::Inline(Arc::default())
    }
}

/// Serve one MCP connection on stdin/stdout until stdin closes. Calls that
/// are not read-only run on `work` (see [`AirlockHandler::offload_to`]):
/// the caller serves the connection on a current-thread runtime and gives
/// commands and writes a multi-threaded one.
pub async fn serve_stdio(
    supervisor: Arc<Supervisor>,
    work: tokio::runtime::Handle,
) -> anyhow::Result<()> {
    let tools = handler::tool_list(&supervisor);
    let (read, write) = rmcp::transport::stdio_pipes();
    let stop = supervisor.shutdown_token().child_token();
    let handler = AirlockHandler::new(supervisor.clone(), tools).offload_to(work);
    serve_handler(supervisor, handler, read, write, stop, Dispatch::inline()).await;
    Ok(())
}

/// The supervisor without a TUI: listen on the workspace's socket, serve
/// until SIGINT/SIGTERM.
pub async fn run_supervisor(session: &Session) -> anyhow::Result<()> {
    run_supervisor_with(session, |_| {}).await
}

/// Like [`run_supervisor`], calling `on_ready` once the socket is bound and
/// published (the binary prints where agents connect from it).
pub async fn run_supervisor_with(
    session: &Session,
    on_ready: impl FnOnce(&Listening),
) -> anyhow::Result<()> {
    let runtime = crate::dirs::runtime_dir().map_err(SocketError::RuntimeDir)?;
    let server = SocketServer::bind(&runtime, session)?;
    on_ready(server.listening());
    server.serve(session.supervisor.clone()).await?;
    Ok(())
}

/// Run one MCP session over `read`/`write` until the peer closes or `stop`
/// is cancelled, then record the agent's disconnect.
pub async fn serve_connection<R, W>(
    supervisor: Arc<Supervisor>,
    tools: Arc<[Tool]>,
    read: R,
    write: W,
    stop: CancellationToken,
) where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_connection_via(supervisor, tools, (read, write), stop, Dispatch::inline()).await;
}

/// [`serve_connection`], dispatching requests as `dispatch` says (the
/// tests compare the two ways).
pub async fn serve_connection_via<R, W>(
    supervisor: Arc<Supervisor>,
    tools: Arc<[Tool]>,
    (read, write): (R, W),
    stop: CancellationToken,
    dispatch: Dispatch,
) where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let handler = AirlockHandler::new(supervisor.clone(), tools);
    serve_handler(supervisor, handler, read, write, stop, dispatch).await;
}

/// [`serve_connection`] with a handler made by the caller.
async fn serve_handler<R, W>(
    supervisor: Arc<Supervisor>,
    handler: AirlockHandler,
    read: R,
    write: W,
    stop: CancellationToken,
    dispatch: Dispatch,
) where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let agent = handler.agent_slot();
    let calls = handler.calls();
    let reporter = (supervisor.clone(), agent.clone());
    // The agent's input closing cancels its calls at once (rmcp would let
    // them run on for its drain period).
    let input_closed = CancellationToken::new();
    let mut transport = transport::LineTransport::new(read, write);
    if let Dispatch::Inline(served) = dispatch {
        transport = transport.with_inline_lane(inline::InlineLane::new(&handler, served));
    }
    let transport = transport
        .on_rejected(Box::new(move |error, raw| {
            let (sup, slot) = &reporter;
            sup.protocol_error(slot.current().as_ref(), error, raw);
        }))
        .on_input_closed(input_closed.clone());
    let watcher = {
        let (sup, slot, closed) = (supervisor.clone(), agent.clone(), input_closed.clone());
        tokio::spawn(async move {
            closed.cancelled().await;
            if let Some(agent) = slot.current() {
                sup.agent_gone(&agent);
            }
        })
    };
    // rmcp cancels the token it is given when the session ends: give it a
    // child so nothing else is cancelled with it.
    match rmcp::service::serve_server_with_ct(handler, transport, stop.child_token()).await {
        Ok(running) => match running.waiting().await {
            Ok(reason) => tracing::info!(?reason, "MCP session ended"),
            Err(e) => tracing::error!("MCP session failed: {e}"),
        },
        Err(e) => tracing::info!("connection closed before an MCP session started: {e}"),
    }
    // However the session ended (but for the supervisor stopping, which
    // cancels its calls itself), this agent's calls end with it.
    if stop.is_cancelled() {
        watcher.abort();
    } else {
        input_closed.cancel();
        let _ = watcher.await;
    }
    calls.close();
    if tokio::time::timeout(CALLS_DRAIN, calls.wait())
        .await
        .is_err()
    {
        tracing::warn!("calls still running after the connection closed");
    }
    if let Some(agent) = agent.take() {
        supervisor.agent_disconnected(&agent);
    }
}
