//! `airlock review`: one session's audit trail in the TUI, read-only.
//!
//! The trail is read once. Its lines become a [`Timeline`] whose calls are
//! shown by the live TUI's own panes (as [`CallRow`]s), while the hash
//! chain is checked on a second thread; the audit pane describes only the
//! lines in view, so a 100,000-record trail opens in a fraction of a
//! second. Nothing here writes: there is no prompt and no supervisor.

use std::path::{Path, PathBuf};

use super::calls::{CallRow, CallStatus, Recorded};
use super::text_input::TextInput;
use crate::audit::timeline::CallEntry;
use crate::audit::{Timeline, VerifyReport, verify_reader};
use crate::call::CallOutcome;

pub mod filter;
mod lines;

pub use lines::TrailLines;

/// Rows of the status bar in a review: the session, the trail's
/// integrity with the counts, and the filter or the keys.
pub const STATUS_ROWS: u16 = 3;

/// A trail under review.
#[derive(Debug)]
pub struct Review {
    /// The trail file.
    pub trail: PathBuf,
    /// The trail read into calls and events.
    pub timeline: Timeline,
    /// Its sequence numbers and hash chain, checked.
    pub verify: VerifyReport,
    /// Its lines, for the audit pane.
    pub lines: TrailLines,
    /// The filter in force (`/`).
    pub filter: Option<AppliedFilter>,
    /// The filter being typed, while the field is open.
    pub typing: Option<TextInput>,
}

/// A filter applied to the calls pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedFilter {
    /// What was typed.
    pub text: String,
    /// The matching calls (indices into the timeline's calls, which are
    /// also their positions in the app's call store), in order.
    pub rows: Vec<usize>,
}

impl Review {
    /// Read and check the trail at `path`.
    pub fn load(path: &Path) -> std::io::Result<Self> {
        let text = std::fs::read(path)?;
        let (timeline, verify, starts) = std::thread::scope(|s| {
            let verifying = s.spawn(|| verify_reader(&text[..]));
            let starts = lines::line_starts(&text);
            let timeline = lines::timeline(&text, &starts);
            let verify = verifying
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            verify.map(|v| (timeline, v, starts))
        })?;
        Ok(Self {
            trail: path.to_path_buf(),
            timeline,
            verify,
            lines: TrailLines::new(text, starts),
            filter: None,
            typing: None,
        })
    }

    /// The session's workspace, when the trail says.
    pub fn workspace(&self) -> Option<&str> {
        self.timeline.session.as_ref().map(|s| s.workspace.as_str())
    }

    /// The trail line (1-based) that does not verify, if any.
    pub fn bad_line(&self) -> Option<usize> {
        self.verify.error.as_ref().map(|e| e.line)
    }

    /// The trail's calls as the panes show calls, in trail order.
    pub fn call_rows(&self) -> impl Iterator<Item = CallRow> + '_ {
        self.timeline.calls.iter().map(row)
    }

    /// The calls pane's positions under the filter in force, if any.
    pub fn filtered(&self) -> Option<&[usize]> {
        self.filter.as_ref().map(|f| f.rows.as_slice())
    }
}

/// `airlock review`.
#[derive(Debug, Clone, clap::Args)]
pub struct ReviewArgs {
    /// The session: its id, any unique part of it (`70c2`), or a path to a trail
    /// (.jsonl). Default: the newest.
    #[arg(value_name = "SESSION", conflicts_with = "last")]
    pub session: Option<String>,
    /// The newest session.
    #[arg(long)]
    pub last: bool,
}

/// Why a review could not be shown.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// The session argument names no single trail.
    #[error(transparent)]
    Resolve(#[from] crate::audit::reader::ResolveError),
    /// The trail could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The trail.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The terminal failed.
    #[error("terminal: {0}")]
    Terminal(#[from] std::io::Error),
}

/// A recorded call as the panes show calls: where it got to is the
/// timeline's [`CallEntry::status`], settled (the trail is read after the
/// fact, so a call still waiting or running there has no result).
fn row(c: &CallEntry) -> CallRow {
    let status = CallStatus::from_state(c.status().settled());
    let times = c.wait_run_ms();
    let outcome = c.finished.as_ref().map(|f| CallOutcome {
        status: f.status,
        duration_ms: f.duration_ms,
        wait_ms: times.map(|t| t.0),
        run_ms: times.and_then(|t| t.1),
        text: f.excerpt.clone(),
        is_error: f.is_error,
        truncated: f.truncated,
        structured: None,
        shell_cwd: None,
    });
    let recorded = Recorded {
        requested: (c.requested.line, c.requested.ts),
        decided: c.decided.as_ref().map(|d| (d.at.line, d.at.ts)),
        finished: c.finished.as_ref().map(|f| (f.at.line, f.at.ts)),
        output_bytes: c.finished.as_ref().map_or(0, |f| f.output_bytes),
        change: c.finished.as_ref().and_then(|f| f.change.clone()),
    };
    CallRow {
        info: c.call.clone(),
        status,
        decision: c.decided.as_ref().map(|d| d.decision.clone()),
        started_at: None,
        live: None,
        outcome,
        recorded: Some(Box::new(recorded)),
    }
}
