//! A trail as a timeline: the session, its agents, and each call with its
//! requested, decided and finished records joined. `airlock log`,
//! `airlock sessions` and `airlock review` all read trails through it.

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::reader::{LineProblem, LineSource, RecordBody, TrailRecord, parse_record};
use super::record::{AuditEvent, ChangeRecord};
pub use crate::call::CallState;
use crate::call::{
    AgentInfo, ApprovedBy, CallId, CallInfo, ConfirmerKind, Decision, Outcome, PolicyMode,
    RefusedBy, SessionMode,
};

/// Where a record sits in the trail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordMeta {
    /// Its sequence number.
    pub seq: u64,
    /// Its 1-based line number.
    pub line: usize,
    /// When it was written.
    pub ts: DateTime<Utc>,
}

impl RecordMeta {
    fn of(r: &TrailRecord) -> Self {
        Self {
            seq: r.seq,
            line: r.line,
            ts: r.ts,
        }
    }
}

/// What the `session_start` record says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    /// The session id.
    pub id: String,
    /// The canonical workspace.
    pub workspace: String,
    /// airlock's version.
    pub version: String,
    /// The supervisor's pid.
    pub pid: u32,
    /// `supervisor`, `serve-stdio` …
    pub mode: SessionMode,
    /// `tui`, `headless`, `approve-all` …
    pub confirmer: ConfirmerKind,
    /// The policy mode (absent in older trails).
    pub policy_mode: Option<PolicyMode>,
    /// The configured rules.
    pub rules: Vec<String>,
    /// Enabled tools.
    pub tools: Vec<String>,
    /// When it started.
    pub started: DateTime<Utc>,
}

/// An agent seen in the trail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentEntry {
    /// Who.
    pub info: AgentInfo,
    /// When it connected (absent when only its calls were seen).
    pub connected: Option<DateTime<Utc>>,
    /// When it disconnected.
    pub disconnected: Option<DateTime<Utc>>,
}

/// The `call_decided` record of a call.
#[derive(Debug, Clone)]
pub struct Decided {
    /// Where it is.
    pub at: RecordMeta,
    /// What was decided, by whom.
    pub decision: Decision,
}

/// The `call_finished` record of a call.
#[derive(Debug, Clone)]
pub struct Finished {
    /// Where it is.
    pub at: RecordMeta,
    /// How it ended.
    pub status: Outcome,
    /// From arrival to result.
    pub duration_ms: u64,
    /// Of those, waiting for a decision (recorded, or `None` in trails
    /// older than the field).
    pub wait_ms: Option<u64>,
    /// Of those, running (recorded; `None` when it did not run or the
    /// trail is older than the field).
    pub run_ms: Option<u64>,
    /// Whether the agent got `isError`.
    pub is_error: bool,
    /// Output was cut at a limit.
    pub truncated: bool,
    /// Bytes returned.
    pub output_bytes: usize,
    /// The first part of the text returned.
    pub excerpt: String,
    /// For writes: the change.
    pub change: Option<ChangeRecord>,
}

/// One call: its request with its decision and result, when recorded.
#[derive(Debug, Clone)]
pub struct CallEntry {
    /// The call as requested.
    pub call: CallInfo,
    /// The `call_requested` record.
    pub requested: RecordMeta,
    /// The decision, once made.
    pub decided: Option<Decided>,
    /// The result, once the call ended.
    pub finished: Option<Finished>,
}

/// How a call was decided. Each call is in exactly one class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionClass {
    /// Approved without a human: a rule, a session grant, or
    /// `--approve-all`.
    Auto,
    /// Approved by the human at the prompt.
    User,
    /// Denied: by the human, by the headless confirmer (no one to ask), or
    /// because the prompt failed.
    Denied,
    /// Refused by a deny rule, a guardrail, the read-only mode or a
    /// session rule, without asking.
    Blocked,
    /// Refused before the policy: outside the path scope, or invalid
    /// arguments / unknown tool.
    Refused,
    /// Nobody answered before the approval timeout.
    Timeout,
    /// The agent cancelled it, or the supervisor shut down, before an
    /// answer.
    Cancelled,
    /// No decision recorded (still waiting, or the supervisor died).
    Pending,
}

