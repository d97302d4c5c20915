//! Text shown exactly: every character of a command, an argument or a
//! written line made visible, so nothing the human approves can hide.
//! Control characters become escapes (`\t`, `\r`, `\x1b`), invisible and
//! bidirectional-control characters become `<U+202E>`, trailing whitespace
//! and long runs of spaces become `·`, and each is counted so the prompt
//! can flag it.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::report::cells::SpanEnd;
use crate::report::visible::escape_at;
pub use crate::report::visible::{is_invisible, one_line};

/// Spaces in a row (inside a line) from which the run is drawn as `·`.
const LONG_RUN: usize = 16;

/// What was made visible in a text, for the prompt's warning.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flags {
    /// Control characters other than newline (escaped).
    pub control: usize,
    /// Invisible or bidirectional-control characters.
    pub invisible: usize,
    /// Lines ending in spaces or tabs.
    pub trailing: usize,
    /// The longest run of spaces or tabs inside a line, if long.
    pub longest_run: usize,
}

impl Flags {
    /// True when nothing was hidden.
    pub fn is_clean(&self) -> bool {
        *self == Flags::default()
    }

    /// Count `o` in too.
    pub fn add(&mut self, o: Flags) {
        self.control += o.control;
        self.invisible += o.invisible;
        self.trailing += o.trailing;
        self.longest_run = self.longest_run.max(o.longest_run);
    }

    /// What to warn about, one phrase each (empty when clean).
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.invisible > 0 {
            out.push(format!(
                "{} invisible or bidirectional-control character{} (shown as <U+…>)",
                self.invisible,
                plural(self.invisible)
            ));
        }
        if self.control > 0 {
            out.push(format!(
                "{} control character{} (shown as \\t, \\r, \\x1b …)",
                self.control,
                plural(self.control)
            ));
        }
        if self.longest_run >= LONG_RUN {
            out.push(format!(
                "a run of {} blanks inside a line (shown as ·)",
                self.longest_run
            ));
        }
        if self.trailing > 0 {
            out.push(format!(
                "trailing whitespace on {} line{} (shown as ·)",
                self.trailing,
                plural(self.trailing)
            ));
        }
        out
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// How made-visible characters are drawn.
pub fn marked() -> Style {
    Style::default()
        .fg(Color::Black)
        .bg(Color::Yellow)
        .add_modifier(Modifier::BOLD)
}

/// `text` as lines of spans in `base`, every character visible.
pub fn lines(text: &str, base: Style) -> (Vec<Vec<Span<'static>>>, Flags) {
    let mut flags = Flags::default();
    let mut out = Vec::new();
    let mut pieces: Vec<&str> = text.split('\n').collect();
    if pieces.len() > 1 && pieces.last() == Some(&"") {
        pieces.pop();
    }
    for l in pieces {
        let (spans, f) = line(l, base);
        flags.add(f);
        out.push(spans);
    }
    (out, flags)
}

/// One line (no `\n` expected; one would be escaped) as spans.
pub fn line(text: &str, base: Style) -> (Vec<Span<'static>>, Flags) {
    line_at(text, base, None)
}

/// [`line`], with the character at `cursor` (counted in characters) drawn
/// in its own reversed span, as its escape when it has one: an edit field
/// shows exactly what [`line`] shows, with its cursor on the right cell.
/// The cursor past the last character is left to the caller.
pub fn line_at(text: &str, base: Style, cursor: Option<usize>) -> (Vec<Span<'static>>, Flags) {
    let mut flags = Flags::default();
    let trimmed = text.trim_end_matches([' ', '\t']);
    let chars: Vec<char> = text.chars().collect();
    let body = trimmed.chars().count();
    let mut out = Spans::new(base, cursor);
    let mut i = 0;
    while i < body {
        let c = chars[i];
        if c == ' ' || c == '\t' {
            let run = chars[i..body]
                .iter()
                .take_while(|&&c| c == ' ' || c == '\t')
                .count();
            if run >= LONG_RUN {
                flags.longest_run = flags.longest_run.max(run);
                out.blanks(&chars[i..i + run], i);
                i += run;
                continue;
            }
        }
        if out.char(i, c) {
            if c.is_control() {
                flags.control += 1;
            } else {
                flags.invisible += 1;
            }
        }
        i += 1;
    }
    if body < chars.len() {
        let tail = &chars[body..];
        flags.trailing += 1;
        flags.longest_run = flags.longest_run.max(if tail.len() >= LONG_RUN {
            tail.len()
        } else {
            0
        });
        out.blanks(tail, body);
    }
    (out.finish(), flags)
}

/// Spans being built for [`line_at`].
struct Spans {
    base: Style,
    cursor: Option<usize>,
    done: Vec<Span<'static>>,
    /// Plain text not yet pushed, and what the renderer has seen of it.
    plain: String,
    end: SpanEnd,
    /// Blanks drawn as `·` not yet pushed.
    marks: String,
}

impl Spans {
    fn new(base: Style, cursor: Option<usize>) -> Self {
        Self {
            base,
            cursor,
            done: Vec::new(),
            plain: String::new(),
            end: SpanEnd::default(),
            marks: String::new(),
        }
    }

