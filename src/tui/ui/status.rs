//! The status bar: the workspace and how agents connect, who is
//! connected, what waits and how calls ended, and the keys that matter now.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::theme;
use crate::tui::app::App;
use crate::tui::calls::CallStatus;
use crate::tui::keymap::Context;

/// Draw the two status lines in `area`.
pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let bar = Style::default().bg(Color::Indexed(236));
    let mut first = vec![Span::styled(
        " airlock ",
        Style::default()
            .fg(Color::Black)
            .bg(Color::Cyan)
            .add_modifier(Modifier::BOLD),
    )];
    if let Some(label) = &app.header.label {
        first.push(Span::styled(
            format!(" {label} "),
            Style::default().fg(Color::Black).bg(Color::Yellow),
        ));
    }
    first.push(Span::raw(format!(" {} ", app.header.workspace.display())));
    first.push(Span::styled("· connect: ", theme::dim()));
    first.push(Span::styled("airlock connect", theme::key()));
    first.push(Span::styled(
        format!(" (socket {}) ", app.header.socket.display()),
        theme::dim(),
    ));
    let mut second = Vec::new();
    // First on the second line, so it is never cut off: the bash sandbox.
    if let Some((line, state)) = &app.header.sandbox {
        use crate::sandbox::SandboxState;
        let colour = match state {
            SandboxState::Enforced => Color::Green,
            SandboxState::Partial => Color::Yellow,
            SandboxState::Off | SandboxState::Refused => Color::Red,
        };
        // A sandbox that holds is said briefly; one that does not is said in
        // full, with its reason, whatever the width.
        let shown = match state {
            SandboxState::Enforced if area.width < 120 => "sandbox ✓".to_string(),
            SandboxState::Enforced => line.split(" (").next().unwrap_or(line).to_string(),
            _ => line.clone(),
        };
        second.push(Span::styled(
            format!(" {shown} "),
            Style::default().fg(colour),
        ));
        second.push(Span::styled("│", theme::dim()));
    }
    let agents = match app.agents.len() {
        0 => "no agent connected".to_string(),
        _ => app
            .agents
            .iter()
            .map(|a| a.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    };
    second.push(Span::raw(format!(" {agents} ")));
    let waiting = app.prompts.len();
    if waiting > 0 {
        second.push(Span::styled(format!("? {waiting} waiting "), theme::key()));
    }
    for s in [
        CallStatus::Running,
        CallStatus::Ok,
        CallStatus::Error,
        CallStatus::Denied,
        CallStatus::Blocked,
        CallStatus::Refused,
        CallStatus::Cancelled,
        CallStatus::Timeout,
    ] {
        let n = app.calls.count(s);
        if n > 0 {
            let (icon, style) = theme::status(s, app.now);
            second.push(Span::styled(format!("{icon}{n} "), style));
        }
    }
    second.push(Span::styled("│ ", theme::dim()));
    match app.current_notice() {
        Some(n) => second.push(Span::styled(
            n.to_string(),
            Style::default().fg(Color::Yellow),
        )),
        None => second.extend(hints(app.context())),
    }
    let lines = vec![Line::from(first).style(bar), Line::from(second).style(bar)];
    f.render_widget(Paragraph::new(lines).style(bar), area);
}

/// The keys that matter in `ctx`.
pub fn hints(ctx: Context) -> Vec<Span<'static>> {
    let pairs: &[(&str, &str)] = match ctx {
        Context::Normal => &[
            ("Tab", "focus"),
            ("j/k", "move"),
            ("r", "grants"),
            ("?", "help"),
            ("q", "quit"),
        ],
        Context::Choose => &[("y", "approve"), ("n", "deny"), ("?", "help")],
        Context::Pick => &[("Enter", "confirm"), ("Esc", "back")],
        Context::Typing => &[("Enter", "confirm"), ("Esc", "back")],
        Context::Help => &[("Esc", "close")],
        Context::Grants => &[("d", "revoke"), ("Esc", "close")],
        Context::QuitConfirm => &[("y", "quit"), ("n", "stay")],
        Context::Review => &[
            ("n/N", "next/prev denied or failed"),
            ("/", "filter"),
            ("Tab", "focus"),
            ("?", "help"),
            ("q", "quit"),
        ],
        Context::Filter => &[("Enter", "apply"), ("Esc", "clear")],
    };
    let mut out = Vec::new();
    for (k, what) in pairs {
        out.push(Span::styled(k.to_string(), theme::key()));
        out.push(Span::raw(format!(" {what}  ")));
    }
    out
}
