//! The events an audit trail records.

use serde::{Deserialize, Serialize};

use crate::call::{
    AgentInfo, CallId, CallInfo, ConfirmerKind, Decision, Outcome, PolicyMode, SessionMode,
    WriteAction,
};

/// The trail format version, in every line's `v`.
pub const FORMAT_VERSION: u32 = 1;

/// One audit event (a line's `type` and fields).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum AuditEvent {
    /// The supervisor session started.
    SessionStart {
        /// Session id (also the file's stem).
        session: String,
        /// The canonical workspace.
        workspace: String,
        /// airlock's version.
        version: String,
        /// Process id of the supervisor.
        pid: u32,
        /// How the session runs: `supervisor`, `serve-stdio` …
        mode: SessionMode,
        /// Who answers "ask" verdicts: `headless`, `approve-all`, `tui`.
        confirmer: ConfirmerKind,
        /// sha256 of the effective configuration.
        config_digest: String,
        /// Config files that were read.
        config_files: Vec<String>,
        /// Allowed roots.
        roots: Vec<String>,
        /// Exclusion patterns.
        excluded: Vec<String>,
        /// Enabled tools.
        tools: Vec<String>,
        /// The policy mode (absent in older trails).
        #[serde(default)]
        policy_mode: Option<PolicyMode>,
        /// The configured rules: `allow bash(cargo test *) (from FILE)`.
        #[serde(default)]
        rules: Vec<String>,
        /// The bash sandbox in force: state, mechanisms, what is missing
        /// and the effective settings (absent in older trails).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sandbox: Option<Box<crate::sandbox::SandboxStatus>>,
    },
    /// An agent connected.
    AgentConnected {
        /// Who.
        agent: AgentInfo,
    },
    /// An agent disconnected.
    AgentDisconnected {
        /// Who.
        agent: AgentInfo,
    },
    /// A call arrived (arguments bounded, see [`crate::audit::bounded_args`]).
    CallRequested {
        /// The call.
        call: CallInfo,
    },
    /// A decision was made; written and flushed before the call runs.
    CallDecided {
        /// The call.
        call_id: CallId,
        /// What was decided and by whom.
        #[serde(flatten)]
        decision: Decision,
    },
    /// The call ended.
    CallFinished {
        /// The call.
        call_id: CallId,
        /// How it ended (`ok`, `error`, `denied`, `blocked`, `timeout`,
        /// `cancelled`, `refused`).
        status: Outcome,
        /// Milliseconds from arrival to result.
        duration_ms: u64,
        /// Of those, milliseconds from arrival until it ran (or was refused):
        /// the time a decision took. Absent in older trails.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wait_ms: Option<u64>,
        /// Of those, milliseconds it ran; absent when it never ran.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        run_ms: Option<u64>,
        /// Whether the agent got `isError`.
        is_error: bool,
        /// Whether output was cut at a limit.
        truncated: bool,
        /// Bytes of text returned.
        output_bytes: usize,
        /// Hex sha256 of the text returned.
        output_sha256: String,
        /// The first part of the text returned.
        excerpt: String,
        /// For writes: the change that was proposed (and, if the status is
        /// `ok`, made).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        change: Option<ChangeRecord>,
        /// For a call `cancelled` while it ran: why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cancelled_by: Option<crate::call::CancelCause>,
        /// For a command the agent ran itself: the exit code its payload
        /// reported in a field, or `"unknown"` (never read from output).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<crate::call::ExitCode>,
        /// For a write the agent ran itself: hex sha256 of the file after it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        file_sha256: Option<String>,
    },
    /// A message from an agent could not be understood (not JSON, too
    /// large, not a valid request, parameters of the wrong type); it was
    /// answered with a JSON-RPC error and nothing ran.
    ProtocolError {
        /// The connection's agent, when it had identified itself.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<AgentInfo>,
        /// The error sent back.
        error: String,
        /// The start of the offending message.
        excerpt: String,
    },
    /// The human granted something for the rest of the session.
    GrantAdded {
        /// The grant.
        grant: crate::policy::Grant,
    },
    /// The human revoked a session grant.
    GrantRevoked {
        /// The grant.
        grant: crate::policy::Grant,
    },
    /// The human chose "always": a rule was saved to the project config.
    RuleSaved {
        /// `allow`, `ask` or `deny`.
        action: crate::policy::Action,
        /// The rule text.
        rule: String,
        /// The file it was written to.
        file: String,
    },
    /// The project's `.airlock.toml` is not trusted (`airlock trust`) and
    /// loosens the configuration: what in it was ignored. Written once,
    /// right after `session_start`.
    ConfigUntrusted {
        /// The file (canonical).
        file: String,
        /// Hex SHA-256 of the content read.
        sha256: String,
        /// Each setting left out and why: `mode = "trust-edits" (looser
        /// than "read-only")`.
        ignored: Vec<String>,
    },
    /// The supervisor session ended cleanly.
    SessionEnd {
        /// Why (`shutdown`, `stdin closed` …).
        reason: String,
    },
}

