//! The tokenizer behind the guardrails: words with quotes and escapes
//! removed, separators between simple commands, redirections; comments
//! skipped; text run by substitutions inside double quotes and in
//! here-documents with an unquoted delimiter (read as bash reads them,
//! [`read_heredoc`]) collected for a check of its own.

use crate::policy::shell::read_heredoc;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tok {
    /// A word with quotes and escapes removed.
    Word(String),
    /// A separator between simple commands.
    Sep(&'static str),
    /// A redirection operator (`>`, `>>`, `<`, `&>` …).
    Redir,
}

#[derive(Debug, Default)]
pub(super) struct Lexed {
    pub(super) tokens: Vec<Tok>,
    /// Text run by a substitution inside double quotes.
    pub(super) nested: Vec<String>,
}

struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    src: &'a str,
    out: Lexed,
    word: Option<String>,
    heredocs: Vec<Heredoc>,
}

/// A here-document whose body is still to come.
struct Heredoc {
    delimiter: String,
    strip_tabs: bool,
    /// The delimiter was unquoted: the body is expanded.
    expanding: bool,
}

pub(super) fn lex(src: &str) -> Lexed {
    let mut lx = Lexer {
        chars: src.char_indices().peekable(),
        src,
        out: Lexed::default(),
        word: None,
        heredocs: Vec::new(),
    };
    lx.run();
    lx.out
}

impl Lexer<'_> {
    fn push_char(&mut self, c: char) {
        self.word.get_or_insert_with(String::new).push(c);
    }

    fn end_word(&mut self) {
        if let Some(w) = self.word.take() {
            let tok = match w.as_str() {
                "{" => Tok::Sep("{"),
                "}" => Tok::Sep("}"),
                _ => Tok::Word(w),
            };
            self.out.tokens.push(tok);
        }
    }

    fn sep(&mut self, s: &'static str) {
        self.end_word();
        self.out.tokens.push(Tok::Sep(s));
    }

    fn run(&mut self) {
        while let Some((_, c)) = self.chars.next() {
            match c {
                '\\' => match self.chars.next() {
                    Some((_, '\n')) | None => {}
                    Some((_, n)) => self.push_char(n),
                },
                '\'' => {
                    let w = self.word.get_or_insert_with(String::new);
                    for (_, n) in self.chars.by_ref() {
                        if n == '\'' {
                            break;
                        }
                        w.push(n);
                    }
                }
                '"' => self.double_quoted(),
                '#' if self.word.is_none() => {
                    while self.chars.next_if(|(_, n)| *n != '\n').is_some() {}
                }
                '\n' => {
                    self.sep("newline");
                    self.skip_heredoc_bodies();
                }
                ' ' | '\t' | '\r' => self.end_word(),
                ';' => self.sep(";"),
                '(' => self.sep("("),
                ')' => self.sep(")"),
                '`' => self.sep("`"),
                '$' if self.chars.peek().is_some_and(|(_, n)| *n == '(') => {
                    self.chars.next();
                    self.sep("$(");
                }
                '|' => {
                    let s = if self.chars.next_if(|(_, n)| *n == '|').is_some() {
                        "||"
                    } else {
                        self.chars.next_if(|(_, n)| *n == '&');
                        "|"
                    };
                    self.sep(s);
                }
                '&' => {
                    if self.chars.next_if(|(_, n)| *n == '&').is_some() {
                        self.sep("&&");
                    } else if self.chars.next_if(|(_, n)| *n == '>').is_some() {
                        self.chars.next_if(|(_, n)| *n == '>');
                        self.end_word();
                        self.out.tokens.push(Tok::Redir);
                    } else {
                        self.sep("&");
                    }
                }
                '>' | '<' => self.redirection(c),
                _ => self.push_char(c),
            }
        }
        self.end_word();
    }

    fn redirection(&mut self, c: char) {
        // `2>` and `2>&1`: a word of digits right before is the fd number.
        if self
            .word
            .as_deref()
            .is_some_and(|w| !w.is_empty() && w.chars().all(|d| d.is_ascii_digit()))
        {
            self.word = None;
        }
        self.end_word();
        if c == '<' && self.chars.next_if(|(_, n)| *n == '<').is_some() {
            if self.chars.next_if(|(_, n)| *n == '<').is_some() {
                self.out.tokens.push(Tok::Redir); // here-string
                return;
            }
            let strip_tabs = self.chars.next_if(|(_, n)| *n == '-').is_some();
            self.heredoc_delimiter(strip_tabs);
            return;
        }
        if c == '<' && self.chars.peek().is_some_and(|(_, n)| *n == '(') {
            return; // process substitution: `(` separates next
        }
        if c == '>' && self.chars.peek().is_some_and(|(_, n)| *n == '(') {
            return;
        }
        self.chars.next_if(|(_, n)| matches!(n, '>' | '|' | '&'));
        self.out.tokens.push(Tok::Redir);
    }

    fn heredoc_delimiter(&mut self, strip_tabs: bool) {
        while self
            .chars
            .next_if(|(_, n)| *n == ' ' || *n == '\t')
            .is_some()
        {}
        let mut delimiter = String::new();
        let mut expanding = true;
        while let Some((_, n)) = self
            .chars
            .next_if(|(_, n)| !n.is_whitespace() && !matches!(n, ';' | '&' | '|' | '(' | ')'))
        {
            if matches!(n, '\'' | '"' | '\\') {
                expanding = false;
            } else {
                delimiter.push(n);
            }
        }
        self.heredocs.push(Heredoc {
            delimiter,
            strip_tabs,
            expanding,
        });
    }

    /// Reads the bodies of the here-documents of the line just ended; the
    /// substitutions in expanding ones are checked like nested commands.
    fn skip_heredoc_bodies(&mut self) {
        let pending = std::mem::take(&mut self.heredocs);
        for doc in pending {
            let Some(&(start, _)) = self.chars.peek() else {
                return;
            };
            let (body, end) = read_heredoc(
                self.src,
                start,
                &doc.delimiter,
                doc.strip_tabs,
                doc.expanding,
            );
            while self.chars.next_if(|(j, _)| *j < end).is_some() {}
            if doc.expanding {
                self.out.nested.extend(substitutions(&body));
            }
        }
    }

    fn double_quoted(&mut self) {
        self.word.get_or_insert_with(String::new);
        while let Some((i, c)) = self.chars.next() {
            match c {
                '"' => return,
                '\\' => {
                    if let Some((_, n)) = self.chars.next() {
                        if !matches!(n, '"' | '\\' | '$' | '`' | '\n') {
                            self.push_char('\\');
                        }
                        if n != '\n' {
                            self.push_char(n);
                        }
                    }
                }
                '$' if self.chars.peek().is_some_and(|(_, n)| *n == '(') => {
                    self.chars.next();
                    let inner = self.until_close_paren(i + 2);
                    self.out.nested.push(inner);
                    self.push_char('$');
                }
                '`' => {
                    let start = i + 1;
                    let mut end = self.src.len();
                    for (j, n) in self.chars.by_ref() {
                        if n == '`' {
                            end = j;
                            break;
                        }
                    }
                    self.out.nested.push(self.src[start..end].to_string());
                    self.push_char('$');
                }
                _ => self.push_char(c),
            }
        }
    }

    /// The text from `start` to the `)` that closes an already-opened `(`.
    fn until_close_paren(&mut self, start: usize) -> String {
        let mut depth = 1;
        let mut end = self.src.len();
        for (j, n) in self.chars.by_ref() {
            match n {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = j;
                        break;
                    }
                }
                _ => {}
            }
        }
        self.src[start.min(end)..end].to_string()
    }
}

