//! The calls the TUI has seen, in arrival order, with what became of them.
//! Bounded: past [`MAX_CALLS`] the oldest are dropped from view (the audit
//! trail keeps them all).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt::Write as _;

use chrono::{DateTime, Utc};

use crate::call::{CallId, CallInfo, CallOutcome, Decision, Outcome};

/// Most calls kept on screen.
pub const MAX_CALLS: usize = 200_000;

/// Most raw bytes of live output kept for a running call (the tail).
const LIVE_BYTES: usize = 32 * 1024;

/// Most bytes of a finished call's result kept for display.
const RESULT_BYTES: usize = 64 * 1024;

/// Where a call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CallStatus {
    /// Arrived, not decided yet.
    Received,
    /// Waiting for the human.
    Waiting,
    /// Approved and running.
    Running,
    /// Finished without error.
    Ok,
    /// Finished with an error.
    Error,
    /// Denied by the human (or no human attached).
    Denied,
    /// Blocked by a rule.
    Blocked,
    /// Cancelled (by the agent, or the supervisor closed).
    Cancelled,
    /// Refused by the scope or for bad arguments.
    Refused,
    /// Nobody answered in time.
    Timeout,
    /// A reviewed trail has no result for it (no decision, or approved and
    /// no result: the supervisor stopped first).
    Unfinished,
}

impl CallStatus {
    /// From how a call ended.
    pub fn from_outcome(status: Outcome) -> Self {
        match status {
            Outcome::Ok => Self::Ok,
            Outcome::Error => Self::Error,
            Outcome::Denied => Self::Denied,
            Outcome::Blocked => Self::Blocked,
            Outcome::Cancelled => Self::Cancelled,
            Outcome::Refused => Self::Refused,
            Outcome::Timeout => Self::Timeout,
            Outcome::Unreported => Self::Unfinished,
        }
    }

    /// The word shown for it.
    pub fn word(self) -> &'static str {
        match self {
            Self::Received => "received",
            Self::Waiting => "waiting for you",
            Self::Running => "running",
            Self::Ok => "ok",
            Self::Error => "error",
            Self::Denied => "denied",
            Self::Blocked => "blocked",
            Self::Cancelled => "cancelled",
            Self::Refused => "refused",
            Self::Timeout => "timeout",
            Self::Unfinished => "no result recorded",
        }
    }

    /// Still in flight.
    pub fn is_open(self) -> bool {
        matches!(self, Self::Received | Self::Waiting | Self::Running)
    }

    /// Denied, blocked, refused, timed out or failed: what a reviewer
    /// jumps between.
    pub fn is_problem(self) -> bool {
        matches!(
            self,
            Self::Error | Self::Denied | Self::Blocked | Self::Refused | Self::Timeout
        )
    }
}

/// Output of a running call, as it streams: the raw tail, turned into text
/// only when shown (one call at a time).
#[derive(Debug, Clone, Default)]
pub struct LiveOutput {
    raw: Vec<u8>,
    /// Bytes received in all.
    pub total: u64,
}

impl LiveOutput {
    fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        self.raw.extend_from_slice(chunk);
        if self.raw.len() > LIVE_BYTES {
            let cut = self.raw.len() - LIVE_BYTES;
            // Start after a newline so the first line shown is whole.
            let cut = self.raw[cut..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(cut, |p| cut + p + 1);
            self.raw.drain(..cut);
        }
    }

    /// The tail as plain text (terminal escapes interpreted).
    pub fn text(&self) -> String {
        crate::tools::bash::capture::normalize(&self.raw)
    }
}

/// One call.
#[derive(Debug, Clone)]
pub struct CallRow {
    /// The call as it arrived.
    pub info: CallInfo,
    /// Where it is.
    pub status: CallStatus,
    /// The decision, once made.
    pub decision: Option<Decision>,
    /// When it started running.
    pub started_at: Option<DateTime<Utc>>,
    /// Live output while it runs.
    pub live: Option<LiveOutput>,
    /// How it ended (the text bounded for display).
    pub outcome: Option<CallOutcome>,
    /// What the audit trail adds, when the call was read from one.
    pub recorded: Option<Box<Recorded>>,
}

