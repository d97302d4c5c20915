//! The approval prompt: over the panes, for the oldest waiting call. Bash
//! shows the command, its description and working directory; writes show
//! the diff. The footer changes with the step (choose, pick a scope, edit,
//! type a reason).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use std::fmt::Write as _;

use super::{diff, theme, wrap};
use chrono::{DateTime, Utc};

use crate::tui::prompt::{PendingPrompt, PromptQueue, Step};
use crate::tui::reveal;
use crate::tui::text_input::TextInput;

/// What the prompt draws: the oldest waiting call and what its body
/// depends on.
#[derive(Debug, Clone, Copy)]
pub struct PromptPane<'a> {
    /// Every waiting call, and the front one's step and scroll.
    pub queue: &'a PromptQueue,
    /// The front call's prompt.
    pub prompt: &'a PendingPrompt,
    /// The agent's shell directory after its last command, if known.
    pub shell_cwd: Option<&'a str>,
    /// The workspace (where an agent's shell starts).
    pub workspace: &'a std::path::Path,
    /// The time now (how long it waited).
    pub now: DateTime<Utc>,
    /// Seconds left to answer, if a timeout is set.
    pub seconds_left: Option<u64>,
    /// Seconds after which the agent gives up waiting, where known.
    pub gives_up_after: Option<u64>,
}

/// The prompt as laid out on a screen: its box, every row of its body
/// (wrapped), the footer, and which rows are in view.
#[derive(Debug)]
pub struct View {
    /// The box.
    pub area: Rect,
    /// Every row of the body, wrapped to the box.
    pub rows: std::sync::Arc<Vec<Line<'static>>>,
    /// The footer (rule, where the view is, keys).
    pub footer: Vec<Line<'static>>,
    /// Rows of the body that fit.
    pub height: usize,
    /// The first row in view.
    pub top: usize,
}

impl View {
    /// The last top row that still fills the view.
    pub fn max_top(&self) -> usize {
        self.rows.len().saturating_sub(self.height)
    }

    /// True when the last row of the body is in view.
    pub fn at_end(&self) -> bool {
        self.top + self.height >= self.rows.len()
    }

    /// True when the whole body is in view.
    pub fn fits(&self) -> bool {
        self.rows.len() <= self.height
    }
}

/// The front prompt laid out on `screen`, if a prompt waits.
pub fn view(app: &PromptPane, screen: Rect) -> Option<View> {
    let p = app.prompt;
    let mut area = super::layout::prompt(screen);
    let width = area.width.saturating_sub(2) as usize;
    let rows = cached_body(app, p, width);
    let inner = area.height.saturating_sub(2) as usize;
    // The footer leaves at least two rows for the body and its position.
    let mut footer = footer(app, p, width, inner.saturating_sub(2));
    let fits = rows.len() + footer.len() <= inner;
    if fits {
        // As tall as it needs, centred where the full box would be.
        let want = u16::try_from(rows.len() + footer.len() + 2).unwrap_or(u16::MAX);
        area.y += (area.height - want) / 2;
        area.height = want;
        let height = rows.len();
        return Some(View {
            area,
            rows,
            footer,
            height,
            top: 0,
        });
    }
    let height = inner.saturating_sub(footer.len() + 1).max(1);
    let top = app.queue.scroll.min(rows.len().saturating_sub(height));
    let line = position(app, top, height, rows.len(), width);
    footer.insert(1, line);
    Some(View {
        area,
        rows,
        footer,
        height,
        top,
    })
}

/// "lines 1–20 of 82 — j/k to scroll", and, after an approval key before
/// the end was on screen, what to do first.
fn position(
    app: &PromptPane,
    top: usize,
    height: usize,
    total: usize,
    width: usize,
) -> Line<'static> {
    let last = (top + height).min(total);
    let mut text = format!(
        "lines {}–{last} of {total} — j/k PgUp/PgDn to scroll",
        top + 1
    );
    if last < total {
        text.push_str(", G to the end");
    } else {
        text.push_str(" (the end)");
    }
    if app.queue.nudged && !app.queue.seen_end && last < total {
        let warn = format!(
            "▲ {} more lines below: scroll to the end before approving · {text}",
            total - last
        );
        return Line::styled(wrap::fit(&warn, width), theme::warning());
    }
    Line::styled(wrap::fit(&text, width), theme::key())
}