/// The text run by `$(…)` (and `$((…))`, whose subscripts can run
/// commands) and by backquotes in an expanding here-document body.
fn substitutions(body: &str) -> Vec<String> {
    let chars: Vec<char> = body.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '$' if chars.get(i + 1) == Some(&'(') => {
                let start = i + 2;
                let mut depth = 1usize;
                let mut j = start;
                while j < chars.len() {
                    match chars[j] {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                out.push(chars[start..j.min(chars.len())].iter().collect());
                i = j + 1;
            }
            '`' => {
                let start = i + 1;
                let mut j = start;
                while j < chars.len() && chars[j] != '`' {
                    j += if chars[j] == '\\' { 2 } else { 1 };
                }
                let end = j.min(chars.len());
                out.push(chars[start..end].iter().collect());
                i = end + 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// A simple command: its words, and the targets of its redirections.
#[derive(Debug, Default)]
pub(super) struct Simple {
    pub(super) words: Vec<String>,
    pub(super) redirect_targets: Vec<String>,
}

pub(super) fn simple_commands(tokens: &[Tok]) -> Vec<Simple> {
    let mut out = Vec::new();
    let mut cur = Simple::default();
    let mut redirect_next = false;
    for t in tokens {
        match t {
            Tok::Word(w) if redirect_next => {
                cur.redirect_targets.push(w.clone());
                redirect_next = false;
            }
            Tok::Word(w) => cur.words.push(w.clone()),
            Tok::Redir => redirect_next = true,
            Tok::Sep(_) => {
                out.push(std::mem::take(&mut cur));
                redirect_next = false;
            }
        }
    }
    out.push(cur);
    out.retain(|s| !s.words.is_empty() || !s.redirect_targets.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexer_basics() {
        let l = lex("echo 'a b' \"c $(rm -rf /)\" # rm -rf /\nls");
        assert_eq!(
            l.tokens,
            vec![
                Tok::Word("echo".into()),
                Tok::Word("a b".into()),
                Tok::Word("c $".into()),
                Tok::Sep("newline"),
                Tok::Word("ls".into()),
            ]
        );
        assert_eq!(l.nested, vec!["rm -rf /".to_string()]);
    }

    #[test]
    fn heredoc_bodies_are_skipped() {
        let l = lex("cat <<'EOF' > notes.txt\nrm -rf /\nEOF\necho done");
        let words: Vec<_> = l
            .tokens
            .iter()
            .filter_map(|t| match t {
                Tok::Word(w) => Some(w.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(words, vec!["cat", "notes.txt", "echo", "done"]);
    }
}
