//! Snapshots that record styles: each row of a frame as text, then under
//! it a row of one code per cell (`.` for the terminal's default style,
//! letters for the styles listed at the end). A lost colour or a moved
//! highlight changes the codes, so it fails the snapshot.

use std::fmt::Write;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

const CODES: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// `buf` as text rows, each followed by its style codes, and the legend.
pub fn render(buf: &Buffer) -> String {
    let mut styles: Vec<String> = Vec::new();
    let mut out = String::new();
    let area = buf.area;
    for y in area.top()..area.bottom() {
        let mut text = String::new();
        let mut codes = String::new();
        let mut skip = 0;
        for x in area.left()..area.right() {
            let cell = &buf[(x, y)];
            if skip > 0 {
                skip -= 1;
                continue;
            }
            text.push_str(cell.symbol());
            let w = unicode_width::UnicodeWidthStr::width(cell.symbol()).max(1);
            skip = w - 1;
            let key = describe(cell.fg, cell.bg, cell.modifier);
            let code = if key.is_empty() {
                '.'
            } else {
                let i = if let Some(i) = styles.iter().position(|s| *s == key) {
                    i
                } else {
                    styles.push(key);
                    styles.len() - 1
                };
                CODES.chars().nth(i).unwrap_or('?')
            };
            for _ in 0..w {
                codes.push(code);
            }
        }
        writeln!(out, "\"{text}\"").unwrap();
        writeln!(out, " {codes}").unwrap();
    }
    out.push_str("styles:\n");
    for (i, s) in styles.iter().enumerate() {
        writeln!(out, "  {} = {s}", CODES.chars().nth(i).unwrap_or('?')).unwrap();
    }
    out
}

fn describe(fg: Color, bg: Color, m: Modifier) -> String {
    let mut parts = Vec::new();
    if fg != Color::Reset {
        parts.push(format!("fg:{fg}"));
    }
    if bg != Color::Reset {
        parts.push(format!("bg:{bg}"));
    }
    if !m.is_empty() {
        for (name, _) in m.iter_names() {
            parts.push(name.to_lowercase());
        }
    }
    parts.join(" ")
}
