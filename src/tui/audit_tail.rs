//! The audit pane's source: new records read from the session's trail as
//! they are written, each turned into one line for humans.

use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use chrono::FixedOffset;
use serde_json::Value;

/// Most bytes read from the trail in one go.
const READ_CHUNK: u64 = 4 * 1024 * 1024;

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
}

/// Reads records appended to a trail since the last read.
#[derive(Debug)]
pub struct AuditTail {
    path: PathBuf,
    pos: u64,
    partial: Vec<u8>,
    offset: FixedOffset,
}

impl AuditTail {
    /// Follow the trail at `path` from its start; times are shown at
    /// `offset` from UTC.
    pub fn new(path: PathBuf, offset: FixedOffset) -> Self {
        Self {
            path,
            pos: 0,
            partial: Vec::new(),
            offset,
        }
    }

    /// The records written since the last call (empty when the file cannot
    /// be read; the pane is a view, the trail is the record).
    pub fn read_new(&mut self) -> Vec<AuditLine> {
        let mut buf = Vec::new();
        let read = std::fs::File::open(&self.path).and_then(|mut f| {
            f.seek(SeekFrom::Start(self.pos))?;
            f.take(READ_CHUNK).read_to_end(&mut buf)
        });
        match read {
            Ok(n) => self.pos += n as u64,
            Err(e) => {
                tracing::warn!(path = %self.path.display(), "cannot read the audit trail: {e}");
                return Vec::new();
            }
        }
        self.partial.extend_from_slice(&buf);
        let Some(last_newline) = self.partial.iter().rposition(|&b| b == b'\n') else {
            return Vec::new();
        };
        let complete: Vec<u8> = self.partial.drain(..=last_newline).collect();
        String::from_utf8_lossy(&complete)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| describe(l, self.offset))
            .collect()
    }
}

/// One trail line for humans.
pub fn describe(line: &str, offset: FixedOffset) -> AuditLine {
    let Ok(r) = serde_json::from_str::<Value>(line) else {
        return AuditLine {
            seq: 0,
            time: String::new(),
            kind: "unreadable".into(),
            text: crate::audit::excerpt(line, 200),
        };
    };
    let time = r["ts"]
        .as_str()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&offset).format("%H:%M:%S").to_string())
        .unwrap_or_default();
    let kind = r["type"].as_str().unwrap_or("?").to_string();
    AuditLine {
        seq: r["seq"].as_u64().unwrap_or(0),
        time,
        text: summary(&kind, &r),
        kind,
    }
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or("")
}

fn summary(kind: &str, r: &Value) -> String {
    let call = || format!("#{}", r["call_id"].as_u64().unwrap_or(0));
    match kind {
        "session_start" => format!(
            "session {} started on {} (confirmer {}, mode {})",
            s(r, "session"),
            s(r, "workspace"),
            s(r, "confirmer"),
            s(r, "policy_mode")
        ),
        "session_end" => format!("session ended: {}", s(r, "reason")),
        "agent_connected" => format!("agent {} connected", s(&r["agent"], "name")),
        "agent_disconnected" => format!("agent {} disconnected", s(&r["agent"], "name")),
        "call_requested" => {
            let c = &r["call"];
            format!(
                "#{} {} {} ({})",
                c["id"].as_u64().unwrap_or(0),
                s(c, "tool"),
                s(c, "summary"),
                s(&c["agent"], "name")
            )
        }
        "call_decided" => {
            let verb = if r["approved"] == true {
                "approved"
            } else {
                "refused"
            };
            let mut t = format!("{} {verb} by {}", call(), s(r, "by"));
            if !s(r, "rule").is_empty() {
                t.push_str(&format!(" {}", s(r, "rule")));
            }
            if !s(r, "edited_command").is_empty() {
                let cmd = crate::tui::reveal::one_line(s(r, "edited_command"));
                t.push_str(&format!(", edited to: {cmd}"));
            }
            if !s(r, "reason").is_empty() {
                t.push_str(&format!(": {}", s(r, "reason")));
            }
            t
        }
        "call_finished" => format!(
            "{} {} {}, {}",
            call(),
            s(r, "status"),
            crate::tui::ui::theme::timing(
                r["duration_ms"].as_u64().unwrap_or(0),
                r["wait_ms"].as_u64(),
                r["run_ms"].as_u64()
            ),
            crate::tui::ui::theme::count(r["output_bytes"].as_u64().unwrap_or(0) as usize, "byte")
        ),
        "grant_added" => format!("granted for the session: {}", s(&r["grant"], "rule")),
        "grant_revoked" => format!("revoked: {}", s(&r["grant"], "rule")),
        "rule_saved" => format!(
            "saved rule {} {} to {}",
            s(r, "action"),
            s(r, "rule"),
            s(r, "file")
        ),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn reads_only_complete_new_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut f = std::fs::File::create(&path).unwrap();
        let utc = FixedOffset::east_opt(0).unwrap();
        let mut tail = AuditTail::new(path, utc);
        assert!(tail.read_new().is_empty());
        writeln!(
            f,
            r#"{{"seq":1,"ts":"2026-01-02T03:04:05Z","type":"call_decided","call_id":4,"approved":false,"by":"user","reason":"no"}}"#
        )
        .unwrap();
        write!(
            f,
            r#"{{"seq":2,"ts":"2026-01-02T03:04:06Z","type":"session_end","#
        )
        .unwrap();
        let lines = tail.read_new();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].time, "03:04:05");
        assert_eq!(lines[0].text, "#4 refused by user: no");
        writeln!(f, r#""reason":"shutdown"}}"#).unwrap();
        let lines = tail.read_new();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].text, "session ended: shutdown");
        assert!(tail.read_new().is_empty());
    }
}