impl DecisionClass {
    /// The word used on screen and in `--decision`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::User => "user",
            Self::Denied => "denied",
            Self::Blocked => "blocked",
            Self::Refused => "refused",
            Self::Timeout => "timeout",
            Self::Cancelled => "cancelled",
            Self::Pending => "pending",
        }
    }

    /// The words shown for a decision of this class: `approved` (auto or
    /// by you), `denied`, `blocked`, `refused`, `timeout`, `cancelled`, or
    /// `waiting for a decision`.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Auto | Self::User => "approved",
            Self::Pending => "waiting for a decision",
            other => other.as_str(),
        }
    }

    /// The class of a decision: who approved, or how a refusal ends.
    pub fn of(d: &Decision) -> Self {
        match d {
            Decision::Approved {
                by: ApprovedBy::User,
                ..
            } => Self::User,
            Decision::Approved { .. } => Self::Auto,
            // Every refuser has its class; nothing falls through.
            Decision::Refused { by, .. } => match by {
                RefusedBy::User | RefusedBy::Headless | RefusedBy::ConfirmerFailed => Self::Denied,
                RefusedBy::Rule { .. } | RefusedBy::Grant { .. } => Self::Blocked,
                RefusedBy::Scope | RefusedBy::InvalidArguments => Self::Refused,
                RefusedBy::Timeout => Self::Timeout,
                RefusedBy::Cancelled | RefusedBy::Disconnected | RefusedBy::Shutdown => {
                    Self::Cancelled
                }
            },
        }
    }

    /// Approved (the call ran, or was meant to).
    pub fn approved(self) -> bool {
        matches!(self, Self::Auto | Self::User)
    }
}

impl CallEntry {
    /// How the call was decided.
    pub fn class(&self) -> DecisionClass {
        self.decided
            .as_ref()
            .map_or(DecisionClass::Pending, |d| DecisionClass::of(&d.decision))
    }

    /// Milliseconds it waited for a decision and, if it ran, ran: as
    /// recorded, or from the records' times in older trails.
    pub fn wait_run_ms(&self) -> Option<(u64, Option<u64>)> {
        let f = self.finished.as_ref()?;
        if let Some(w) = f.wait_ms {
            return Some((w, f.run_ms));
        }
        let ms = |d: chrono::Duration| d.num_milliseconds().max(0).cast_unsigned();
        let Some(d) = &self.decided else {
            return Some((f.duration_ms, None));
        };
        let wait = ms(d.at.ts - self.requested.ts);
        let ran = d.decision.is_approved().then(|| ms(f.at.ts - d.at.ts));
        Some((wait, ran))
    }

    /// The call ran and failed (`status: error`).
    pub fn failed(&self) -> bool {
        self.class().approved()
            && self
                .finished
                .as_ref()
                .is_some_and(|f| f.status == Outcome::Error)
    }

    /// Where the call got to: its result's outcome, or waiting (no
    /// decision), running (approved, no result yet), or the outcome its
    /// refusal implies.
    pub fn status(&self) -> CallState {
        match (&self.finished, &self.decided) {
            (Some(f), _) => CallState::Ended(f.status),
            (None, Some(d)) => d
                .decision
                .refusal_outcome()
                .map_or(CallState::Running, CallState::Ended),
            (None, None) => CallState::Waiting,
        }
    }
}

/// A record that is not about a call (session start and end, agents,
/// grants, saved rules …), in trail order.
#[derive(Debug, Clone)]
pub struct SessionEvent {
    /// Where it is.
    pub at: RecordMeta,
    /// The event, or `None` for a record of a type this version cannot read.
    pub event: Option<AuditEvent>,
    /// For a record this version cannot read, its `type`.
    pub unknown: Option<String>,
}

impl SessionEvent {
    /// Its `type` as the trail records it.
    pub fn kind(&self) -> &str {
        match (&self.event, &self.unknown) {
            (Some(e), _) => e.kind(),
            (None, Some(kind)) => kind,
            (None, None) => "?",
        }
    }
}

/// One step of a timeline: a call (placed at its request) or a session
/// event.
#[derive(Debug, Clone, Copy)]
pub enum Entry<'a> {
    /// A call.
    Call(&'a CallEntry),
    /// Anything else.
    Event(&'a SessionEvent),
}

/// What [`Timeline::push`] changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pushed {
    /// The call at this index in [`Timeline::calls`].
    Call(usize),
    /// The session event at this index in [`Timeline::events`].
    Event(usize),
    /// A record about a call that was never requested (reported as a
    /// problem).
    Orphan,
}

