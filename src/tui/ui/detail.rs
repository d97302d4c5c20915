//! The detail pane: the selected call's arguments, the decision and who
//! made it, and the result — or, while it runs, a spinner, the elapsed
//! time and the live output.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::Value;
use std::fmt::Write as _;

use super::{diff, pane_title, theme, wrap};
use crate::call::{DecidedBy, Decision};
use crate::tui::calls::{CallRow, CallStatus};
use chrono::{DateTime, FixedOffset, Utc};

/// Most lines of one argument shown.
const ARG_LINES: usize = 30;

/// Most bytes of a diff shown here (the prompt shows it all).
const DIFF_BYTES: usize = 128 * 1024;

/// What the detail pane draws: the selected call.
#[derive(Debug, Clone, Copy)]
pub struct DetailPane<'a> {
    /// The selected call, if any.
    pub row: Option<&'a CallRow>,
    /// Keys go to this pane.
    pub focused: bool,
    /// Lines scrolled from the top; `None` shows the top, or the newest
    /// output of a running call.
    pub scroll: Option<usize>,
    /// The time now (the spinner, how long it has run).
    pub now: DateTime<Utc>,
    /// Times are shown at this offset.
    pub tz: FixedOffset,
}

/// Draw the detail pane in `area` (title line included).
pub fn draw(f: &mut Frame, pane: &DetailPane, area: Rect) {
    let (focused, row) = (pane.focused, pane.row);
    let title = match row {
        Some(r) => format!("Call #{} · {}", r.info.id, r.info.tool),
        None => "Detail".to_string(),
    };
    pane_title(f, area, &title, "", focused);
    let body = super::layout::body(area);
    let rows = lines(pane, area.width);
    let height = body.height as usize;
    let top = pane
        .scroll
        .unwrap_or_else(|| auto_top(pane, rows.len(), height))
        .min(rows.len().saturating_sub(1));
    let visible: Vec<Line> = rows.into_iter().skip(top).take(height).collect();
    f.render_widget(Paragraph::new(visible), body);
}

/// The first line shown when the human has not scrolled: the top, or the
/// newest output of a running call.
pub fn auto_top(pane: &DetailPane, total: usize, height: usize) -> usize {
    let running = pane.row.is_some_and(|r| r.status == CallStatus::Running);
    if running {
        total.saturating_sub(height)
    } else {
        0
    }
}

/// The pane's content, wrapped to `width`.
pub fn lines(pane: &DetailPane, width: u16) -> Vec<Line<'static>> {
    let width = width as usize;
    let Some(row) = pane.row else {
        return vec![Line::styled("No call selected.", theme::dim())];
    };
    let mut out = Vec::new();
    let info = &row.info;
    out.push(Line::from(vec![
        Span::styled(format!("#{} ", info.id), theme::dim()),
        Span::styled(
            info.tool.clone(),
            theme::heading().add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            format!(
                " from {} at {}",
                info.agent.display_name(),
                theme::clock(info.received_at, &pane.tz)
            ),
            theme::dim(),
        ),
    ]));
    out.push(Line::raw(crate::tui::reveal::one_line(&info.summary)));
    out.extend(super::agent_runs_line(&info.runner));
    arguments(row, &mut out);
    decision(row, pane, &mut out);
    let mut rows = wrap::wrap_all(out, width);
    if let Some(c) = change(row) {
        rows.extend(wrap::wrap(section(&c.title), width));
        let shown = c.diff.map(|d| crate::audit::excerpt(d, DIFF_BYTES));
        let parsed = shown
            .as_deref()
            .map(crate::tui::diff::parse)
            .unwrap_or_default();
        rows.extend(diff::rows(&parsed, 0, usize::MAX, width));
        if c.cut {
            let note = Line::styled("… the trail keeps the diff only up to here", theme::dim());
            rows.extend(wrap::wrap(note, width));
        }
    }
    let mut tail = Vec::new();
    result(row, pane, &mut tail);
    trail(row, &mut tail);
    rows.extend(wrap::wrap_all(tail, width));
    rows
}

/// A write's change: proposed (live) or as the trail recorded it.
struct Change<'a> {
    title: String,
    diff: Option<&'a str>,
    /// The trail cut the diff.
    cut: bool,
}

fn change(row: &CallRow) -> Option<Change<'_>> {
    let word = |a: crate::call::WriteAction| format!("{a:?}").to_lowercase();
    if let Some(p) = &row.info.proposal {
        return Some(Change {
            title: format!("change: {} ({}, {})", p.path, word(p.action), p.summary()),
            diff: p.diff.as_deref(),
            cut: false,
        });
    }
    let c = row.recorded.as_ref()?.change.as_ref()?;
    Some(Change {
        title: format!("change: {} ({}, {})", c.path, word(c.action), c.summary),
        diff: c.diff.as_deref(),
        cut: c.diff_truncated,
    })
}

fn section(title: &str) -> Line<'static> {
    Line::styled(format!("── {title}"), theme::heading())
}

