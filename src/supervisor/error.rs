//! What a call can fail with before it has a tool result.

use crate::audit::AuditError;

/// A call that cannot get a tool result at all (JSON-RPC errors).
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// No enabled tool has this name.
    #[error("unknown tool {name:?}; available tools: {available}")]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// The enabled tools.
        available: String,
    },
    /// The decision could not be recorded, so the call was not run.
    #[error("the call was not run because its audit record could not be written: {0}")]
    Audit(#[from] AuditError),
}
