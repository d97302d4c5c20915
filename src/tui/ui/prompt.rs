//! The approval prompt: over the panes, for the oldest waiting call. Bash
//! shows the command, its description and working directory; writes show
//! the diff. The footer changes with the step (choose, pick a scope, edit,
//! type a reason).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::{diff, theme, wrap};
use crate::tui::app::App;
use crate::tui::prompt::{PendingPrompt, Step};
use crate::tui::text_input::TextInput;

/// Draw the prompt for the front call, if any.
pub fn draw(f: &mut Frame, app: &App) {
    let Some(p) = app.prompts.front() else { return };
    let mut area = super::layout::prompt(f.area());
    let width = area.width.saturating_sub(2) as usize;
    let footer = footer(app, p, width);
    // A command prompt is as tall as it needs; a diff takes the room it gets.
    let text = text_body(app, p, width);
    if let Some(rows) = &text {
        let want = (rows.len() + footer.len() + 3) as u16;
        if want < area.height {
            area.y += (area.height - want) / 2;
            area.height = want;
        }
    }
    f.render_widget(Clear, area);
    let title = vec![
        Span::styled(" Approve? ", theme::key()),
        Span::raw(format!("{} · call #{} ", p.call.tool, p.call.id)),
        Span::styled(format!("· 1 of {} ", app.prompts.len()), theme::dim()),
    ];
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(Style::default().fg(ratatui::style::Color::Yellow))
        .title(Line::from(title));
    if let Some(left) = app.seconds_left() {
        block = block.title(
            Line::styled(
                format!(" answer within {} ", theme::countdown(left)),
                theme::key(),
            )
            .right_aligned(),
        );
    }
    let inner = block.inner(area);
    f.render_widget(block, area);
    let [body, foot] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(footer.len() as u16)])
            .areas(inner);
    match text {
        Some(rows) => f.render_widget(Paragraph::new(rows), body),
        None => draw_diff(f, app, p, body),
    }
    f.render_widget(Paragraph::new(footer), foot);
}

fn label(name: &str) -> Span<'static> {
    Span::styled(format!("{name:<6}"), theme::dim())
}

fn who(p: &PendingPrompt) -> Span<'static> {
    Span::styled(
        p.call.agent.name.clone(),
        Style::default().add_modifier(Modifier::BOLD),
    )
}

fn rule(p: &PendingPrompt) -> Line<'static> {
    Line::from(vec![
        label("rule"),
        Span::styled(
            format!("{} ({})", p.verdict.rule, p.verdict.source),
            theme::dim(),
        ),
    ])
}

/// The body of a prompt without a diff (bash and anything else), wrapped;
/// `None` for writes, whose diff is drawn to fit.
fn text_body(app: &App, p: &PendingPrompt, width: usize) -> Option<Vec<Line<'static>>> {
    if p.call.proposal.is_some() {
        return None;
    }
    let mut lines: Vec<Line<'static>> = Vec::new();
    if let Some(cmd) = p.command() {
        lines.push(Line::from(vec![
            who(p),
            Span::raw(" wants to run a command:"),
        ]));
        lines.push(Line::raw(""));
        for (i, l) in cmd.lines().enumerate() {
            let prefix = if i == 0 { "$ " } else { "  " };
            lines.push(Line::from(vec![
                Span::styled(prefix, theme::dim()),
                Span::styled(l.to_string(), Style::default().add_modifier(Modifier::BOLD)),
            ]));
        }
        lines.push(Line::raw(""));
        if let Some(d) = p.description() {
            lines.push(Line::from(vec![label("why"), Span::raw(d.to_string())]));
        }
        let (cwd, note) = match app.shell_cwd.get(&p.call.agent.id) {
            Some(cwd) => (cwd.clone(), " (after the agent's last command)"),
            None => (
                app.header.workspace.display().to_string(),
                " (the agent's shell starts here)",
            ),
        };
        lines.push(Line::from(vec![
            label("cwd"),
            Span::raw(cwd),
            Span::styled(note, theme::dim()),
        ]));
    } else {
        lines.push(Line::from(vec![
            who(p),
            Span::raw(format!(" wants to call {}:", p.call.tool)),
        ]));
        lines.push(Line::raw(p.call.summary.clone()));
        lines.push(Line::raw(p.call.args.to_string()));
    }
    lines.push(rule(p));
    Some(wrap::wrap_all(lines, width))
}

