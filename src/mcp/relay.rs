//! `airlock connect`: relay stdin/stdout to the running supervisor's socket.
//!
//! The relay copies bytes and nothing else; the MCP session is between the
//! agent and the supervisor. Each direction runs on its own thread with
//! blocking I/O, so a read on stdin that can never be cancelled does not
//! hold the process up once the supervisor side is done.

use std::io::{self, Read, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use super::discovery;

/// How often `--wait` looks for a supervisor.
const WAIT_POLL: Duration = Duration::from_millis(200);

/// Why `airlock connect` could not relay.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// No supervisor's workspace contains the current directory.
    #[error(
        "no airlock supervisor is running for {}; start one with `airlock --workspace {}`",
        .dir.display(), shell_quote(.dir)
    )]
    NotRunning {
        /// The directory connect was started in.
        dir: PathBuf,
    },
    /// Nothing answers on the socket that was named.
    #[error(
        "no airlock supervisor is listening on {} ({reason}); start one with `airlock` in your workspace",
        .socket.display()
    )]
    NoListener {
        /// The socket.
        socket: PathBuf,
        /// What connecting said.
        reason: String,
    },
    /// The current directory is unusable.
    #[error("cannot read the current directory: {0}")]
    CurrentDir(io::Error),
    /// The private runtime directory is unusable.
    #[error("cannot use the runtime directory: {0}")]
    RuntimeDir(io::Error),
    /// The socket is served by another user's process.
    #[error("the supervisor on this socket runs as another user (uid {uid}); refusing to connect")]
    OtherUser {
        /// Its user id.
        uid: u32,
    },
    /// Copying bytes failed.
    #[error("the relay failed: {0}")]
    Relay(io::Error),
}

/// Find the supervisor's socket and relay bytes both ways until either side
/// closes.
pub async fn connect(socket: Option<PathBuf>, wait: bool) -> anyhow::Result<ExitCode> {
    let stream = loop {
        match find_and_connect(socket.as_deref()) {
            Ok(s) => break s,
            Err(e @ (ConnectError::NotRunning { .. } | ConnectError::NoListener { .. }))
                if wait =>
            {
                tracing::debug!("waiting for a supervisor: {e}");
                tokio::time::sleep(WAIT_POLL).await;
            }
            Err(e) => return Err(e.into()),
        }
    };
    let stream = check_peer(stream)?;
    relay(stream).await.map_err(ConnectError::Relay)?;
    Ok(ExitCode::SUCCESS)
}

/// Only talk to a supervisor run by our own user (the agent's traffic
/// must not go to someone else's process). Needs a Tokio runtime.
fn check_peer(stream: UnixStream) -> Result<UnixStream, ConnectError> {
    stream.set_nonblocking(true).map_err(ConnectError::Relay)?;
    let stream = tokio::net::UnixStream::from_std(stream).map_err(ConnectError::Relay)?;
    let uid = stream.peer_cred().map_err(ConnectError::Relay)?.uid();
    if uid != crate::dirs::uid() {
        return Err(ConnectError::OtherUser { uid });
    }
    let stream = stream.into_std().map_err(ConnectError::Relay)?;
    stream.set_nonblocking(false).map_err(ConnectError::Relay)?;
    Ok(stream)
}

/// Connect to `--socket`/`AIRLOCK_SOCKET`, else to the supervisor whose
/// workspace contains the current directory.
pub fn find_and_connect(socket: Option<&Path>) -> Result<UnixStream, ConnectError> {
    let socket = match socket {
        Some(s) => s.to_path_buf(),
        None => {
            let cwd = std::env::current_dir().map_err(ConnectError::CurrentDir)?;
            let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
            let runtime = crate::dirs::runtime_dir().map_err(ConnectError::RuntimeDir)?;
            let Some(info) = discovery::find_session(&runtime, &cwd) else {
                return Err(ConnectError::NotRunning { dir: cwd });
            };
            return UnixStream::connect(&info.socket)
                .map_err(|_| ConnectError::NotRunning { dir: cwd });
        }
    };
    UnixStream::connect(&socket).map_err(|e| ConnectError::NoListener {
        socket,
        reason: e.to_string(),
    })
}

/// Copy stdin → socket and socket → stdout. Ends when the supervisor side
/// closes (or stdout is gone); when stdin ends first, the socket's write
/// side is shut down so the supervisor sees EOF and finishes its replies.
pub async fn relay(stream: UnixStream) -> io::Result<()> {
    let up = stream.try_clone()?;
    std::thread::Builder::new()
        .name("relay-stdin".into())
        .spawn(move || {
            let mut up = up;
            if let Err(e) = pump(&mut io::stdin().lock(), &mut up) {
                tracing::debug!("stdin → socket ended: {e}");
            }
            let _ = up.shutdown(Shutdown::Write);
        })?;
    let (done_tx, done_rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("relay-stdout".into())
        .spawn(move || {
            let mut down = stream;
            let result = pump(&mut down, &mut io::stdout().lock());
            let _ = done_tx.send(result);
        })?;
    match done_rx.await {
        Ok(Ok(())) => Ok(()),
        // The agent closed our stdout: it is gone, nothing to report.
        Ok(Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(io::Error::other("the relay thread stopped")),
    }
}

/// Copy until EOF, flushing after every chunk (replies must not sit in a
/// buffer while the agent waits for them).
fn pump(from: &mut impl Read, to: &mut impl Write) -> io::Result<()> {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        to.write_all(&buf[..n])?;
        to.flush()?;
    }
}

/// `path` as a shell word.
fn shell_quote(path: &Path) -> String {
    let s = path.display().to_string();
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c));
    if plain {
        s
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_paths_for_the_shell() {
        assert_eq!(shell_quote(Path::new("/a/b-c")), "/a/b-c");
        assert_eq!(shell_quote(Path::new("/a b/it's")), r"'/a b/it'\''s'");
    }

    #[test]
    fn not_running_names_the_command() {
        let e = ConnectError::NotRunning {
            dir: PathBuf::from("/w s"),
        };
        assert_eq!(
            e.to_string(),
            "no airlock supervisor is running for /w s; start one with `airlock --workspace '/w s'`"
        );
    }
}