/// Draw the prompt for the front call, if any.
pub fn draw(f: &mut Frame, app: &PromptPane) {
    let p = app.prompt;
    let Some(v) = view(app, f.area()) else { return };
    super::clear_overlay(f, v.area);
    let title = vec![
        Span::styled(" Approve? ", theme::key()),
        Span::raw(format!("{} · call #{} ", p.call.tool, p.call.id)),
        Span::styled(format!("· 1 of {} ", app.queue.len()), theme::dim()),
    ];
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(Style::default().fg(ratatui::style::Color::Yellow))
        .title(Line::from(title));
    let mut right = vec![Span::styled(format!(" {} ", waited(app, p)), theme::dim())];
    if let Some(left) = app.seconds_left {
        right.push(Span::styled(
            format!("answer within {} ", theme::countdown(left)),
            theme::key(),
        ));
    }
    block = block.title(Line::from(right).right_aligned());
    let inner = block.inner(v.area);
    f.render_widget(block, v.area);
    let [body, foot] = Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(u16::try_from(v.footer.len()).unwrap_or(u16::MAX)),
    ])
    .areas(inner);
    let shown: Vec<Line> = v.rows.iter().skip(v.top).take(v.height).cloned().collect();
    f.render_widget(Paragraph::new(shown), body);
    f.render_widget(Paragraph::new(v.footer), foot);
}

/// "waited 0:18", and when the agent gives up where airlock knows it.
fn waited(app: &PromptPane, p: &PendingPrompt) -> String {
    let secs = (app.now - p.call.received_at)
        .num_seconds()
        .max(0)
        .cast_unsigned();
    let mut s = format!("waited {}", theme::countdown(secs));
    if let Some(limit) = app.gives_up_after {
        let name = p.call.agent.display_name();
        if secs < limit {
            let _ = write!(
                s,
                " · {name} gives up in {}",
                theme::countdown(limit - secs)
            );
        } else {
            let _ = write!(s, " · {name} may have given up");
        }
    }
    s
}

fn label(name: &str) -> Span<'static> {
    Span::styled(format!("{name:<6}"), theme::dim())
}

fn who(p: &PendingPrompt) -> Span<'static> {
    Span::styled(
        p.call.agent.display_name().to_string(),
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

/// Warnings about what was made visible, if anything was.
fn flagged(flags: &reveal::Flags, out: &mut Vec<Line<'static>>) {
    flagged_in("this call", flags, out);
}

/// Warnings about what was made visible in `what`.
fn flagged_in(what: &str, flags: &reveal::Flags, out: &mut Vec<Line<'static>>) {
    for w in flags.warnings() {
        out.push(Line::from(vec![
            Span::styled("⚠ ", theme::warning()),
            Span::styled(format!("{what} contains {w}"), theme::key()),
        ]));
    }
}

/// [`body`], laid out once per width and shell directory.
fn cached_body(
    app: &PromptPane,
    p: &PendingPrompt,
    width: usize,
) -> std::sync::Arc<Vec<Line<'static>>> {
    let key = (width, app.shell_cwd.map(String::from));
    let mut cache = match p.rows_cache.lock() {
        Ok(c) => c,
        Err(poisoned) => poisoned.into_inner(),
    };
    if let Some((k, rows)) = cache.as_ref()
        && *k == key
    {
        return rows.clone();
    }
    let rows = std::sync::Arc::new(body(app, p, width));
    *cache = Some((key, rows.clone()));
    rows
}

/// Every row of the prompt's body, wrapped to `width`.
pub fn body(app: &PromptPane, p: &PendingPrompt, width: usize) -> Vec<Line<'static>> {
    if p.call.proposal.is_some() {
        return write_body(p, width);
    }
    let mut lines: Vec<Line<'static>> = Vec::new();
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let mut flags = reveal::Flags::default();
    let mut shown: Vec<Line<'static>> = Vec::new();
    if let Some(cmd) = p.command() {
        lines.push(Line::from(vec![
            who(p),
            Span::raw(" wants to run a command:"),
        ]));
        lines.extend(super::agent_runs_line(&p.call.runner));
        let (rows, f) = reveal::prefixed(
            cmd,
            bold,
            &Span::styled("$ ", theme::dim()),
            &Span::styled("  ", theme::dim()),
        );
        flags.add(f);
        shown.extend(rows);
        shown.push(Line::raw(""));
        if let Some(d) = p.description() {
            let (rows, f) = reveal::prefixed(d, Style::default(), &label("why"), &label(""));
            flags.add(f);
            shown.extend(rows);
        }
        let others = other_args(p, p.shown_args(), &mut flags);
        shown.extend(others);
        shown.extend(cwd(app, width));
    } else {
        lines.push(Line::from(vec![
            who(p),
            Span::raw(format!(" wants to call {}:", p.call.tool)),
        ]));
        lines.extend(super::agent_runs_line(&p.call.runner));
        shown.push(Line::styled(
            reveal::one_line(&p.call.summary),
            theme::dim(),
        ));
        shown.extend(other_args(p, &[], &mut flags));
    }
    flagged(&flags, &mut lines);
    lines.push(Line::raw(""));
    lines.extend(shown);
    lines.push(rule(p));
    wrap::wrap_all(lines, width)
}

