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

/// How long a failing connect waits for the agent's first request, to
/// answer it with the error (clients write `initialize` right away).
const REPLY_WINDOW: Duration = Duration::from_secs(1);

/// The JSON-RPC error code of "no supervisor" answers (server-defined range).
pub const NO_SUPERVISOR_CODE: i64 = -32000;

/// Why `airlock connect` could not relay.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// No supervisor's workspace contains the current directory.
    #[error(
        "no airlock supervisor is running for {}; start one with `airlock --workspace {}`{}",
        .dir.display(), shell_quote(.dir), looked_in(.searched)
    )]
    NotRunning {
        /// The directory connect was started in.
        dir: PathBuf,
        /// The runtime directories searched.
        searched: Vec<PathBuf>,
    },
    /// The agent closed stdin while `--wait` waited: nothing was relayed.
    #[error("the agent closed stdin before a supervisor appeared; nothing was relayed")]
    StdinClosed,
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
/// closes. `say` prints a line for the human (stderr). With `wait`, keep
/// looking (saying so once) until a supervisor appears or the agent closes
/// stdin. When no supervisor can be reached, the error is said first, then
/// a request the agent already sent (its `initialize`) is answered with a
/// JSON-RPC error carrying the same message, so the agent can show it; the
/// exit code is 1.
pub async fn connect(
    socket: Option<PathBuf>,
    wait: bool,
    say: impl Fn(&str),
) -> anyhow::Result<ExitCode> {
    let mut stdin = StdinReader::start()?;
    let mut waiting = false;
    let stream = loop {
        match find_and_connect(socket.as_deref()).and_then(check_peer) {
            Ok(s) => break s,
            Err(e @ (ConnectError::NotRunning { .. } | ConnectError::NoListener { .. }))
                if wait =>
            {
                if !waiting {
                    waiting = true;
                    say(&format!(
                        "waiting for a supervisor ({e}); exits when stdin closes"
                    ));
                }
                if !stdin.wait_for_input(WAIT_POLL).await {
                    say(&ConnectError::StdinClosed.to_string());
                    return Ok(ExitCode::from(1));
                }
            }
            Err(e) => {
                // Said before the reply: a client may end us once it has it.
                let message = e.to_string();
                say(&message);
                stdin.answer_requests(&message).await;
                return Ok(ExitCode::from(1));
            }
        }
    };
    relay(stream, stdin).await.map_err(ConnectError::Relay)?;
    Ok(ExitCode::SUCCESS)
}

/// The agent's stdin, read on its own thread (a read on stdin cannot be
/// cancelled) into a channel; what arrives before the relay starts is kept.
pub struct StdinReader {
    rx: tokio::sync::mpsc::UnboundedReceiver<Vec<u8>>,
    pending: Vec<u8>,
    closed: bool,
}

impl StdinReader {
    /// Start reading this process's stdin.
    pub fn start() -> io::Result<Self> {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        std::thread::Builder::new()
            .name("relay-stdin".into())
            .spawn(move || {
                let mut stdin = io::stdin().lock();
                let mut buf = vec![0u8; 64 * 1024];
                loop {
                    match stdin.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => {
                            if tx.send(buf[..n].to_vec()).is_err() {
                                break;
                            }
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => {
                            tracing::debug!("stdin ended: {e}");
                            break;
                        }
                    }
                }
            })?;
        Ok(Self {
            rx,
            pending: Vec::new(),
            closed: false,
        })
    }

    /// Keep what arrives for up to `period`; false once stdin has closed.
    async fn wait_for_input(&mut self, period: Duration) -> bool {
        let until = tokio::time::Instant::now() + period;
        while !self.closed {
            match tokio::time::timeout_at(until, self.rx.recv()).await {
                Ok(Some(chunk)) => self.pending.extend_from_slice(&chunk),
                Ok(None) => self.closed = true,
                Err(_) => break,
            }
        }
        !self.closed
    }

