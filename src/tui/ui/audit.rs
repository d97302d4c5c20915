//! The audit pane: the trail's records as they are written (or, in a
//! review, as the trail holds them). Colours come from what a record says
//! ([`Tone`]), never from its words.

use std::borrow::Cow;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{pane_title, theme, wrap::pad};
use crate::tui::records::{AuditLine, Tone};

/// Width of the record type column: the longest type, `agent_disconnected`.
const KIND: usize = 18;

/// What the audit pane draws.
#[derive(Debug)]
pub struct AuditPane<'a> {
    /// The trail's file name (the title's right end).
    pub file: String,
    /// Keys go to this pane.
    pub focused: bool,
    /// The records in view, top first.
    pub rows: Vec<AuditRow<'a>>,
}

/// One record in view.
#[derive(Debug)]
pub struct AuditRow<'a> {
    /// Its line number in the trail.
    pub number: u64,
    /// The record.
    pub line: Cow<'a, AuditLine>,
    /// The trail's hash chain breaks here.
    pub broken: bool,
    /// It is selected (in the focused pane).
    pub selected: bool,
}

/// A record's colour.
fn tone(t: Tone) -> Style {
    match t {
        Tone::Refused | Tone::Unreadable => theme::error(),
        Tone::Approved => theme::added(),
        Tone::Grant => theme::key(),
        Tone::Plain => Style::default(),
    }
}

/// Draw the audit pane in `area` (title line included).
pub fn draw(f: &mut Frame, pane: &AuditPane, area: Rect) {
    pane_title(f, area, "Audit", &pane.file, pane.focused);
    let body = super::layout::body(area);
    let width = body.width as usize;
    let lines: Vec<Line> = pane
        .rows
        .iter()
        .map(|r| {
            let a = &r.line;
            let head = format!("{:>4} {} {} ", r.number, a.time, pad(&a.kind, KIND));
            let room = width.saturating_sub(crate::report::cells::width(&head));
            let style = if r.broken {
                theme::error().add_modifier(Modifier::REVERSED)
            } else {
                tone(a.tone)
            };
            let line = Line::from(vec![
                Span::styled(head, theme::dim()),
                Span::styled(pad(&a.text, room), style),
            ]);
            if r.selected {
                line.style(theme::selected(true))
            } else {
                line
            }
        })
        .collect();
    f.render_widget(Paragraph::new(lines), body);
}
