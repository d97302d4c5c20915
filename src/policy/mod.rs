//! Policy: allow, ask or deny a prepared call.
//!
//! This is the built-in default policy (read-only tools run, everything
//! else asks); configured rules, modes and session grants refine it.

use serde::{Deserialize, Serialize};

use crate::supervisor::{PolicyVerdict, Subject, ToolKind, Verdict};

pub mod grants;
pub mod guardrails;
pub mod paths;
pub mod persist;
pub mod rule;

pub use grants::{Grant, GrantScope, Grants};
pub use rule::{Action, Rule, RuleError};

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

/// The policy of a supervisor session.
#[derive(Debug, Clone, Default)]
pub struct Policy {}

impl Policy {
    /// The built-in defaults.
    pub fn new() -> Self {
        Self {}
    }

    /// The verdict for a call of `tool` (of `kind`) about `subject`. The
    /// agent cannot influence this beyond what it asks to do.
    pub fn evaluate(&self, tool: &str, kind: ToolKind, subject: &Subject) -> PolicyVerdict {
        let _ = tool;
        if let Subject::Command { command } = subject
            && let Some(g) = guardrails::check(command)
        {
            return PolicyVerdict {
                verdict: Verdict::Deny,
                rule: format!("guardrail: {g}"),
                source: "built-in guardrail".into(),
            };
        }
        match kind {
            ToolKind::Read => PolicyVerdict {
                verdict: Verdict::Allow,
                rule: "default: read-only tools run without asking".into(),
                source: "built-in".into(),
            },
            ToolKind::Write | ToolKind::Exec => PolicyVerdict {
                verdict: Verdict::Ask,
                rule: format!("default: {} tools ask", kind.as_str()),
                source: "built-in".into(),
            },
        }
    }
}