/// Per-class counts of a trail's calls. `auto + user + denied + blocked +
/// unanswered == calls`; `errors` counts approved calls that failed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Calls requested.
    pub calls: usize,
    /// Approved without a human ([`DecisionClass::Auto`]).
    pub auto: usize,
    /// Approved by the human ([`DecisionClass::User`]).
    pub user: usize,
    /// Denied ([`DecisionClass::Denied`]).
    pub denied: usize,
    /// Blocked by rules or guardrails, or refused by the scope
    /// ([`DecisionClass::Blocked`] and [`DecisionClass::Refused`]).
    pub blocked: usize,
    /// Timed out, cancelled, or never decided.
    pub unanswered: usize,
    /// Approved calls that ended in an error.
    pub errors: usize,
}

/// A trail read into calls and session events.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// From `session_start`, when the trail has one.
    pub session: Option<SessionInfo>,
    /// Agents in order of first appearance.
    pub agents: Vec<AgentEntry>,
    /// Calls in order of request.
    pub calls: Vec<CallEntry>,
    /// Records that are not about calls.
    pub events: Vec<SessionEvent>,
    /// The `session_end` record and its reason.
    pub ended: Option<(RecordMeta, String)>,
    /// The first and last record.
    pub first: Option<RecordMeta>,
    /// The last record read.
    pub last: Option<RecordMeta>,
    /// Records read.
    pub records: usize,
    /// Lines that are not records, and records about unknown calls.
    pub problems: Vec<LineProblem>,
    /// The file ends in a partial line.
    pub torn_tail: Option<LineProblem>,
    index: HashMap<CallId, usize>,
}

impl Timeline {
    /// Read the trail at `path`. Bad lines and a torn last line are noted
    /// in [`Timeline::problems`] and [`Timeline::torn_tail`], not errors.
    pub fn load(path: &Path) -> std::io::Result<Self> {
        let mut t = Self::default();
        let mut src = LineSource::new(path);
        src.read_new(|n, bytes| {
            t.push_line(n, bytes);
        })?;
        t.torn_tail = src.torn_tail();
        Ok(t)
    }

