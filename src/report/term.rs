//! What `airlock log`, `airlock sessions` and `log --verify` print goes
//! through here, and only here: a line is built as [`Text`], pieces of
//! words each with its paint, and [`Printer`] writes it. Every piece is
//! made visible as it is written ([`visible::one_line`]: control
//! characters and escape sequences as `\x1b`, invisible and bidi characters
//! as `<U+…>`), whatever field of the trail it came from; the only escape
//! sequences that reach the terminal are the colours added after that.

use std::fmt::Write as _;
use std::io::Write;

use super::visible;
use super::{Paint, Style};

/// One line (or a few: [`Text::line_break`]) to print, not yet escaped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Text {
    pieces: Vec<Piece>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Words(Option<Paint>, String),
    Break,
}

impl Text {
    /// Empty text.
    pub fn new() -> Self {
        Self::default()
    }

    /// `s` as it is (made visible when written).
    pub fn plain(&mut self, s: impl Into<String>) -> &mut Self {
        self.pieces.push(Piece::Words(None, s.into()));
        self
    }

    /// `s` in `paint` (made visible when written).
    pub fn paint(&mut self, paint: Paint, s: impl Into<String>) -> &mut Self {
        self.pieces.push(Piece::Words(Some(paint), s.into()));
        self
    }

    /// A new line, the only newline the text prints (one inside a piece
    /// is shown as `\n`).
    pub fn line_break(&mut self) -> &mut Self {
        self.pieces.push(Piece::Break);
        self
    }

    /// The text for a terminal: every piece made visible, then painted
    /// when `style` has colours.
    pub fn render(&self, style: Style) -> String {
        let mut out = String::new();
        for p in &self.pieces {
            match p {
                Piece::Break => out.push('\n'),
                Piece::Words(paint, s) => {
                    let shown = visible::one_line(s);
                    match paint {
                        Some(paint) if style.color && !shown.is_empty() => {
                            let _ = write!(out, "\x1b[{}m{shown}\x1b[0m", sgr(*paint));
                        }
                        _ => out.push_str(&shown),
                    }
                }
            }
        }
        out
    }
}

impl Text {
    /// `s` with each of its newlines as a line break.
    pub fn lines_of(s: &str) -> Self {
        let mut t = Text::new();
        for (i, l) in s.split('\n').enumerate() {
            if i > 0 {
                t.line_break();
            }
            t.plain(l);
        }
        t
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        let mut t = Text::new();
        t.plain(s);
        t
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        let mut t = Text::new();
        t.plain(s);
        t
    }
}

/// The SGR code of a paint.
fn sgr(paint: Paint) -> &'static str {
    match paint {
        Paint::Dim => "2",
        Paint::Bold => "1",
        Paint::Green => "32",
        Paint::Red => "31",
        Paint::Yellow => "33",
        Paint::Cyan => "36",
    }
}

/// Writes [`Text`] lines to an output, the one way the report commands
/// print.
pub struct Printer<'a> {
    out: &'a mut dyn Write,
    style: Style,
}

impl std::fmt::Debug for Printer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Printer")
            .field("style", &self.style)
            .finish()
    }
}

impl<'a> Printer<'a> {
    /// Print to `out` in `style`.
    pub fn new(out: &'a mut dyn Write, style: Style) -> Self {
        Self { out, style }
    }

    /// Write `t` and a newline.
    pub fn line(&mut self, t: &Text) -> std::io::Result<()> {
        writeln!(self.out, "{}", t.render(self.style))
    }

    /// Flush the output.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paint_only_with_colour_and_nothing_raw() {
        let mut t = Text::new();
        t.paint(Paint::Red, "x");
        assert_eq!(t.render(Style::new(false)), "x");
        assert_eq!(t.render(Style::new(true)), "\x1b[31mx\x1b[0m");
        let mut t = Text::new();
        t.plain("a\x1b[2Kb")
            .paint(Paint::Green, "c\nd\u{202E}")
            .line_break()
            .plain("e");
        assert_eq!(t.render(Style::new(false)), "a\\x1b[2Kbc\\nd<U+202E>\ne");
        assert_eq!(
            t.render(Style::new(true)),
            "a\\x1b[2Kb\x1b[32mc\\nd<U+202E>\x1b[0m\ne"
        );
    }
}
