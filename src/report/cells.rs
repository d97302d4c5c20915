//! How many terminal cells text takes, measured exactly as ratatui's
//! buffer measures it: a span is cut into extended grapheme clusters
//! (`unicode-segmentation`, the crate ratatui-core uses), a cluster holding
//! a control character is dropped, and each other cluster takes
//! [`CellWidth::cell_width`] cells (its `unicode-width` string width, plus
//! one for each half-width voiced sound mark U+FF9E/U+FF9F). A cluster of
//! width 0 is not drawn at all. Everything that lays text out (wrapping,
//! cutting a column, padding, what must be escaped) asks here, so what is
//! laid out is what is drawn.

use ratatui::buffer::CellWidth;
use unicode_segmentation::UnicodeSegmentation;

/// The cells the renderer gives one grapheme cluster; 0 when it does not
/// draw it (it holds a control character, or measures nothing).
pub fn grapheme(g: &str) -> usize {
    if g.is_empty() || g.contains(char::is_control) {
        return 0;
    }
    usize::from(g.cell_width())
}

/// The grapheme clusters of `s` drawn as one span, each with its cells.
pub fn graphemes(s: &str) -> impl Iterator<Item = (&str, usize)> {
    s.graphemes(true).map(|g| (g, grapheme(g)))
}

/// The cells `s` takes drawn as one span.
pub fn width(s: &str) -> usize {
    graphemes(s).map(|(_, w)| w).sum()
}

/// The last grapheme cluster of `s` (empty for an empty `s`).
pub fn last_grapheme(s: &str) -> &str {
    s.graphemes(true).next_back().unwrap_or("")
}

/// Most characters of a span's last cluster kept by [`SpanEnd`]: its first
/// and the ones before the end (a base letter with thousands of marks stays
/// cheap to follow).
const KEPT: usize = 32;

/// The end of a span being written: enough of it to tell whether the next
/// character is drawn by the renderer.
#[derive(Debug, Clone, Default)]
pub struct SpanEnd {
    last: String,
}

impl SpanEnd {
    /// Whether `c`, written next, is dropped by the renderer: it starts a
    /// cluster of its own that measures 0 cells, or it joins the cluster
    /// before it into one that measures 0. A combining mark after a letter
    /// is drawn with it (false); the same mark at the start of a span, a
    /// Hangul vowel jamo after a Latin letter, or a zero-width character
    /// anywhere is dropped (true).
    pub fn drops(&self, c: char) -> bool {
        let mut s = self.last.clone();
        s.push(c);
        grapheme(last_grapheme(&s)) == 0
    }

    /// The character written last, if any since the span started.
    pub fn prev(&self) -> Option<char> {
        self.last.chars().next_back()
    }

    /// `c` was written.
    pub fn push(&mut self, c: char) {
        self.last.push(c);
        let keep = last_grapheme(&self.last).len();
        self.last.drain(..self.last.len() - keep);
        if self.last.chars().count() > KEPT {
            let mut chars = self.last.chars();
            let first = chars.next().map(String::from).unwrap_or_default();
            let tail: Vec<char> = chars.rev().take(KEPT - 1).collect();
            self.last = first + &tail.into_iter().rev().collect::<String>();
        }
    }

    /// A new span starts (after an escape drawn as a span of its own).
    pub fn reset(&mut self) {
        self.last.clear();
    }
}

/// Whether `c`, written right after `before` in the same span (`before`
/// empty: at the start of a span or a row), is dropped by the renderer
/// (see [`SpanEnd::drops`]).
pub fn dropped_after(before: &str, c: char) -> bool {
    let end = SpanEnd {
        last: last_grapheme(before).to_string(),
    };
    end.drops(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::text::Line;
    use ratatui::widgets::{Paragraph, Widget};

    /// What a Paragraph draws of `text` on one row `cols` wide: the cells'
    /// symbols joined (a wide cell's hidden cells skipped), and the column
    /// where `|` after the text lands.
    fn drawn(text: &str, cols: u16) -> (String, Option<u16>) {
        let area = Rect::new(0, 0, cols, 1);
        let mut buf = Buffer::empty(area);
        Paragraph::new(Line::raw(format!("{text}|"))).render(area, &mut buf);
        let (mut out, mut bar, mut x) = (String::new(), None, 0);
        while x < cols {
            let s = buf[(x, 0)].symbol();
            if s == "|" {
                bar = Some(x);
            } else {
                out.push_str(s);
            }
            x += s.cell_width().max(1);
        }
        (out.trim_end().to_string(), bar)
    }

    /// The widths here are the ones the renderer lays cells out by: text
    /// measured as `width` fills exactly that many cells, where adding up
    /// each character's width (the old measure) is wrong.
    #[test]
    fn measures_as_the_renderer_draws() {
        use unicode_width::UnicodeWidthChar;
        let per_char = |s: &str| s.chars().map(|c| c.width().unwrap_or(0)).sum::<usize>();
        for (text, cells) in [
            ("abc", 3),
            ("\u{26A0}\u{FE0F}", 2),
            ("\u{FF76}\u{FF9E}", 3),
            ("日本", 4),
            ("👩\u{200D}💻", 2),
            ("🇫🇷", 2),
            ("e\u{301}", 1),
        ] {
            assert_eq!(width(text), cells, "{text:?}");
            let (shown, bar) = drawn(text, 20);
            assert_eq!(
                bar,
                u16::try_from(cells).ok(),
                "{text:?} drawn as {shown:?}"
            );
            assert_eq!(shown, text, "every character drawn");
        }
        // The control: per character, ⚠️ counts 1 and ｶﾞ counts 2 (one
        // cell each), so rows laid out by that measure overflow.
        assert_eq!(per_char("\u{26A0}\u{FE0F}"), 1);
        assert_eq!(per_char("\u{FF76}\u{FF9E}"), 2);
    }

    #[test]
    fn what_the_renderer_drops() {
        assert!(dropped_after("", '\u{301}'), "a mark at a span's start");
        assert!(!dropped_after("e", '\u{301}'), "a mark on a letter");
        assert!(dropped_after("txt", '\u{1161}'), "a vowel jamo after Latin");
        assert!(
            !dropped_after("\u{1100}", '\u{1161}'),
            "after its consonant"
        );
        assert!(dropped_after("x", '\u{200B}'));
        assert!(dropped_after("x", '\u{D4E}'));
        assert!(!dropped_after("x", 'y'));
        // The control: a Paragraph really does drop them.
        assert_eq!(drawn("txt\u{1161}", 10).0, "txt");
        assert_eq!(drawn("\u{301}x", 10).0, "x");
    }
}
