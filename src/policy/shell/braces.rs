//! Static brace expansion (`{to,}uch` is `touch uch`, `/{usr,etc}` is
//! `/usr /etc`, `x{1..3}` is `x1 x2 x3`), for words made only of plain
//! characters and braces, where the result is exact. Anything else is left
//! alone (`None`).

use super::Word;

/// Most words one brace expansion may produce.
const MAX_WORDS: usize = 1024;

/// The words of a command with every brace-expandable word expanded, or
/// `None` when some expanded word is not plain enough to expand exactly.
pub(super) fn expand_words(words: &[Word]) -> Option<Vec<Word>> {
    let mut out = Vec::new();
    for w in words {
        match w {
            Word::Literal(s) => out.push(Word::Literal(s.clone())),
            Word::Expanded(raw) => {
                out.extend(expand(raw)?.into_iter().map(Word::Literal));
            }
        }
        if out.len() > MAX_WORDS {
            return None;
        }
    }
    Some(out)
}

/// The brace expansion of one word written with plain characters only (no
/// quotes, escapes, `$`, globs or blanks), or `None`.
pub fn expand(raw: &str) -> Option<Vec<String>> {
    let plain = raw
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_-./,{}:=+@%^~".contains(c));
    if !plain || !raw.contains('{') || raw.starts_with('~') {
        return None;
    }
    let mut out = Vec::new();
    expand_into(raw, &mut out)?;
    Some(out)
}

fn expand_into(s: &str, out: &mut Vec<String>) -> Option<()> {
    if out.len() > MAX_WORDS {
        return None;
    }
    let bytes = s.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b != b'{' {
            continue;
        }
        let Some(j) = matching_close(bytes, i) else {
            continue;
        };
        let inner = &s[i + 1..j];
        let alternatives = split_top_level(inner);
        let items = if alternatives.len() > 1 {
            alternatives
        } else if let Some(seq) = sequence(inner) {
            seq
        } else if inner.contains("..") {
            // A sequence not modelled (`{01..10}`, `{a..z..x}`).
            return None;
        } else {
            continue;
        };
        for item in items {
            expand_into(&format!("{}{item}{}", &s[..i], &s[j + 1..]), out)?;
        }
        return Some(());
    }
    out.push(s.to_owned());
    Some(())
}

fn matching_close(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

fn split_top_level(inner: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut cur = String::new();
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    parts.push(cur);
    parts
}

/// `a..b` or `a..b..step`, integers or single letters.
fn sequence(inner: &str) -> Option<Vec<String>> {
    let parts: Vec<&str> = inner.split("..").collect();
    let (a, b, step) = match parts[..] {
        [a, b] => (a, b, 1i64),
        [a, b, s] => (a, b, s.parse::<i64>().ok()?.checked_abs()?.max(1)),
        _ => return None,
    };
    if let (Ok(x), Ok(y)) = (a.parse::<i64>(), b.parse::<i64>()) {
        // Zero-padded sequences (`{01..10}`) are not modelled.
        if [a, b]
            .iter()
            .any(|n| n.trim_start_matches('-').starts_with('0') && n.len() > 1)
        {
            return None;
        }
        return Some(steps(x, y, step)?.map(|n| n.to_string()).collect());
    }
    let (ca, cb) = (single_letter(a)?, single_letter(b)?);
    steps(i64::from(u32::from(ca)), i64::from(u32::from(cb)), step)?
        .map(|n| {
            u32::try_from(n)
                .ok()
                .and_then(char::from_u32)
                .map(String::from)
        })
        .collect()
}

/// The values from `x` to `y` (either direction) by `step` (at least 1),
/// or `None` when there would be more than [`MAX_WORDS`]. Never overflows:
/// `{-9223372036854775808..9223372036854775807}` is simply too many.
fn steps(x: i64, y: i64, step: i64) -> Option<impl Iterator<Item = i64>> {
    let count = usize::try_from(x.abs_diff(y) / step.unsigned_abs())
        .ok()?
        .checked_add(1)?;
    if count > MAX_WORDS {
        return None;
    }
    let dir = if y >= x { step } else { -step };
    Some(std::iter::successors(Some(x), move |n| n.checked_add(dir)).take(count))
}

fn single_letter(s: &str) -> Option<char> {
    let mut chars = s.chars();
    let c = chars.next()?;
    (chars.next().is_none() && c.is_ascii_alphabetic()).then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(s: &str) -> Option<Vec<String>> {
        expand(s)
    }

    #[test]
    fn expands_like_bash() {
        assert_eq!(e("{to,}uch").unwrap(), ["touch", "uch"]);
        assert_eq!(e("/{usr,etc}").unwrap(), ["/usr", "/etc"]);
        assert_eq!(e("x{1..3}").unwrap(), ["x1", "x2", "x3"]);
        assert_eq!(e("{3..1}").unwrap(), ["3", "2", "1"]);
        assert_eq!(e("{a..c}").unwrap(), ["a", "b", "c"]);
        assert_eq!(e("{1..7..3}").unwrap(), ["1", "4", "7"]);
        assert_eq!(e("a{b,c{d,e}}f").unwrap(), ["abf", "acdf", "acef"]);
        assert_eq!(e("{}{a,b}").unwrap(), ["{}a", "{}b"]);
        assert_eq!(e("{a}").unwrap(), ["{a}"]);
        assert_eq!(e("'{a,b}'"), None);
        assert_eq!(e("$x{a,b}"), None);
        assert_eq!(e("{01..03}"), None);
        assert_eq!(e("{1..100000}"), None);
        assert_eq!(e("{1..3000..3}").map(|w| w.len()), Some(1000));
        assert_eq!(e("{z..a..12}").unwrap(), ["z", "n", "b"]);
    }

    #[test]
    fn huge_ranges_are_refused_without_overflow() {
        assert_eq!(e("{-9223372036854775808..9223372036854775807}"), None);
        assert_eq!(e("{9223372036854775807..-9223372036854775808..2}"), None);
        assert_eq!(
            e("{0..9223372036854775807..9223372036854775807}").unwrap(),
            ["0", "9223372036854775807"]
        );
    }
}
