//! The supervisor's Unix socket: one per workspace in the private runtime
//! directory, mode 0600, peer UID checked, one MCP session per connection.

use std::io;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{UnixListener, UnixStream};
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::discovery::SessionInfo;
use super::handler::tool_list;
use crate::session::Session;
use crate::supervisor::Supervisor;

/// How long connections get to wind down when the supervisor stops.
const DRAIN: Duration = Duration::from_secs(5);

/// Why the socket could not be served.
#[derive(Debug, thiserror::Error)]
pub enum SocketError {
    /// Another supervisor answers on this workspace's socket.
    #[error(
        "an airlock supervisor is already running for {workspace} (socket {socket}); \
         connect agents to it with `airlock connect`, or stop it first"
    )]
    AlreadyRunning {
        /// The workspace.
        workspace: PathBuf,
        /// Its socket.
        socket: PathBuf,
    },
    /// Something that is not a socket sits where the socket belongs.
    #[error("{0} exists and is not a socket; remove it and start airlock again")]
    NotASocket(PathBuf),
    /// The private runtime directory is unusable.
    #[error("cannot use the runtime directory: {0}")]
    RuntimeDir(io::Error),
    /// The HTTP endpoint could not start.
    #[error(transparent)]
    Http(#[from] super::http::HttpError),
    /// Any other I/O failure, with the path involved.
    #[error("{what} {path}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The path.
        path: PathBuf,
        /// Why it failed.
        source: io::Error,
    },
}

/// Where a running supervisor listens (for the start-up banner).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listening {
    /// The canonical workspace.
    pub workspace: PathBuf,
    /// The socket agents connect to.
    pub socket: PathBuf,
    /// The session info file `airlock connect` discovers it by.
    pub info_file: PathBuf,
    /// The session's audit trail.
    pub audit: PathBuf,
    /// The Streamable HTTP endpoint, when `[http] listen` / `--http` is on.
    pub http: Option<super::http::HttpListening>,
}

/// A bound, published socket; removes its files when dropped.
pub struct SocketServer {
    listener: UnixListener,
    http: Option<super::http::HttpServer>,
    listening: Listening,
    /// The session registered a second time, for agents started without
    /// `XDG_RUNTIME_DIR` (see [`crate::dirs::also_register_in`]).
    also_info: Option<PathBuf>,
    sigterm: Signal,
    sigint: Signal,
}

impl SocketServer {
    /// Bind the workspace's socket in `runtime` (cleaning up a stale one,
    /// refusing when a live supervisor answers there) and publish the
    /// session info file. SIGINT and SIGTERM are caught from here on, so a
    /// signal right after start-up still stops the supervisor cleanly.
    /// Must be called inside a Tokio runtime.
    pub fn bind(runtime: &Path, session: &Session) -> Result<Self, SocketError> {
        let socket = crate::dirs::socket_path(runtime, &session.workspace);
        let info_file = crate::dirs::session_info_path(runtime, &session.workspace);
        let signal_err = |source| SocketError::Io {
            what: "cannot watch signals for",
            path: socket.clone(),
            source,
        };
        let sigterm = signal(SignalKind::terminate()).map_err(signal_err)?;
        let sigint = signal(SignalKind::interrupt()).map_err(signal_err)?;
        clear_stale(&socket, &session.workspace)?;
        let http = super::http::HttpServer::bind(&session.config.config.http)?;
        let http_listening = http.as_ref().map(|h| h.listening().clone());
        let listener = UnixListener::bind(&socket).map_err(|source| {
            if source.kind() == io::ErrorKind::AddrInUse {
                SocketError::AlreadyRunning {
                    workspace: session.workspace.clone(),
                    socket: socket.clone(),
                }
            } else {
                SocketError::Io {
                    what: "cannot listen on",
                    path: socket.clone(),
                    source,
                }
            }
        })?;
        let mut server = Self {
            also_info: None,
            listener,
            http,
            listening: Listening {
                workspace: session.workspace.clone(),
                socket: socket.clone(),
                info_file: info_file.clone(),
                audit: session.audit_path.clone(),
                http: http_listening.clone(),
            },
            sigterm,
            sigint,
        };
        std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600)).map_err(
            |source| SocketError::Io {
                what: "cannot restrict",
                path: socket.clone(),
                source,
            },
        )?;
        let info = SessionInfo {
            workspace: session.workspace.clone(),
            socket,
            pid: std::process::id(),
            audit: session.audit_path.clone(),
            version: crate::VERSION.to_string(),
            http_url: http_listening.map(|h| h.url),
        };
        info.write(&info_file).map_err(|source| SocketError::Io {
            what: "cannot write",
            path: info_file,
            source,
        })?;
        server.also_info = register_also(runtime, &info);
        Ok(server)
    }

    /// Where it listens.
    pub fn listening(&self) -> &Listening {
        &self.listening
    }

    /// Serve agents until SIGINT, SIGTERM or the supervisor's shutdown;
    /// then end every connection and shut the supervisor down.
    pub async fn serve(mut self, supervisor: Arc<Supervisor>) -> Result<(), SocketError> {
        let stopped = supervisor.shutdown_token();
        let connections = CancellationToken::new();
        let tracker = TaskTracker::new();
        let tools = tool_list(&supervisor);
        if let Some(http) = self.http.take() {
            tracker.spawn(http.serve(supervisor.clone(), connections.child_token()));
        }
        let reason = loop {
            tokio::select! {
                accepted = self.listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        if !peer_is_us(&stream) {
                            continue;
                        }
                        let (read, write) = stream.into_split();
                        tracker.spawn(super::serve_connection(
                            supervisor.clone(),
                            tools.clone(),
                            read,
                            write,
                            connections.child_token(),
                        ));
                    }
                    Err(e) => {
                        // Out of descriptors and the like: back off, keep serving.
                        tracing::warn!("accepting a connection failed: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                },
                _ = self.sigterm.recv() => break "signal SIGTERM",
                _ = self.sigint.recv() => break "signal SIGINT",
                () = stopped.cancelled() => break "shutdown",
            }
        };
        tracing::info!(reason, "supervisor stopping");
        connections.cancel();
        tracker.close();
        if tokio::time::timeout(DRAIN, tracker.wait()).await.is_err() {
            tracing::warn!("connections did not close in time");
        }
        supervisor.shutdown(reason);
        Ok(())
    }
}

