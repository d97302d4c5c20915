//! The audit pane's lines: typed trail records, each turned into one line
//! for humans. Live, they come from the trail writer as it appends
//! ([`Feed`]); in a review, from the trail's lines as they come into view.
//! Nothing here parses untyped JSON: a line is read as an
//! [`AuditEvent`] or shown as not understood.

use std::fmt::Write as _;
use std::sync::Arc;

use chrono::{DateTime, FixedOffset, Utc};
use tokio::sync::broadcast::{self, error::RecvError};

use crate::audit::reader::{LineSource, RecordBody, parse_record};
use crate::audit::{Appended, AuditEvent, AuditLog};
use crate::tui::format as theme;
use crate::tui::reveal::one_line;

/// What kind of thing a line says, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tone {
    /// Nothing to point out.
    #[default]
    Plain,
    /// A call was approved.
    Approved,
    /// A call was refused (denied, blocked, timed out, cancelled …).
    Refused,
    /// The session's grants or saved rules changed.
    Grant,
    /// The line is not a record this version can read.
    Unreadable,
}

/// One audit record, ready to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditLine {
    /// The record's sequence number.
    pub seq: u64,
    /// Local time, `HH:MM:SS`.
    pub time: String,
    /// The record's type (`call_decided` …).
    pub kind: String,
    /// What it says, in one line.
    pub text: String,
    /// What kind of thing it says.
    pub tone: Tone,
}

/// A typed record for humans, times at `tz`.
pub fn describe(seq: u64, ts: DateTime<Utc>, event: &AuditEvent, tz: FixedOffset) -> AuditLine {
    let (text, tone) = summary(event);
    AuditLine {
        seq,
        time: ts.with_timezone(&tz).format("%H:%M:%S").to_string(),
        kind: event.kind().to_string(),
        text,
        tone,
    }
}

/// Trail line number `line` (1-based, `bytes` without its newline) for
/// humans: a known record described, a record of an unknown type named,
/// anything else shown as unreadable.
pub fn describe_line(line: usize, bytes: &[u8], tz: FixedOffset) -> AuditLine {
    match parse_record(line, bytes) {
        Ok(r) => match &r.body {
            RecordBody::Event(e) => describe(r.seq, r.ts, e, tz),
            RecordBody::Unknown { kind, .. } => AuditLine {
                seq: r.seq,
                time: r.ts.with_timezone(&tz).format("%H:%M:%S").to_string(),
                kind: kind.clone(),
                text: kind.clone(),
                tone: Tone::Plain,
            },
        },
        Err(_) => AuditLine {
            seq: 0,
            time: String::new(),
            kind: "unreadable".into(),
            text: crate::audit::excerpt(&String::from_utf8_lossy(bytes), 200),
            tone: Tone::Unreadable,
        },
    }
}

fn summary(event: &AuditEvent) -> (String, Tone) {
    let plain = |s: String| (s, Tone::Plain);
    match event {
        AuditEvent::SessionStart {
            session,
            workspace,
            confirmer,
            policy_mode,
            ..
        } => plain(format!(
            "session {session} started on {workspace} (confirmer {}, mode {})",
            confirmer.describe(),
            policy_mode.map_or("", crate::call::PolicyMode::describe)
        )),
        AuditEvent::SessionEnd { reason } => plain(format!("session ended: {reason}")),
        AuditEvent::AgentConnected { agent } => plain(format!("agent {} connected", agent.name)),
        AuditEvent::AgentDisconnected { agent } => {
            plain(format!("agent {} disconnected", agent.name))
        }
        AuditEvent::CallRequested { call } => plain(format!(
            "#{} {} {} ({})",
            call.id, call.tool, call.summary, call.agent.name
        )),
        AuditEvent::CallDecided { call_id, decision } => decided(*call_id, decision),
        AuditEvent::CallFinished {
            call_id,
            status,
            duration_ms,
            wait_ms,
            run_ms,
            output_bytes,
            ..
        } => plain(format!(
            "#{call_id} {status} {}, {}",
            theme::timing(*duration_ms, *wait_ms, *run_ms),
            theme::count(*output_bytes, "byte")
        )),
        AuditEvent::ProtocolError { error, .. } => plain(format!("protocol error: {error}")),
        AuditEvent::GrantAdded { grant } => (
            format!("granted for the session: {}", grant.rule),
            Tone::Grant,
        ),
        AuditEvent::GrantRevoked { grant } => (format!("revoked: {}", grant.rule), Tone::Grant),
        AuditEvent::RuleSaved { action, rule, file } => (
            format!("saved rule {} {rule} to {file}", action.as_str()),
            Tone::Grant,
        ),
        AuditEvent::ConfigUntrusted { file, ignored, .. } => (
            format!(
                "{file} is not trusted; ignored what loosens: {}",
                ignored.join("; ")
            ),
            Tone::Refused,
        ),
    }
}

/// `#4 refused by you: no`, `#1 approved by rule default: … (built-in)`:
/// who decided in the words used everywhere ([`DecidedBy::describe`]).
///
/// [`DecidedBy::describe`]: crate::call::DecidedBy::describe
fn decided(id: crate::call::CallId, d: &crate::call::Decision) -> (String, Tone) {
    let (verb, tone) = if d.is_approved() {
        ("approved", Tone::Approved)
    } else {
        ("refused", Tone::Refused)
    };
    let mut t = format!("#{id} {verb} {}", d.by().describe());
    if let Some(cmd) = d.edited_command().filter(|c| !c.is_empty()) {
        let _ = write!(t, ", edited to: {}", one_line(cmd));
    }
    if let Some(r) = d.reason().filter(|r| !r.is_empty()) {
        let _ = write!(t, ": {r}");
    }
    (t, tone)
}

