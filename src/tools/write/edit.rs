//! Exact text replacement with line endings preserved, and errors that
//! help a model fix a call that did not match.

/// How many lines of the file a hint quotes at most.
const HINT_LINES: usize = 12;

/// Replace `old` with `new` in `content` (once, or every time with
/// `replace_all`). Returns the new content and how many replacements were
/// made, or a message for the model.
pub fn replace(
    content: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<(String, usize), String> {
    if old.is_empty() {
        return Err("old_text is empty; give the exact text to replace (use write_file to create or overwrite a whole file)".into());
    }
    if old == new {
        return Err("old_text and new_text are identical; there is nothing to change".into());
    }
    // A CRLF file edited with LF text (what models send): match and replace
    // on LF, then restore CRLF, so the file's line endings are preserved.
    if is_crlf(content) && !old.contains('\r') {
        let lf = content.replace("\r\n", "\n");
        let (out, n) = replace_exact(&lf, old, &new.replace("\r\n", "\n"), replace_all)?;
        return Ok((out.replace('\n', "\r\n"), n));
    }
    if !content.contains('\r') && old.contains("\r\n") {
        return replace_exact(
            content,
            &old.replace("\r\n", "\n"),
            &new.replace("\r\n", "\n"),
            replace_all,
        );
    }
    replace_exact(content, old, new, replace_all)
}

/// Every line break is CRLF (and there is at least one).
fn is_crlf(s: &str) -> bool {
    let crlf = s.matches("\r\n").count();
    crlf > 0 && crlf == s.matches('\n').count()
}

fn replace_exact(
    content: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<(String, usize), String> {
    let starts: Vec<usize> = content.match_indices(old).map(|(i, _)| i).collect();
    match starts.len() {
        0 => Err(no_match(content, old)),
        1 => Ok((content.replacen(old, new, 1), 1)),
        n if replace_all => Ok((content.replace(old, new), n)),
        n => {
            let lines: Vec<String> = starts
                .iter()
                .take(20)
                .map(|&i| line_of(content, i).to_string())
                .collect();
            let more = if n > 20 {
                format!(" and {} more", n - 20)
            } else {
                String::new()
            };
            Err(format!(
                "old_text matches {n} times (at lines {}{more}); include more surrounding lines to make it unique, or set replace_all to replace every occurrence",
                lines.join(", ")
            ))
        }
    }
}

/// 1-based line number of byte offset `i`.
#[expect(
    clippy::naive_bytecount,
    reason = "the optimiser vectorises this; no bytecount dependency"
)]
fn line_of(s: &str, i: usize) -> usize {
    s.as_bytes()[..i].iter().filter(|b| **b == b'\n').count() + 1
}

fn squash(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Explain why `old` was not found and where something close is.
fn no_match(content: &str, old: &str) -> String {
    let file_lines: Vec<&str> = content.lines().collect();
    let old_lines: Vec<String> = old.lines().map(squash).collect();
    let old_lines: Vec<&String> = {
        // Ignore blank lines at the edges of old_text.
        let first = old_lines.iter().position(|l| !l.is_empty());
        let last = old_lines.iter().rposition(|l| !l.is_empty());
        match (first, last) {
            (Some(a), Some(b)) => old_lines[a..=b].iter().collect(),
            _ => Vec::new(),
        }
    };
    let base = "old_text was not found in the file";
    if old_lines.is_empty() {
        return format!("{base}; old_text is only whitespace");
    }
    // Whitespace-insensitive match of the whole block.
    let squashed: Vec<String> = file_lines.iter().map(|l| squash(l)).collect();
    let n = old_lines.len();
    if n <= squashed.len() {
        for start in 0..=squashed.len() - n {
            if (0..n).all(|k| &squashed[start + k] == old_lines[k]) {
                let quote: Vec<&str> = file_lines[start..start + n]
                    .iter()
                    .take(HINT_LINES)
                    .copied()
                    .collect();
                return format!(
                    "{base}, but it matches lines {}-{} when whitespace is ignored (indentation, tabs vs spaces, trailing spaces). \
                     The file has exactly:\n{}\nCopy the text exactly as the file has it.",
                    start + 1,
                    start + n,
                    quote.join("\n")
                );
            }
        }
    }
    // Where does the first line appear?
    let first = old_lines[0];
    let hits: Vec<String> = squashed
        .iter()
        .enumerate()
        .filter(|(_, l)| *l == first)
        .take(10)
        .map(|(i, _)| (i + 1).to_string())
        .collect();
    if !hits.is_empty() {
        return format!(
            "{base}; its first line appears at line {} but the lines after it differ. Read the file again (read_file) and copy the text exactly.",
            hits.join(", ")
        );
    }
    if content.to_lowercase().contains(&old.to_lowercase()) {
        return format!(
            "{base}; it matches when letter case is ignored. Copy the text exactly, including case."
        );
    }
    format!("{base}. Read the file again (read_file) and copy the text to replace exactly.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_once_and_all() {
        assert_eq!(
            replace("a b a", "b", "c", false).unwrap(),
            ("a c a".into(), 1)
        );
        let e = replace("a\nb\na\n", "a", "x", false).unwrap_err();
        assert!(e.contains("2 times") && e.contains("lines 1, 3"), "{e}");
        assert_eq!(
            replace("a\nb\na\n", "a", "x", true).unwrap(),
            ("x\nb\nx\n".into(), 2)
        );
    }

    #[test]
    fn crlf_is_preserved() {
        let (out, n) = replace("one\r\ntwo\r\nthree\r\n", "two\nthree", "2\n3\n4", false).unwrap();
        assert_eq!(n, 1);
        assert_eq!(out, "one\r\n2\r\n3\r\n4\r\n");
    }

    #[test]
    fn final_newline_presence_is_preserved() {
        assert_eq!(replace("a\nb", "b", "c", false).unwrap().0, "a\nc");
        assert_eq!(replace("a\nb\n", "b", "c", false).unwrap().0, "a\nc\n");
    }

    #[test]
    fn whitespace_hint_names_lines_and_quotes_file() {
        let file = "fn main() {\n\tlet x = 1;\n\tprintln!(\"{x}\");\n}\n";
        let e = replace(file, "    let x = 1;\n    println!(\"{x}\");", "", false).unwrap_err();
        assert!(e.contains("lines 2-3 when whitespace is ignored"), "{e}");
        assert!(e.contains("\tlet x = 1;"), "{e}");
    }

    #[test]
    fn first_line_hint() {
        let e = replace("a\nb\nc\n", "a\nz", "q", false).unwrap_err();
        assert!(e.contains("first line appears at line 1"), "{e}");
    }

    #[test]
    fn empty_and_identical_are_errors() {
        assert!(replace("a", "", "b", false).is_err());
        assert!(replace("a", "a", "a", false).is_err());
    }
}
