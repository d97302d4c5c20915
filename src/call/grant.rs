//! What a session grant or an "always" rule can cover for a call, as its
//! tool says.

use std::path::PathBuf;

/// What "approve for this session" and "always" can cover for a call. The
/// tool fills it when the call is prepared (for an agent's own tools, the
/// hooks' mapping asks airlock's matching tool); the prompt offers its
/// choices from it, and the policy's grants and rules are built from them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum GrantShape {
    /// Nothing wider than this one call.
    #[default]
    None,
    /// A shell command: this exact command, or the commands that start
    /// with the same words.
    Command {
        /// The command exactly as it will run.
        command: String,
        /// The tools whose allow rules "always" saves (`bash`).
        rule_tools: &'static [&'static str],
    },
    /// Writes to one file.
    File {
        /// The file, resolved: what a grant covers.
        path: PathBuf,
        /// The file as people see it and rules name it (relative to the
        /// workspace).
        shown: String,
        /// The tools whose allow rules "always" saves (`write_file`,
        /// `edit_file`).
        rule_tools: &'static [&'static str],
    },
}

impl GrantShape {
    /// What a grant of the call can cover, for people.
    pub fn describe(&self) -> &'static str {
        match self {
            Self::None => "only this call",
            Self::Command { .. } => "this command or commands starting like it",
            Self::File { .. } => "writes to this file",
        }
    }
}
