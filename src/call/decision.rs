//! Decisions about calls, with who made them.

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;

use super::outcome::Outcome;
use super::verdict::VerdictSource;

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
        source: VerdictSource,
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

impl DecidedBy {
    /// Who decided, for people: `by you`, `by rule R (S)`, `by session
    /// grant R`, `(no answer in time)` … It follows a verb (`approved`,
    /// `refused`) or an outcome (`denied`, `timeout`).
    pub fn describe(&self) -> String {
        self.describe_in(None)
    }

    /// As [`describe`](Self::describe), with rule files inside
    /// `workspace` named relative to it.
    pub fn describe_in(&self, workspace: Option<&Path>) -> String {
        match self {
            // A guardrail's rule names it: `by guardrail: mkfs`.
            Self::Rule {
                rule,
                source: VerdictSource::Guardrail,
            } => format!("by {rule}"),
            Self::Rule { rule, source } => {
                format!("by rule {rule} ({})", source.describe_in(workspace))
            }
            Self::Grant { rule } => format!("by session grant {rule}"),
            Self::User => "by you".into(),
            Self::Headless => "(headless: no one to ask)".into(),
            Self::ApproveAll => "by --approve-all".into(),
            Self::Timeout => "(no answer in time)".into(),
            Self::Cancelled => "by the agent".into(),
            Self::Scope => "by the path scope".into(),
            Self::InvalidArguments => "(invalid arguments)".into(),
            Self::Shutdown => "(the supervisor shut down)".into(),
            Self::Disconnected => "(the agent disconnected)".into(),
            Self::ConfirmerFailed => "(the prompt failed)".into(),
        }
    }
}

/// Who may approve a call: a rule, a session grant, the human, or
/// `--approve-all`. Nothing else can (a timeout, a cancellation or a failed
/// prompt is never an approval), so "approved by timeout" cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "by")]
pub enum ApprovedBy {
    /// A policy rule (configured or built-in default).
    Rule {
        /// The rule text.
        rule: String,
        /// Where the rule came from.
        source: VerdictSource,
    },
    /// A grant the human made earlier in this session.
    Grant {
        /// The granted rule.
        rule: String,
    },
    /// The human at the prompt.
    User,
    /// `serve --stdio --approve-all`.
    ApproveAll,
}

impl From<ApprovedBy> for DecidedBy {
    fn from(a: ApprovedBy) -> Self {
        match a {
            ApprovedBy::Rule { rule, source } => Self::Rule { rule, source },
            ApprovedBy::Grant { rule } => Self::Grant { rule },
            ApprovedBy::User => Self::User,
            ApprovedBy::ApproveAll => Self::ApproveAll,
        }
    }
}

impl TryFrom<DecidedBy> for ApprovedBy {
    type Error = DecidedBy;

    /// The approver, or `Err` with `by` when it cannot approve.
    fn try_from(by: DecidedBy) -> Result<Self, DecidedBy> {
        Ok(match by {
            DecidedBy::Rule { rule, source } => Self::Rule { rule, source },
            DecidedBy::Grant { rule } => Self::Grant { rule },
            DecidedBy::User => Self::User,
            DecidedBy::ApproveAll => Self::ApproveAll,
            other => return Err(other),
        })
    }
}

impl ApprovedBy {
    /// Who approved, for people (as [`DecidedBy::describe`]).
    pub fn describe(&self) -> String {
        DecidedBy::from(self.clone()).describe()
    }
}

/// Who may refuse a call: everyone but `--approve-all`, which only
/// approves, so "refused by --approve-all" cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "by")]
pub enum RefusedBy {
    /// A deny rule, a guardrail or the mode.
    Rule {
        /// The rule text.
        rule: String,
        /// Where the rule came from.
        source: VerdictSource,
    },
    /// A session rule.
    Grant {
        /// The rule.
        rule: String,
    },
    /// The human at the prompt.
    User,
    /// The headless confirmer: no one to ask.
    Headless,
    /// Nobody answered in time.
    Timeout,
    /// The agent cancelled the call while it waited.
    Cancelled,
    /// The agent's connection closed while the call waited.
    Disconnected,
    /// The path scope refused it.
    Scope,
    /// The arguments were invalid (or the tool unknown).
    InvalidArguments,
    /// The supervisor shut down while the call waited.
    Shutdown,
    /// The confirmer failed.
    ConfirmerFailed,
}