/// Every argument not in `skip`, each value whole.
fn other_args(p: &PendingPrompt, skip: &[&str], flags: &mut reveal::Flags) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let serde_json::Value::Object(args) = &p.call.args else {
        let (rows, f) = reveal::lines(&p.call.args.to_string(), Style::default());
        flags.add(f);
        out.extend(rows.into_iter().map(Line::from));
        return out;
    };
    for (k, v) in args.iter().filter(|(k, _)| !skip.contains(&k.as_str())) {
        let text = match v {
            serde_json::Value::String(s) => s.clone(),
            other => serde_json::to_string_pretty(other).unwrap_or_else(|_| other.to_string()),
        };
        let (rows, f) = reveal::prefixed(
            &text,
            Style::default(),
            &Span::styled(format!("{k}: "), theme::dim()),
            &Span::raw("  "),
        );
        flags.add(f);
        out.extend(rows);
    }
    out
}

/// The working directory, with its note on the same row when it fits and
/// on a row of its own when not (never a stray fragment).
fn cwd(app: &PromptPane, width: usize) -> Vec<Line<'static>> {
    let agent_runs = matches!(app.prompt.call.runner, crate::call::Runner::Agent { .. });
    let (cwd, note) = match (app.prompt.cwd(), app.shell_cwd) {
        (Some(cwd), _) => (cwd.to_string(), "(as the agent says)"),
        // A command the agent runs itself, where its hook does not say
        // (Codex): airlock's own shell directory is not where it runs.
        (None, _) if agent_runs => (
            "unknown".to_string(),
            "(the agent's hook does not say where it runs)",
        ),
        (None, Some(cwd)) => (cwd.to_string(), "(after the agent's last command)"),
        (None, None) => (
            app.workspace.display().to_string(),
            "(the agent's shell starts here)",
        ),
    };
    let cwd = reveal::one_line(&cwd);
    let used = 6 + crate::report::cells::width(&cwd);
    let note_w = crate::report::cells::width(note) + 1;
    if used + note_w <= width {
        return vec![Line::from(vec![
            label("cwd"),
            Span::raw(cwd),
            Span::styled(format!(" {note}"), theme::dim()),
        ])];
    }
    vec![
        Line::from(vec![label("cwd"), Span::raw(cwd)]),
        Line::from(vec![label(""), Span::styled(note, theme::dim())]),
    ]
}

/// A write: what changes and how big it is, then the whole diff.
fn write_body(p: &PendingPrompt, width: usize) -> Vec<Line<'static>> {
    let Some(prop) = &p.call.proposal else {
        return Vec::new();
    };
    let action = format!("{:?}", prop.action).to_lowercase();
    let mut lines = vec![Line::from(vec![
        who(p),
        Span::raw(format!(" wants to {action} ")),
        Span::styled(
            reveal::one_line(&prop.path),
            Style::default().add_modifier(Modifier::BOLD),
        ),
        Span::raw(" "),
        Span::styled(format!("+{}", prop.added), theme::added()),
        Span::raw(" "),
        Span::styled(format!("−{}", prop.removed), theme::removed()),
    ])];
    lines.extend(super::agent_runs_line(&p.call.runner));
    lines.push(Line::from(vec![
        label("size"),
        Span::raw(format!(
            "{} → {}",
            theme::bytes(prop.old_bytes),
            theme::bytes(prop.new_bytes)
        )),
        Span::styled(
            format!(" · the diff has {}", theme::count(p.diff.len(), "line")),
            theme::dim(),
        ),
    ]));
    let flags = p.diff_flags;
    flagged(&flags, &mut lines);
    lines.push(rule(p));
    let mut rows = wrap::wrap_all(lines, width);
    if prop.binary {
        rows.push(Line::styled(
            format!("binary content: {}", prop.summary()),
            theme::dim(),
        ));
    } else if p.diff.is_empty() {
        rows.push(Line::styled("no change", theme::dim()));
    } else {
        rows.push(Line::raw(""));
        rows.extend(diff::rows(&p.diff, 0, usize::MAX, width));
    }
    rows
}

