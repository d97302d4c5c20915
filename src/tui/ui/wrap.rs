//! Hard-wrapping styled lines to a width, so panes know how many rows
//! their content takes and draw only the rows in view. Text is measured
//! by [`crate::report::cells`], grapheme by grapheme as ratatui measures
//! it, so a row laid out here is never cut by the renderer, and nothing
//! the renderer would skip is laid out as it is.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::report::cells;
use crate::report::visible;

/// Cut `line` into rows at most `width` cells wide (tabs count as one
/// space). The line's style is carried into every span, so a row keeps
/// its colour wherever its spans go (a diff gutter is put in front of
/// them). A row never splits a grapheme cluster. Every span is made
/// visible here, whoever built it: a character [`visible::escape_at`]
/// escapes (control, invisible, bidi, one the renderer would draw as
/// nothing where it stands) and a cluster wider than the row are laid out
/// as their escapes (`\x1b`, `<U+202E>`, `<U+0301>`) in the marked style:
/// no character is ever dropped or hidden by the renderer.
pub fn wrap(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    let mut rows = Rows::new(width.max(1), line.style);
    let marked = crate::tui::reveal::marked();
    for span in line.spans {
        let style = line.style.patch(span.style);
        for (run, escaped) in runs(&span.content.replace('\t', " ")) {
            if escaped {
                rows.escape(&run, marked);
                continue;
            }
            for (g, w) in cells::graphemes(&run) {
                if w == 0 || w > rows.width {
                    for c in g.chars() {
                        let esc = visible::escape(c).unwrap_or_else(|| visible::code_point(c));
                        rows.escape(&esc, marked);
                    }
                } else {
                    rows.place(g, w, style);
                }
            }
            rows.flush();
        }
        rows.flush();
    }
    rows.finish()
}

/// `text` cut into runs of plain text and escapes (true), as
/// [`visible::one_line`] decides them; a run after an escape starts a span.
fn runs(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut plain = String::new();
    let mut end = cells::SpanEnd::default();
    for c in text.chars() {
        if let Some(e) = visible::escape_at(&end, c) {
            if !plain.is_empty() {
                out.push((std::mem::take(&mut plain), false));
            }
            out.push((e, true));
            end.reset();
        } else {
            plain.push(c);
            end.push(c);
        }
    }
    if !plain.is_empty() {
        out.push((plain, false));
    }
    out
}

/// Rows being filled.
struct Rows {
    width: usize,
    line_style: Style,
    done: Vec<Line<'static>>,
    row: Vec<Span<'static>>,
    piece: String,
    piece_style: Style,
    used: usize,
}

impl Rows {
    fn new(width: usize, line_style: Style) -> Self {
        Self {
            width,
            line_style,
            done: Vec::new(),
            row: Vec::new(),
            piece: String::new(),
            piece_style: Style::default(),
            used: 0,
        }
    }

    /// Put one grapheme of `w` cells in `style` on the row, starting a
    /// new row first when it does not fit.
    fn place(&mut self, g: &str, w: usize, style: Style) {
        if self.used + w > self.width && self.used > 0 {
            self.flush();
            let row = std::mem::take(&mut self.row);
            self.done.push(Line::from(row).style(self.line_style));
            self.used = 0;
        }
        if style != self.piece_style {
            self.flush();
            self.piece_style = style;
        }
        self.piece.push_str(g);
        self.used += w;
    }

    /// An escape (ASCII, one cell a character) in `style`.
    fn escape(&mut self, esc: &str, style: Style) {
        for e in esc.chars() {
            self.place(e.encode_utf8(&mut [0; 4]), 1, style);
        }
    }

    /// End the span being filled.
    fn flush(&mut self) {
        if !self.piece.is_empty() {
            let piece = std::mem::take(&mut self.piece);
            self.row.push(Span::styled(piece, self.piece_style));
        }
    }

    fn finish(mut self) -> Vec<Line<'static>> {
        self.flush();
        self.done
            .push(Line::from(std::mem::take(&mut self.row)).style(self.line_style));
        self.done
    }
}

/// Wrap every line.
pub fn wrap_all(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    lines.into_iter().flat_map(|l| wrap(l, width)).collect()
}

/// `s` on one line (control and invisible characters as escapes, as
/// [`crate::report::visible::one_line`] writes them), cut to `width` cells
/// with `…` when it does not fit; never cut inside a grapheme cluster.
pub fn fit(s: &str, width: usize) -> String {
    let s = visible::one_line(s);
    if cells::width(&s) <= width {
        return s;
    }
    let mut out = String::new();
    let mut used = 0;
    for (g, w) in cells::graphemes(&s) {
        if used + w + 1 > width {
            break;
        }
        out.push_str(g);
        used += w;
    }
    if width > 0 {
        out.push('…');
    }
    out
}

/// [`fit`], then padded with spaces to `width` cells (a column).
pub fn pad(s: &str, width: usize) -> String {
    let mut out = fit(s, width);
    let used = cells::width(&out);
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(used)));
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

    #[test]
    fn clusters_stay_whole_and_nothing_is_laid_out_to_be_skipped() {
        let text = |rows: &[Line]| rows.iter().map(ToString::to_string).collect::<Vec<_>>();
        // ⚠️ is two cells: three fit in 6, never split from its U+FE0F.
        let rows = wrap(Line::raw("\u{26A0}\u{FE0F}".repeat(4)), 6);
        assert_eq!(text(&rows)[1], "\u{26A0}\u{FE0F}");
        // e + U+0301 is one cell and stays on one row.
        let rows = wrap(Line::raw("abe\u{301}"), 2);
        assert_eq!(text(&rows), ["ab", "e\u{301}"]);
        // A mark opening a span, a control, a cluster wider than the row:
        // their escapes, in the marked style.
        let rows = wrap(
            Line::from(vec![Span::raw("a"), Span::raw("\u{301}b\x1b")]),
            20,
        );
        assert_eq!(text(&rows), ["a<U+0301>b\\x1b"]);
        // Whoever built the span: invisible and bidi characters too.
        let rows = wrap(Line::raw("echo\u{202E} done\u{A0}x"), 40);
        assert_eq!(text(&rows), ["echo<U+202E> done<U+00A0>x"]);
        assert_eq!(rows[0].spans[1].style, crate::tui::reveal::marked());
        let rows = wrap(Line::raw("日"), 1);
        assert_eq!(text(&rows).concat(), "<U+65E5>");
    }
}