impl Drop for SocketServer {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.listening.socket);
        // Only remove an info file if it still describes this process.
        let files = std::iter::once(&self.listening.info_file).chain(self.also_info.as_ref());
        for file in files {
            if SessionInfo::read(file).is_some_and(|info| info.pid == std::process::id()) {
                let _ = std::fs::remove_file(file);
            }
        }
    }
}

/// Publish `info` a second time where an agent without `XDG_RUNTIME_DIR`
/// looks (a private directory too). A failure only costs that agent the
/// discovery, so it is logged, not fatal.
fn register_also(runtime: &Path, info: &SessionInfo) -> Option<PathBuf> {
    let dir = crate::dirs::also_register_in(runtime)?;
    let file = crate::dirs::session_info_path(&dir, &info.workspace);
    match crate::dirs::ensure_private_dir(&dir).and_then(|()| info.write(&file)) {
        Ok(()) => Some(file),
        Err(e) => {
            tracing::warn!(dir = %dir.display(), "cannot register the session a second time: {e}");
            None
        }
    }
}

/// Remove a socket nobody answers on; refuse when a supervisor does.
fn clear_stale(socket: &Path, workspace: &Path) -> Result<(), SocketError> {
    let meta = match std::fs::symlink_metadata(socket) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(SocketError::Io {
                what: "cannot inspect",
                path: socket.to_path_buf(),
                source,
            });
        }
    };
    if !meta.file_type().is_socket() {
        return Err(SocketError::NotASocket(socket.to_path_buf()));
    }
    if std::os::unix::net::UnixStream::connect(socket).is_ok() {
        Err(SocketError::AlreadyRunning {
            workspace: workspace.to_path_buf(),
            socket: socket.to_path_buf(),
        })
    } else {
        tracing::info!(socket = %socket.display(), "removing a stale socket");
        match std::fs::remove_file(socket) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(SocketError::Io {
                what: "cannot remove the stale socket",
                path: socket.to_path_buf(),
                source,
            }),
        }
    }
}

/// Only our own user may connect.
fn peer_is_us(stream: &UnixStream) -> bool {
    match stream.peer_cred() {
        Ok(cred) if cred.uid() == crate::dirs::uid() => true,
        Ok(cred) => {
            tracing::warn!(uid = cred.uid(), "refused a connection from another user");
            false
        }
        Err(e) => {
            tracing::warn!("refused a connection whose peer is unknown: {e}");
            false
        }
    }
}
