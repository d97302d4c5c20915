//! Text made visible for a terminal: control characters as escapes,
//! invisible and bidi characters as `<U+…>`. The log and the TUI show
//! calls with the same words.

/// True for characters that draw nothing or reorder text: zero-width
/// spaces and joiners, bidi embeddings, overrides and isolates, the BOM,
/// word joiners and invisible operators, soft hyphens, tag characters.
pub fn is_invisible(c: char) -> bool {
    matches!(c as u32,
        0x200B..=0x200F
        | 0x202A..=0x202E
        | 0x2060..=0x2064
        | 0x2066..=0x2069
        | 0xFEFF
        | 0x00AD
        | 0x034F
        | 0x061C
        | 0x115F | 0x1160
        | 0x17B4 | 0x17B5
        | 0x180B..=0x180F
        | 0x3164
        | 0xFFA0
        | 0xFFF9..=0xFFFB
        | 0xE0000..=0xE007F)
}

/// The visible form of `c`, when it needs one.
pub fn escape(c: char) -> Option<String> {
    if is_invisible(c) {
        return Some(format!("<U+{:04X}>", c as u32));
    }
    if c == '\t' {
        return None;
    }
    if c.is_control() {
        return Some(match c {
            '\r' => "\\r".into(),
            '\n' => "\\n".into(),
            c if (c as u32) < 0x100 => format!("\\x{:02x}", c as u32),
            c => format!("<U+{:04X}>", c as u32),
        });
    }
    None
}

/// `text` on one line for a list or a log: newlines and control
/// characters as escapes, invisible characters as `<U+…>`; nothing dropped.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => match escape(c) {
                Some(e) => out.push_str(&e),
                None => out.push(c),
            },
        }
    }
    out
}
