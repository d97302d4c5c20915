//! Streamable HTTP: the same MCP server as the socket, for agents that
//! cannot spawn `airlock connect` (containers, SDK scripts, forwarded
//! ports). rmcp's streamable-HTTP service speaks the protocol; hyper
//! serves it; this module guards the door (secret, `Host`, `Origin`,
//! bounded bodies and reads) and audits every request it refuses.
//!
//! An `initialize` starts an HTTP session: one agent with its own shell,
//! ending on DELETE, when idle for `[http] idle_timeout_secs`, or when the
//! server stops. Stateless (2026-07-28) requests are grouped into one
//! agent per client ([`agents`]).

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::supervisor::Supervisor;

pub mod access;
pub mod agents;
pub mod body;
mod ids;
mod request;
mod sessions;

use crate::config::http as config;
pub use crate::config::http::HttpConfig;
pub use access::{MCP_PATH, Secret};

/// How long a client may take to send a request's headers.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a client may take to send a request's body.
const BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// Most connections served at once; more wait to be accepted.
const MAX_CONNECTIONS: usize = 1024;
/// How long connections get to finish when the server stops.
const DRAIN: Duration = Duration::from_secs(5);

/// Why the HTTP endpoint could not start.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// `[http] listen` / `--http ADDR` is not an address.
    #[error(transparent)]
    BadListen(#[from] config::BadListen),
    /// Binding failed.
    #[error("cannot listen for HTTP on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

/// Where the HTTP endpoint listens.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpListening {
    /// The bound address.
    pub addr: SocketAddr,
    /// The capability URL, secret included.
    pub url: String,
    /// The secret (also in `url`).
    pub secret: Secret,
}

impl HttpListening {
    /// True when only this machine can reach it.
    pub fn loopback(&self) -> bool {
        self.addr.ip().is_loopback()
    }

    /// The URL without the secret (`http://127.0.0.1:PORT/mcp`), for
    /// `Authorization: Bearer` clients.
    pub fn base_url(&self) -> String {
        format!("http://{}{MCP_PATH}", url_authority(self.addr))
    }

    /// The status bar's words: the full URL, and a warning when the
    /// address is reachable from other machines.
    pub fn describe(&self) -> String {
        if self.loopback() {
            format!("http: {}", self.url)
        } else {
            format!(
                "http: {} (listening on {}: reachable from other machines)",
                self.url, self.addr
            )
        }
    }
}

impl fmt::Debug for HttpListening {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpListening")
            .field("addr", &self.addr)
            .field("url", &format!("{}/<secret>", self.base_url()))
            .finish_non_exhaustive()
    }
}

/// `host:port` for a URL: an unspecified address (`0.0.0.0`) is reached
/// on loopback from here.
fn url_authority(addr: SocketAddr) -> String {
    let ip = match addr.ip() {
        std::net::IpAddr::V4(v4) if v4.is_unspecified() => "127.0.0.1".to_string(),
        std::net::IpAddr::V6(v6) if v6.is_unspecified() => "[::1]".to_string(),
        std::net::IpAddr::V6(v6) => format!("[{v6}]"),
        std::net::IpAddr::V4(v4) => v4.to_string(),
    };
    format!("{ip}:{}", addr.port())
}

/// A bound HTTP endpoint, not yet serving.
pub struct HttpServer {
    listener: TcpListener,
    listening: HttpListening,
    config: HttpConfig,
}

impl HttpServer {
    /// Bind where `config` says; `None` when HTTP is off. Must be called
    /// inside a Tokio runtime.
    pub fn bind(config: &HttpConfig) -> Result<Option<Self>, HttpError> {
        let Some(addr) = config.listen_addr()? else {
            return Ok(None);
        };
        let bind_err = |source| HttpError::Bind { addr, source };
        let std_listener = std::net::TcpListener::bind(addr).map_err(bind_err)?;
        std_listener.set_nonblocking(true).map_err(bind_err)?;
        let listener = TcpListener::from_std(std_listener).map_err(bind_err)?;
        let addr = listener.local_addr().map_err(bind_err)?;
        let secret = Secret::generate();
        let url = format!(
            "http://{}{MCP_PATH}/{}",
            url_authority(addr),
            secret.expose()
        );
        if !addr.ip().is_loopback() {
            tracing::warn!(%addr, "HTTP listens on a non-loopback address: other machines can reach it");
        }
        Ok(Some(Self {
            listener,
            listening: HttpListening { addr, url, secret },
            config: config.clone(),
        }))
    }

    /// Where it listens.
    pub fn listening(&self) -> &HttpListening {
        &self.listening
    }