/// The live audit pane's source: every record the session's trail writer
/// appends, typed, in order. What was written before the TUI subscribed
/// (the session's start), and whatever a slow TUI missed, is read once
/// from the file and matched up by sequence number.
#[derive(Debug)]
pub struct Feed {
    rx: broadcast::Receiver<Arc<Appended>>,
    file: LineSource,
    next: u64,
    tz: FixedOffset,
}

impl Feed {
    /// Follow `log` from its first record; times at `tz`.
    pub fn attach(log: &AuditLog, tz: FixedOffset) -> Self {
        // Subscribe before reading, so nothing falls between the two.
        let rx = log.subscribe();
        Self {
            rx,
            file: LineSource::new(log.path()),
            next: 0,
            tz,
        }
    }

    /// The records in the file not seen yet (at the start, and after the
    /// feed skipped some).
    pub fn catch_up(&mut self) -> Vec<AuditLine> {
        let mut out = Vec::new();
        let (next, tz) = (&mut self.next, self.tz);
        let read = self.file.read_new(|n, bytes| {
            let line = describe_line(n, bytes, tz);
            if line.tone == Tone::Unreadable || line.seq >= *next {
                *next = (*next).max(line.seq + 1);
                out.push(line);
            }
        });
        if let Err(e) = read {
            tracing::warn!(path = %self.file.path().display(), "cannot read the audit trail: {e}");
        }
        out
    }

    /// The next records to show: one as it is appended, or what the file
    /// holds beyond the last one shown when the feed fell behind. Once the
    /// writer is gone, never.
    pub async fn next(&mut self) -> Vec<AuditLine> {
        loop {
            match self.rx.recv().await {
                Ok(a) if a.seq < self.next => {}
                Ok(a) => {
                    self.next = a.seq + 1;
                    return vec![describe(a.seq, a.ts, &a.event, self.tz)];
                }
                Err(RecvError::Lagged(_)) => return self.catch_up(),
                Err(RecvError::Closed) => std::future::pending::<()>().await,
            }
        }
    }

    /// The records already queued, without waiting.
    pub fn ready(&mut self) -> Vec<AuditLine> {
        let mut out = Vec::new();
        loop {
            match self.rx.try_recv() {
                Ok(a) if a.seq < self.next => {}
                Ok(a) => {
                    self.next = a.seq + 1;
                    out.push(describe(a.seq, a.ts, &a.event, self.tz));
                }
                Err(broadcast::error::TryRecvError::Lagged(_)) => out.extend(self.catch_up()),
                Err(_) => return out,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::{ApprovedBy, Decision, RefusedBy};

    fn utc() -> FixedOffset {
        FixedOffset::east_opt(0).unwrap()
    }

    #[test]
    fn the_feed_reads_what_was_written_before_it_then_follows_typed() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::create(&dir.path().join("t.jsonl")).unwrap();
        log.append(&AuditEvent::SessionEnd { reason: "a".into() })
            .unwrap();
        let mut feed = Feed::attach(&log, utc());
        log.append(&AuditEvent::CallDecided {
            call_id: 4,
            decision: Decision::deny(RefusedBy::User, Some("no".into())),
        })
        .unwrap();
        let first = feed.catch_up();
        assert_eq!(first.len(), 2, "{first:?}");
        assert_eq!(first[0].text, "session ended: a");
        assert_eq!(first[1].text, "#4 refused by you: no");
        assert_eq!(first[1].tone, Tone::Refused);
        assert!(
            feed.ready().is_empty(),
            "the record read from the file is not shown twice"
        );
        log.append(&AuditEvent::CallDecided {
            call_id: 5,
            decision: Decision::approve(ApprovedBy::Grant {
                rule: "bash(ls *)".into(),
            }),
        })
        .unwrap();
        let more = feed.ready();
        assert_eq!(more.len(), 1);
        assert_eq!(more[0].seq, 2);
        assert_eq!(more[0].text, "#5 approved by session grant bash(ls *)");
        assert_eq!(more[0].tone, Tone::Approved);
    }

    /// The feed knows an unreadable line by its tone: a record of a
    /// future type that happens to be called "unreadable" is matched up by
    /// its sequence number like any other, and not shown twice.
    #[test]
    fn an_unreadable_line_is_known_by_its_tone_not_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let log = AuditLog::create(&path).unwrap();
        log.append(&AuditEvent::SessionEnd { reason: "a".into() })
            .unwrap();
        let mut feed = Feed::attach(&log, utc());
        assert_eq!(feed.catch_up().len(), 1);
        // Beside the writer, a record with seq 0 again, of type "unreadable".
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        std::io::Write::write_all(
            &mut f,
            b"{\"v\":1,\"seq\":0,\"ts\":\"2026-01-02T03:04:05Z\",\"type\":\"unreadable\"}\nnot json\n",
        )
        .unwrap();
        let more = feed.catch_up();
        assert_eq!(more.len(), 1, "{more:?}");
        assert_eq!(more[0].tone, Tone::Unreadable);
        assert_eq!(more[0].text, "not json");
    }

    #[test]
    fn unknown_and_unreadable_lines() {
        let l = describe_line(
            3,
            br#"{"v":9,"seq":2,"ts":"2026-01-02T03:04:05Z","type":"future"}"#,
            utc(),
        );
        assert_eq!(
            (l.seq, l.kind.as_str(), l.time.as_str()),
            (2, "future", "03:04:05")
        );
        let l = describe_line(4, br#"{"v":1,"seq":3,"ts":"2026-01-02T03"#, utc());
        assert_eq!((l.kind.as_str(), l.tone), ("unreadable", Tone::Unreadable));
    }
}
