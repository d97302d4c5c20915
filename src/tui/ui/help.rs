//! The help overlay: every key, from the keymap's own table.

use ratatui::Frame;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::{theme, wrap};

/// The live TUI's note under its keys.
pub const KEY_GUARD_NOTE: &str = "Keys pressed within 300 ms of a prompt appearing are ignored.";

/// Draw the help overlay for `table` (a keymap's help table), with `note`
/// under it.
pub fn draw(f: &mut Frame, table: &[(&str, &[(&str, &str)])], note: Option<&str>) {
    let keys_w = table
        .iter()
        .flat_map(|(_, ks)| ks.iter().map(|(k, _)| k.chars().count()))
        .max()
        .unwrap_or(0)
        + 2;
    let mut lines = Vec::new();
    for (section, keys) in table {
        lines.push(Line::styled(
            section.to_string(),
            Style::default().add_modifier(Modifier::BOLD),
        ));
        for (k, what) in *keys {
            lines.push(Line::from(vec![
                Span::styled(format!("  {k:<keys_w$}"), theme::key()),
                Span::raw(what.to_string()),
            ]));
        }
        lines.push(Line::raw(""));
    }
    match note {
        Some(n) => lines.extend(n.lines().map(|l| Line::styled(l.to_string(), theme::dim()))),
        None => {
            lines.pop();
        }
    }
    let w = u16::try_from(lines.iter().map(Line::width).max().unwrap_or(0)).unwrap_or(u16::MAX);
    let h = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    let area = super::layout::boxed(f.area(), w.saturating_add(1), h);
    super::clear_overlay(f, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Line::styled(" Keys — Esc closes ", theme::key()));
    let inner = block.inner(area);
    f.render_widget(block, area);
    f.render_widget(
        Paragraph::new(wrap::wrap_all(lines, inner.width as usize)),
        inner,
    );
}
