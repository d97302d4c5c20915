//! Words: literal after quote removal, or expanded by the shell, and the
//! hazards and nested commands hidden in their expansions.

use std::panic::{AssertUnwindSafe, catch_unwind};

use brush_parser::ast;
use brush_parser::word::{
    self, ParameterExpr, ParameterTransformOp, WordPiece, WordPieceWithSource,
};

use super::ansi_c::decode_ansi_c;
use super::continuation;
use super::parse::{Walker, options};
use super::{Hazard, Word};

/// A word as the matcher sees it.
pub(super) struct WordClass {
    pub word: Word,
    /// It contains a parameter expansion (`$X`, `${X:-y}`).
    pub has_parameter: bool,
    pub hazards: Vec<Hazard>,
}

/// What the pieces of a word add up to.
#[derive(Default)]
struct Acc {
    /// The value after quote removal (meaningful when `literal`).
    text: String,
    /// Unquoted text, other pieces replaced by NUL: where globs and brace
    /// expansion can hide.
    shape: String,
    expanded: bool,
    has_parameter: bool,
    hazards: Vec<Hazard>,
}

impl Walker {
    /// Classifies one word as written (`ast::Word::value`).
    pub(super) fn classify_word(&mut self, raw: &str) -> WordClass {
        let mut acc = Acc::default();
        if let Some(pieces) = parse_word(raw) {
            self.pieces(&pieces, false, &mut acc);
        } else {
            acc.expanded = true;
            acc.hazards.push(Hazard::Unparseable(raw.to_owned()));
        }
        if has_glob(&acc.shape, &acc.text) || has_brace_expansion(&acc.shape) {
            acc.expanded = true;
        }
        WordClass {
            word: if acc.expanded {
                Word::Expanded(raw.to_owned())
            } else {
                Word::Literal(acc.text)
            },
            has_parameter: acc.has_parameter,
            hazards: acc.hazards,
        }
    }

    /// Classifies a word of the program being walked. brush's token
    /// differs from bash's where `$'…'` holds a backslash-newline (bash
    /// keeps it, brush deletes it), so such a word is read again from the
    /// source ([`continuation::ansi_c_token`]).
    pub(super) fn classify_ast_word(&mut self, w: &ast::Word) -> WordClass {
        let located = || {
            let loc = w.loc.as_ref()?;
            continuation::char_slice(&self.source, loc.start.index, loc.end.index)
        };
        let reread = if self.source_continues_lines && w.value.contains('\'') {
            match located() {
                Some(raw) => continuation::ansi_c_token(raw, &w.value),
                None => continuation::AnsiCToken::Unknown,
            }
        } else {
            continuation::AnsiCToken::Same
        };
        match reread {
            continuation::AnsiCToken::Same => self.classify_word(&w.value),
            continuation::AnsiCToken::Bash(token) => self.classify_word(&token),
            continuation::AnsiCToken::Unknown => {
                self.dynamic("a backslash-newline inside quotes that is not modelled".into());
                let mut class = self.classify_word(&w.value);
                class.hazards.push(Hazard::Unparseable(format!(
                    "{} (a backslash-newline)",
                    w.value
                )));
                class
            }
        }
    }

    /// The hazards of a here-document: its body is only expanded when the
    /// delimiter is unquoted, and then substitutions in it run. A body
    /// that still continues lines (the source rewrite did not reach it) is
    /// read joined, as bash reads it, and trusted by no rule.
    pub(super) fn heredoc(&mut self, doc: &ast::IoHereDocument) -> Vec<Hazard> {
        if !doc.requires_expansion {
            return Vec::new();
        }
        let joined;
        let mut body = doc.doc.value.as_str();
        if continuation::has_continuation(body) {
            self.joined_heredoc();
            joined = continuation::remove_continuations(body);
            body = &joined;
        }
        let parsed = catch_unwind(AssertUnwindSafe(|| word::parse_heredoc(body, &options())));
        let mut acc = Acc::default();
        match parsed {
            Ok(Ok(pieces)) => self.pieces(&pieces, true, &mut acc),
            _ => acc
                .hazards
                .push(Hazard::Unparseable("here-document".into())),
        }
        acc.hazards
    }

