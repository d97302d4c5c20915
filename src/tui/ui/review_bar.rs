//! The status bar of `airlock review`: that this is a review (read-only),
//! the session (workspace, start, duration, how it ended), whether the
//! trail's hash chain verifies — in red when it does not, or when its last
//! line is torn — the calls by decision, and the filter field or the keys.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{status, theme, wrap::fit};
use crate::report::human_duration_ms;
use chrono::FixedOffset;

use crate::tui::keymap::Context;
use crate::tui::review::Review;
use crate::tui::text_input::TextInput;

/// What the review's status bar draws.
#[derive(Debug, Clone, Copy)]
pub struct ReviewBar<'a> {
    /// The trail under review.
    pub review: &'a Review,
    /// Times are shown at this offset.
    pub tz: FixedOffset,
    /// A notice to show instead of the keys.
    pub notice: Option<&'a str>,
    /// What keys mean now (the hints).
    pub context: Context,
}

/// Draw the review's status bar in `area` (three rows).
pub fn draw(f: &mut Frame, app: &ReviewBar, area: Rect) {
    let r = app.review;
    let bar = Style::default().bg(Color::Indexed(236));
    let lines = vec![
        session_line(app, r).style(bar),
        integrity_line(r, area.width as usize).style(bar),
        keys_line(app, r).style(bar),
    ];
    f.render_widget(Paragraph::new(lines).style(bar), area);
}

fn session_line(app: &ReviewBar, r: &Review) -> Line<'static> {
    let t = &r.timeline;
    let mut spans = vec![
        Span::styled(
            " airlock ",
            Style::default()
                .fg(Color::Black)
                .bg(Color::Cyan)
                .add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            " REVIEW · read-only ",
            Style::default()
                .fg(Color::Black)
                .bg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
        ),
    ];
    let workspace = r.workspace().unwrap_or("(no session_start record)");
    spans.push(Span::raw(format!(" {workspace} ")));
    let started = t
        .session
        .as_ref()
        .map(|s| s.started)
        .or(t.first.map(|m| m.ts));
    if let Some(at) = started {
        let at = at.with_timezone(&app.tz).format("%Y-%m-%d %H:%M:%S");
        spans.push(Span::styled(format!("· {at} "), theme::dim()));
    }
    if let Some(d) = t.duration() {
        let ms = d.num_milliseconds().max(0).cast_unsigned();
        spans.push(Span::styled(
            format!("· {} ", human_duration_ms(ms)),
            theme::dim(),
        ));
    }
    match &t.ended {
        Some((_, reason)) => spans.push(Span::styled(format!("· ended: {reason} "), theme::dim())),
        None => spans.push(Span::styled(
            "· no session_end: still running, or killed ",
            theme::key(),
        )),
    }
    Line::from(spans)
}

/// Whether the chain verifies, then the counts.
fn integrity_line(r: &Review, width: usize) -> Line<'static> {
    let v = &r.verify;
    let alarm = Style::default()
        .fg(Color::White)
        .bg(Color::Red)
        .add_modifier(Modifier::BOLD);
    let mut spans = match &v.error {
        None => vec![Span::styled(
            format!(" ✓ hash chain verified: {} records ", v.verified),
            Style::default().fg(Color::Green),
        )],
        Some(e) if v.torn_tail => vec![Span::styled(
            format!(
                " ✗ TORN LAST LINE {}: cut off mid-write; the {} lines before it verify ",
                e.line, v.verified
            ),
            alarm,
        )],
        Some(e) => vec![Span::styled(
            format!(
                " ✗ DOES NOT VERIFY at line {}: {} ",
                e.line,
                fit(&e.message, width.saturating_sub(30))
            ),
            alarm,
        )],
    };
    let bad = r.timeline.problems.len();
    if bad > 0 {
        spans.push(Span::styled(
            format!(" {bad} lines not understood "),
            theme::key(),
        ));
    }
    let c = r.timeline.counts();
    spans.push(Span::styled(" │ ", theme::dim()));
    spans.push(Span::raw(format!("{} calls: ", c.calls)));
    let parts = [
        (c.auto, "auto", theme::added()),
        (c.user, "by you", theme::added()),
        (c.denied, "denied", Style::default().fg(Color::Magenta)),
        (c.blocked, "blocked", theme::error()),
        (
            c.unanswered,
            "unanswered",
            Style::default().fg(Color::Yellow),
        ),
        (c.errors, "failed", theme::error()),
    ];
    for (n, word, style) in parts {
        spans.push(Span::styled(format!("{n} {word} "), style));
    }
    Line::from(spans)
}

/// The filter field while it is open; else a notice, or the filter in
/// force and the keys.
fn keys_line(app: &ReviewBar, r: &Review) -> Line<'static> {
    let mut spans = Vec::new();
    if let Some(input) = &r.typing {
        spans.push(Span::styled(" filter /", theme::key()));
        spans.extend(field(input));
        spans.push(Span::styled("  Enter", theme::key()));
        spans.push(Span::raw(" apply  "));
        spans.push(Span::styled("Esc", theme::key()));
        spans.push(Span::raw(" clear"));
        return Line::from(spans);
    }
    spans.push(Span::raw(" "));
    if let Some(flt) = &r.filter {
        spans.push(Span::styled(
            format!("/{} ", fit(&flt.text, 30)),
            Style::default().fg(Color::Black).bg(Color::Yellow),
        ));
        spans.push(Span::raw(format!(
            " {} of {} calls ",
            flt.rows.len(),
            r.timeline.calls.len()
        )));
        spans.push(Span::styled("│ ", theme::dim()));
    }
    match app.notice {
        Some(n) => spans.push(Span::styled(
            n.to_string(),
            Style::default().fg(Color::Yellow),
        )),
        None => spans.extend(status::hints(app.context)),
    }
    Line::from(spans)
}

/// The field's text with its cursor.
fn field(input: &TextInput) -> Vec<Span<'static>> {
    let text: Vec<char> = input.text().chars().collect();
    let at = input.cursor().min(text.len());
    let before: String = text[..at].iter().collect();
    let cursor: String = text
        .get(at)
        .map_or(" ".into(), std::string::ToString::to_string);
    let after: String = text
        .get(at + 1..)
        .map_or(String::new(), |t| t.iter().collect());
    vec![
        Span::raw(before),
        Span::styled(cursor, Style::default().add_modifier(Modifier::REVERSED)),
        Span::raw(after),
    ]
}
