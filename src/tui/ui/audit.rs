//! The audit pane: the trail's records as they are written.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{pane_title, theme, wrap::fit};
use crate::tui::app::{App, Focus};

/// Draw the audit pane in `area` (title line included).
pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let focused = app.focus == Focus::Audit && app.prompts.is_empty();
    let file = app
        .header
        .audit
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    pane_title(f, area, "Audit", &file, focused);
    let body = super::layout::body(area);
    let first = app.audit_first;
    let end = first + app.audit.len();
    let selected = app.audit_view.selection(first, end);
    let (start, stop) = app.audit_view.window(first, end, body.height as usize);
    let width = body.width as usize;
    let lines: Vec<Line> = (start..stop)
        .filter_map(|pos| Some((pos, app.audit.get(pos - first)?)))
        .map(|(pos, a)| {
            let head = format!("{:>4} {} {:<14} ", a.seq, a.time, fit(&a.kind, 14));
            let room = width.saturating_sub(head.chars().count());
            let style = match a.kind.as_str() {
                "call_decided" if a.text.contains(" refused ") => theme::error(),
                "call_decided" => theme::added(),
                "grant_added" | "grant_revoked" | "rule_saved" => theme::key(),
                _ => ratatui::style::Style::default(),
            };
            let line = Line::from(vec![
                Span::styled(head, theme::dim()),
                Span::styled(format!("{:<room$}", fit(&a.text, room)), style),
            ]);
            if focused && Some(pos) == selected {
                line.style(theme::selected(true))
            } else {
                line
            }
        })
        .collect();
    f.render_widget(Paragraph::new(lines), body);
}