    /// Parse one line and add it.
    pub fn push_line(&mut self, line: usize, bytes: &[u8]) -> Option<Pushed> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        match parse_record(line, bytes) {
            Ok(r) => Some(self.push(r)),
            Err(p) => {
                self.problems.push(p);
                None
            }
        }
    }

    /// The call with this id.
    pub fn call(&self, id: CallId) -> Option<&CallEntry> {
        self.index.get(&id).map(|&i| &self.calls[i])
    }

    /// The agent with this id.
    pub fn agent(&self, id: u64) -> Option<&AgentEntry> {
        self.agents.iter().find(|a| a.info.id == id)
    }

    /// Add a record.
    pub fn push(&mut self, r: TrailRecord) -> Pushed {
        let at = RecordMeta::of(&r);
        self.records += 1;
        self.first.get_or_insert(at);
        self.last = Some(at);
        let event = match r.body {
            RecordBody::Event(e) => e,
            RecordBody::Unknown {
                call_id: Some(id), ..
            } => {
                return self
                    .index
                    .get(&id)
                    .map_or(Pushed::Orphan, |&i| Pushed::Call(i));
            }
            RecordBody::Unknown { kind, .. } => return self.event(at, None, Some(kind)),
        };
        match event {
            AuditEvent::CallRequested { call } => self.requested(at, call),
            AuditEvent::CallDecided { call_id, decision } => match self.index.get(&call_id) {
                Some(&i) => {
                    self.calls[i].decided = Some(Decided { at, decision });
                    Pushed::Call(i)
                }
                None => self.orphan(at, call_id, "decided"),
            },
            AuditEvent::CallFinished {
                call_id,
                status,
                duration_ms,
                wait_ms,
                run_ms,
                is_error,
                truncated,
                output_bytes,
                excerpt,
                change,
                ..
            } => match self.index.get(&call_id) {
                Some(&i) => {
                    self.calls[i].finished = Some(Finished {
                        at,
                        status,
                        duration_ms,
                        wait_ms,
                        run_ms,
                        is_error,
                        truncated,
                        output_bytes,
                        excerpt,
                        change,
                    });
                    Pushed::Call(i)
                }
                None => self.orphan(at, call_id, "finished"),
            },
            other => {
                self.note_session(at, &other);
                self.event(at, Some(other), None)
            }
        }
    }

    fn requested(&mut self, at: RecordMeta, call: CallInfo) -> Pushed {
        self.see_agent(&call.agent, None);
        if self.index.contains_key(&call.id) {
            self.problem(at, format!("call #{} requested twice", call.id));
        }
        self.index.insert(call.id, self.calls.len());
        self.calls.push(CallEntry {
            call,
            requested: at,
            decided: None,
            finished: None,
        });
        Pushed::Call(self.calls.len() - 1)
    }

    /// What a session event says about the session and its agents.
    fn note_session(&mut self, at: RecordMeta, event: &AuditEvent) {
        match event {
            AuditEvent::SessionStart {
                session,
                workspace,
                version,
                pid,
                mode,
                confirmer,
                policy_mode,
                rules,
                tools,
                ..
            } => {
                self.session = Some(SessionInfo {
                    id: session.clone(),
                    workspace: workspace.clone(),
                    version: version.clone(),
                    pid: *pid,
                    mode: *mode,
                    confirmer: *confirmer,
                    policy_mode: *policy_mode,
                    rules: rules.clone(),
                    tools: tools.clone(),
                    started: at.ts,
                });
            }
            AuditEvent::AgentConnected { agent } => {
                self.see_agent(agent, Some((at.ts, true)));
            }
            AuditEvent::AgentDisconnected { agent } => {
                self.see_agent(agent, Some((at.ts, false)));
            }
            AuditEvent::SessionEnd { reason } => self.ended = Some((at, reason.clone())),
            _ => {}
        }
    }

    fn event(
        &mut self,
        at: RecordMeta,
        event: Option<AuditEvent>,
        unknown: Option<String>,
    ) -> Pushed {
        self.events.push(SessionEvent { at, event, unknown });
        Pushed::Event(self.events.len() - 1)
    }

    fn orphan(&mut self, at: RecordMeta, id: CallId, what: &str) -> Pushed {
        self.problem(
            at,
            format!("call #{id} {what} but its request is not in the trail"),
        );
        Pushed::Orphan
    }

    fn problem(&mut self, at: RecordMeta, message: String) {
        self.problems.push(LineProblem {
            line: at.line,
            message,
        });
    }

    fn see_agent(&mut self, agent: &AgentInfo, change: Option<(DateTime<Utc>, bool)>) {
        let i = if let Some(i) = self.agents.iter().position(|a| a.info.id == agent.id) {
            i
        } else {
            self.agents.push(AgentEntry {
                info: agent.clone(),
                connected: None,
                disconnected: None,
            });
            self.agents.len() - 1
        };
        match change {
            Some((ts, true)) => self.agents[i].connected = Some(ts),
            Some((ts, false)) => self.agents[i].disconnected = Some(ts),
            None => {}
        }
    }

    /// Calls and session events merged in trail order (calls at their
    /// request).
    pub fn entries(&self) -> impl Iterator<Item = Entry<'_>> {
        let (mut calls, mut events) = (self.calls.iter().peekable(), self.events.iter().peekable());
        std::iter::from_fn(move || match (calls.peek(), events.peek()) {
            (Some(c), Some(e)) if c.requested.seq < e.at.seq => calls.next().map(Entry::Call),
            (Some(_) | None, Some(_)) => events.next().map(Entry::Event),
            (Some(_), None) => calls.next().map(Entry::Call),
            (None, None) => None,
        })
    }

    /// Calls per class.
    pub fn counts(&self) -> Counts {
        let mut c = Counts {
            calls: self.calls.len(),
            ..Counts::default()
        };
        for call in &self.calls {
            match call.class() {
                DecisionClass::Auto => c.auto += 1,
                DecisionClass::User => c.user += 1,
                DecisionClass::Denied => c.denied += 1,
                DecisionClass::Blocked | DecisionClass::Refused => c.blocked += 1,
                DecisionClass::Timeout | DecisionClass::Cancelled | DecisionClass::Pending => {
                    c.unanswered += 1;
                }
            }
            if call.failed() {
                c.errors += 1;
            }
        }
        c
    }

    /// From the first record to `session_end`, or to the last record when
    /// the session has not ended (still running, or killed).
    pub fn duration(&self) -> Option<chrono::Duration> {
        let start = self
            .session
            .as_ref()
            .map(|s| s.started)
            .or(self.first.map(|f| f.ts))?;
        let end = self
            .ended
            .as_ref()
            .map(|(m, _)| m.ts)
            .or(self.last.map(|l| l.ts))?;
        Some(end - start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every refusal is in the class of the outcome it ends with; none is
    /// put anywhere for want of a better place.
    #[test]
    fn each_refusal_is_in_the_class_of_its_outcome() {
        let all = [
            RefusedBy::Rule {
                rule: "r".into(),
                source: crate::call::VerdictSource::BuiltIn,
            },
            RefusedBy::Grant { rule: "r".into() },
            RefusedBy::User,
            RefusedBy::Headless,
            RefusedBy::Timeout,
            RefusedBy::Cancelled,
            RefusedBy::Disconnected,
            RefusedBy::Scope,
            RefusedBy::InvalidArguments,
            RefusedBy::Shutdown,
            RefusedBy::ConfirmerFailed,
        ];
        for by in all {
            let outcome = by.outcome();
            let class = DecisionClass::of(&Decision::deny(by.clone(), None));
            assert_eq!(class.as_str(), outcome.describe(), "{by:?}");
        }
    }

    fn line(seq: u64, ts: &str, body: &str) -> String {
        format!("{{\"v\":1,\"seq\":{seq},\"ts\":\"2026-01-01T00:00:{ts}Z\",{body}}}")
    }

    fn timeline(lines: &[String]) -> Timeline {
        let mut t = Timeline::default();
        for (i, l) in lines.iter().enumerate() {
            t.push_line(i + 1, l.as_bytes());
        }
        t
    }

    const AGENT: &str = r#""agent":{"id":1,"name":"a"}"#;

    fn requested(seq: u64, id: u64) -> String {
        let call = format!(
            r#""type":"call_requested","call":{{"id":{id},{AGENT},"tool":"bash","args":{{}},"summary":"s{id}","received_at":"2026-01-01T00:00:00Z"}}"#
        );
        line(seq, "01", &call)
    }

    #[test]
    fn records_join_into_calls_in_trail_order() {
        let t = timeline(&[
            line(0, "00", &format!(r#""type":"agent_connected",{AGENT}"#)),
            requested(1, 1),
            requested(2, 2),
            line(
                3,
                "02",
                r#""type":"call_decided","call_id":2,"approved":false,"by":"timeout""#,
            ),
            line(
                4,
                "03",
                r#""type":"call_decided","call_id":1,"approved":true,"by":"user""#,
            ),
            line(
                5,
                "04",
                r#""type":"call_finished","call_id":1,"status":"error","duration_ms":3,"is_error":true,"truncated":false,"output_bytes":1,"output_sha256":"","excerpt":"x""#,
            ),
            line(6, "05", r#""type":"call_paused","call_id":1"#),
            line(
                7,
                "06",
                r#""type":"call_decided","call_id":9,"approved":true,"by":"user""#,
            ),
            "garbage".into(),
            line(9, "07", r#""type":"session_end","reason":"done""#),
        ]);
        assert_eq!(t.records, 9);
        assert_eq!(t.calls.len(), 2);
        assert_eq!(t.calls[0].class(), DecisionClass::User);
        assert!(t.calls[0].failed());
        assert_eq!(t.calls[1].class(), DecisionClass::Timeout);
        assert_eq!(t.calls[1].status().describe(), "timeout");
        assert_eq!(t.agents.len(), 1);
        assert!(t.agents[0].connected.is_some());
        let lines: Vec<usize> = t.problems.iter().map(|p| p.line).collect();
        assert_eq!(
            lines,
            [8, 9],
            "orphan decision and garbage: {:?}",
            t.problems
        );
        let order: Vec<String> = t
            .entries()
            .map(|e| match e {
                Entry::Call(c) => format!("#{}", c.call.id),
                Entry::Event(e) => e.kind().to_string(),
            })
            .collect();
        assert_eq!(order, ["agent_connected", "#1", "#2", "session_end"]);
        let c = t.counts();
        assert_eq!((c.calls, c.user, c.unanswered, c.errors), (2, 1, 1, 1));
        assert_eq!(t.ended.as_ref().map(|e| e.1.as_str()), Some("done"));
        assert_eq!(t.duration(), Some(chrono::Duration::seconds(7)));
    }

    #[test]
    fn unknown_session_records_are_kept_as_events() {
        let t = timeline(&[line(0, "00", r#""type":"weather","sky":"grey""#)]);
        assert_eq!(t.events.len(), 1);
        assert_eq!(t.events[0].kind(), "weather");
        assert!(t.events[0].event.is_none());
        assert!(t.problems.is_empty());
    }
}
