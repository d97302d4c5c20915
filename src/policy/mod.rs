//! Policy: allow, ask or deny a prepared call.
//!
//! Built-in guardrails, configured rules (`allow`, `ask`, `deny` of
//! `tool(specifier)`), the mode and the session's grants decide whether a
//! call runs, asks or is refused. Bash commands are parsed with a real
//! shell parser ([`shell`]) so a rule cannot be bypassed by a clever command.

use serde::{Deserialize, Serialize};

mod engine;
pub mod grants;
pub mod guardrails;
mod path_rules;
pub mod paths;
pub mod persist;
mod reach;
#[cfg(test)]
mod reach_env_tests;
#[cfg(test)]
mod reach_tests;
pub mod rule;
pub mod shell;

pub use engine::Policy;
pub use grants::{Grant, GrantScope, Grants};
pub use path_rules::PathRules;
pub use reach::ReachCheck;
pub use rule::{Action, Rule, RuleError, SpecifierReading};

/// How strict the defaults are. Deny rules and guardrails hold in every
/// mode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Read-only tools run; writes and bash ask.
    #[default]
    Default,
    /// Writes and bash are refused.
    ReadOnly,
    /// Writes inside the workspace run without asking; bash asks.
    TrustEdits,
}

impl Mode {
    /// `default`, `read-only`, `trust-edits`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::ReadOnly => "read-only",
            Mode::TrustEdits => "trust-edits",
        }
    }
}