/// A write: what changes, then the diff from the scroll position.
fn draw_diff(f: &mut Frame, app: &App, p: &PendingPrompt, area: Rect) {
    let Some(prop) = &p.call.proposal else { return };
    let width = area.width as usize;
    let action = format!("{:?}", prop.action).to_lowercase();
    let lines = vec![
        Line::from(vec![
            who(p),
            Span::raw(format!(" wants to {action} ")),
            Span::styled(
                prop.path.clone(),
                Style::default().add_modifier(Modifier::BOLD),
            ),
            Span::raw(" "),
            Span::styled(format!("+{}", prop.added), theme::added()),
            Span::raw(" "),
            Span::styled(format!("−{}", prop.removed), theme::removed()),
        ]),
        rule(p),
    ];
    let mut rows = wrap::wrap_all(lines, width);
    let room = (area.height as usize).saturating_sub(rows.len() + 1);
    if prop.binary {
        rows.push(Line::styled(
            format!("binary content: {}", prop.summary()),
            theme::dim(),
        ));
    } else if p.diff.is_empty() {
        rows.push(Line::styled("no change", theme::dim()));
    } else {
        let from = app.prompts.scroll.min(p.diff.len().saturating_sub(1));
        let shown = diff::rows(&p.diff, from, room, width);
        let more = from > 0 || from + shown.len() < p.diff.len();
        let where_ = if more {
            format!(
                "diff line {} of {} · j/k PgUp/PgDn scroll",
                from + 1,
                p.diff.len()
            )
        } else {
            String::new()
        };
        rows.push(Line::styled(where_, theme::dim()));
        rows.extend(shown);
    }
    f.render_widget(Paragraph::new(rows), area);
}

fn hint(pairs: &[(&str, &str)]) -> Line<'static> {
    let mut spans = Vec::new();
    for (k, what) in pairs {
        spans.push(Span::styled(k.to_string(), theme::key()));
        spans.push(Span::raw(format!(" {what}  ")));
    }
    Line::from(spans)
}

fn footer(app: &App, p: &PendingPrompt, width: usize) -> Vec<Line<'static>> {
    let mut out = vec![Line::styled("─".repeat(width), theme::rule())];
    match &app.prompts.step {
        Step::Choose => {
            let mut keys = vec![
                ("y", "approve once"),
                ("s", "this session…"),
                ("a", "always…"),
            ];
            if p.command().is_some() {
                keys.push(("e", "edit"));
            }
            keys.push(("n", "deny…"));
            keys.push(("?", "help"));
            out.extend(wrap::wrap(hint(&keys), width));
        }
        Step::Session { selected } | Step::Always { selected } => {
            let always = matches!(app.prompts.step, Step::Always { .. });
            out.push(Line::styled(
                if always {
                    "Always allow — saved to the project's .airlock.toml:"
                } else {
                    "Approve now, and for the rest of this session:"
                },
                Style::default().add_modifier(Modifier::BOLD),
            ));
            for (i, c) in p.choices.iter().enumerate() {
                let text = if always {
                    format!(" {} allow {} ", i + 1, c.rules.join(", "))
                } else {
                    format!(" {} {} ", i + 1, c.label)
                };
                let style = if i == *selected {
                    theme::selected(true)
                } else {
                    Style::default()
                };
                out.extend(wrap::wrap(Line::styled(text, style), width));
            }
            out.push(hint(&[
                ("1-9 Enter", "confirm"),
                ("j/k", "choose"),
                ("Esc", "back"),
            ]));
        }
        Step::Edit(input) => {
            out.push(Line::styled(
                "Edit the command; it runs instead of the agent's, and the agent is told:",
                Style::default().add_modifier(Modifier::BOLD),
            ));
            out.extend(input_rows(input, width, "$ "));
            out.push(hint(&[
                ("Enter", "approve the edited command"),
                ("Esc", "back"),
            ]));
        }
        Step::Deny(input) => {
            out.push(Line::styled(
                "Deny. Reason for the agent (optional):",
                Style::default().add_modifier(Modifier::BOLD),
            ));
            out.extend(input_rows(input, width, "> "));
            out.push(hint(&[("Enter", "deny"), ("Esc", "back")]));
        }
    }
    out
}

/// The text field with its cursor, wrapped.
fn input_rows(input: &TextInput, width: usize, prefix: &str) -> Vec<Line<'static>> {
    let cursor = Style::default().add_modifier(Modifier::REVERSED);
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut spans = vec![Span::styled(prefix.to_string(), theme::dim())];
    let text = input.text();
    for (i, c) in text.chars().enumerate() {
        let at = i == input.cursor();
        if c == '\n' {
            if at {
                spans.push(Span::styled(" ", cursor));
            }
            lines.push(Line::from(std::mem::take(&mut spans)));
            spans.push(Span::raw("  "));
            continue;
        }
        let s = c.to_string();
        spans.push(if at {
            Span::styled(s, cursor)
        } else {
            Span::raw(s)
        });
    }
    if input.cursor() >= text.chars().count() {
        spans.push(Span::styled(" ", cursor));
    }
    lines.push(Line::from(spans));
    wrap::wrap_all(lines, width)
}
