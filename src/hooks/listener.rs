//! The supervisor's hook socket: one JSON line in, one JSON line out per
//! connection (see [`super::wire`]). Started beside the MCP socket server,
//! stopped with it.

use std::io;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::answer::Answer;
use super::handler::Hooks;
use super::wire::{MAX_REQUEST_BYTES, Request, Response, hook_socket_path};
use crate::supervisor::Supervisor;

/// A bound hook socket; removes its file when dropped.
pub struct HookListener {
    listener: UnixListener,
    path: PathBuf,
}

impl HookListener {
    /// Bind the hook socket beside `mcp_socket` (mode 0600; a stale socket
    /// nobody answers on is replaced). Must be called inside a Tokio runtime.
    pub fn bind(mcp_socket: &Path) -> io::Result<Self> {
        let path = hook_socket_path(mcp_socket);
        if let Ok(meta) = std::fs::symlink_metadata(&path) {
            if !meta.file_type().is_socket() {
                return Err(io::Error::other(format!(
                    "{} exists and is not a socket",
                    path.display()
                )));
            }
            if std::os::unix::net::UnixStream::connect(&path).is_ok() {
                return Err(io::Error::new(
                    io::ErrorKind::AddrInUse,
                    format!("{} is in use", path.display()),
                ));
            }
            std::fs::remove_file(&path)?;
        }
        let listener = UnixListener::bind(&path)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
        Ok(Self { listener, path })
    }

    /// The socket's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Answer hooks until the supervisor shuts down.
    pub async fn serve(self, supervisor: Arc<Supervisor>) {
        let hooks = Arc::new(Hooks::new(supervisor.clone()));
        let stopped = supervisor.shutdown_token();
        let tracker = TaskTracker::new();
        loop {
            tokio::select! {
                accepted = self.listener.accept() => match accepted {
                    Ok((stream, _)) if peer_is_us(&stream) => {
                        tracker.spawn(serve_one(hooks.clone(), stream));
                    }
                    Ok(_) => {}
                    Err(e) => {
                        tracing::warn!("accepting a hook connection failed: {e}");
                        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    }
                },
                () = stopped.cancelled() => break,
            }
        }
        tracker.close();
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), tracker.wait()).await;
    }
}

impl Drop for HookListener {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// One hook: read its request, decide, answer. The hook process going away
/// (its agent gave up) cancels a decision still pending.
async fn serve_one(hooks: Arc<Hooks>, stream: UnixStream) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let mut line = Vec::new();
    let limit = MAX_REQUEST_BYTES as u64 + 1;
    let answer = match (&mut reader).take(limit).read_until(b'\n', &mut line).await {
        Ok(0) => return,
        Ok(n) if n as u64 >= limit => {
            hooks.malformed(&line, "the hook event is too large");
            Answer::Refuse {
                reason: format!(
                    "the hook event is larger than {MAX_REQUEST_BYTES} bytes; airlock refused the call"
                ),
            }
        }
        Ok(_) => match serde_json::from_slice::<Request>(&line) {
            Ok(request) => {
                let gone = CancellationToken::new();
                let watch = {
                    let gone = gone.clone();
                    tokio::spawn(async move {
                        let mut byte = [0u8; 1];
                        // Ends when the hook process exits (EOF or error).
                        let _ = reader.read(&mut byte).await;
                        gone.cancel();
                    })
                };
                // Run to the end even when the hook left: the pipeline
                // records the cancelled decision.
                let answer = hooks.handle(request, gone).await;
                watch.abort();
                answer
            }
            Err(e) => {
                hooks.malformed(&line, &format!("unreadable hook request: {e}"));
                Answer::Refuse {
                    reason: format!(
                        "airlock could not read the hook request ({e}); the call was refused"
                    ),
                }
            }
        },
        Err(e) => {
            tracing::debug!("reading a hook request failed: {e}");
            return;
        }
    };
    let mut out = match serde_json::to_vec(&Response { answer }) {
        Ok(v) => v,
        Err(e) => {
            tracing::error!("cannot encode a hook answer: {e}");
            return;
        }
    };
    out.push(b'\n');
    if let Err(e) = write.write_all(&out).await {
        tracing::debug!("the hook went away before its answer: {e}");
    }
}

fn peer_is_us(stream: &UnixStream) -> bool {
    match stream.peer_cred() {
        Ok(cred) if cred.uid() == crate::dirs::uid() => true,
        Ok(cred) => {
            tracing::warn!(
                uid = cred.uid(),
                "refused a hook connection from another user"
            );
            false
        }
        Err(e) => {
            tracing::warn!("refused a hook connection whose peer is unknown: {e}");
            false
        }
    }
}