    fn pieces(&mut self, pieces: &[WordPieceWithSource], quoted: bool, acc: &mut Acc) {
        for p in pieces {
            self.piece(&p.piece, quoted, acc);
        }
    }

    fn piece(&mut self, piece: &WordPiece, quoted: bool, acc: &mut Acc) {
        match piece {
            WordPiece::Text(s) => {
                acc.text.push_str(s);
                if quoted {
                    acc.shape.push('\0');
                } else {
                    acc.shape.push_str(s);
                }
            }
            WordPiece::SingleQuotedText(s) => {
                acc.text.push_str(s);
                acc.shape.push('\0');
            }
            WordPiece::AnsiCQuotedText(s) => {
                match decode_ansi_c(s) {
                    Some(t) => acc.text.push_str(&t),
                    None => acc.expanded = true,
                }
                acc.shape.push('\0');
            }
            WordPiece::DoubleQuotedSequence(inner) => {
                acc.shape.push('\0');
                self.pieces(inner, true, acc);
            }
            WordPiece::GettextDoubleQuotedSequence(inner) => {
                // `$"…"` may be translated: not known exactly.
                acc.expanded = true;
                acc.shape.push('\0');
                self.pieces(inner, true, acc);
            }
            WordPiece::TildeExpansion(_) => {
                acc.expanded = true;
                acc.shape.push('\0');
            }
            WordPiece::ParameterExpansion(expr) => {
                acc.expanded = true;
                acc.has_parameter = true;
                acc.shape.push('\0');
                self.parameter(expr, acc);
            }
            WordPiece::CommandSubstitution(src) => {
                acc.expanded = true;
                acc.shape.push('\0');
                acc.hazards.push(Hazard::CommandSubstitution);
                if !self.nested_source(src) {
                    acc.hazards.push(Hazard::Unparseable(format!("$({src})")));
                }
            }
            WordPiece::BackquotedCommandSubstitution(src) => {
                acc.expanded = true;
                acc.shape.push('\0');
                acc.hazards.push(Hazard::CommandSubstitution);
                if !self.nested_source(&unescape_backquoted(src)) {
                    acc.hazards.push(Hazard::Unparseable(format!("`{src}`")));
                }
            }
            WordPiece::EscapeSequence(s) => {
                // `\x` is `x`; a backslash-newline disappears.
                let mut chars = s.chars();
                chars.next();
                let rest: String = chars.filter(|&c| c != '\n').collect();
                acc.text.push_str(&rest);
                acc.shape.push('\0');
            }
            WordPiece::ArithmeticExpression(expr) => {
                acc.expanded = true;
                acc.shape.push('\0');
                self.arithmetic(&expr.value, acc);
            }
        }
    }

    /// Arithmetic with anything but numbers and operators evaluates
    /// variables' contents as expressions, and an array subscript in them
    /// runs command substitutions (`x='a[$(cmd)]'; $((x))`).
    fn arithmetic(&mut self, expr: &str, acc: &mut Acc) {
        if !is_plain_arithmetic(expr) {
            acc.hazards
                .push(Hazard::CodeInExpansion("arithmetic on variables".into()));
        }
        self.nested_text(expr, acc);
    }

    /// Hazards and commands inside a string embedded in an expansion
    /// (`${x:-TEXT}`, a pattern, an arithmetic expression). Whether quotes
    /// in it quote depends on the context (`"${x:-'$(cmd)'}"` runs `cmd`,
    /// `${x:-'$(cmd)'}` does not), so it is read both ways and everything
    /// either reading finds counts.
    fn nested_text(&mut self, text: &str, acc: &mut Acc) {
        if !text.contains(['$', '`']) {
            return;
        }
        let mut inner = Acc::default();
        let readings = [parse_word(text), parse_quotes_literal(text)];
        for reading in readings {
            match reading {
                Some(pieces) => self.pieces(&pieces, true, &mut inner),
                None => inner.hazards.push(Hazard::Unparseable(text.to_owned())),
            }
        }
        acc.has_parameter |= inner.has_parameter;
        acc.hazards.extend(inner.hazards);
    }

