//! Backslash-newline, where brush-parser and bash read it differently.
//!
//! * In a here-document whose delimiter is unquoted, bash deletes every
//!   `\` + newline while it reads the body, before it looks for the
//!   delimiter and before it expands the body: `$\⏎(cmd)` runs `cmd`, a
//!   line `EO\⏎F` ends a body delimited by `EOF`, and `x\⏎EOF` does not.
//!   brush keeps the pairs. [`join_heredocs`] rewrites the source the way
//!   bash reads it, so that the parse that follows sees bash's bodies and
//!   bash's commands.
//! * Inside `$'…'`, bash keeps `\` + newline (both characters); brush's
//!   tokenizer deletes them. [`ansi_c_token`] recovers bash's token.

use std::panic::{AssertUnwindSafe, catch_unwind};

use brush_parser::{Token, TokenizerOptions};

/// Whether `text` has a `\` + newline that bash's here-document reading
/// deletes: a backslash escapes the next character, so `\\⏎` is not one.
pub(super) fn has_continuation(text: &str) -> bool {
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') => return true,
                Some(_) => {}
                None => return false,
            }
        }
    }
    false
}

/// `text` with every `\` + newline deleted as bash deletes them from an
/// expanding here-document body.
pub(super) fn remove_continuations(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') => {}
                Some(next) => {
                    out.push('\\');
                    out.push(next);
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// How far bash reads an expanding here-document body that starts at
/// `body` (a byte offset of `src`): the byte offset just past its
/// delimiter line, or the end of `src`.
pub(super) fn bash_body_end(src: &str, body: usize, delimiter: &str, strip_tabs: bool) -> usize {
    read_heredoc(src, body, delimiter, strip_tabs, true).1
}

/// A here-document body as bash reads it from byte `body` of `src`: its
/// lines (with leading tabs removed for `<<-`, `strip_tabs`), and the
/// byte offset just past its delimiter line (or the end of `src`). With
/// `expanding` (an unquoted delimiter) lines are read as bash's
/// `read_a_line` reads them then: `\` + newline deleted, a backslash
/// passing the next character; the delimiter is looked for in the joined
/// lines. NUL bytes are ignored either way.
pub fn read_heredoc(
    src: &str,
    body: usize,
    delimiter: &str,
    strip_tabs: bool,
    expanding: bool,
) -> (String, usize) {
    let mut text = String::new();
    let mut pos = body.min(src.len());
    while pos < src.len() {
        let (line, next) = logical_line(src, pos, expanding);
        pos = next;
        let is_delimiter = |l: &str| l.strip_prefix(delimiter) == Some("\n");
        if is_delimiter(&line) {
            return (text, pos);
        }
        let line = if strip_tabs {
            line.trim_start_matches('\t')
        } else {
            &line
        };
        if is_delimiter(line) {
            return (text, pos);
        }
        text.push_str(line);
    }
    (text, src.len())
}

/// One line of a here-document from byte `start`: its text (ending in a
/// newline, which bash adds at the end of the input) and the byte offset
/// after it; `join` reads it as for an unquoted delimiter.
fn logical_line(src: &str, start: usize, join: bool) -> (String, usize) {
    let mut line = String::new();
    let mut chars = src[start..].char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\0' => {}
            '\\' if join => match chars.peek() {
                Some(&(_, '\n')) => {
                    chars.next();
                }
                Some(&(_, next)) => {
                    line.push('\\');
                    line.push(next);
                    chars.next();
                }
                None => line.push('\\'),
            },
            '\n' => {
                line.push('\n');
                return (line, start + i + 1);
            }
            c => line.push(c),
        }
    }
    line.push('\n');
    (line, src.len())
}

