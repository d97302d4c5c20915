//! The status bar: the workspace and how agents connect, who is
//! connected, what waits and how calls ended, and the keys that matter now.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{theme, wrap};
use chrono::{DateTime, Utc};

use crate::call::AgentInfo;
use crate::tui::calls::{CallStatus, CallStore};
use crate::tui::header::Header;
use crate::tui::keymap::Context;

/// What the live status bar draws.
#[derive(Debug)]
pub struct StatusBar<'a> {
    /// The session.
    pub header: &'a Header,
    /// Connected agents.
    pub agents: &'a [AgentInfo],
    /// Calls waiting for the human.
    pub waiting: usize,
    /// Every call (their counts by status).
    pub calls: &'a CallStore,
    /// The time now (the spinner).
    pub now: DateTime<Utc>,
    /// A notice or banner to show instead of the keys.
    pub message: Option<&'a str>,
    /// What keys mean now (the hints).
    pub context: Context,
    /// The Streamable HTTP URL and whether only this machine can reach it.
    pub http: Option<&'a (String, bool)>,
}

/// Draw the two status lines in `area`. Each line gives way by priority
/// when the terminal is narrow: the least important parts go first, and
/// what is cut ends in `…`.
pub fn draw(f: &mut Frame, app: &StatusBar, area: Rect) {
    let bar = Style::default().bg(Color::Indexed(236));
    let width = area.width as usize;
    let first = first_line(app);
    let second = second_line(app, width);
    let lines = vec![
        Line::from(give_way(first, width)).style(bar),
        Line::from(give_way(second, width)).style(bar),
    ];
    f.render_widget(Paragraph::new(lines).style(bar), area);
}

/// The first line: the workspace, how agents connect, the HTTP address.
fn first_line(app: &StatusBar) -> Vec<Part> {
    let mut first = vec![Part::new(
        0,
        vec![Span::styled(
            " airlock ",
            Style::default()
                .fg(Color::Black)
                .bg(Color::Cyan)
                .add_modifier(Modifier::BOLD),
        )],
    )];
    if let Some(label) = &app.header.label {
        first.push(Part::new(
            0,
            vec![Span::styled(
                format!(" {label} "),
                Style::default().fg(Color::Black).bg(Color::Yellow),
            )],
        ));
    }
    first.push(Part::new(
        1,
        vec![Span::raw(format!(" {} ", app.header.workspace.display()))],
    ));
    first.push(Part::new(
        2,
        vec![
            Span::styled("· agents connect with ", theme::dim()),
            Span::styled("airlock connect", theme::key()),
            Span::raw(" "),
        ],
    ));
    // Streamable HTTP: the URL when there is room; an address other
    // machines can reach is always said.
    if let Some((url, loopback)) = app.http {
        if !*loopback {
            first.push(Part::new(
                0,
                vec![Span::styled(
                    "· HTTP reachable from other machines ",
                    Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
                )],
            ));
        }
        first.push(Part::new(
            3,
            vec![
                Span::styled("· or ", theme::dim()),
                Span::raw(format!("{url} ")),
            ],
        ));
    }
    first
}

/// The second line: the sandbox, the agents, what waits, how calls ended,
/// and the notice or the keys.
fn second_line(app: &StatusBar, width: usize) -> Vec<Part> {
    let mut second: Vec<Part> = sandbox_part(app.header, width).into_iter().collect();
    // An untrusted project file that loosens: said always, never dropped.
    if let Some(config) = &app.header.config {
        second.push(Part::new(
            0,
            vec![
                Span::styled(
                    format!(" ⚠ {config} "),
                    Style::default()
                        .fg(Color::Yellow)
                        .add_modifier(Modifier::BOLD),
                ),
                Span::styled("│", theme::dim()),
            ],
        ));
    }
    let agents = match app.agents.len() {
        0 => "no agent connected".to_string(),
        _ => app
            .agents
            .iter()
            .map(AgentInfo::display_name)
            .collect::<Vec<_>>()
            .join(", "),
    };
    second.push(Part::new(2, vec![Span::raw(format!(" {agents} "))]));
    let waiting = app.waiting;
    if waiting > 0 {
        second.push(Part::new(
            0,
            vec![Span::styled(format!("? {waiting} waiting "), theme::key())],
        ));
    }
    let mut counts = Vec::new();
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
            counts.push(Span::styled(format!("{icon}{n} "), style));
        }
    }
    second.push(Part::new(4, counts));
    let mut tail = vec![Span::styled("│ ", theme::dim())];
    match app.message {
        Some(n) => tail.push(Span::styled(
            n.to_string(),
            Style::default().fg(Color::Yellow),
        )),
        None => tail.extend(hints(app.context)),
    }
    // The notice or the keys: cut rather than dropped.
    second.push(Part::new(1, tail));
    second
}

/// The bash sandbox: a sandbox that holds is said briefly; one that does
/// not is said in full, with its reason, and never dropped.
fn sandbox_part(header: &Header, width: usize) -> Option<Part> {
    use crate::sandbox::SandboxState;
    let (line, state) = header.sandbox.as_ref()?;
    let colour = match state {
        SandboxState::Enforced => Color::Green,
        SandboxState::Partial => Color::Yellow,
        SandboxState::Off | SandboxState::Refused => Color::Red,
    };
    let shown = match state {
        SandboxState::Enforced if width < 120 => "sandbox ✓".to_string(),
        SandboxState::Enforced => line.split(" (").next().unwrap_or(line).to_string(),
        _ => line.clone(),
    };
    Some(Part::new(
        0,
        vec![
            Span::styled(format!(" {shown} "), Style::default().fg(colour)),
            Span::styled("│", theme::dim()),
        ],
    ))
}

/// A part of a status line and how much it matters (0 most).
struct Part {
    priority: u8,
    spans: Vec<Span<'static>>,
}

impl Part {
    /// A part of `spans`, their text made visible (agent names, the
    /// label and the workspace come from outside).
    fn new(priority: u8, spans: Vec<Span<'static>>) -> Self {
        let spans = spans
            .into_iter()
            .map(|s| Span::styled(crate::report::visible::one_line(&s.content), s.style))
            .collect();
        Self { priority, spans }
    }

    fn width(&self) -> usize {
        self.spans
            .iter()
            .map(|s| crate::report::cells::width(&s.content))
            .sum()
    }
}

/// `parts` in `width` cells: the least important parts are dropped until
/// the rest fits, then what still does not fit is cut with `…`.
fn give_way(mut parts: Vec<Part>, width: usize) -> Vec<Span<'static>> {
    let total = |ps: &[Part]| ps.iter().map(Part::width).sum::<usize>();
    while total(&parts) > width {
        let Some(worst) = parts.iter().map(|p| p.priority).max().filter(|&m| m > 1) else {
            break;
        };
        let Some(i) = parts.iter().rposition(|p| p.priority == worst) else {
            break;
        };
        parts.remove(i);
    }
    let mut out = Vec::new();
    let mut used = 0;
    for span in parts.into_iter().flat_map(|p| p.spans) {
        let w = crate::report::cells::width(&span.content);
        if used + w <= width {
            used += w;
            out.push(span);
            continue;
        }
        let room = width.saturating_sub(used);
        if room > 0 {
            out.push(Span::styled(wrap::fit(&span.content, room), span.style));
        }
        break;
    }
    out
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
        Context::Pick | Context::Typing => &[("Enter", "confirm"), ("Esc", "back")],
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