/// A call as its audit trail records it, beyond what the live panes show.
#[derive(Debug, Clone, Default)]
pub struct Recorded {
    /// The `call_requested` record's line and time.
    pub requested: (usize, DateTime<Utc>),
    /// The `call_decided` record's line and time.
    pub decided: Option<(usize, DateTime<Utc>)>,
    /// The `call_finished` record's line and time.
    pub finished: Option<(usize, DateTime<Utc>)>,
    /// Bytes the agent got (the outcome's text is the trail's excerpt).
    pub output_bytes: usize,
    /// For writes: the change as recorded, with its diff.
    pub change: Option<crate::audit::ChangeRecord>,
}

/// Every call seen, oldest first. Positions are absolute: they stay valid
/// when old calls are dropped (see [`CallStore::first`]).
#[derive(Debug, Default)]
pub struct CallStore {
    rows: VecDeque<CallRow>,
    first: usize,
    index: HashMap<CallId, usize>,
    counts: BTreeMap<CallStatus, usize>,
}

impl CallStore {
    /// Number of calls shown.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when no call arrived yet.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The absolute position of the oldest call kept.
    pub fn first(&self) -> usize {
        self.first
    }

    /// One past the absolute position of the newest call.
    pub fn end(&self) -> usize {
        self.first + self.rows.len()
    }

    /// The call at absolute position `pos`.
    pub fn get(&self, pos: usize) -> Option<&CallRow> {
        self.rows.get(pos.checked_sub(self.first)?)
    }

    /// The calls at absolute positions `range` (clamped).
    pub fn range(&self, start: usize, end: usize) -> impl Iterator<Item = (usize, &CallRow)> {
        let s = start.max(self.first) - self.first;
        let e = end.min(self.end()).max(start.max(self.first)) - self.first;
        self.rows
            .range(s..e)
            .enumerate()
            .map(move |(i, r)| (s + self.first + i, r))
    }

    /// Where call `id` is.
    pub fn position(&self, id: CallId) -> Option<usize> {
        self.index.get(&id).copied()
    }

    /// The call with this id.
    pub fn by_id(&self, id: CallId) -> Option<&CallRow> {
        self.get(self.position(id)?)
    }

    /// How many calls are in each status.
    pub fn counts(&self) -> &BTreeMap<CallStatus, usize> {
        &self.counts
    }

    /// How many calls are in `status`.
    pub fn count(&self, status: CallStatus) -> usize {
        self.counts.get(&status).copied().unwrap_or(0)
    }

    /// A call arrived (again: ignored).
    pub fn received(&mut self, info: CallInfo) {
        if self.index.contains_key(&info.id) {
            return;
        }
        if self.rows.len() >= MAX_CALLS
            && let Some(old) = self.rows.pop_front()
        {
            self.index.remove(&old.info.id);
            self.bump(old.status, false);
            self.first += 1;
        }
        self.index.insert(info.id, self.end());
        self.bump(CallStatus::Received, true);
        self.rows.push_back(CallRow {
            info,
            status: CallStatus::Received,
            decision: None,
            started_at: None,
            live: None,
            outcome: None,
            recorded: None,
        });
    }

    /// Add a call as a trail recorded it, whatever its status. Not bounded
    /// by [`MAX_CALLS`]: a review shows every call of the trail.
    pub fn push(&mut self, row: CallRow) {
        self.index.insert(row.info.id, self.end());
        self.bump(row.status, true);
        self.rows.push_back(row);
    }

    /// The call waits for the human.
    pub fn waiting(&mut self, id: CallId) {
        self.set_status(id, CallStatus::Waiting, |s| s == CallStatus::Received);
    }

    /// A decision was made.
    pub fn decided(&mut self, id: CallId, decision: Decision) {
        if let Some(row) = self.row_mut(id) {
            row.decision = Some(decision);
        }
        self.set_status(id, CallStatus::Received, |s| s == CallStatus::Waiting);
    }

    /// The call started running.
    pub fn started(&mut self, id: CallId, now: DateTime<Utc>) {
        if let Some(row) = self.row_mut(id) {
            row.started_at = Some(now);
            row.live = Some(LiveOutput::default());
        }
        self.set_status(id, CallStatus::Running, CallStatus::is_open);
    }

    /// A chunk of output from a running call.
    pub fn output(&mut self, id: CallId, chunk: &[u8]) {
        if let Some(row) = self.row_mut(id) {
            row.live.get_or_insert_with(LiveOutput::default).push(chunk);
        }
    }

