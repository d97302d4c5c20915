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
    /// What the configuration ignored, when the project's `.airlock.toml`
    /// is not trusted and loosens it (`ProjectFile::notice`).
    pub config: Option<String>,
}