fn hint(pairs: &[(&str, &str)]) -> Line<'static> {
    let mut spans = Vec::new();
    for (k, what) in pairs {
        spans.push(Span::styled(k.to_string(), theme::key()));
        spans.push(Span::raw(format!(" {what}  ")));
    }
    Line::from(spans)
}

/// The footer, at most `max_rows` rows where a long field allows (the
/// field then shows the rows around its cursor and says so).
fn footer(
    app: &PromptPane,
    p: &PendingPrompt,
    width: usize,
    max_rows: usize,
) -> Vec<Line<'static>> {
    let mut out = vec![Line::styled("─".repeat(width), theme::rule())];
    match &app.queue.step {
        Step::Choose => {
            let mut keys = vec![
                ("y", "approve once"),
                ("s", "this session…"),
                ("a", "always…"),
            ];
            if p.editable().is_some() {
                keys.push(("e", "edit"));
            }
            keys.push(("n", "deny…"));
            keys.push(("?", "help"));
            out.extend(wrap::wrap(hint(&keys), width));
        }
        Step::Session { selected } | Step::Always { selected } => {
            let always = matches!(app.queue.step, Step::Always { .. });
            out.push(Line::styled(
                if always {
                    concat!(
                        "Always allow — saved to the project's ",
                        crate::dirs::project_config!(),
                        ":"
                    )
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
            let (_, flags) = reveal::lines(&input.text(), Style::default());
            let mut warn = Vec::new();
            flagged_in("the edited command", &flags, &mut warn);
            out.extend(wrap::wrap_all(warn, width));
            let room = max_rows.saturating_sub(out.len() + 1);
            out.extend(field(input_rows(input, width, "$ "), room, width));
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
            let room = max_rows.saturating_sub(out.len() + 1);
            out.extend(field(input_rows(input, width, "> "), room, width));
            out.push(hint(&[("Enter", "deny"), ("Esc", "back")]));
        }
    }
    out
}

/// The text field with its cursor, wrapped: every character shown as
/// the prompt shows a command ([`reveal::line_at`]: escapes, `·` for long
/// and trailing blanks), the cursor on its own cell.
fn input_rows(input: &TextInput, width: usize, prefix: &str) -> Vec<Line<'static>> {
    let text = input.text();
    let cursor = input.cursor();
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut start = 0;
    for (n, l) in text.split('\n').enumerate() {
        let len = l.chars().count();
        let at = cursor.checked_sub(start).filter(|&c| c <= len);
        let (mut spans, _) = reveal::line_at(l, Style::default(), at.filter(|&c| c < len));
        if at == Some(len) {
            spans.push(Span::styled(
                " ",
                Style::default().add_modifier(Modifier::REVERSED),
            ));
        }
        spans.insert(
            0,
            if n == 0 {
                Span::styled(prefix.to_string(), theme::dim())
            } else {
                Span::raw("  ")
            },
        );
        lines.push(Line::from(spans));
        start += len + 1;
    }
    wrap::wrap_all(lines, width)
}

/// The field's rows, at most `room` (and at least 3): when they do not
/// all fit, the rows around the cursor and a line saying which rows these
/// are, so no part of what runs is cut off unsaid.
fn field(rows: Vec<Line<'static>>, room: usize, width: usize) -> Vec<Line<'static>> {
    let room = room.max(3);
    if rows.len() <= room {
        return rows;
    }
    let shown = room - 1;
    let reversed = |l: &Line| {
        l.spans
            .iter()
            .any(|s| s.style.add_modifier.contains(Modifier::REVERSED))
    };
    let at = rows.iter().position(reversed).unwrap_or(rows.len() - 1);
    let top = at.saturating_sub(shown / 2).min(rows.len() - shown);
    let note = format!(
        "field rows {}–{} of {} — ←/→ Home/End move the cursor through the rest",
        top + 1,
        top + shown,
        rows.len()
    );
    let mut out = vec![Line::styled(wrap::fit(&note, width), theme::warning())];
    out.extend(rows.into_iter().skip(top).take(shown));
    out
}
