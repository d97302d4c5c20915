//! `airlock connect`: relay stdin/stdout to the running supervisor's socket.

use std::path::PathBuf;
use std::process::ExitCode;

/// Find the supervisor's socket and relay bytes both ways until either side
/// closes.
pub async fn connect(socket: Option<PathBuf>, wait: bool) -> anyhow::Result<ExitCode> {
    let _ = (socket, wait);
    anyhow::bail!("not implemented yet: connect")
}