impl From<RefusedBy> for DecidedBy {
    fn from(r: RefusedBy) -> Self {
        match r {
            RefusedBy::Rule { rule, source } => Self::Rule { rule, source },
            RefusedBy::Grant { rule } => Self::Grant { rule },
            RefusedBy::User => Self::User,
            RefusedBy::Headless => Self::Headless,
            RefusedBy::Timeout => Self::Timeout,
            RefusedBy::Cancelled => Self::Cancelled,
            RefusedBy::Disconnected => Self::Disconnected,
            RefusedBy::Scope => Self::Scope,
            RefusedBy::InvalidArguments => Self::InvalidArguments,
            RefusedBy::Shutdown => Self::Shutdown,
            RefusedBy::ConfirmerFailed => Self::ConfirmerFailed,
        }
    }
}

impl TryFrom<DecidedBy> for RefusedBy {
    type Error = DecidedBy;

    /// The refuser, or `Err` with `by` when it cannot refuse.
    fn try_from(by: DecidedBy) -> Result<Self, DecidedBy> {
        Ok(match by {
            DecidedBy::Rule { rule, source } => Self::Rule { rule, source },
            DecidedBy::Grant { rule } => Self::Grant { rule },
            DecidedBy::User => Self::User,
            DecidedBy::Headless => Self::Headless,
            DecidedBy::Timeout => Self::Timeout,
            DecidedBy::Cancelled => Self::Cancelled,
            DecidedBy::Disconnected => Self::Disconnected,
            DecidedBy::Scope => Self::Scope,
            DecidedBy::InvalidArguments => Self::InvalidArguments,
            DecidedBy::Shutdown => Self::Shutdown,
            DecidedBy::ConfirmerFailed => Self::ConfirmerFailed,
            DecidedBy::ApproveAll => return Err(by),
        })
    }
}

impl RefusedBy {
    /// Who refused, for people (as [`DecidedBy::describe`]).
    pub fn describe(&self) -> String {
        DecidedBy::from(self.clone()).describe()
    }

    /// How a call refused by this ends: `denied`, `blocked`, `timeout`,
    /// `cancelled` or `refused`.
    pub fn outcome(&self) -> Outcome {
        match self {
            Self::User | Self::Headless | Self::ConfirmerFailed => Outcome::Denied,
            Self::Rule { .. } | Self::Grant { .. } => Outcome::Blocked,
            Self::Timeout => Outcome::Timeout,
            Self::Cancelled | Self::Disconnected | Self::Shutdown => Outcome::Cancelled,
            Self::Scope | Self::InvalidArguments => Outcome::Refused,
        }
    }
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

impl CancelCause {
    /// The words shown for it.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Agent => "cancelled by the agent",
            Self::Disconnect => "the agent disconnected",
            Self::Shutdown => "the supervisor shut down",
        }
    }
}

/// The final decision about a call.
///
/// Recorded as `{"approved": bool, "by": …, "reason"?: …,
/// "edited_command"?: …}`, the shape trails have always had.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "DecisionRecord", try_from = "DecisionRecord")]
pub enum Decision {
    /// The call may run.
    Approved {
        /// Who approved it.
        by: ApprovedBy,
        /// The command the human edited at the prompt and approved instead
        /// of the agent's (bash only). The pipeline checks it against the
        /// policy again and runs it; the agent's result says what ran.
        edited_command: Option<String>,
    },
    /// The call does not run.
    Refused {
        /// Who refused it.
        by: RefusedBy,
        /// A reason for the agent (a denial's typed reason, the scope error …).
        reason: Option<String>,
        /// The human's edit of the command, when the edited command was then
        /// refused (it did not run).
        edited_command: Option<String>,
    },
}

impl Decision {
    /// An approval by `by`.
    pub fn approve(by: ApprovedBy) -> Self {
        Self::Approved {
            by,
            edited_command: None,
        }
    }

