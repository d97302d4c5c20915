//! `[bash]`: the bash tool's section of the configuration.

use serde::{Deserialize, Serialize};

/// `[bash]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BashConfig {
    /// Default timeout of one command, in seconds.
    pub timeout_secs: u64,
    /// The most an agent may ask for with `timeout_secs`.
    pub max_timeout_secs: u64,
    /// Most bytes of output returned to the agent (head and tail kept).
    pub max_output_bytes: usize,
    /// Environment variables never passed to the shell (case-insensitive
    /// globs on the name).
    pub env_deny: Vec<String>,
    /// Variables passed even though they match `env_deny`.
    pub env_allow: Vec<String>,
    /// Run commands whose every part is a known read-only program with
    /// safe arguments (`ls`, `git status` …) without asking.
    pub auto_approve_read_only: bool,
}

impl Default for BashConfig {
    fn default() -> Self {
        Self {
            timeout_secs: 120,
            max_timeout_secs: 600,
            max_output_bytes: 256 * 1024,
            env_deny: [
                "*_API_KEY",
                "*TOKEN*",
                "*SECRET*",
                "*PASSWORD*",
                "*CREDENTIAL*",
            ]
            .iter()
            .map(std::string::ToString::to_string)
            .collect(),
            env_allow: Vec::new(),
            auto_approve_read_only: false,
        }
    }
}
