//! Drawing: one function per pane and overlay, each reading only the small
//! view of what it draws (no app, no I/O, no clock), so a frame is a pure
//! function of the state. The app builds the views and puts the screen
//! together (`app::draw`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

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
#[cfg(test)]
mod visible_tests;
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
    let right = crate::report::visible::one_line(&right);
    let used = crate::report::cells::width(&title) + crate::report::cells::width(&right);
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

/// Clear `area` for a box drawn over the panes, and blank the cells left
/// of it whose grapheme reaches into it: ratatui does not send a cell
/// covered by a wide grapheme before it to the terminal, so a pane's wide
/// character at the box's edge would hide the box's border and the first
/// character of its rows.
pub fn clear_overlay(f: &mut Frame, area: Rect) {
    f.render_widget(Clear, area);
    let buf = f.buffer_mut();
    let area = area.intersection(buf.area);
    for y in area.top()..area.bottom() {
        for x in buf.area.left()..area.left() {
            let w = crate::report::cells::grapheme(buf[(x, y)].symbol());
            if usize::from(x) + w > usize::from(area.left()) {
                buf[(x, y)].reset();
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::widgets::{Block, Borders};

    /// A box drawn at column 5 over a pane whose row holds a 3-cell
    /// grapheme (ｶﾞ) at column 3: what the terminal is sent.
    fn boxed_over_wide(overlay: fn(&mut Frame, Rect)) -> String {
        let mut t = Terminal::new(TestBackend::new(20, 3)).unwrap();
        t.draw(|f| {
            let pane = Line::raw("abc\u{FF76}\u{FF9E}defghijklmno");
            f.render_widget(
                Paragraph::new(vec![pane.clone(), pane.clone(), pane]),
                f.area(),
            );
            let area = Rect::new(5, 0, 10, 3);
            overlay(f, area);
            f.render_widget(Block::default().borders(Borders::ALL), area);
            f.render_widget(Paragraph::new("X"), Rect::new(6, 1, 8, 1));
        })
        .unwrap();
        t.backend().to_string()
    }

    #[test]
    fn a_box_over_a_wide_grapheme_keeps_its_edge() {
        let s = boxed_over_wide(clear_overlay);
        let rows: Vec<&str> = s.lines().collect();
        assert!(rows[0].contains('┌') && rows[2].contains('└'), "{s}");
        assert!(rows[1].contains("│X"), "{s}");
        // The control: a plain Clear leaves the grapheme, which covers the
        // box's left border in what reaches the terminal.
        let s = boxed_over_wide(|f, area| f.render_widget(Clear, area));
        assert!(!s.contains('┌') && !s.contains("│X"), "{s}");
    }
}