    /// The human's approval of `command`, edited from the agent's.
    pub fn approve_edited(command: String) -> Self {
        Self::Approved {
            by: ApprovedBy::User,
            edited_command: Some(command),
        }
    }

    /// A refusal by `by`, with an optional reason for the agent.
    pub fn deny(by: RefusedBy, reason: Option<String>) -> Self {
        Self::Refused {
            by,
            reason,
            edited_command: None,
        }
    }

    /// This decision with the human's edit of the command kept on it.
    #[must_use]
    pub fn with_edited_command(mut self, command: String) -> Self {
        match &mut self {
            Self::Approved { edited_command, .. } | Self::Refused { edited_command, .. } => {
                *edited_command = Some(command);
            }
        }
        self
    }

    /// The call may run.
    pub fn is_approved(&self) -> bool {
        matches!(self, Self::Approved { .. })
    }

    /// Who decided.
    pub fn by(&self) -> DecidedBy {
        match self {
            Self::Approved { by, .. } => by.clone().into(),
            Self::Refused { by, .. } => by.clone().into(),
        }
    }

    /// The reason given to the agent, for a refusal.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Self::Approved { .. } => None,
            Self::Refused { reason, .. } => reason.as_deref(),
        }
    }

    /// The command the human edited at the prompt, if they did.
    pub fn edited_command(&self) -> Option<&str> {
        match self {
            Self::Approved { edited_command, .. } | Self::Refused { edited_command, .. } => {
                edited_command.as_deref()
            }
        }
    }

    /// How the call ends without running, for a refusal (`None` when it
    /// was approved).
    pub fn refusal_outcome(&self) -> Option<Outcome> {
        match self {
            Self::Approved { .. } => None,
            Self::Refused { by, .. } => Some(by.outcome()),
        }
    }

    /// "approved by you", "refused by rule … (…): reason", for people.
    pub fn describe(&self) -> String {
        let (verb, who) = match self {
            Self::Approved { by, .. } => ("approved", by.describe()),
            Self::Refused { by, .. } => ("refused", by.describe()),
        };
        let mut s = format!("{verb} {who}");
        if let Some(r) = self.reason().filter(|r| !r.is_empty()) {
            let _ = write!(s, ": {r}");
        }
        s
    }
}

/// A decision as the trail records it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct DecisionRecord {
    approved: bool,
    #[serde(flatten)]
    by: DecidedBy,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    edited_command: Option<String>,
}

impl From<Decision> for DecisionRecord {
    fn from(d: Decision) -> Self {
        match d {
            Decision::Approved { by, edited_command } => Self {
                approved: true,
                by: by.into(),
                reason: None,
                edited_command,
            },
            Decision::Refused {
                by,
                reason,
                edited_command,
            } => Self {
                approved: false,
                by: by.into(),
                reason,
                edited_command,
            },
        }
    }
}

impl TryFrom<DecisionRecord> for Decision {
    type Error = String;

