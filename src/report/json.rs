//! `airlock log --json`: the trail's records as they are (byte for byte,
//! so they still verify), one per line, filtered by call.

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

use serde::de::IgnoredAny;

use super::filter::{CallFilter, Tri};
use super::log::LogSummary;
use crate::audit::reader::{LineProblem, parse_record};
use crate::audit::timeline::Timeline;
use crate::call::CallId;

/// Just enough of a record to tell one from other JSON.
#[derive(serde::Deserialize)]
struct MinimalRecord {
    #[serde(rename = "seq")]
    _seq: u64,
    #[serde(rename = "type")]
    _kind: IgnoredAny,
}

/// Split `bytes` into `(line number, line without newline)`; the bytes
/// after the last newline are returned apart.
fn lines(bytes: &[u8]) -> (Vec<(usize, &[u8])>, &[u8]) {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'\n' {
            out.push((out.len() + 1, &bytes[start..i]));
            start = i + 1;
        }
    }
    (out, &bytes[start..])
}

/// Write the records of the trail at `path` that pass `filter`: a call's
/// records (request, decision, result) when the call matches; the other
/// records when no call filter is set (and, with `--since`, by their time).
/// Lines that are not records and a torn last line are skipped and
/// reported in the summary.
pub fn write_json(
    w: &mut dyn Write,
    path: &Path,
    filter: &CallFilter,
) -> std::io::Result<LogSummary> {
    let bytes = std::fs::read(path)?;
    let (all, tail) = lines(&bytes);
    let mut summary = LogSummary {
        torn_tail: (!tail.is_empty()).then(|| LineProblem::torn(all.len() + 1, tail.len())),
        ..LogSummary::default()
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 16, w);
    let blank = |l: &[u8]| l.iter().all(u8::is_ascii_whitespace);
    if filter.is_empty() {
        for (n, line) in all {
            if blank(line) {
                continue;
            }
            match serde_json::from_slice::<MinimalRecord>(line) {
                Ok(_) => {
                    out.write_all(line)?;
                    out.write_all(b"\n")?;
                    summary.records_written += 1;
                }
                Err(e) => summary.problems.push(LineProblem {
                    line: n,
                    message: format!("not an audit record: {e}"),
                }),
            }
        }
        out.flush()?;
        return Ok(summary);
    }
    // Pass 1: read every record into the timeline, remembering which call
    // each line belongs to. Pass 2: write the lines of matching calls.
    let mut t = Timeline::default();
    let mut keep: Vec<(&[u8], Option<CallId>, chrono::DateTime<chrono::Utc>)> = Vec::new();
    for (n, line) in all {
        if blank(line) {
            continue;
        }
        match parse_record(n, line) {
            Ok(r) => {
                keep.push((line, r.call_id(), r.ts));
                t.push(r);
            }
            Err(p) => summary.problems.push(p),
        }
    }
    let matching: HashSet<CallId> = t
        .calls
        .iter()
        .filter(|c| filter.check(c, true) == Tri::Yes)
        .map(|c| c.call.id)
        .collect();
    summary.total_calls = t.calls.len();
    summary.shown_calls = matching.len();
    summary.problems.extend(t.problems.iter().cloned());
    for (line, call, ts) in keep {
        let pass = match call {
            Some(id) => matching.contains(&id),
            None => filter.passes_event(ts),
        };
        if pass {
            out.write_all(line)?;
            out.write_all(b"\n")?;
            summary.records_written += 1;
        }
    }
    out.flush()?;
    Ok(summary)
}
