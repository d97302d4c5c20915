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
    let (first, end) = (app.calls.first(), app.calls.end());
    let state = if app.calls_view.follow {
        "following".to_string()
    } else {
        "scrolled · G follows".to_string()
    };
    let title = format!("Calls ({})", app.calls.len());
    pane_title(f, area, &title, &state, focused);
    let body = super::layout::body(area);
    if body.height == 0 {
        return;
    }
    if app.calls.is_empty() {
        let hint = Line::styled(
            "No calls yet. Agents connect with `airlock connect` (see the status bar).",
            theme::dim(),
        );
        f.render_widget(Paragraph::new(hint), body);
        return;
    }
    let selected = app.calls_view.selection(first, end);
    let (start, stop) = app.calls_view.window(first, end, body.height as usize);
    let width = body.width as usize;
    let lines: Vec<Line> = app
        .calls
        .range(start, stop)
        .map(|(pos, row)| {
            let (icon, style) = theme::status(row.status, app.now);
            let fixed = 2 + 9 + AGENT + 1 + TOOL + 1;
            let room = width.saturating_sub(fixed);
            let summary = format!("{:<room$}", fit(&row.info.summary, room));
            let line = Line::from(vec![
                Span::styled(format!("{icon} "), style),
                Span::styled(
                    format!("{} ", theme::clock(row.info.received_at, &app.tz)),
                    theme::dim(),
                ),
                Span::raw(format!("{:<AGENT$} ", fit(&row.info.agent.name, AGENT))),
                Span::styled(
                    format!("{:<TOOL$} ", fit(&row.info.tool, TOOL)),
                    theme::heading(),
                ),
                Span::raw(summary),
            ]);
            if Some(pos) == selected {
                line.style(theme::selected(focused))
            } else {
                line
            }
        })
        .collect();
    f.render_widget(Paragraph::new(lines), body);
}
