//! Verdicts from the policy and decisions about calls, with who made them.

use serde::{Deserialize, Serialize};

/// What the policy says about a call before anyone is asked.
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

/// The policy's answer with the rule that produced it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyVerdict {
    /// Allow, ask or deny.
    pub verdict: Verdict,
    /// The rule text (`bash(cargo test *)`, or a description of a default).
    pub rule: String,
    /// Where the rule came from (a file path, `built-in`, `session`).
    pub source: String,
}

/// Who (or what) made a decision. Serialized flat into the decision record as
/// `"by": "<variant>"` plus the variant's fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "by")]
pub enum DecidedBy {
    /// A policy rule (configured or built-in default).
    Rule {
        /// The rule text.
        rule: String,
        /// Where the rule came from.
        source: String,
    },
    /// A grant the human made earlier in this session.
    Grant {
        /// The granted rule.
        rule: String,
    },
    /// The human at the prompt.
    User,
    /// The headless confirmer: no supervisor UI is attached.
    Headless,
    /// `serve --stdio --approve-all`.
    ApproveAll,
    /// Nobody answered in time.
    Timeout,
    /// The agent cancelled the call while it waited.
    Cancelled,
    /// The agent's connection closed while the call waited.
    Disconnected,
    /// The path scope refused it (outside the roots, excluded, not a file …).
    Scope,
    /// The arguments were invalid; the call could not be understood.
    InvalidArguments,
    /// The supervisor shut down while the call waited.
    Shutdown,
    /// The confirmer failed (dropped, panicked, closed); never an approval.
    ConfirmerFailed,
}

/// Why a call that had started ended as `cancelled`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CancelCause {
    /// The agent cancelled it (`notifications/cancelled`).
    Agent,
    /// The agent's connection closed (stdin or the socket).
    Disconnect,
    /// The supervisor shut down.
    Shutdown,
}

/// The final decision about a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// True when the call may run.
    pub approved: bool,
    /// Who decided.
    #[serde(flatten)]
    pub by: DecidedBy,
    /// A reason for the agent (a denial's typed reason, the scope error …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The command the human edited at the prompt and approved instead of
    /// the agent's (bash only). The pipeline checks it against the policy
    /// again and runs it; the agent's result says what ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_command: Option<String>,
}

impl Decision {
    /// An approval by `by`.
    pub fn approve(by: DecidedBy) -> Self {
        Self {
            approved: true,
            by,
            reason: None,
            edited_command: None,
        }
    }

    /// The human's approval of `command`, edited from the agent's.
    pub fn approve_edited(command: String) -> Self {
        Self {
            edited_command: Some(command),
            ..Self::approve(DecidedBy::User)
        }
    }

    /// A refusal by `by`, with an optional reason for the agent.
    pub fn deny(by: DecidedBy, reason: Option<String>) -> Self {
        Self {
            approved: false,
            by,
            reason,
            edited_command: None,
        }
    }

    /// The short outcome word used in the audit and on screen for a call that
    /// was not run: `denied`, `blocked`, `timeout`, `cancelled`, `refused`.
    pub fn refusal_status(&self) -> &'static str {
        match self.by {
            DecidedBy::User | DecidedBy::Headless | DecidedBy::ConfirmerFailed => "denied",
            DecidedBy::Rule { .. } | DecidedBy::Grant { .. } => "blocked",
            DecidedBy::Timeout => "timeout",
            DecidedBy::Cancelled | DecidedBy::Disconnected | DecidedBy::Shutdown => "cancelled",
            DecidedBy::Scope | DecidedBy::InvalidArguments => "refused",
            DecidedBy::ApproveAll => "denied",
        }
    }
}