    fn parameter(&mut self, expr: &ParameterExpr, acc: &mut Acc) {
        use ParameterExpr as P;
        match expr {
            P::Substring { offset, length, .. } => {
                for e in std::iter::once(offset).chain(length.iter()) {
                    self.arithmetic(&e.value, acc);
                }
            }
            P::Transform {
                op: ParameterTransformOp::PromptExpand,
                ..
            } => {
                acc.hazards
                    .push(Hazard::CodeInExpansion("prompt expansion".into()));
            }
            _ => {}
        }
        let (parameter, indirect) = parameter_of(expr);
        if indirect {
            acc.hazards
                .push(Hazard::CodeInExpansion("indirect expansion".into()));
        }
        // `${X:=v}` assigns X (`${BASH_CMDS[ls]:=/tmp/x}` changes what
        // `ls` runs).
        if let (P::AssignDefaultValues { .. }, Some(p)) = (expr, parameter) {
            let name = match p {
                word::Parameter::Named(n) => n.clone(),
                word::Parameter::NamedWithIndex { name, index } => format!("{name}[{index}]"),
                other => other.to_string(),
            };
            self.locale_set_by_expansion(&name);
            acc.hazards.push(Hazard::EnvAssignment(name));
        }
        if let Some(word::Parameter::NamedWithIndex { index, .. }) = parameter {
            self.arithmetic(index, acc);
        }
        for text in expanded_texts(expr) {
            self.nested_text(text, acc);
        }
    }
}

/// The parameter an expansion reads, and whether it reads it indirectly
/// (`${!x}`). `${!prefix*}` and `${!array[@]}` read none.
fn parameter_of(expr: &ParameterExpr) -> (Option<&word::Parameter>, bool) {
    use ParameterExpr as P;
    match expr {
        P::Parameter {
            parameter,
            indirect,
        }
        | P::UseDefaultValues {
            parameter,
            indirect,
            ..
        }
        | P::AssignDefaultValues {
            parameter,
            indirect,
            ..
        }
        | P::IndicateErrorIfNullOrUnset {
            parameter,
            indirect,
            ..
        }
        | P::UseAlternativeValue {
            parameter,
            indirect,
            ..
        }
        | P::ParameterLength {
            parameter,
            indirect,
        }
        | P::RemoveSmallestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | P::RemoveLargestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | P::RemoveSmallestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | P::RemoveLargestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | P::Substring {
            parameter,
            indirect,
            ..
        }
        | P::Transform {
            parameter,
            indirect,
            ..
        }
        | P::UppercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | P::UppercasePattern {
            parameter,
            indirect,
            ..
        }
        | P::LowercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | P::LowercasePattern {
            parameter,
            indirect,
            ..
        }
        | P::ReplaceSubstring {
            parameter,
            indirect,
            ..
        } => (Some(parameter), *indirect),
        P::VariableNames { .. } | P::MemberKeys { .. } => (None, false),
    }
}

/// The words inside an expansion that are expanded in turn: defaults,
/// messages, alternatives, patterns and replacements.
fn expanded_texts(expr: &ParameterExpr) -> Vec<&str> {
    use ParameterExpr as P;
    match expr {
        P::UseDefaultValues {
            default_value: text,
            ..
        }
        | P::AssignDefaultValues {
            default_value: text,
            ..
        }
        | P::IndicateErrorIfNullOrUnset {
            error_message: text,
            ..
        }
        | P::UseAlternativeValue {
            alternative_value: text,
            ..
        }
        | P::RemoveSmallestSuffixPattern { pattern: text, .. }
        | P::RemoveLargestSuffixPattern { pattern: text, .. }
        | P::RemoveSmallestPrefixPattern { pattern: text, .. }
        | P::RemoveLargestPrefixPattern { pattern: text, .. }
        | P::UppercaseFirstChar { pattern: text, .. }
        | P::UppercasePattern { pattern: text, .. }
        | P::LowercaseFirstChar { pattern: text, .. }
        | P::LowercasePattern { pattern: text, .. } => text.iter().map(String::as_str).collect(),
        P::ReplaceSubstring {
            pattern,
            replacement,
            ..
        } => std::iter::once(pattern.as_str())
            .chain(replacement.as_deref())
            .collect(),
        P::Parameter { .. }
        | P::ParameterLength { .. }
        | P::Substring { .. }
        | P::Transform { .. }
        | P::VariableNames { .. }
        | P::MemberKeys { .. } => vec![],
    }
}