    /// Push what is pending; the next character starts a span.
    fn flush(&mut self) {
        if !self.plain.is_empty() {
            let plain = std::mem::take(&mut self.plain);
            self.done.push(Span::styled(plain, self.base));
        }
        if !self.marks.is_empty() {
            let marks = std::mem::take(&mut self.marks);
            self.done.push(Span::styled(marks, marked()));
        }
        self.end.reset();
    }

    /// A span of its own for the character under the cursor.
    fn at_cursor(&mut self, text: String, style: Style) {
        self.flush();
        self.done
            .push(Span::styled(text, style.add_modifier(Modifier::REVERSED)));
    }

    /// Character `i`; true when it was escaped.
    fn char(&mut self, i: usize, c: char) -> bool {
        let here = self.cursor == Some(i);
        if here || !self.marks.is_empty() {
            self.flush();
        }
        let esc = escape_at(&self.end, c);
        let escaped = esc.is_some();
        match (esc, here) {
            (Some(e), true) => self.at_cursor(e, marked()),
            (Some(e), false) => {
                self.flush();
                self.done.push(Span::styled(e, marked()));
            }
            (None, true) => self.at_cursor(c.to_string(), self.base),
            (None, false) => {
                self.plain.push(c);
                self.end.push(c);
                return false;
            }
        }
        self.end.reset();
        escaped
    }

    /// A run of blanks starting at character `start`, as `·` and `→`.
    fn blanks(&mut self, run: &[char], start: usize) {
        if !self.plain.is_empty() {
            self.flush();
        }
        for (j, &c) in run.iter().enumerate() {
            let b = if c == '\t' { '→' } else { '·' };
            if self.cursor == Some(start + j) {
                self.at_cursor(b.to_string(), marked());
            } else {
                self.marks.push(b);
            }
        }
        self.end.reset();
    }

    fn finish(mut self) -> Vec<Span<'static>> {
        self.flush();
        self.done
    }
}

