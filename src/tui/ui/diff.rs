//! The diff view: a unified diff with old and new line numbers, coloured,
//! long lines wrapped under their gutter. Built from a start line for as
//! many rows as fit, so a huge diff costs only what is on screen.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{theme, wrap};
use crate::tui::diff::{DiffKind, DiffLine};

/// Rows for `lines[from..]`, at most `max_rows`, `width` cells wide.
pub fn rows(lines: &[DiffLine], from: usize, max_rows: usize, width: usize) -> Vec<Line<'static>> {
    let digits = lines
        .iter()
        .filter_map(|l| l.old.max(l.new))
        .max()
        .unwrap_or(0)
        .to_string()
        .len()
        .max(3);
    let gutter = digits * 2 + 4;
    let text_width = width.saturating_sub(gutter).max(8);
    let mut out = Vec::new();
    for l in lines.iter().skip(from) {
        if out.len() >= max_rows {
            break;
        }
        let (marker, style) = match l.kind {
            DiffKind::Added => ("+", theme::added()),
            DiffKind::Removed => ("-", theme::removed()),
            DiffKind::Context => (" ", Style::default()),
            DiffKind::Hunk => ("", theme::heading()),
            DiffKind::Header | DiffKind::Note => ("", theme::dim()),
        };
        if matches!(l.kind, DiffKind::Hunk | DiffKind::Header | DiffKind::Note) {
            let text = crate::tui::reveal::one_line(&l.text);
            for row in wrap::wrap(Line::styled(text, style), width.max(1)) {
                out.push(row);
            }
            continue;
        }
        let num = |n: Option<usize>| n.map_or(" ".repeat(digits), |n| format!("{n:>digits$}"));
        let (mut spans, _) = crate::tui::reveal::line(&l.text, style);
        spans.insert(0, Span::styled(marker, style));
        let body = Line::from(spans);
        for (i, row) in wrap::wrap(body, text_width).into_iter().enumerate() {
            let g = if i == 0 {
                format!("{} {} │", num(l.old), num(l.new))
            } else {
                format!("{} │", " ".repeat(digits * 2 + 1))
            };
            let mut spans = vec![Span::styled(format!("{g} "), theme::dim())];
            spans.extend(row.spans);
            out.push(Line::from(spans));
            if out.len() >= max_rows {
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_wrapping() {
        let d = crate::tui::diff::parse("@@ -1,2 +1,2 @@\n a\n-bbbbbbbbbbbbbbbbbbbb\n+c\n");
        let r: Vec<String> = rows(&d, 0, 100, 24)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            r,
            [
                "@@ -1,2 +1,2 @@",
                "  1   1 │  a",
                "  2     │ -bbbbbbbbbbbbb",
                "        │ bbbbbbb",
                "      2 │ +c",
            ]
        );
        assert_eq!(rows(&d, 2, 2, 24).len(), 2, "from a line, at most max rows");
        // Every row keeps its colour, continuation rows too; gutters are dim.
        let r = rows(&d, 0, 100, 24);
        let body_style = |l: &Line| l.spans[1..].iter().map(|s| s.style).collect::<Vec<_>>();
        assert!(body_style(&r[2]).iter().all(|s| *s == theme::removed()));
        assert!(
            body_style(&r[3]).iter().all(|s| *s == theme::removed()),
            "{:?}",
            r[3]
        );
        assert!(body_style(&r[4]).iter().all(|s| *s == theme::added()));
        assert_eq!(r[3].spans[0].style, theme::dim());
        assert_eq!(r[0].spans[0].style, theme::heading());
    }

    #[test]
    fn lookalike_headers_and_carriage_returns_are_drawn_as_changes() {
        let d = crate::tui::diff::parse(
            "--- a/s.sh\n+++ b/s.sh\n@@ -1,2 +1,2 @@\n--- comment\r\n+++ b/s.sh\r\n keep\n",
        );
        let r: Vec<String> = rows(&d, 0, 100, 40)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            r,
            [
                "--- a/s.sh",
                "+++ b/s.sh",
                "@@ -1,2 +1,2 @@",
                "  1     │ --- comment\\r",
                "      1 │ +++ b/s.sh\\r",
                "  2   2 │  keep",
            ]
        );
    }
}
