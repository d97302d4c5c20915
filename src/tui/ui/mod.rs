//! Drawing: one function per pane and overlay, all reading [`App`] only
//! (no I/O, no clock), so a frame is a pure function of the state.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::{App, Overlay};
use crate::tui::keymap::{HELP, REVIEW_HELP};

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

/// Draw the whole screen.
pub fn draw(f: &mut Frame, app: &App) {
    let p = app.panes(f.area());
    calls::draw(f, app, p.calls);
    detail::draw(f, app, p.detail);
    audit::draw(f, app, p.audit);
    match &app.review {
        Some(r) => review_bar::draw(f, app, r, p.status),
        None => status::draw(f, app, p.status),
    }
    prompt::draw(f, app);
    match app.overlay {
        Some(Overlay::Help) if app.review.is_some() => help::draw(f, REVIEW_HELP, None),
        Some(Overlay::Help) => {
            let note = format!(
                "{}\nAgents connect with `airlock connect` (socket {}).",
                help::KEY_GUARD_NOTE,
                app.header.socket.display()
            );
            help::draw(f, HELP, Some(&note))
        }
        Some(Overlay::Grants { selected }) => grants::draw(f, app, selected),
        Some(Overlay::QuitConfirm) => grants::draw_quit(f, app),
        None => {}
    }
}

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