/// Lines of `text`, each a [`Line`] with `prefix` spans in front (the
/// first line gets `first`, the others `rest`).
pub fn prefixed(
    text: &str,
    base: Style,
    first: &Span<'static>,
    rest: &Span<'static>,
) -> (Vec<Line<'static>>, Flags) {
    let (rows, flags) = lines(text, base);
    let out = rows
        .into_iter()
        .enumerate()
        .map(|(i, spans)| {
            let mut l = vec![if i == 0 { first.clone() } else { rest.clone() }];
            l.extend(spans);
            Line::from(l)
        })
        .collect();
    (out, flags)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(spans: &[Span]) -> String {
        spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn every_line_and_every_hidden_character_is_shown() {
        let cmd = format!("echo harmless{}touch X", "\n".repeat(81));
        let (rows, flags) = lines(&cmd, Style::default());
        assert_eq!(rows.len(), 82);
        assert_eq!(text(&rows[81]), "touch X");
        assert!(flags.is_clean());

        let (rows, flags) = lines(
            "rm -rf \u{202E}txt.exe\u{200B} \x1b[2J\r ",
            Style::default(),
        );
        assert_eq!(rows.len(), 1);
        assert_eq!(
            text(&rows[0]),
            "rm -rf <U+202E>txt.exe<U+200B> \\x1b[2J\\r·"
        );
        assert_eq!(flags.invisible, 2);
        assert_eq!(flags.control, 2);
        assert_eq!(flags.trailing, 1);
        assert_eq!(flags.warnings().len(), 3);
    }

    #[test]
    fn long_blank_runs_are_drawn_and_flagged() {
        let cmd = format!("echo hi{}; touch X", " ".repeat(20_000));
        let (rows, flags) = lines(&cmd, Style::default());
        let t = text(&rows[0]);
        assert!(t.starts_with("echo hi··"), "{}", &t[..20]);
        assert!(t.ends_with("; touch X"));
        assert_eq!(t.chars().count(), cmd.chars().count());
        assert_eq!(flags.longest_run, 20_000);
        assert!(flags.warnings()[0].contains("20000 blanks"));
        let (_, f) = lines("    indented  a  b", Style::default());
        assert!(f.is_clean(), "ordinary indentation is not flagged");
    }

    #[test]
    fn one_line_keeps_everything() {
        assert_eq!(one_line("a\nb\tc\u{2066}"), "a\\nb\\tc<U+2066>");
        assert_eq!(one_line("bash -c 'echo hi'"), "bash -c 'echo hi'");
        for c in [0x200B, 0x200F, 0x202A, 0x202E, 0x2066, 0x2069, 0xFEFF] {
            assert!(is_invisible(char::from_u32(c).unwrap()), "{c:x}");
        }
    }

    /// The contexts every code point is tried in: the start of a line,
    /// after a letter, after a space, after an escape.
    const BEFORE: [&str; 4] = ["", "a", "a ", "\u{200B}"];

    /// Whether `shown` holds `c` or its escape.
    fn shows(shown: &str, c: char) -> bool {
        shown.contains(c)
            || shown.contains(&crate::report::visible::code_point(c))
            || crate::report::visible::escape(c).is_some_and(|e| shown.contains(&e))
    }

    /// Every code point in every context: [`line`] makes spans in which
    /// the renderer's measure ([`crate::report::cells`], what ratatui
    /// draws by) finds no cluster it would skip, and the character is in
    /// them as it is or as its escape.
    /// Unassigned and private-use code points (nine in ten) are tried
    /// after a letter only, to keep the test quick.
    #[test]
    fn every_code_point_is_drawn_or_escaped() {
        use unicode_general_category::{GeneralCategory as G, get_general_category};
        for c in (0..=0x10_FFFFu32).filter_map(char::from_u32) {
            if c == '\t' {
                continue; // drawn as a space, flagged in runs and at ends
            }
            let rare = matches!(get_general_category(c), G::Unassigned | G::PrivateUse);
            for before in if rare { &BEFORE[1..2] } else { &BEFORE[..] } {
                let (spans, _) = line(&format!("{before}{c}z"), Style::default());
                for s in &spans {
                    for (g, w) in crate::report::cells::graphemes(&s.content) {
                        assert!(
                            w > 0,
                            "U+{:04X} after {before:?}: {g:?} would be skipped",
                            c as u32
                        );
                    }
                }
                assert!(
                    shows(&text(&spans), c),
                    "U+{:04X} after {before:?}",
                    c as u32
                );
            }
        }
    }
}