    fn try_from(r: DecisionRecord) -> Result<Self, String> {
        if !r.approved {
            return match RefusedBy::try_from(r.by) {
                Ok(by) => Ok(Self::Refused {
                    by,
                    reason: r.reason,
                    edited_command: r.edited_command,
                }),
                Err(by) => Err(format!(
                    "a decision \"refused\" {} is impossible",
                    by.describe()
                )),
            };
        }
        match ApprovedBy::try_from(r.by) {
            Ok(by) => Ok(Self::Approved {
                by,
                edited_command: r.edited_command,
            }),
            Err(by) => Err(format!(
                "a decision \"approved\" {} is impossible",
                by.describe()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn records_keep_the_trail_shape() {
        let d = Decision::approve(ApprovedBy::Rule {
            rule: "bash(ls)".into(),
            source: "built-in".into(),
        });
        assert_eq!(
            serde_json::to_value(&d).unwrap(),
            json!({"approved": true, "by": "rule", "rule": "bash(ls)", "source": "built-in"})
        );
        let d = Decision::deny(RefusedBy::User, Some("no".into()));
        assert_eq!(
            serde_json::to_value(&d).unwrap(),
            json!({"approved": false, "by": "user", "reason": "no"})
        );
        let d = Decision::approve_edited("ls -la".into());
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(
            v,
            json!({"approved": true, "by": "user", "edited_command": "ls -la"})
        );
        assert_eq!(serde_json::from_value::<Decision>(v).unwrap(), d);
    }

    #[test]
    fn old_trail_lines_read_with_typed_sources() {
        // As written before the source was typed.
        let lines = [
            (
                r#"{"approved":false,"by":"rule","rule":"guardrail: mkfs","source":"built-in guardrail","reason":"blocked"}"#,
                VerdictSource::Guardrail,
            ),
            (
                r#"{"approved":true,"by":"rule","rule":"default: read-only tools run without asking","source":"built-in"}"#,
                VerdictSource::BuiltIn,
            ),
            (
                r#"{"approved":false,"by":"rule","rule":"mode read-only: writes and commands are refused","source":"mode"}"#,
                VerdictSource::Mode,
            ),
            (
                r#"{"approved":true,"by":"rule","rule":"bash(ls *) + bash(git status)","source":"/w/.airlock.toml, session"}"#,
                VerdictSource::Several(vec![
                    VerdictSource::File("/w/.airlock.toml".into()),
                    VerdictSource::Session,
                ]),
            ),
        ];
        for (line, want) in lines {
            let d: Decision = serde_json::from_str(line).unwrap();
            let DecidedBy::Rule { source, .. } = d.by() else {
                panic!("{line}: {d:?}");
            };
            assert_eq!(source, want, "{line}");
            // Written back in the same shape.
            let back = serde_json::to_value(&d).unwrap();
            let orig: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(back, orig);
        }
    }

    #[test]
    fn a_guardrail_is_known_by_its_source_not_its_words() {
        let guardrail = DecidedBy::Rule {
            rule: "guardrail: mkfs".into(),
            source: VerdictSource::Guardrail,
        };
        assert_eq!(guardrail.describe(), "by guardrail: mkfs");
        // A rule file whose path says "guardrail" is a rule file.
        let file = DecidedBy::Rule {
            rule: "bash(mkfs *)".into(),
            source: VerdictSource::File("/w/guardrail.toml".into()),
        };
        assert_eq!(
            file.describe_in(Some(Path::new("/w"))),
            "by rule bash(mkfs *) (guardrail.toml)"
        );
    }

    #[test]
    fn an_approval_by_timeout_does_not_read() {
        let v = json!({"approved": true, "by": "timeout"});
        let e = serde_json::from_value::<Decision>(v).unwrap_err();
        assert!(e.to_string().contains("impossible"), "{e}");
        let v = json!({"approved": false, "by": "timeout"});
        let d = serde_json::from_value::<Decision>(v).unwrap();
        assert_eq!(d.refusal_outcome(), Some(Outcome::Timeout));
    }

    #[test]
    fn a_refusal_by_approve_all_does_not_read() {
        let v = json!({"approved": false, "by": "approve_all"});
        let e = serde_json::from_value::<Decision>(v).unwrap_err();
        assert!(e.to_string().contains("impossible"), "{e}");
        // Every refuser reads back as itself.
        let d = Decision::deny(RefusedBy::ConfirmerFailed, None);
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(v, json!({"approved": false, "by": "confirmer_failed"}));
        assert_eq!(serde_json::from_value::<Decision>(v).unwrap(), d);
    }

    #[test]
    fn refusals_end_with_their_outcome() {
        let cases = [
            (RefusedBy::User, Outcome::Denied),
            (RefusedBy::Headless, Outcome::Denied),
            (RefusedBy::Grant { rule: "r".into() }, Outcome::Blocked),
            (RefusedBy::Timeout, Outcome::Timeout),
            (RefusedBy::Disconnected, Outcome::Cancelled),
            (RefusedBy::Scope, Outcome::Refused),
        ];
        for (by, outcome) in cases {
            assert_eq!(Decision::deny(by, None).refusal_outcome(), Some(outcome));
        }
        assert_eq!(Decision::approve(ApprovedBy::User).refusal_outcome(), None);
    }
}