/// brush's word parser, guarded: `None` when it fails (or panics, which it
/// does on some numeric overflows).
fn parse_word(raw: &str) -> Option<Vec<WordPieceWithSource>> {
    if tilde_number_overflows(raw) {
        return None;
    }
    catch_unwind(AssertUnwindSafe(|| word::parse(raw, &options())))
        .ok()
        .and_then(Result::ok)
}

/// brush's here-document reading of a text: quotes are literal
/// characters, expansions are recognised.
fn parse_quotes_literal(text: &str) -> Option<Vec<WordPieceWithSource>> {
    catch_unwind(AssertUnwindSafe(|| word::parse_heredoc(text, &options())))
        .ok()
        .and_then(Result::ok)
}

/// `~+99999999999999999999` makes the word parser panic.
fn tilde_number_overflows(raw: &str) -> bool {
    let Some(rest) = raw.strip_prefix('~') else {
        return false;
    };
    let rest = rest.trim_start_matches(['+', '-']);
    rest.bytes().take_while(u8::is_ascii_digit).count() > 18
}

/// Numbers, operators and blanks only.
fn is_plain_arithmetic(expr: &str) -> bool {
    expr.chars()
        .all(|c| c.is_ascii_digit() || c.is_ascii_whitespace() || "+-*/%()<>=!&|^~,?:".contains(c))
}

/// Unquoted `*`, `?`, or `[` with a later `]`: a pathname pattern.
fn has_glob(shape: &str, text: &str) -> bool {
    if shape.contains(['*', '?']) {
        return true;
    }
    // Extended patterns such as `@(a|b)` reach here as unquoted `(`.
    if shape.contains('(') {
        return true;
    }
    shape.contains('[') && text.contains(']')
}

/// Unquoted `{…,…}` or `{a..b}`.
fn has_brace_expansion(shape: &str) -> bool {
    let Some(open) = shape.find('{') else {
        return false;
    };
    let Some(close) = shape.rfind('}') else {
        return false;
    };
    close > open && {
        let inner = &shape[open + 1..close];
        inner.contains(',') || inner.contains("..")
    }
}

/// Inside backquotes a backslash escapes only `$`, `` ` `` and `\`.
fn unescape_backquoted(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next) = chars.peek()
            && matches!(next, '$' | '`' | '\\')
        {
            out.push(next);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_and_braces() {
        assert!(has_glob("*.rs", "*.rs"));
        assert!(has_glob("l?", "l?"));
        assert!(has_glob("[ab]", "[ab]"));
        assert!(!has_glob("[", "["), "a lone [ is the test command");
        assert!(!has_glob("\0", "*"), "quoted * is literal");
        assert!(has_brace_expansion("{a,b}"));
        assert!(has_brace_expansion("x{1..3}"));
        assert!(!has_brace_expansion("{}"));
        assert!(!has_brace_expansion("@{u}"));
        assert!(!has_brace_expansion("{\0}"));
    }

    #[test]
    fn arithmetic_plainness() {
        assert!(is_plain_arithmetic("1 + 2 * (3 - 4)"));
        assert!(!is_plain_arithmetic("x + 1"));
        assert!(!is_plain_arithmetic("a[$(id)]"));
    }

    #[test]
    fn backquote_unescaping() {
        assert_eq!(
            unescape_backquoted(r"echo \$HOME \`x\` \\ \n"),
            r"echo $HOME `x` \ \n"
        );
    }
}
