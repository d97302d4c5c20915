//! A proposed file change, shown before it happens.

use serde::{Deserialize, Serialize};

/// What a file write would do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteAction {
    /// The file does not exist yet.
    Create,
    /// The whole file is replaced.
    Overwrite,
    /// Text is added at the end.
    Append,
    /// Exact text is replaced.
    Edit,
}

impl WriteAction {
    /// The word shown for it (`create`, `overwrite`, `append`, `edit`).
    pub fn describe(self) -> &'static str {
        match self {
            Self::Create => "create",
            Self::Overwrite => "overwrite",
            Self::Append => "append",
            Self::Edit => "edit",
        }
    }
}

/// A proposed file change, shown to the human before it happens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    /// The file, as shown (relative to the workspace when inside it).
    pub path: String,
    /// Create, overwrite, append or edit.
    pub action: WriteAction,
    /// Unified diff (`a/…`, `b/…` headers); `None` for binary content.
    pub diff: Option<String>,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// Old or new content is binary: no diff is shown.
    pub binary: bool,
    /// Size before (0 when new).
    pub old_bytes: u64,
    /// Size after.
    pub new_bytes: u64,
}

impl Proposal {
    /// `+a −b` for humans.
    pub fn summary(&self) -> String {
        if self.binary {
            format!("binary, {} → {} bytes", self.old_bytes, self.new_bytes)
        } else {
            format!("+{} −{}", self.added, self.removed)
        }
    }
}
