//! What the policy says about a call before anyone is asked.

use serde::{Deserialize, Serialize};

/// Allow, ask or deny.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Run it without asking.
    Allow,
    /// Ask the confirmer.
    Ask,
    /// Refuse it without asking.
    Deny,
}

impl Verdict {
    /// The word shown for it (`allow`, `ask`, `deny`).
    pub fn describe(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

/// Where the rule behind a verdict came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerdictSource {
    /// A grant the human made at the prompt in this session.
    Session,
    /// A configured rule or a default: the config file's path, `built-in`,
    /// `mode`, or the setting that produced it.
    Configured(String),
}

impl VerdictSource {
    /// The words shown for it (and recorded as a rule's `source`).
    pub fn describe(&self) -> &str {
        match self {
            Self::Session => "session",
            Self::Configured(s) => s,
        }
    }
}

impl std::fmt::Display for VerdictSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.describe())
    }
}

impl From<&str> for VerdictSource {
    /// A configured source (a file path, `built-in` …).
    fn from(s: &str) -> Self {
        Self::Configured(s.to_string())
    }
}

/// The policy's answer with the rule that produced it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyVerdict {
    /// Allow, ask or deny.
    pub verdict: Verdict,
    /// The rule text (`bash(cargo test *)`, or a description of a default).
    pub rule: String,
    /// Where the rule came from.
    pub source: VerdictSource,
}
