//! Text shown exactly: every character of a command, an argument or a
//! written line made visible, so nothing the human approves can hide.
//! Control characters become escapes (`\t`, `\r`, `\x1b`), invisible and
//! bidirectional-control characters become `<U+202E>`, trailing whitespace
//! and long runs of spaces become `·`, and each is counted so the prompt
//! can flag it.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::report::visible::escape;
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
    let mut flags = Flags::default();
    let trimmed = text.trim_end_matches([' ', '\t']);
    let tail = &text[trimmed.len()..];
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut plain = String::new();
    let flush = |plain: &mut String, spans: &mut Vec<Span<'static>>| {
        if !plain.is_empty() {
            spans.push(Span::styled(std::mem::take(plain), base));
        }
    };
    let chars: Vec<char> = trimmed.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == ' ' || c == '\t' {
            let run = chars[i..]
                .iter()
                .take_while(|&&c| c == ' ' || c == '\t')
                .count();
            if run >= LONG_RUN {
                flags.longest_run = flags.longest_run.max(run);
                flush(&mut plain, &mut spans);
                spans.push(Span::styled(blanks(&chars[i..i + run]), marked()));
                i += run;
                continue;
            }
        }
        if crate::report::visible::shown_after(i.checked_sub(1).map(|j| chars[j]), c) {
            plain.push(c);
        } else if let Some(esc) = escape(c) {
            if is_invisible(c) {
                flags.invisible += 1;
            } else {
                flags.control += 1;
            }
            flush(&mut plain, &mut spans);
            spans.push(Span::styled(esc, marked()));
        } else {
            plain.push(c);
        }
        i += 1;
    }
    flush(&mut plain, &mut spans);
    if !tail.is_empty() {
        flags.trailing += 1;
        let t: Vec<char> = tail.chars().collect();
        flags.longest_run = flags
            .longest_run
            .max(if t.len() >= LONG_RUN { t.len() } else { 0 });
        spans.push(Span::styled(blanks(&t), marked()));
    }
    (spans, flags)
}

/// Spaces as `·`, tabs as `→`.
fn blanks(run: &[char]) -> String {
    run.iter()
        .map(|&c| if c == '\t' { '→' } else { '·' })
        .collect()
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
}
