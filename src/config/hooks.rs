//! `[hooks]`: what `airlock hook` (the agents' own tools, supervised
//! through their hooks, see `crate::hooks`) does without a supervisor.

use serde::{Deserialize, Serialize};

/// `[hooks]`: how `airlock hook` behaves.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HooksConfig {
    /// What a hook answers when no supervisor runs for the workspace.
    pub when_absent: WhenAbsent,
}

/// What a hook answers when no supervisor runs for the workspace. Never
/// "allow": without airlock, nothing runs silently.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WhenAbsent {
    /// Hand the call back to the agent's own approval flow, with a note
    /// that airlock is not running.
    #[default]
    Ask,
    /// Refuse the call; the reason says how to start airlock.
    Deny,
}

impl WhenAbsent {
    /// The word used in the config file.
    pub fn as_str(self) -> &'static str {
        match self {
            WhenAbsent::Ask => "ask",
            WhenAbsent::Deny => "deny",
        }
    }
}