    /// Answer every request (a JSON-RPC message with an `id` and a
    /// `method`) that arrives within [`REPLY_WINDOW`] with an error saying
    /// `message`, on stdout.
    async fn answer_requests(&mut self, message: &str) {
        let until = tokio::time::Instant::now() + REPLY_WINDOW;
        while !self.closed && !self.pending.contains(&b'\n') {
            if tokio::time::Instant::now() >= until {
                break;
            }
            self.wait_for_input(Duration::from_millis(50)).await;
        }
        let replies = error_replies(&self.pending, message);
        if replies.is_empty() {
            return;
        }
        let mut out = io::stdout().lock();
        let _ = out.write_all(replies.as_bytes()).and_then(|()| out.flush());
    }
}

/// One JSON-RPC error line for each complete request line in `input`.
pub fn error_replies(input: &[u8], message: &str) -> String {
    let mut out = String::new();
    for line in input.split(|b| *b == b'\n') {
        let Ok(msg) = serde_json::from_slice::<serde_json::Value>(line) else {
            continue;
        };
        let (Some(id), Some(_)) = (msg.get("id"), msg.get("method")) else {
            continue;
        };
        let reply = serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": { "code": NO_SUPERVISOR_CODE, "message": message },
        });
        out.push_str(&reply.to_string());
        out.push('\n');
    }
    out
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
/// workspace contains the current directory, registered in any runtime
/// directory a supervisor of ours may use ([`crate::dirs::runtime_dir_candidates`]).
pub fn find_and_connect(socket: Option<&Path>) -> Result<UnixStream, ConnectError> {
    if let Some(socket) = socket {
        return UnixStream::connect(socket).map_err(|e| ConnectError::NoListener {
            socket: socket.to_path_buf(),
            reason: e.to_string(),
        });
    }
    let cwd = std::env::current_dir().map_err(ConnectError::CurrentDir)?;
    let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    let searched = crate::dirs::runtime_dir_candidates();
    for info in discovery::find_sessions(&searched, &cwd) {
        match UnixStream::connect(&info.socket) {
            Ok(s) => return Ok(s),
            Err(e) => tracing::debug!(socket = %info.socket.display(), "not answering: {e}"),
        }
    }
    Err(ConnectError::NotRunning { dir: cwd, searched })
}

/// Copy stdin → socket and socket → stdout. Ends when the supervisor side
/// closes (or stdout is gone); when stdin ends first, the socket's write
/// side is shut down so the supervisor sees EOF and finishes its replies.
pub async fn relay(stream: UnixStream, stdin: StdinReader) -> io::Result<()> {
    let up = stream.try_clone()?;
    std::thread::Builder::new()
        .name("relay-up".into())
        .spawn(move || {
            let StdinReader {
                mut rx, pending, ..
            } = stdin;
            let mut up = up;
            let mut send = |bytes: &[u8]| up.write_all(bytes).and_then(|()| up.flush());
            let mut result = send(&pending);
            while result.is_ok() {
                match rx.blocking_recv() {
                    Some(chunk) => result = send(&chunk),
                    None => break,
                }
            }
            if let Err(e) = result {
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

/// ` (looked in A, B)` for the error message.
fn looked_in(dirs: &[PathBuf]) -> String {
    if dirs.is_empty() {
        return String::new();
    }
    let list: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    format!(" (looked in {})", list.join(", "))
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
            searched: vec![],
        };
        assert_eq!(
            e.to_string(),
            "no airlock supervisor is running for /w s; start one with `airlock --workspace '/w s'`"
        );
        let e = ConnectError::NotRunning {
            dir: PathBuf::from("/w"),
            searched: vec![PathBuf::from("/a"), PathBuf::from("/b")],
        };
        assert!(e.to_string().ends_with(" (looked in /a, /b)"), "{e}");
    }

    #[test]
    fn requests_get_an_error_reply_and_notifications_none() {
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"initialize\",\"params\":{}}\n\
            {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n\
            not json\n{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/list\"}\n";
        let out = error_replies(input, "no supervisor");
        let lines: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert_eq!(lines[0]["id"], 7);
        assert_eq!(lines[0]["error"]["code"], NO_SUPERVISOR_CODE);
        assert_eq!(lines[0]["error"]["message"], "no supervisor");
        assert_eq!(lines[1]["id"], "x");
    }
}