/// One rewrite of `src`: the first here-document with an unquoted
/// delimiter whose body has a `\` + newline gets its body, as far as bash
/// reads it, with those pairs deleted. `None` when there is nothing to
/// rewrite (or the tokenizer fails: the parse then fails too). Here-documents inside
/// command substitutions are rewritten when their text is parsed.
pub(super) fn join_heredocs(src: &str, options: &TokenizerOptions) -> Option<String> {
    if !src.contains("<<") || !src.contains("\\\n") {
        return None;
    }
    let tokens = catch_unwind(AssertUnwindSafe(|| {
        brush_parser::tokenize_str_with_options(src, options)
    }))
    .ok()?
    .ok()?;
    let offsets = CharOffsets::new(src);
    for window in tokens.windows(3) {
        let [
            Token::Operator(op, _),
            Token::Word(tag, _),
            Token::Word(_, body),
        ] = window
        else {
            continue;
        };
        if !matches!(op.as_str(), "<<" | "<<-") || tag.contains(['\'', '"', '\\']) {
            continue;
        }
        let start = offsets.byte(body.start.index)?;
        let end = offsets.byte(body.end.index)?;
        if start > end || !has_continuation(&src[start..end]) {
            continue;
        }
        let stop = bash_body_end(src, start, tag, op == "<<-");
        let joined = remove_continuations(&src[start..stop]);
        if joined.len() == stop - start {
            // bash stops before the pair (the caller still sees it).
            continue;
        }
        return Some(format!("{}{joined}{}", &src[..start], &src[stop..]));
    }
    None
}

/// Byte offsets of character positions (brush counts characters).
struct CharOffsets(Vec<usize>);

impl CharOffsets {
    fn new(src: &str) -> Self {
        let mut offsets: Vec<usize> = src.char_indices().map(|(i, _)| i).collect();
        offsets.push(src.len());
        CharOffsets(offsets)
    }

    fn byte(&self, char_index: usize) -> Option<usize> {
        self.0.get(char_index).copied()
    }
}

/// The character range `start..end` of `src` as a string slice.
pub(super) fn char_slice(src: &str, start: usize, end: usize) -> Option<&str> {
    let mut indices = src.char_indices().map(|(i, _)| i).chain([src.len()]);
    let from = indices.nth(start)?;
    let to = if end == start {
        from
    } else {
        indices.nth(end - start - 1)?
    };
    src.get(from..to)
}

/// What bash makes of a word that brush tokenized as `token` from the
/// source text `raw`, where the two differ.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum AnsiCToken {
    /// brush's token is bash's.
    Same,
    /// bash's token: the `\` + newline pairs inside single quotes and
    /// `$'…'` kept.
    Bash(String),
    /// Not modelled (a substitution or expansion holds the difference).
    Unknown,
}

/// Quoting state while reading a word.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    None,
    Single,
    AnsiC,
    Double,
}

