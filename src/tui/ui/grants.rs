//! The grants view (what "approve for this session" allowed, revocable)
//! and the quit question.

use ratatui::Frame;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::{theme, wrap};
use chrono::FixedOffset;

use crate::policy::Grant;

/// What the grants view draws.
#[derive(Debug, Clone, Copy)]
pub struct GrantsView<'a> {
    /// The session's grants.
    pub grants: &'a [Grant],
    /// The session has had a grant (so an empty list means all revoked).
    pub had_grants: bool,
    /// Times are shown at this offset.
    pub tz: FixedOffset,
    /// The highlighted grant.
    pub selected: usize,
}

/// Draw the grants view.
pub fn draw(f: &mut Frame, app: &GrantsView) {
    let selected = app.selected;
    let longest = app
        .grants
        .iter()
        .map(|g| crate::report::cells::width(&crate::report::visible::one_line(&g.rule)))
        .max()
        .unwrap_or(0);
    let w = u16::try_from(longest)
        .unwrap_or(u16::MAX)
        .saturating_add(16)
        .clamp(72, f.area().width);
    let h = u16::try_from(app.grants.len().max(2))
        .unwrap_or(u16::MAX)
        .saturating_add(2);
    let area = super::layout::boxed(f.area(), w, h);
    super::clear_overlay(f, area);
    let block = Block::default().borders(Borders::ALL).title(Line::styled(
        " Session grants — d revokes, Esc closes ",
        theme::key(),
    ));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let width = inner.width as usize;
    let mut lines = Vec::new();
    if app.grants.is_empty() {
        lines.push(Line::styled(
            if app.had_grants {
                "No grants left: every grant of this session was revoked. At a prompt, s grants again."
            } else {
                "No grants yet. At a prompt, s approves a command, a prefix or a file for the rest of the session."
            },
            theme::dim(),
        ));
    }
    for (i, g) in app.grants.iter().enumerate() {
        let text = format!(
            " {:>3}  {}  {}",
            g.id,
            theme::clock(g.created, &app.tz),
            g.rule
        );
        let line = Line::raw(wrap::fit(&text, width));
        lines.push(if i == selected {
            line.style(theme::selected(true))
        } else {
            line
        });
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        concat!(
            "Grants end with this session; rules saved with `a` stay in ",
            crate::dirs::project_config!(),
            ".",
        ),
        theme::dim(),
    ));
    f.render_widget(Paragraph::new(wrap::wrap_all(lines, width)), inner);
}

/// "Quit and cancel the waiting calls?", with how many calls wait and run.
pub fn draw_quit(f: &mut Frame, waiting: usize, running: usize) {
    let lines = vec![
        Line::raw(format!(
            "{} for your answer, {running} running.",
            match waiting {
                1 => "1 call waits".to_string(),
                n => format!("{n} calls wait"),
            }
        )),
        Line::raw("Quitting cancels the waiting calls (the agent is told"),
        Line::raw("\"the supervisor closed\") and stops the running ones."),
        Line::raw(""),
        Line::from(vec![
            Span::styled("y", theme::key()),
            Span::raw(" quit   "),
            Span::styled("n", theme::key()),
            Span::raw(" stay"),
        ])
        .style(Style::default().add_modifier(Modifier::BOLD)),
    ];
    let w = u16::try_from(lines.iter().map(Line::width).max().unwrap_or(0)).unwrap_or(u16::MAX);
    let h = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    let area = super::layout::boxed(f.area(), w.saturating_add(2), h);
    super::clear_overlay(f, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Line::styled(" Quit airlock? ", theme::key()));
    let inner = block.inner(area);
    f.render_widget(block, area);
    f.render_widget(
        Paragraph::new(wrap::wrap_all(lines, inner.width as usize)),
        inner,
    );
}