    /// Serve until `stop` is cancelled; then end every session (their
    /// calls are cancelled, their agents disconnected).
    pub async fn serve(self, supervisor: Arc<Supervisor>, stop: CancellationToken) {
        let access = access::Access::new(
            self.listening.secret.clone(),
            self.listening.addr,
            &self.config.allowed_hosts,
            &self.config.allowed_origins,
        );
        let idle = self.config.idle_timeout();
        let mut sessions = LocalSessionManager::default();
        sessions.session_config.keep_alive = Some(idle);
        let sessions = Arc::new(sessions);
        let pool = Arc::new(agents::StatelessAgents::default());
        let by_session = Arc::new(sessions::Sessions::default());
        let tools = crate::mcp::handler::tool_list(&supervisor);
        let service_stop = stop.child_token();
        let service = {
            let (sup, pool) = (supervisor.clone(), pool.clone());
            let handler_pool: Arc<dyn crate::mcp::handler::AgentPool> =
                Arc::new(agents::Pool(pool.clone()));
            let links: Arc<dyn crate::mcp::handler::SessionAgents> = by_session.clone();
            StreamableHttpService::new(
                move || {
                    Ok(crate::mcp::AirlockHandler::for_http(
                        sup.clone(),
                        tools.clone(),
                        handler_pool.clone(),
                        links.clone(),
                    ))
                },
                sessions.clone(),
                StreamableHttpServerConfig::default()
                    .with_cancellation_token(service_stop.clone())
                    .disable_allowed_hosts()
                    .with_max_request_body_bytes(self.config.max_body_bytes),
            )
        };
        let state = Arc::new(request::State {
            supervisor: supervisor.clone(),
            access,
            service,
            sessions,
            by_session,
            max_body: self.config.max_body_bytes,
            body_timeout: BODY_TIMEOUT,
            ids: Arc::default(),
        });
        let sweeper = {
            let (sup, pool, stop) = (supervisor.clone(), pool.clone(), stop.clone());
            tokio::spawn(async move {
                let every = (idle / 4).clamp(Duration::from_millis(100), Duration::from_secs(30));
                loop {
                    tokio::select! {
                        () = tokio::time::sleep(every) => pool.expire(&sup, idle),
                        () = stop.cancelled() => break,
                    }
                }
            })
        };
        let limit = Arc::new(Semaphore::new(MAX_CONNECTIONS));
        let tracker = TaskTracker::new();
        loop {
            let permit = tokio::select! {
                p = limit.clone().acquire_owned() => match p {
                    Ok(p) => p,
                    Err(_) => break,
                },
                () = stop.cancelled() => break,
            };
            let (stream, _peer) = tokio::select! {
                accepted = self.listener.accept() => match accepted {
                    Ok(a) => a,
                    Err(e) => {
                        tracing::warn!("accepting an HTTP connection failed: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                },
                () = stop.cancelled() => break,
            };
            let state = state.clone();
            let stop = stop.clone();
            tracker.spawn(async move {
                let _permit = permit;
                serve_connection(stream, state, stop).await;
            });
        }
        service_stop.cancel();
        tracker.close();
        if tokio::time::timeout(DRAIN, tracker.wait()).await.is_err() {
            tracing::warn!("HTTP connections did not close in time");
        }
        sweeper.abort();
        pool.end_all(&supervisor);
    }
}

/// One TCP connection: HTTP/1.1 with a deadline on the request headers
/// (a slow client is dropped, never waited on by anyone else).
async fn serve_connection(
    stream: tokio::net::TcpStream,
    state: Arc<request::State>,
    stop: CancellationToken,
) {
    // Answers go out in several small writes (headers, SSE events): without
    // this, Nagle's algorithm holds each for the client's delayed ACK.
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!("TCP_NODELAY not set: {e}");
    }
    let service = hyper::service::service_fn(move |req| {
        let state = state.clone();
        async move { Ok::<_, std::convert::Infallible>(state.handle(req).await) }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT)
        .keep_alive(true);
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    tokio::select! {
        result = conn.as_mut() => {
            if let Err(e) = result {
                tracing::debug!("HTTP connection ended: {e}");
            }
        }
        () = stop.cancelled() => {
            conn.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(DRAIN, conn).await;
        }
    }
}

/// Serve MCP on HTTP only (`airlock serve --http`), calling `on_ready`
/// once bound; until SIGINT/SIGTERM or the supervisor's shutdown.
pub async fn serve_headless(
    supervisor: Arc<Supervisor>,
    config: &HttpConfig,
    on_ready: impl FnOnce(&HttpListening),
) -> anyhow::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut config = config.clone();
    config.apply_flag(Some(""));
    let server = HttpServer::bind(&config)?.ok_or_else(|| anyhow::anyhow!("HTTP is off"))?;
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    on_ready(server.listening());
    let stop = CancellationToken::new();
    let serving = tokio::spawn(server.serve(supervisor.clone(), stop.clone()));
    let shutdown = supervisor.shutdown_token();
    let reason = tokio::select! {
        _ = term.recv() => "signal SIGTERM",
        _ = int.recv() => "signal SIGINT",
        () = shutdown.cancelled() => "shutdown",
    };
    tracing::info!(reason, "HTTP server stopping");
    stop.cancel();
    let _ = tokio::time::timeout(DRAIN * 2, serving).await;
    supervisor.shutdown(reason);
    Ok(())
}
