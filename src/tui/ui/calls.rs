//! The calls pane: one line per call, newest at the bottom. Only the rows
//! in view are built, so the list costs the same with 100,000 calls.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{pane_title, theme, wrap::fit};
use crate::tui::app::{App, Focus};

/// Width of the agent column.
const AGENT: usize = 12;
/// Width of the tool column.
const TOOL: usize = 10;

/// Draw the calls pane in `area` (title line included).
pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let focused = app.focus == Focus::Calls && app.prompts.is_empty();
    let (first, end) = app.calls_span();
    let selected = app.calls_view.selection(first, end);
    let (title, state) = titles(app, first, end, selected);
    pane_title(f, area, &title, &state, focused);
    let body = super::layout::body(area);
    if body.height == 0 {
        return;
    }
    if end == first {
        let hint = match &app.review {
            Some(r) => match &r.filter {
                Some(flt) => format!("No call matches {:?}. Esc clears the filter.", flt.text),
                None => "This trail has no calls.".into(),
            },
            None => {
                "No calls yet. Agents connect with `airlock connect` (see the status bar).".into()
            }
        };
        f.render_widget(Paragraph::new(Line::styled(hint, theme::dim())), body);
        return;
    }
    let (start, stop) = app.calls_view.window(first, end, body.height as usize);
    let width = body.width as usize;
    let lines: Vec<Line> = (start..stop)
        .filter_map(|v| Some((v, app.calls.get(app.call_pos(v)?)?)))
        .map(|(v, row)| {
            let (icon, style) = theme::status(row.status, app.now);
            let fixed = 2 + 9 + AGENT + 1 + TOOL + 1;
            let room = width.saturating_sub(fixed);
            let shown = shown_summary(row);
            let summary = format!("{:<room$}", fit(&shown, room));
            let line = Line::from(vec![
                Span::styled(format!("{icon} "), style),
                Span::styled(
                    format!("{} ", theme::clock(row.info.received_at, &app.tz)),
                    theme::dim(),
                ),
                Span::raw(format!(
                    "{:<AGENT$} ",
                    fit(row.info.agent.display_name(), AGENT)
                )),
                Span::styled(
                    format!("{:<TOOL$} ", fit(&row.info.tool, TOOL)),
                    theme::heading(),
                ),
                Span::raw(summary),
            ]);
            if Some(v) == selected {
                line.style(theme::selected(focused))
            } else {
                line
            }
        })
        .collect();
    f.render_widget(Paragraph::new(lines), body);
}

/// The call's summary; after an edit the command that ran, then the
/// agent's proposal.
fn shown_summary(row: &crate::tui::calls::CallRow) -> String {
    let one = crate::tui::reveal::one_line;
    let edited = row
        .decision
        .as_ref()
        .filter(|d| d.is_approved())
        .and_then(|d| d.edited_command());
    // A command as it is, never the tool's shortened summary of it.
    let exec = row.info.kind == Some(crate::call::ToolKind::Exec);
    let proposed = match row.info.args.get("command").and_then(|c| c.as_str()) {
        Some(c) if exec => one(c),
        _ => one(&row.info.summary),
    };
    match edited {
        Some(e) => format!("✎ {} (proposed: {proposed})", one(e)),
        None => proposed,
    }
}

/// The title and what the right end of the title line says: following or
/// not in a live session; in a review, where the selection is (and the
/// filter).
fn titles(app: &App, first: usize, end: usize, selected: Option<usize>) -> (String, String) {
    let Some(r) = &app.review else {
        let state = if app.calls_view.follow {
            "following"
        } else {
            "scrolled · G follows"
        };
        return (format!("Calls ({})", app.calls.len()), state.into());
    };
    let at = selected.map_or(0, |s| s + 1 - first);
    match &r.filter {
        Some(flt) => (
            format!("Calls ({} of {})", end - first, app.calls.len()),
            format!("/{} · {at} of {}", fit(&flt.text, 24), end - first),
        ),
        None => (
            format!("Calls ({})", app.calls.len()),
            format!("{at} of {}", end - first),
        ),
    }
}
