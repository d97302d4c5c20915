//! Drawing: one function per pane and overlay, each reading only the small
//! view of what it draws (no app, no I/O, no clock), so a frame is a pure
//! function of the state. The app builds the views and puts the screen
//! together (`app::draw`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub mod audit;
pub mod calls;
pub mod detail;
pub mod diff;
pub mod grants;
pub mod help;
pub mod layout;
pub mod prompt;
pub mod review_bar;
pub mod status;
pub mod theme;
pub mod wrap;

/// A pane's title line: the title, a rule, and `right` at the end.
pub fn pane_title(f: &mut Frame, area: Rect, title: &str, right: &str, focused: bool) {
    if area.height == 0 {
        return;
    }
    let line_area = Rect { height: 1, ..area };
    let width = area.width as usize;
    let title = format!(" {} ", wrap::fit(title, width.saturating_sub(2)));
    let right = if right.is_empty() {
        String::new()
    } else {
        format!(" {right} ")
    };
    let used = title.chars().count() + right.chars().count();
    let fill = width.saturating_sub(used);
    let mut spans = vec![
        Span::styled(title, theme::title(focused)),
        Span::styled("─".repeat(fill), theme::rule()),
    ];
    if used <= width {
        spans.push(Span::styled(right, theme::dim()));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), line_area);
}

/// What the prompt, the list and the detail say about a call the agent
/// runs itself (its own tool, reported through its hooks): airlock decides
/// and records it, but does not run or sandbox it.
pub fn agent_runs(runner: &crate::call::Runner) -> Option<String> {
    match runner {
        crate::call::Runner::Airlock => None,
        crate::call::Runner::Agent { native_tool, .. } => Some(format!(
            "the agent runs this call itself ({}), outside airlock's sandbox",
            crate::report::visible::one_line(native_tool)
        )),
    }
}

/// [`agent_runs`] as a warning line.
pub fn agent_runs_line(runner: &crate::call::Runner) -> Option<Line<'static>> {
    let text = agent_runs(runner)?;
    Some(Line::from(vec![
        Span::styled("⚠ ", theme::warning()),
        Span::styled(text, theme::key()),
    ]))
}
