//! ANSI-C quoting (`$'…'`), decoded exactly or not at all.

/// Decodes the inside of `$'…'`. `None` when the result is not known
/// exactly without the locale or would contain a NUL (bash cuts the word
/// there), or for an escape we do not model.
pub(super) fn decode_ansi_c(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = chars.next()?;
        let decoded = match e {
            // Kept as written: a backslash and a newline.
            '\n' => {
                out.push('\\');
                '\n'
            }
            'a' => '\x07',
            'b' => '\x08',
            'e' | 'E' => '\x1b',
            'f' => '\x0c',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\x0b',
            '\\' | '\'' | '"' | '?' => e,
            '0'..='7' => {
                let mut value = e.to_digit(8)?;
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                ascii(value)?
            }
            'x' | 'u' | 'U' => {
                let max = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut value = 0u32;
                let mut n = 0;
                while n < max {
                    match chars.peek().and_then(|d| d.to_digit(16)) {
                        Some(d) => {
                            value = value.checked_mul(16)?.checked_add(d)?;
                            chars.next();
                            n += 1;
                        }
                        None => break,
                    }
                }
                if n == 0 {
                    return None;
                }
                ascii(value)?
            }
            _ => return None,
        };
        out.push(decoded);
    }
    Some(out)
}

/// A non-NUL ASCII character (others depend on the locale).
fn ascii(value: u32) -> Option<char> {
    (1..0x80)
        .contains(&value)
        .then(|| char::from_u32(value))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_c_decoding() {
        assert_eq!(decode_ansi_c("abc").as_deref(), Some("abc"));
        assert_eq!(decode_ansi_c(r"a\tb").as_deref(), Some("a\tb"));
        assert_eq!(decode_ansi_c(r"\x67it").as_deref(), Some("git"));
        assert_eq!(decode_ansi_c(r"\147it").as_deref(), Some("git"));
        assert_eq!(decode_ansi_c(r"\u0067").as_deref(), Some("g"));
        assert_eq!(decode_ansi_c(r"\'").as_deref(), Some("'"));
        assert_eq!(decode_ansi_c(r"a\0b"), None, "NUL cuts the word");
        assert_eq!(decode_ansi_c(r"\xff"), None, "not ASCII");
        assert_eq!(decode_ansi_c(r"\u00e9"), None, "locale-dependent");
        assert_eq!(
            decode_ansi_c(r"\cA"),
            None,
            "control escapes are not modelled"
        );
        assert_eq!(decode_ansi_c(r"\x"), None);
        assert_eq!(decode_ansi_c("\\"), None);
    }
}