impl AuditEvent {
    /// Its `type` as the trail records it (`call_decided` …).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::SessionStart { .. } => "session_start",
            Self::AgentConnected { .. } => "agent_connected",
            Self::AgentDisconnected { .. } => "agent_disconnected",
            Self::CallRequested { .. } => "call_requested",
            Self::CallDecided { .. } => "call_decided",
            Self::CallFinished { .. } => "call_finished",
            Self::ProtocolError { .. } => "protocol_error",
            Self::GrantAdded { .. } => "grant_added",
            Self::GrantRevoked { .. } => "grant_revoked",
            Self::RuleSaved { .. } => "rule_saved",
            Self::ConfigUntrusted { .. } => "config_untrusted",
            Self::SessionEnd { .. } => "session_end",
        }
    }
}

/// The config's policy mode as the `session_start` record keeps it (the
/// same word).
impl From<crate::policy::Mode> for PolicyMode {
    fn from(mode: crate::policy::Mode) -> Self {
        match mode {
            crate::policy::Mode::Default => Self::Default,
            crate::policy::Mode::ReadOnly => Self::ReadOnly,
            crate::policy::Mode::TrustEdits => Self::TrustEdits,
        }
    }
}

/// A file change as kept in the trail.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChangeRecord {
    /// The file.
    pub path: String,
    /// Create, overwrite, append or edit.
    pub action: WriteAction,
    /// `+a −b`, or the sizes for binary content.
    pub summary: String,
    /// The unified diff, bounded (see `diff_truncated`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Hex sha256 of the whole diff.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_sha256: Option<String>,
    /// The diff was longer than what is kept.
    #[serde(default)]
    pub diff_truncated: bool,
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// `kind()` is the `type` serde writes, for every event.
    #[test]
    fn kind_is_the_recorded_type() {
        let agent = r#"{"id":1,"name":"a"}"#;
        let grant = r#"{"id":1,"scope":"exact_command","value":"ls","rule":"bash(ls)","created":"2026-01-02T03:04:05Z"}"#;
        let lines = [
            r#"{"type":"session_start","session":"s","workspace":"/w","version":"1","pid":1,"mode":"supervisor","confirmer":"tui","config_digest":"d","config_files":[],"roots":[],"excluded":[],"tools":[]}"#.to_string(),
            format!(r#"{{"type":"agent_connected","agent":{agent}}}"#),
            format!(r#"{{"type":"agent_disconnected","agent":{agent}}}"#),
            format!(
                r#"{{"type":"call_requested","call":{{"id":1,"agent":{agent},"tool":"bash","args":{{}},"summary":"","received_at":"2026-01-02T03:04:05Z"}}}}"#
            ),
            r#"{"type":"call_decided","call_id":1,"approved":true,"by":"user"}"#.to_string(),
            r#"{"type":"call_finished","call_id":1,"status":"ok","duration_ms":1,"is_error":false,"truncated":false,"output_bytes":0,"output_sha256":"","excerpt":""}"#.to_string(),
            r#"{"type":"protocol_error","error":"e","excerpt":"x"}"#.to_string(),
            format!(r#"{{"type":"grant_added","grant":{grant}}}"#),
            format!(r#"{{"type":"grant_revoked","grant":{grant}}}"#),
            r#"{"type":"rule_saved","action":"allow","rule":"bash(ls)","file":"f"}"#.to_string(),
            r#"{"type":"session_end","reason":"r"}"#.to_string(),
        ];
        let mut seen = std::collections::HashSet::new();
        for line in &lines {
            let e: AuditEvent =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            let written = serde_json::to_value(&e).unwrap();
            assert_eq!(written["type"], e.kind(), "{line}");
            seen.insert(e.kind());
        }
        assert_eq!(seen.len(), lines.len(), "one line per event type");
    }

    /// A `session_start` line as older airlocks wrote it (words, and no
    /// `policy_mode` before it was recorded) reads into the typed fields
    /// and is written back with the same words.
    #[test]
    fn an_old_session_start_line_reads_and_keeps_its_words() {
        let old = r#"{"type":"session_start","session":"s","workspace":"/w","version":"0.1.0","pid":7,"mode":"serve-stdio","confirmer":"approve-all","config_digest":"d","config_files":[],"roots":["/w"],"excluded":[],"tools":["read_file"],"policy_mode":"read-only","rules":[]}"#;
        let e: AuditEvent = serde_json::from_str(old).unwrap();
        let AuditEvent::SessionStart {
            mode,
            confirmer,
            policy_mode,
            ..
        } = &e
        else {
            panic!("not a session start: {e:?}");
        };
        assert_eq!(*mode, SessionMode::ServeStdio);
        assert_eq!(*confirmer, ConfirmerKind::ApproveAll);
        assert_eq!(*policy_mode, Some(PolicyMode::ReadOnly));
        let written = serde_json::to_value(&e).unwrap();
        let before: Value = serde_json::from_str(old).unwrap();
        assert_eq!(written, before, "written back word for word");

        let older = r#"{"type":"session_start","session":"s","workspace":"/w","version":"0.0.9","pid":7,"mode":"supervisor","confirmer":"tui","config_digest":"d","config_files":[],"roots":[],"excluded":[],"tools":[]}"#;
        let Ok(AuditEvent::SessionStart {
            mode,
            confirmer,
            policy_mode,
            ..
        }) = serde_json::from_str::<AuditEvent>(older)
        else {
            panic!("{older} does not read");
        };
        assert_eq!(
            (mode, confirmer, policy_mode),
            (SessionMode::Supervisor, ConfirmerKind::Tui, None)
        );
    }

    /// A mode or confirmer word this airlock does not know (a newer one
    /// wrote it) keeps the record a `session_start`, the word read as
    /// `Unknown`; a word of the wrong type is still refused.
    #[test]
    fn an_unknown_session_word_reads_as_unknown() {
        let line = r#"{"type":"session_start","session":"s","workspace":"/w","version":"9","pid":1,"mode":"serve-unix","confirmer":"slack","config_digest":"d","config_files":[],"roots":[],"excluded":[],"tools":[]}"#;
        let e: AuditEvent = serde_json::from_str(line).unwrap();
        let AuditEvent::SessionStart {
            mode, confirmer, ..
        } = &e
        else {
            panic!("not a session start: {e:?}");
        };
        assert_eq!(
            (*mode, *confirmer),
            (SessionMode::Unknown, ConfirmerKind::Unknown)
        );
        assert_eq!(e.kind(), "session_start");
        let wrong = line.replace(r#""mode":"serve-unix""#, r#""mode":["supervisor"]"#);
        assert!(serde_json::from_str::<AuditEvent>(&wrong).is_err());
    }

    /// Every policy mode is recorded with the word the config reads.
    #[test]
    fn a_policy_mode_is_recorded_with_its_config_word() {
        use clap::ValueEnum;
        for &mode in crate::policy::Mode::value_variants() {
            let recorded = PolicyMode::from(mode);
            let word = serde_json::to_value(recorded).unwrap();
            assert_eq!(word, serde_json::to_value(mode).unwrap(), "{mode:?}");
            assert_eq!(recorded.describe(), mode.as_str());
        }
    }

    /// A policy mode word this airlock does not know keeps the record a
    /// `session_start` too, the word read as `Unknown`.
    #[test]
    fn an_unknown_policy_mode_reads_as_unknown() {
        let line = r#"{"type":"session_start","session":"s","workspace":"/w","version":"9","pid":1,"mode":"supervisor","confirmer":"tui","config_digest":"d","config_files":[],"roots":[],"excluded":[],"tools":[],"policy_mode":"yolo","rules":[]}"#;
        let e: AuditEvent = serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        let AuditEvent::SessionStart { policy_mode, .. } = &e else {
            panic!("not a session start: {e:?}");
        };
        assert_eq!(policy_mode.map(PolicyMode::describe), Some("unknown"));
    }
}
