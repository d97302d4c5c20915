//! Hard-wrapping styled lines to a width, so panes know how many rows
//! their content takes and draw only the rows in view.

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// Cut `line` into rows at most `width` cells wide (tabs count as one
/// space; a character wider than the row gets a row of its own). The
/// line's style is carried into every span, so a row keeps its colour
/// wherever its spans go (a diff gutter is put in front of them).
pub fn wrap(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let style = line.style;
    let mut rows: Vec<Line<'static>> = Vec::new();
    let mut row: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for mut span in line.spans {
        span.style = style.patch(span.style);
        let mut piece = String::new();
        for c in span.content.chars() {
            let c = if c == '\t' { ' ' } else { c };
            if c.is_control() {
                continue;
            }
            let w = c.width().unwrap_or(0);
            if used + w > width && used > 0 {
                if !piece.is_empty() {
                    row.push(Span::styled(std::mem::take(&mut piece), span.style));
                }
                rows.push(Line::from(std::mem::take(&mut row)).style(style));
                used = 0;
            }
            piece.push(c);
            used += w;
        }
        if !piece.is_empty() {
            row.push(Span::styled(piece, span.style));
        }
    }
    rows.push(Line::from(row).style(style));
    rows
}

/// Wrap every line.
pub fn wrap_all(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    lines.into_iter().flat_map(|l| wrap(l, width)).collect()
}

/// `s` on one line (control and invisible characters as escapes, as
/// [`crate::report::visible::one_line`] writes them), cut to `width` cells
/// with `…` when it does not fit.
pub fn fit(s: &str, width: usize) -> String {
    let s = crate::report::visible::one_line(s);
    let total: usize = s.chars().map(|c| c.width().unwrap_or(0)).sum();
    if total <= width {
        return s;
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    if width > 0 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_by_width_keeping_styles() {
        let l = Line::from(vec![Span::raw("abcd"), Span::raw("efg")]);
        let rows = wrap(l, 3);
        let text: Vec<String> = rows.iter().map(ToString::to_string).collect();
        assert_eq!(text, ["abc", "def", "g"]);
        let green = ratatui::style::Style::default().fg(ratatui::style::Color::Green);
        let rows = wrap(Line::styled("abcdef", green), 3);
        for r in &rows {
            assert!(r.spans.iter().all(|s| s.style == green), "{r:?}");
        }
        assert_eq!(wrap(Line::from(""), 5).len(), 1);
        assert_eq!(fit("hello world", 6), "hello…");
        assert_eq!(fit("hello", 5), "hello");
        assert_eq!(fit("a\nb", 5), "a\\nb");
        assert_eq!(fit("x\u{202E}y", 20), "x<U+202E>y");
    }
}
