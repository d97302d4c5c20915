//! `airlock sessions`: one row per trail in the data directory, newest
//! first, with what happened in it. A trail that cannot be read is listed
//! with a note, never skipped.

use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::term::{Printer, Text};
use super::{Paint, Style, fit, human_duration_ms, local_datetime};
use crate::audit::reader::{TrailRef, list_trails};
use crate::audit::timeline::{Counts, Timeline};

/// One session.
#[derive(Debug, Clone, Serialize)]
pub struct SessionRow {
    /// The session id.
    pub id: String,
    /// The trail.
    pub path: PathBuf,
    /// When it started (`session_start`, else the first record).
    pub started: Option<DateTime<Utc>>,
    /// The workspace.
    pub workspace: Option<String>,
    /// Agent names, in order of arrival.
    pub agents: Vec<String>,
    /// Milliseconds from start to `session_end`, or to the last record.
    pub duration_ms: Option<u64>,
    /// Whether `session_end` was written.
    pub ended: bool,
    /// Calls by class.
    pub counts: Counts,
    /// Things to know: unreadable file, bad lines, torn last line, no end.
    pub notes: Vec<String>,
}

impl SessionRow {
    /// The row for one trail (a row with a note when it cannot be read).
    pub fn read(trail: &TrailRef) -> Self {
        let mut row = SessionRow {
            id: trail.id.clone(),
            path: trail.path.clone(),
            started: None,
            workspace: None,
            agents: Vec::new(),
            duration_ms: None,
            ended: false,
            counts: Counts::default(),
            notes: Vec::new(),
        };
        let t = match Timeline::load(&trail.path) {
            Ok(t) => t,
            Err(e) => {
                row.notes.push(format!("unreadable: {e}"));
                return row;
            }
        };
        row.started = t
            .session
            .as_ref()
            .map(|s| s.started)
            .or(t.first.map(|f| f.ts));
        row.workspace = t.session.as_ref().map(|s| s.workspace.clone());
        row.agents = t.agents.iter().map(|a| a.info.name.clone()).collect();
        row.agents.dedup();
        row.duration_ms = t
            .duration()
            .map(|d| d.num_milliseconds().max(0).cast_unsigned());
        row.ended = t.ended.is_some();
        row.counts = t.counts();
        if t.records == 0 {
            row.notes.push("no records".into());
        } else if t.session.is_none() {
            row.notes.push("no session_start record".into());
        }
        if !t.problems.is_empty() {
            let first = &t.problems[0];
            row.notes
                .push(format!("{} bad lines (first: {first})", t.problems.len()));
        }
        if let Some(torn) = &t.torn_tail {
            row.notes.push(format!(
                "torn last line {} (a crash, or still being written)",
                torn.line
            ));
        }
        if !row.ended && t.records > 0 {
            row.notes
                .push("no session_end: still running, or the supervisor was killed".into());
        }
        row
    }
}

/// The rows for every trail in `audit_dir`, newest first.
pub fn session_rows(audit_dir: &Path) -> std::io::Result<Vec<SessionRow>> {
    Ok(list_trails(audit_dir)?
        .iter()
        .map(SessionRow::read)
        .collect())
}

/// `/home/me/x` as `~/x`.
fn tilde(path: &str) -> String {
    match std::env::var("HOME") {
        Ok(home) if !home.is_empty() && home != "/" => match path.strip_prefix(&home) {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("~{rest}"),
            _ => path.to_string(),
        },
        _ => path.to_string(),
    }
}

/// The sessions table.
pub fn write_sessions(w: &mut dyn Write, rows: &[SessionRow], style: Style) -> std::io::Result<()> {
    let mut out = Printer::new(w, style);
    let header = format!(
        "{:<25}  {:<19}  {:>8}  {:>5} {:>5} {:>4} {:>6} {:>7} {:>10} {:>6}  {:<20}  WORKSPACE",
        "SESSION",
        "STARTED",
        "DURATION",
        "CALLS",
        "AUTO",
        "YOU",
        "DENIED",
        "BLOCKED",
        "UNANSWERED",
        "ERRORS",
        "AGENTS"
    );
    out.line(Text::new().paint(Paint::Bold, header))?;
    for r in rows {
        let c = &r.counts;
        let mut t = Text::new();
        let num = |t: &mut Text, n: usize, width: usize, paint: Paint| {
            let text = format!(" {n:>width$}");
            if n == 0 {
                t.plain(text);
            } else {
                t.plain(" ").paint(paint, format!("{n:>width$}"));
            }
        };
        let agents = if r.agents.is_empty() {
            "-".to_string()
        } else {
            r.agents.join(", ")
        };
        t.plain(fit(&r.id, 25, true)).plain(format!(
            "  {:<19}  {:>8}  {:>5}",
            r.started.map_or_else(|| "-".into(), local_datetime),
            r.duration_ms.map_or_else(|| "-".into(), human_duration_ms),
            c.calls,
        ));
        num(&mut t, c.auto, 5, Paint::Green);
        num(&mut t, c.user, 4, Paint::Green);
        num(&mut t, c.denied, 6, Paint::Red);
        num(&mut t, c.blocked, 7, Paint::Red);
        num(&mut t, c.unanswered, 10, Paint::Yellow);
        num(&mut t, c.errors, 6, Paint::Red);
        t.plain("  ")
            .paint(Paint::Cyan, fit(&agents, 20, true))
            .plain("  ")
            .plain(r.workspace.as_deref().map_or_else(|| "-".into(), tilde));
        out.line(&t)?;
        for note in &r.notes {
            out.line(
                Text::new()
                    .plain(" ".repeat(27))
                    .paint(Paint::Yellow, format!("! {note}")),
            )?;
        }
    }
    if rows.is_empty() {
        out.line(&Text::from("(no sessions yet)"))?;
    }
    Ok(())
}

/// The rows as JSON lines.
pub fn write_sessions_json(w: &mut dyn Write, rows: &[SessionRow]) -> std::io::Result<()> {
    for r in rows {
        serde_json::to_writer(&mut *w, r)?;
        writeln!(w)?;
    }
    Ok(())
}
