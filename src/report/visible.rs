//! Text made visible for a terminal: control characters as escapes,
//! invisible and bidi characters as `<U+…>`, and so is any character the
//! renderer would draw as nothing where it stands (a cluster measuring 0
//! cells, [`crate::report::cells`]). The log and the TUI show calls with
//! the same words.

use crate::report::cells::SpanEnd;

/// True for characters that draw nothing, look like a plain space without
/// being one, or reorder text, decided by their Unicode properties (not a
/// list of examples): every format character (zero-width spaces and
/// joiners, bidi embeddings, overrides, isolates and marks, the BOM, word
/// joiners, invisible operators, soft hyphens, tag characters, the
/// Egyptian, Brahmi, shorthand and musical format controls), the line and
/// paragraph separators, every space but U+0020, unassigned code points and
/// noncharacters, and the default-ignorable characters of other categories
/// (the combining grapheme joiner, Hangul fillers, Khmer inherent vowels,
/// Mongolian variation selectors, variation selectors and their
/// supplement), plus the braille blank.
pub fn is_invisible(c: char) -> bool {
    use unicode_general_category::{GeneralCategory as G, get_general_category};
    if c == ' ' {
        return false;
    }
    match get_general_category(c) {
        G::Format
        | G::LineSeparator
        | G::ParagraphSeparator
        | G::SpaceSeparator
        | G::Unassigned => true,
        _ => matches!(c as u32,
            0x034F
            | 0x115F | 0x1160
            | 0x17B4 | 0x17B5
            | 0x180B..=0x180F
            | 0x2800
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFFA0
            | 0xE0000..=0xE0FFF),
    }
}

/// Whether `c`, written right after `prev`, is shown as it is although
/// [`is_invisible`] says it draws nothing: a text or emoji presentation
/// selector (U+FE0E, U+FE0F) right after a symbol (`❤️`, `⚠️`, `✔️`), where
/// it only picks how that visible symbol is drawn. After anything else (a
/// letter, a space, the start of the text) it is escaped like the rest.
pub fn shown_after(prev: Option<char>, c: char) -> bool {
    use unicode_general_category::{GeneralCategory as G, get_general_category};
    matches!(c, '\u{FE0E}' | '\u{FE0F}')
        && prev.is_some_and(|p| get_general_category(p) == G::OtherSymbol)
}

/// `<U+XXXX>`: how a character that draws nothing is shown.
pub fn code_point(c: char) -> String {
    format!("<U+{:04X}>", c as u32)
}

/// The visible form of `c`, when it needs one wherever it stands (its
/// properties alone; [`escape_at`] also looks at what is before it).
pub fn escape(c: char) -> Option<String> {
    if is_invisible(c) {
        return Some(code_point(c));
    }
    if c == '\t' {
        return None;
    }
    if c.is_control() {
        return Some(match c {
            '\r' => "\\r".into(),
            '\n' => "\\n".into(),
            c if (c as u32) < 0x100 => format!("\\x{:02x}", c as u32),
            c => code_point(c),
        });
    }
    None
}

/// The visible form of `c` written after what `end` has seen of its span
/// (an escape starts a new span: `end` is reset after one): [`escape`],
/// or `<U+…>` for a character the renderer would not draw there (a
/// Hangul vowel jamo after a Latin letter, a combining mark at the start
/// of a span or after a tab, U+0D4E), or `None` when it is drawn as it is.
/// A tab is left to the caller.
pub fn escape_at(end: &SpanEnd, c: char) -> Option<String> {
    if shown_after(end.prev(), c) {
        return None;
    }
    if let Some(e) = escape(c) {
        return Some(e);
    }
    (c != '\t' && end.drops(c)).then(|| code_point(c))
}

/// `text` on one line for a list or a log: newlines and control
/// characters as escapes, invisible characters and characters that would
/// draw as nothing as `<U+…>`; nothing dropped.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut end = SpanEnd::default();
    for c in text.chars() {
        let shown = match c {
            '\n' => Some("\\n".to_string()),
            '\t' => Some("\\t".to_string()),
            c => escape_at(&end, c),
        };
        if let Some(e) = shown {
            out.push_str(&e);
            end.reset();
        } else {
            out.push(c);
            end.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Characters a red-team pass found printed raw by the earlier list of
    /// examples: each is now escaped, and the text around it is kept.
    #[test]
    fn hiding_characters_are_escaped_by_their_properties() {
        let hiding = [
            0x00A0, 0x2003, 0x3000, 0x2028, 0x2029, 0x206A, 0x206F, 0xFE00, 0xFE0F, 0xE0100,
            0xE01EF, 0x1D173, 0x1D17A, 0x1BCA0, 0x1BCA3, 0x13430, 0x1343F, 0x2800, 0x180E, 0xFDD0,
            0xFFFE,
        ];
        for c in hiding {
            let c = char::from_u32(c).unwrap();
            let raw = format!("rm{c}-rf");
            assert!(is_invisible(c), "{:04X}", c as u32);
            let shown = one_line(&raw);
            assert_eq!(shown, format!("rm<U+{:04X}>-rf", c as u32));
            // The control: printed as it is, the character reaches the
            // terminal and reads as nothing (or as a plain space).
            assert!(raw.contains(c) && !shown.contains(c));
        }
    }

    /// A presentation selector is shown after a symbol, escaped elsewhere.
    #[test]
    fn presentation_selectors_only_after_a_symbol() {
        assert_eq!(one_line("\u{2764}\u{FE0F}"), "\u{2764}\u{FE0F}");
        assert_eq!(one_line("rm\u{FE0F} -rf"), "rm<U+FE0F> -rf");
        assert_eq!(one_line("\u{FE0F}x"), "<U+FE0F>x");
        assert_eq!(one_line("a \u{FE0E}"), "a <U+FE0E>");
    }

    /// Every code point of the categories that draw nothing is escaped,
    /// and ordinary text (letters, marks, symbols, the plain space, tab)
    /// is kept as it is.
    #[test]
    fn the_whole_range_follows_the_categories() {
        use unicode_general_category::{GeneralCategory as G, get_general_category};
        for u in 0..=0x10_FFFFu32 {
            let Some(c) = char::from_u32(u) else { continue };
            let hidden = matches!(
                get_general_category(c),
                G::Format | G::LineSeparator | G::ParagraphSeparator | G::Unassigned
            ) || (get_general_category(c) == G::SpaceSeparator && c != ' ');
            if hidden {
                assert!(escape(c).is_some(), "{u:04X} is shown raw");
            }
        }
        for text in [
            "héllo ✓ 日本語",
            "e\u{301}",
            "a\tb c",
            "Ελληνικά",
            "🙂",
            "❤\u{FE0F} ⚠\u{FE0F}",
        ] {
            assert_eq!(one_line(text), text.replace('\t', "\\t"));
        }
    }
}
