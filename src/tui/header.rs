//! What the status bar says about the session, live or reviewed.

use std::path::PathBuf;

/// What the status bar says about the session.
#[derive(Debug, Clone, Default)]
pub struct Header {
    /// The canonical workspace.
    pub workspace: PathBuf,
    /// The socket agents connect to (empty in a review).
    pub socket: PathBuf,
    /// The audit trail.
    pub audit: PathBuf,
    /// A label such as `demo`.
    pub label: Option<String>,
    /// The bash sandbox in force: its status line and state.
    pub sandbox: Option<(String, crate::sandbox::SandboxState)>,
}