    /// The call ended.
    pub fn finished(&mut self, id: CallId, mut outcome: CallOutcome) {
        if outcome.text.len() > RESULT_BYTES {
            let more = outcome.text.len() - RESULT_BYTES;
            outcome.text = crate::audit::excerpt(&outcome.text, RESULT_BYTES);
            let _ = write!(outcome.text, "\n[{more} more bytes not shown]");
        }
        let status = CallStatus::from_outcome(outcome.status);
        if let Some(row) = self.row_mut(id) {
            row.live = None;
            row.outcome = Some(outcome);
        }
        self.set_status(id, status, |_| true);
    }

    fn row_mut(&mut self, id: CallId) -> Option<&mut CallRow> {
        let pos = self.position(id)?;
        self.rows.get_mut(pos - self.first)
    }

    fn set_status(&mut self, id: CallId, to: CallStatus, when: impl Fn(CallStatus) -> bool) {
        let Some(row) = self.row_mut(id) else { return };
        let from = row.status;
        if from == to || !when(from) {
            return;
        }
        row.status = to;
        self.bump(from, false);
        self.bump(to, true);
    }

    fn bump(&mut self, status: CallStatus, up: bool) {
        let n = self.counts.entry(status).or_insert(0);
        if up {
            *n += 1;
        } else {
            *n = n.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::{AgentInfo, ApprovedBy};

    pub(crate) fn info(id: CallId) -> CallInfo {
        CallInfo {
            id,
            agent: AgentInfo {
                id: 1,
                name: "a".into(),
                version: None,
            },
            tool: "bash".into(),
            kind: None,
            args: serde_json::json!({}),
            summary: format!("call {id}"),
            received_at: chrono::DateTime::UNIX_EPOCH,
            runner: crate::call::Runner::default(),
            view: crate::call::CallView::default(),
            edit: None,
            grant: crate::call::GrantShape::None,
            proposal: None,
        }
    }

    fn outcome(status: Outcome) -> CallOutcome {
        CallOutcome {
            status,
            duration_ms: 1,
            wait_ms: None,
            run_ms: None,
            text: "x".into(),
            is_error: false,
            truncated: false,
            structured: None,
            shell_cwd: None,
        }
    }

    #[test]
    fn a_call_moves_through_its_states_and_counts_follow() {
        let mut s = CallStore::default();
        s.received(info(1));
        s.waiting(1);
        assert_eq!(s.count(CallStatus::Waiting), 1);
        s.decided(1, Decision::approve(ApprovedBy::User));
        s.started(1, chrono::DateTime::UNIX_EPOCH);
        s.output(1, b"hello\r\nwor");
        s.output(1, b"ld\r\n");
        assert_eq!(
            s.by_id(1).unwrap().live.as_ref().unwrap().text(),
            "hello\nworld\n"
        );
        assert_eq!(s.count(CallStatus::Running), 1);
        s.finished(1, outcome(Outcome::Ok));
        assert_eq!(s.count(CallStatus::Running), 0);
        assert_eq!(s.count(CallStatus::Ok), 1);
        assert!(s.by_id(1).unwrap().live.is_none());
    }

    #[test]
    fn oldest_calls_are_dropped_past_the_bound_and_positions_stay_absolute() {
        let mut s = CallStore::default();
        for id in 0..(MAX_CALLS as u64 + 3) {
            s.received(info(id));
        }
        assert_eq!(s.len(), MAX_CALLS);
        assert_eq!(s.first(), 3);
        assert!(s.get(2).is_none());
        assert_eq!(s.get(3).unwrap().info.id, 3);
        assert_eq!(s.position(10), Some(10));
        assert_eq!(s.count(CallStatus::Received), MAX_CALLS);
        let ids: Vec<u64> = s.range(0, 5).map(|(_, r)| r.info.id).collect();
        assert_eq!(ids, [3, 4]);
    }

    #[test]
    fn live_output_keeps_the_tail() {
        let mut s = CallStore::default();
        s.received(info(1));
        s.started(1, chrono::DateTime::UNIX_EPOCH);
        for i in 0..10_000 {
            s.output(1, format!("line {i}\n").as_bytes());
        }
        let text = s.by_id(1).unwrap().live.as_ref().unwrap().text();
        assert!(text.starts_with("line "), "starts on a whole line");
        assert!(text.ends_with("line 9999\n"));
        assert!(text.len() <= LIVE_BYTES);
    }
}