fn arguments(row: &CallRow, out: &mut Vec<Line<'static>>) {
    let Value::Object(args) = &row.info.args else {
        return;
    };
    if args.is_empty() {
        return;
    }
    out.push(section("arguments"));
    let has_diff = change(row).is_some_and(|c| c.diff.is_some());
    // The tool says which arguments its change shows.
    let in_change = crate::tools::change_args(&row.info.tool);
    for (k, v) in args {
        if has_diff && in_change.contains(&k.as_str()) {
            let n = v.as_str().map_or(0, |s| s.lines().count());
            out.push(Line::from(vec![
                Span::styled(format!("{k}: "), theme::dim()),
                Span::styled(
                    format!("{}, shown as the change below", theme::count(n, "line")),
                    theme::dim(),
                ),
            ]));
            continue;
        }
        let text = match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let (lines, _) = crate::tui::reveal::lines(&text, ratatui::style::Style::default());
        let mut lines = lines.into_iter();
        let mut first = vec![Span::styled(format!("{k}: "), theme::dim())];
        first.extend(lines.next().unwrap_or_default());
        out.push(Line::from(first));
        let rest: Vec<_> = lines.collect();
        let n = rest.len();
        for l in rest.into_iter().take(ARG_LINES) {
            let mut spans = vec![Span::raw("  ")];
            spans.extend(l);
            out.push(Line::from(spans));
        }
        if n > ARG_LINES {
            out.push(Line::styled(
                format!(
                    "  … {} more (the prompt and the trail have it all)",
                    theme::count(n - ARG_LINES, "line")
                ),
                theme::dim(),
            ));
        }
    }
}

/// "approved by you", "blocked by rule …", with the reason.
pub fn describe(d: &Decision) -> String {
    d.describe()
}

fn decision(row: &CallRow, pane: &DetailPane, out: &mut Vec<Line<'static>>) {
    out.push(section("decision"));
    let recorded = row.recorded.as_deref();
    match &row.decision {
        Some(d) => {
            let style = if d.is_approved() {
                theme::added()
            } else {
                theme::error()
            };
            out.push(Line::styled(describe(d), style));
            if let Some(e) = d.edited_command() {
                let label = if d.is_approved() {
                    "edited by you; runs instead: "
                } else {
                    "your edit, not run: "
                };
                out.push(Line::from(vec![
                    Span::styled(label, theme::dim()),
                    Span::raw(e.to_string()),
                ]));
            }
            if let Some((r, (_, at))) = recorded.and_then(|r| Some((r, r.decided?))) {
                let mut when = format!("at {}", theme::clock(at, &pane.tz));
                // How long it waited, when someone was asked.
                if matches!(
                    d.by(),
                    DecidedBy::User
                        | DecidedBy::Timeout
                        | DecidedBy::Cancelled
                        | DecidedBy::Disconnected
                        | DecidedBy::Shutdown
                        | DecidedBy::ConfirmerFailed
                ) {
                    let ms = (at - r.requested.1)
                        .num_milliseconds()
                        .max(0)
                        .cast_unsigned();
                    let _ = write!(when, ", {} after the request", theme::duration_ms(ms));
                }
                out.push(Line::styled(when, theme::dim()));
            }
        }
        None if recorded.is_some() => out.push(Line::styled(
            "no decision recorded: the session ended or was killed first",
            theme::key(),
        )),
        None if row.status == CallStatus::Waiting => {
            out.push(Line::styled(
                "waiting for you (see the prompt)",
                theme::key(),
            ));
        }
        None => out.push(Line::styled("not decided yet", theme::dim())),
    }
}

fn result(row: &CallRow, pane: &DetailPane, out: &mut Vec<Line<'static>>) {
    if row.status == CallStatus::Running {
        let elapsed = row.started_at.map_or(0, |s| {
            (pane.now - s).num_milliseconds().max(0).cast_unsigned()
        });
        out.push(Line::from(vec![
            Span::styled(
                format!("── output {} ", theme::spinner(pane.now)),
                theme::heading(),
            ),
            Span::styled(
                format!("running for {}", theme::duration_ms(elapsed)),
                theme::heading(),
            ),
        ]));
        if let Some(live) = &row.live {
            for l in live.text().lines() {
                out.push(Line::raw(l.to_string()));
            }
        }
        return;
    }
    let Some(o) = &row.outcome else {
        if row.status == CallStatus::Unfinished
            && row
                .decision
                .as_ref()
                .is_some_and(crate::call::Decision::is_approved)
        {
            let (icon, style) = theme::status(row.status, pane.now);
            out.push(Line::styled(
                format!(
                    "── result {icon} none recorded: the session ended or was killed while it ran"
                ),
                style,
            ));
        }
        return;
    };
    let (icon, style) = theme::status(row.status, pane.now);
    let mut head = format!(
        "── result {icon} {} · {}",
        o.status,
        theme::timing(o.duration_ms, o.wait_ms, o.run_ms)
    );
    if o.truncated {
        head.push_str(" (truncated)");
    }
    if let Some(r) = &row.recorded
        && r.output_bytes > o.text.len()
    {
        let _ = write!(head, " · the first part of {} bytes", r.output_bytes);
    }
    out.push(Line::styled(head, style));
    for l in o.text.lines() {
        out.push(Line::raw(l.to_string()));
    }
}

/// Where a reviewed call's records are in the trail.
fn trail(row: &CallRow, out: &mut Vec<Line<'static>>) {
    let Some(r) = &row.recorded else { return };
    let mut text = format!("── trail: line {} request", r.requested.0);
    if let Some((line, _)) = r.decided {
        let _ = write!(text, ", {line} decision");
    }
    if let Some((line, _)) = r.finished {
        let _ = write!(text, ", {line} result");
    }
    out.push(Line::styled(text, theme::dim()));
}