/// bash's token for a word written `raw` that brush read as `token`:
/// brush deletes `\` + newline inside `$'…'` (and after `\$'`, which it
/// also takes for ANSI-C quoting), bash keeps them there. Read only for
/// words without substitutions; brush's reading is recomputed alongside
/// and must equal `token`, or the word is [`AnsiCToken::Unknown`].
pub(super) fn ansi_c_token(raw: &str, token: &str) -> AnsiCToken {
    if raw == token || !raw.contains('\'') || !raw.contains("\\\n") {
        return AnsiCToken::Same;
    }
    let mut brush = String::new();
    let mut bash = String::new();
    let mut quote = Quote::None;
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        let both = |s: &mut String, t: &mut String, c: char| {
            s.push(c);
            t.push(c);
        };
        match (quote, c) {
            (Quote::Single | Quote::AnsiC, '\'') | (Quote::Double, '"') => {
                quote = Quote::None;
                both(&mut brush, &mut bash, c);
            }
            (Quote::Single, c) => both(&mut brush, &mut bash, c),
            (Quote::None | Quote::Double, '`') => return AnsiCToken::Unknown,
            (Quote::None | Quote::Double, '$')
                if chars.peek().is_some_and(|n| "({".contains(*n)) =>
            {
                return AnsiCToken::Unknown;
            }
            (_, '\\') => match chars.next() {
                Some('\n') if quote == Quote::AnsiC => bash.push_str("\\\n"),
                Some('\n') => {}
                Some(next) => {
                    both(&mut brush, &mut bash, '\\');
                    both(&mut brush, &mut bash, next);
                }
                None => both(&mut brush, &mut bash, '\\'),
            },
            (Quote::None, '\'') => {
                quote = if brush.ends_with('$') {
                    Quote::AnsiC
                } else {
                    Quote::Single
                };
                both(&mut brush, &mut bash, c);
            }
            (Quote::None, '"') => {
                quote = Quote::Double;
                both(&mut brush, &mut bash, c);
            }
            (_, c) => both(&mut brush, &mut bash, c),
        }
    }
    if brush != token {
        return AnsiCToken::Unknown;
    }
    if bash == token {
        AnsiCToken::Same
    } else {
        AnsiCToken::Bash(bash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn join(src: &str) -> Option<String> {
        join_heredocs(src, &TokenizerOptions::default())
    }

    #[test]
    fn continuations_as_bash_reads_them() {
        assert!(has_continuation("$\\\n(x)"));
        assert!(!has_continuation("$\\\\\n(x)"), "an escaped backslash");
        assert!(has_continuation("\\\\\\\n"), "an escaped one, then a pair");
        assert_eq!(remove_continuations("$\\\n(x)\\\\\n"), "$(x)\\\\\n");
    }

    #[test]
    fn bodies_are_joined_as_far_as_bash_reads_them() {
        assert_eq!(
            join("cat <<EOF\n$\\\n(rm x)\nEOF\n").as_deref(),
            Some("cat <<EOF\n$(rm x)\nEOF\n")
        );
        // bash ends the body at `EO\⏎F`; what follows is commands.
        assert_eq!(
            join("cat <<EOF\nEO\\\nF\nrm x\nEOF\n").as_deref(),
            Some("cat <<EOF\nEOF\nrm x\nEOF\n")
        );
        // bash reads past `x\⏎ls`: the next lines are body.
        assert_eq!(
            join("cat <<ls\nx\\\nls\necho '$(rm x)'\nls").as_deref(),
            Some("cat <<ls\nxls\necho '$(rm x)'\nls")
        );
        // <<- strips tabs from the joined line.
        assert_eq!(
            join("cat <<-E\n\tE\\\n\nrm x\nE\n").as_deref(),
            Some("cat <<-E\n\tE\nrm x\nE\n")
        );
        // Quoted delimiters, here-strings, escaped backslashes: untouched.
        assert_eq!(join("cat <<'EOF'\n$\\\n(rm x)\nEOF\n"), None);
        assert_eq!(join("cat <<\\EOF\n$\\\n(rm x)\nEOF\n"), None);
        assert_eq!(join("cat <<< x\nls \\\n-l"), None);
        assert_eq!(join("cat <<EOF\n$\\\\\n(x)\nEOF\n"), None);
    }

    #[test]
    fn ansi_c_keeps_backslash_newline() {
        assert_eq!(
            ansi_c_token("$'a\\\nb'", "$'ab'"),
            AnsiCToken::Bash("$'a\\\nb'".into())
        );
        assert_eq!(
            ansi_c_token("\\$'a\\\nb'", "\\$'ab'"),
            AnsiCToken::Bash("\\$'a\\\nb'".into())
        );
        assert_eq!(ansi_c_token("a\\\nb", "ab"), AnsiCToken::Same);
        assert_eq!(ansi_c_token("\"a\\\nb\"'c'", "\"ab\"'c'"), AnsiCToken::Same);
        assert_eq!(ansi_c_token("$'a\\\n'$(x)", "$''$(x)"), AnsiCToken::Unknown);
        assert_eq!(ansi_c_token("$'a\\\nb'", "$'zz'"), AnsiCToken::Unknown);
    }

    #[test]
    fn character_slices() {
        assert_eq!(char_slice("aé b", 1, 2), Some("é"));
        assert_eq!(char_slice("aé b", 2, 4), Some(" b"));
        assert_eq!(char_slice("ab", 1, 1), Some(""));
        assert_eq!(char_slice("ab", 1, 5), None);
    }
}
