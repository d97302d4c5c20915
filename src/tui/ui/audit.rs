//! The audit pane: the trail's records as they are written.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{pane_title, theme, wrap::fit};
use crate::tui::app::{App, Focus};

/// Width of the record type column: the longest type, `agent_disconnected`.
const KIND: usize = 18;

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
    let (first, end) = app.audit_span();
    let selected = app.audit_view.selection(first, end);
    let (start, stop) = app.audit_view.window(first, end, body.height as usize);
    let width = body.width as usize;
    let bad_line = app.review.as_ref().and_then(|r| r.bad_line());
    let lines: Vec<Line> = (start..stop)
        .filter_map(|pos| Some((pos, app.audit_line(pos)?)))
        .map(|(pos, a)| {
            // Live and in a review: the trail's line number, as `log
            // --verify` says it (a record's seq counts from 0 on line 1).
            let num = match app.review {
                Some(_) => pos as u64 + 1,
                None => a.seq + 1,
            };
            let head = format!("{:>4} {} {:<KIND$} ", num, a.time, fit(&a.kind, KIND));
            let room = width.saturating_sub(head.chars().count());
            let broken = bad_line == Some(pos + 1);
            let style = match a.kind.as_str() {
                _ if broken => theme::error().add_modifier(Modifier::REVERSED),
                "call_decided" if a.text.contains(" refused ") => theme::error(),
                "call_decided" => theme::added(),
                "grant_added" | "grant_revoked" | "rule_saved" => theme::key(),
                "unreadable" => theme::error(),
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
