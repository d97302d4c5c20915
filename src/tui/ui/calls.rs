//! The calls pane: one line per call, newest at the bottom. Only the rows
//! in view are built, so the list costs the same with 100,000 calls.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{pane_title, theme, wrap::pad};
use chrono::{DateTime, FixedOffset, Utc};

use crate::tui::calls::CallRow;

/// Width of the agent column.
const AGENT: usize = 12;
/// Width of the tool column.
const TOOL: usize = 10;

/// What the calls pane draws: the rows in view and what the title says.
#[derive(Debug)]
pub struct CallsPane<'a> {
    /// The title (`Calls (12)`).
    pub title: String,
    /// The right end of the title line (following, where the selection is).
    pub state: String,
    /// Keys go to this pane.
    pub focused: bool,
    /// The rows in view, top first, each with whether it is selected.
    pub rows: Vec<(&'a CallRow, bool)>,
    /// What to say when there is no row at all.
    pub empty: String,
    /// The time now (the spinner).
    pub now: DateTime<Utc>,
    /// Times are shown at this offset.
    pub tz: FixedOffset,
}

/// Draw the calls pane in `area` (title line included).
pub fn draw(f: &mut Frame, pane: &CallsPane, area: Rect) {
    pane_title(f, area, &pane.title, &pane.state, pane.focused);
    let body = super::layout::body(area);
    if body.height == 0 {
        return;
    }
    if pane.rows.is_empty() {
        let hint = Line::styled(pane.empty.clone(), theme::dim());
        f.render_widget(Paragraph::new(hint), body);
        return;
    }
    let width = body.width as usize;
    let lines: Vec<Line> = pane
        .rows
        .iter()
        .map(|&(row, selected)| {
            let (icon, style) = theme::status(row.status, pane.now);
            let fixed = 2 + 9 + AGENT + 1 + TOOL + 1;
            let room = width.saturating_sub(fixed);
            let shown = shown_summary(row);
            let summary = pad(&shown, room);
            let line = Line::from(vec![
                Span::styled(format!("{icon} "), style),
                Span::styled(
                    format!("{} ", theme::clock(row.info.received_at, &pane.tz)),
                    theme::dim(),
                ),
                Span::raw(format!("{} ", pad(row.info.agent.display_name(), AGENT))),
                Span::styled(format!("{} ", pad(&row.info.tool, TOOL)), theme::heading()),
                Span::raw(summary),
            ]);
            if selected {
                line.style(theme::selected(pane.focused))
            } else {
                line
            }
        })
        .collect();
    f.render_widget(Paragraph::new(lines), body);
}

/// The call's summary; after an edit the command that ran, then the
/// agent's proposal.
fn shown_summary(row: &CallRow) -> String {
    let one = crate::tui::reveal::one_line;
    let edited = row
        .decision
        .as_ref()
        .filter(|d| d.is_approved())
        .and_then(|d| d.edited_command());
    // A command as it is, never the tool's shortened summary of it.
    let exec = row.info.kind == Some(crate::call::ToolKind::Exec);
    let proposed = match &row.info.view {
        crate::call::CallView::Command { command, .. } => one(command),
        // A reviewed call has no view: its recorded command, as its tool
        // reads the recorded arguments.
        _ => match crate::tools::recorded_command(&row.info.tool, &row.info.args) {
            Some(c) if exec => one(c),
            _ => one(&row.info.summary),
        },
    };
    let shown = match edited {
        Some(e) => format!("✎ {} (proposed: {proposed})", one(e)),
        None => proposed,
    };
    // Said first, so it is never cut off.
    match &row.info.runner {
        crate::call::Runner::Agent { native_tool, .. } => {
            format!("[agent runs it: {}] {shown}", one(native_tool))
        }
        crate::call::Runner::Airlock => shown,
    }
}
