//! brush-parser's AST → [`ParsedCommand`].
//!
//! The [`Walker`] visits every command of a program. Commands the shell
//! runs directly go to `commands`; commands in substitutions, function
//! bodies and command strings (`bash -c`, `eval`) go to `nested`. Word
//! classification lives in `classify.rs`, program-specific analysis
//! (wrappers, shells, `find -exec`) in `special.rs`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use brush_parser::ast;

use super::{Hazard, ParseError, ParsedCommand, SimpleCommand, Word};

/// Longest command analysed, in bytes.
const MAX_INPUT: usize = 64 * 1024;
/// Most openers (brackets, braces, backquotes) and compound-command
/// keywords in one string: a bound on how deeply it can nest, since the
/// parser recurses once per level.
const MAX_NESTING_TOKENS: usize = 1024;
/// Stack of the thread that parses: room for [`MAX_NESTING_TOKENS`]
/// levels with a wide margin (only the pages used are committed).
const PARSER_STACK: usize = 64 * 1024 * 1024;
/// Most levels of command strings inside command strings.
const MAX_DEPTH: usize = 8;
/// Most simple commands (direct and nested) recorded for one command.
const MAX_COMMANDS: usize = 2048;

/// Parse a command for matching. An error means "cannot be parsed": the
/// caller asks, it never allows.
///
/// The parser recurses once per nesting level, so it runs on a thread of
/// its own with a large stack (the input is bounded first); this takes
/// well under a millisecond for ordinary commands.
pub fn parse(command: &str) -> Result<ParsedCommand, ParseError> {
    precheck(command)?;
    let src = command.to_owned();
    let thread = std::thread::Builder::new()
        .name("airlock-shell-parse".into())
        .stack_size(PARSER_STACK)
        .spawn(move || parse_here(&src));
    let mut parsed = match thread {
        Ok(handle) => handle.join().unwrap_or_else(|_| {
            Err(ParseError::Syntax("the parser failed on this input".into()))
        })?,
        Err(_) => return Err(ParseError::TooComplex),
    };
    command.clone_into(&mut parsed.source);
    Ok(parsed)
}

/// Most nesting tokens in a string parsed on the caller's own stack.
const INLINE_NESTING_TOKENS: usize = 16;

/// Parses a short, shallow string (a rule specifier) on the current
/// thread; deeper input is refused rather than risking the stack.
pub(super) fn parse_inline(command: &str) -> Result<ParsedCommand, ParseError> {
    if nesting_tokens(command) > INLINE_NESTING_TOKENS {
        return Err(ParseError::TooComplex);
    }
    parse_here(command)
}

fn parse_here(command: &str) -> Result<ParsedCommand, ParseError> {
    let program = parse_program(command)?;
    let mut walker = Walker::default();
    walker.walk(&program, true);
    if walker.overflow {
        // Deny rules cannot see what was not analysed.
        walker.out.hazards.push(Hazard::TooComplex);
        walker.dynamic("too many commands or levels to analyse".into());
    }
    Ok(walker.out)
}

/// The parser options: bash, with extended globs recognised so that a
/// pattern such as `@(a|b)` is one word (a superset of what the session's
/// bash accepts).
pub(super) fn options() -> brush_parser::ParserOptions {
    brush_parser::ParserOptions::default()
}

/// Most here-document rewrites ([`super::continuation::join_heredocs`])
/// for one string: one per here-document that continues lines.
const MAX_HEREDOC_REWRITES: usize = 32;

/// A parsed program.
pub(super) struct Program {
    pub(super) ast: ast::Program,
    /// Some here-document with an unquoted delimiter continued lines with
    /// `\` + newline: the program is bash's reading of the source, with
    /// those bodies joined.
    pub(super) joined_heredoc: bool,
    /// The text parsed (rewritten when `joined_heredoc`): what the words'
    /// positions point into.
    pub(super) source: String,
}

/// Runs brush-parser on `src`, with guards against inputs that would make
/// it recurse too deeply or panic. An expanding here-document whose body
/// continues lines is parsed as bash reads it: the source is rewritten
/// with the pairs deleted, then parsed again.
pub(super) fn parse_program(src: &str) -> Result<Program, ParseError> {
    let options = options();
    let mut text = src.to_owned();
    for round in 0..MAX_HEREDOC_REWRITES {
        let ast = parse_once(&text, &options)?;
        match super::continuation::join_heredocs(&text, &options.tokenizer_options()) {
            Some(joined) => text = joined,
            None => {
                return Ok(Program {
                    ast,
                    joined_heredoc: round > 0,
                    source: text,
                });
            }
        }
    }
    Err(ParseError::TooComplex)
}

/// One run of brush-parser on `src`.
fn parse_once(
    src: &str,
    options: &brush_parser::ParserOptions,
) -> Result<ast::Program, ParseError> {
    precheck(src)?;
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut parser = brush_parser::Parser::new(src.as_bytes(), options);
        parser.parse_program()
    }));
    match result {
        Ok(Ok(program)) => Ok(program),
        Ok(Err(e)) => Err(ParseError::Syntax(e.to_string())),
        Err(_) => Err(ParseError::Syntax("the parser failed on this input".into())),
    }
}

/// Rejects what the parser cannot take safely: very long input, deep
/// nesting, and file descriptor numbers that overflow (the parser panics
/// on those).
fn precheck(src: &str) -> Result<(), ParseError> {
    if src.len() > MAX_INPUT {
        return Err(ParseError::TooComplex);
    }
    if nesting_tokens(src) > MAX_NESTING_TOKENS {
        return Err(ParseError::TooComplex);
    }
    let bytes = src.as_bytes();
    let mut digits = 0usize;
    for &b in bytes {
        if b.is_ascii_digit() {
            digits += 1;
            continue;
        }
        if digits > 9 && (b == b'<' || b == b'>') {
            return Err(ParseError::Syntax(
                "file descriptor number too large".into(),
            ));
        }
        digits = 0;
    }
    Ok(())
}

/// Openers and compound-command keywords: everything that can open a
/// nesting level (counted generously: quoted ones too).
fn nesting_tokens(src: &str) -> usize {
    const KEYWORDS: &[&str] = &[
        "if", "then", "elif", "else", "while", "until", "for", "select", "case", "do", "function",
        "coproc", "!", "time",
    ];
    let openers = src
        .bytes()
        .filter(|b| matches!(b, b'(' | b'{' | b'[' | b'`' | b'$'))
        .count();
    let keywords = src
        .split(|c: char| c.is_ascii_whitespace() || ";&|()<>".contains(c))
        .filter(|w| KEYWORDS.contains(w))
        .count();
    openers + keywords
}

/// Collects the commands and hazards of one command line.
#[derive(Default)]
pub(super) struct Walker {
    pub(super) out: ParsedCommand,
    /// Levels of command strings being walked.
    pub(super) depth: usize,
    /// Set when a limit cut the analysis short.
    pub(super) overflow: bool,
    /// The literal text on the standard input of the simple command being
    /// analysed (a here-string or a here-document), for a shell that
    /// reads its commands there.
    pub(super) stdin: Option<String>,
    /// Names of the functions whose bodies are being walked.
    functions: Vec<String>,
    /// The source of the program being walked: the text its words'
    /// positions point into.
    pub(super) source: String,
    /// `source` has a backslash-newline (where brush's tokens can differ
    /// from bash's, see `classify_ast_word`).
    pub(super) source_continues_lines: bool,
}

impl Walker {
    /// Room for one more command?
    pub(super) fn room(&mut self) -> bool {
        let ok = self.out.commands.len() + self.out.nested.len() < MAX_COMMANDS;
        if !ok {
            self.overflow = true;
        }
        ok
    }

    /// Records a command that runs directly or indirectly. A program word
    /// that is not literal makes the command dynamic; words with brace
    /// expansion are also recorded expanded, for deny rules.
    pub(super) fn push(&mut self, cmd: SimpleCommand, direct: bool) {
        if !self.room() {
            return;
        }
        if let Some(Word::Expanded(raw)) = cmd.words.first() {
            self.dynamic(format!("the program is `{raw}`, not a literal name"));
        }
        if cmd.words.iter().any(|w| matches!(w, Word::Expanded(_)))
            && let Some(words) = super::braces::expand_words(&cmd.words)
        {
            self.out.brace_expanded.push(SimpleCommand {
                words,
                ..SimpleCommand::default()
            });
        }
        if direct {
            self.out.commands.push(cmd);
        } else {
            self.out.nested.push(cmd);
        }
    }

    /// Records why the command is dynamic (once per reason).
    pub(super) fn dynamic(&mut self, why: String) {
        if !self.out.dynamic.contains(&why) {
            self.out.dynamic.push(why);
        }
    }

    /// Parses `src` (a command substitution, a `bash -c` string, an `eval`
    /// argument) and records its commands as nested. False when it cannot
    /// be parsed or the nesting is too deep.
    pub(super) fn nested_source(&mut self, src: &str) -> bool {
        if self.depth >= MAX_DEPTH {
            self.overflow = true;
            return false;
        }
        let Ok(program) = parse_program(src) else {
            return false;
        };
        self.depth += 1;
        self.walk(&program, false);
        self.depth -= 1;
        true
    }

    /// Walks a parsed program, with its source at hand for the words'
    /// positions.
    fn walk(&mut self, program: &Program, direct: bool) {
        if program.joined_heredoc {
            self.joined_heredoc();
        }
        let outer = std::mem::replace(&mut self.source, program.source.clone());
        let outer_continues = std::mem::replace(
            &mut self.source_continues_lines,
            program.source.contains("\\\n"),
        );
        self.program(&program.ast, direct);
        self.source = outer;
        self.source_continues_lines = outer_continues;
    }

    /// A here-document continued lines: bash's reading of it is modelled,
    /// but no rule is trusted with it (an allow rule never matches, and
    /// where deny rules exist it is asked).
    pub(super) fn joined_heredoc(&mut self) {
        let why = "a backslash-newline in a here-document";
        let hazard = Hazard::Unmodeled(why.into());
        if !self.out.hazards.contains(&hazard) {
            self.out.hazards.push(hazard);
        }
        self.dynamic(format!(
            "{why}: bash joins the lines before it expands the body or looks for its end"
        ));
    }

    /// Walks a list of commands that runs in a subshell of its own
    /// (process substitution): nested.
    pub(super) fn nested_list(&mut self, list: &ast::CompoundList) {
        self.list(list, false);
    }

    pub(super) fn program(&mut self, program: &ast::Program, direct: bool) {
        for complete in &program.complete_commands {
            self.list(complete, direct);
        }
    }

    fn list(&mut self, list: &ast::CompoundList, direct: bool) {
        for ast::CompoundListItem(and_or, separator) in &list.0 {
            self.fork_bomb(and_or, separator);
            for (_op, pipeline) in and_or {
                // `time` and `!` only time or negate the pipeline.
                for command in &pipeline.seq {
                    self.command(command, direct);
                }
            }
        }
    }

    /// Inside a function's body: a pipeline with the function on one side
    /// (`f | f`), or the function run in the background (`f &`).
    fn fork_bomb(&mut self, and_or: &ast::AndOrList, separator: &ast::SeparatorOperator) {
        let Some(name) = self.functions.last().cloned() else {
            return;
        };
        let calls = |p: &ast::Pipeline| {
            p.seq.iter().any(|c| {
                matches!(c, ast::Command::Simple(s)
                    if s.word_or_name.as_ref().is_some_and(|w| w.value == name))
            })
        };
        let background = matches!(separator, ast::SeparatorOperator::Async);
        let spawns = and_or
            .into_iter()
            .any(|(_, p)| calls(p) && (p.seq.len() > 1 || background));
        if spawns && !self.out.self_spawning.contains(&name) {
            self.out.self_spawning.push(name);
        }
    }

    fn command(&mut self, command: &ast::Command, direct: bool) {
        match command {
            ast::Command::Simple(simple) => self.simple(simple, direct),
            ast::Command::Compound(compound, redirects) => {
                self.compound(compound, direct);
                self.redirect_list(redirects.as_ref());
            }
            ast::Command::Function(def) => {
                self.out.hazards.push(Hazard::FunctionDefinition);
                // The body runs when the function is called: nested.
                self.functions.push(def.fname.value.clone());
                self.compound(&def.body.0, false);
                self.functions.pop();
                self.redirect_list(def.body.1.as_ref());
            }
            ast::Command::ExtendedTest(test, redirects) => {
                self.out.hazards.push(Hazard::Unmodeled("[[ ]]".into()));
                self.extended_test(&test.expr);
                self.redirect_list(redirects.as_ref());
            }
        }
    }

    fn compound(&mut self, compound: &ast::CompoundCommand, direct: bool) {
        use ast::CompoundCommand as C;
        match compound {
            C::BraceGroup(g) => self.list(&g.list, direct),
            C::Subshell(s) => self.list(&s.list, direct),
            C::IfClause(i) => {
                self.list(&i.condition, direct);
                self.list(&i.then, direct);
                for clause in i.elses.iter().flatten() {
                    if let Some(condition) = &clause.condition {
                        self.list(condition, direct);
                    }
                    self.list(&clause.body, direct);
                }
            }
            C::WhileClause(w) | C::UntilClause(w) => {
                self.list(&w.0, direct);
                self.list(&w.1.list, direct);
            }
            C::ForClause(f) => {
                self.locale_variable(&f.variable_name, &Word::Expanded("for …".into()));
                if !harmless_loop_variable(&f.variable_name) {
                    self.out
                        .hazards
                        .push(Hazard::EnvAssignment(f.variable_name.clone()));
                }
                for value in f.values.iter().flatten() {
                    let class = self.classify_ast_word(value);
                    self.out.hazards.extend(class.hazards);
                }
                self.list(&f.body.list, direct);
            }
            C::CaseClause(c) => {
                let class = self.classify_ast_word(&c.value);
                self.out.hazards.extend(class.hazards);
                for item in &c.cases {
                    for pattern in &item.patterns {
                        let class = self.classify_ast_word(pattern);
                        self.out.hazards.extend(class.hazards);
                    }
                    if let Some(cmd) = &item.cmd {
                        self.list(cmd, direct);
                    }
                }
            }
            C::Arithmetic(a) => {
                self.out.hazards.push(Hazard::Unmodeled("(( ))".into()));
                self.scan_text(&a.expr.value);
                // brush reads `( ( cmd ) )` as arithmetic where bash sees
                // nested subshells: let deny rules see `cmd`.
                self.nested_source(&a.expr.value);
            }
            C::ArithmeticForClause(f) => {
                self.out.hazards.push(Hazard::Unmodeled("for (( ))".into()));
                for expr in [&f.initializer, &f.condition, &f.updater]
                    .into_iter()
                    .flatten()
                {
                    self.scan_text(&expr.value);
                }
                self.list(&f.body.list, direct);
            }
            C::Coprocess(c) => {
                self.out.hazards.push(Hazard::Unmodeled("coproc".into()));
                self.command(&c.body, false);
            }
        }
    }

    fn extended_test(&mut self, expr: &ast::ExtendedTestExpr) {
        use ast::ExtendedTestExpr as E;
        match expr {
            E::And(a, b) | E::Or(a, b) => {
                self.extended_test(a);
                self.extended_test(b);
            }
            E::Not(a) | E::Parenthesized(a) => self.extended_test(a),
            E::UnaryTest(_, w) => self.scan_text(&w.value),
            E::BinaryTest(_, a, b) => {
                self.scan_text(&a.value);
                self.scan_text(&b.value);
            }
        }
    }

    /// Records the commands hidden in a piece of text (for deny matching);
    /// its hazards are already covered by the construct holding it.
    fn scan_text(&mut self, text: &str) {
        let _ = self.classify_word(text);
    }

    fn redirect_list(&mut self, redirects: Option<&ast::RedirectList>) {
        for r in redirects.iter().flat_map(|l| l.0.iter()) {
            let hazards = self.redirect(r);
            self.out.hazards.extend(hazards);
        }
    }

    fn simple(&mut self, simple: &ast::SimpleCommand, direct: bool) {
        let mut cmd = SimpleCommand::default();
        let mut assignments: Vec<(String, Word)> = Vec::new();
        for item in simple.prefix.iter().flat_map(|p| p.0.iter()) {
            self.item(item, true, &mut cmd, &mut assignments);
        }
        let mut program_has_parameter = false;
        if let Some(name) = &simple.word_or_name {
            let class = self.classify_ast_word(name);
            program_has_parameter = class.has_parameter;
            cmd.hazards.extend(class.hazards);
            if let Some(var) = named_fd_variable(&name.value) {
                cmd.hazards.push(Hazard::EnvAssignment(var.to_owned()));
            }
            cmd.words.push(class.word);
        }
        for item in simple.suffix.iter().flat_map(|s| s.0.iter()) {
            self.item(item, false, &mut cmd, &mut assignments);
        }

        cmd.assignments = assignments.iter().map(|(n, _)| n.clone()).collect();
        for (name, value) in &assignments {
            self.code_variable(name, value.literal());
            self.locale_variable(name, value);
        }
        for (name, value) in &assignments {
            if cmd.words.is_empty() || !harmless_assignment(name, value) {
                cmd.hazards.push(Hazard::EnvAssignment(name.clone()));
            }
        }
        match cmd.words.first() {
            Some(Word::Expanded(text)) => cmd.hazards.push(if program_has_parameter {
                Hazard::VariableInCommandPosition
            } else {
                Hazard::NonLiteralCommandName(text.clone())
            }),
            Some(Word::Literal(_)) => {
                let words = cmd.words.clone();
                self.stdin = literal_stdin(simple);
                self.special(&words, &mut cmd.hazards, true);
                self.stdin = None;
            }
            None => {}
        }
        dedup(&mut cmd.hazards);
        self.push(cmd, direct);
    }

    /// One prefix or suffix item of a simple command.
    fn item(
        &mut self,
        item: &ast::CommandPrefixOrSuffixItem,
        in_prefix: bool,
        cmd: &mut SimpleCommand,
        assignments: &mut Vec<(String, Word)>,
    ) {
        use ast::CommandPrefixOrSuffixItem as I;
        match item {
            I::IoRedirect(r) => {
                let hazards = self.redirect(r);
                cmd.hazards.extend(hazards);
            }
            I::Word(w) => {
                let class = self.classify_ast_word(w);
                cmd.hazards.extend(class.hazards);
                if let Some(name) = named_fd_variable(&w.value) {
                    cmd.hazards.push(Hazard::EnvAssignment(name.to_owned()));
                }
                cmd.words.push(class.word);
            }
            I::AssignmentWord(assignment, w) => {
                let class = self.classify_ast_word(w);
                cmd.hazards.extend(class.hazards);
                if in_prefix {
                    let name = match &assignment.name {
                        ast::AssignmentName::VariableName(n)
                        | ast::AssignmentName::ArrayElementName(n, _) => n.clone(),
                    };
                    assignments.push((name, class.word));
                } else {
                    // `make CC=cc`, `export A=b`: an argument.
                    cmd.words.push(class.word);
                }
            }
            I::ProcessSubstitution(kind, subshell) => {
                cmd.hazards.push(Hazard::ProcessSubstitution);
                self.nested_list(&subshell.list);
                let op = match kind {
                    ast::ProcessSubstitutionKind::Read => "<(…)",
                    ast::ProcessSubstitutionKind::Write => ">(…)",
                };
                cmd.words.push(Word::Expanded(op.into()));
            }
        }
    }
}

/// The literal text a simple command gets on its standard input from a
/// here-string or a here-document, when it is known exactly.
fn literal_stdin(simple: &ast::SimpleCommand) -> Option<String> {
    let items = simple
        .prefix
        .iter()
        .flat_map(|p| p.0.iter())
        .chain(simple.suffix.iter().flat_map(|s| s.0.iter()));
    let mut text = None;
    for item in items {
        let ast::CommandPrefixOrSuffixItem::IoRedirect(r) = item else {
            continue;
        };
        match r {
            ast::IoRedirect::HereString(fd, w) if fd.is_none_or(|f| f == 0) => {
                text = plain_text(&w.value).map(|t| format!("{t}\n"));
            }
            ast::IoRedirect::HereDocument(fd, doc) if fd.is_none_or(|f| f == 0) => {
                let body = &doc.doc.value;
                let exact = !doc.requires_expansion || !body.contains(['$', '`', '\\']);
                text = exact.then(|| body.clone());
            }
            ast::IoRedirect::File(fd, ast::IoFileRedirectKind::Read, _)
                if fd.is_none_or(|f| f == 0) =>
            {
                text = None;
            }
            _ => {}
        }
    }
    text
}

/// A word's value when it is a plain or single-quoted literal.
fn plain_text(raw: &str) -> Option<String> {
    if let Some(inner) = raw.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        return (!inner.contains('\'')).then(|| inner.to_owned());
    }
    raw.chars()
        .all(|c| c.is_ascii_alphanumeric() || " _-./,:=+@%".contains(c))
        .then(|| raw.to_owned())
}

/// `{name}` written right before a redirection makes bash store the new
/// descriptor's number in `name` (`ls {PATH}</dev/null` sets PATH). brush
/// reads it as a word, so any such word counts as an assignment.
fn named_fd_variable(raw: &str) -> Option<&str> {
    let inner = raw.strip_prefix('{')?.strip_suffix('}')?;
    let name = inner.split('[').next().unwrap_or(inner);
    let identifier = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    identifier.then_some(name)
}

/// A `for` variable that neither bash nor a program reads: lowercase (the
/// shell's own variables and nearly all environment variables are upper
/// case), but not one of the lowercase proxy variables.
fn harmless_loop_variable(name: &str) -> bool {
    const LOWERCASE_ENV: &[&str] = &[
        "http_proxy",
        "https_proxy",
        "ftp_proxy",
        "all_proxy",
        "no_proxy",
    ];
    name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !LOWERCASE_ENV.contains(&name)
}

/// Variables that may be set for a command without changing what runs.
/// A locale only when it is C, POSIX or UTF-8: under BIG5, GBK or
/// `Shift_JIS` a shell the command starts reads some bytes of a character
/// and the backslash or quote after them as one character.
fn harmless_assignment(name: &str, value: &Word) -> bool {
    const HARMLESS: &[&str] = &["RUST_BACKTRACE", "RUST_LOG", "NO_COLOR", "CARGO_TERM_COLOR"];
    // The word is the whole `NAME=value`.
    match name {
        "LANG" | "LC_ALL" => super::special::sets_plain_locale(value),
        _ => HARMLESS.contains(&name) && super::special::literal_setting(value).is_some(),
    }
}

fn dedup(hazards: &mut Vec<Hazard>) {
    let mut seen = Vec::with_capacity(hazards.len());
    hazards.retain(|h| {
        if seen.contains(h) {
            false
        } else {
            seen.push(h.clone());
            true
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(words: &[&str]) -> Vec<Word> {
        words.iter().map(|w| Word::Literal((*w).into())).collect()
    }

    #[test]
    fn lists_pipelines_and_bodies_are_direct_commands() {
        let p = parse("a | b && { c; } || (d)\nif e; then f; else g; fi").unwrap();
        let words: Vec<_> = p.commands.iter().map(|c| c.words.clone()).collect();
        let want: Vec<Vec<Word>> = ["a", "b", "c", "d", "e", "f", "g"]
            .iter()
            .map(|w| lit(&[w]))
            .collect();
        assert_eq!(words, want);
        assert!(p.nested.is_empty());
        assert!(p.is_hazard_free());
    }

    #[test]
    fn substitutions_are_nested_with_a_hazard() {
        let p = parse("ls $(rm x) `cp a b`").unwrap();
        assert_eq!(p.commands.len(), 1);
        assert_eq!(
            p.commands[0].hazards,
            vec![Hazard::CommandSubstitution],
            "one hazard per kind"
        );
        let nested: Vec<_> = p.nested.iter().map(|c| c.words.clone()).collect();
        assert_eq!(nested, vec![lit(&["rm", "x"]), lit(&["cp", "a", "b"])]);
    }

    #[test]
    fn redirections() {
        let hazards = |c: &str| parse(c).unwrap().commands[0].hazards.clone();
        assert!(hazards("ls 2>/dev/null >/dev/stdout 2>&1 <in 3<&0 >&-").is_empty());
        assert_eq!(
            hazards("ls > out"),
            vec![Hazard::RedirectToFile("out".into())]
        );
        assert_eq!(
            hazards("ls >> $F"),
            vec![Hazard::RedirectToFile("$F".into())]
        );
        assert_eq!(
            hazards("ls < $F"),
            vec![Hazard::RedirectToFile("$F".into())]
        );
        assert_eq!(
            hazards("ls &>> log"),
            vec![Hazard::RedirectToFile("log".into())]
        );
        assert_eq!(
            hazards("ls >& log"),
            vec![Hazard::RedirectToFile("log".into())]
        );
        let p = parse("{ ls; } > out").unwrap();
        assert_eq!(p.hazards, vec![Hazard::RedirectToFile("out".into())]);
    }

    #[test]
    fn assignments() {
        let p = parse("RUST_LOG=debug A=1 cargo test").unwrap();
        assert_eq!(p.commands[0].assignments, vec!["RUST_LOG", "A"]);
        assert_eq!(
            p.commands[0].hazards,
            vec![Hazard::EnvAssignment("A".into())]
        );
        let p = parse("RUST_LOG=debug").unwrap();
        assert_eq!(
            p.commands[0].hazards,
            vec![Hazard::EnvAssignment("RUST_LOG".into())],
            "setting a shell variable is a hazard even for harmless names"
        );
        let p = parse("make CC=cc").unwrap();
        assert_eq!(p.commands[0].words, lit(&["make", "CC=cc"]));
        assert!(p.commands[0].assignments.is_empty());
    }

    #[test]
    fn a_locale_is_harmless_only_when_it_cannot_join_bytes_to_a_backslash() {
        for ok in [
            "C",
            "POSIX",
            "C.UTF-8",
            "de_DE.utf8",
            "sr_RS.UTF-8@latin",
            "",
        ] {
            let p = parse(&format!("LANG={ok} LC_ALL={ok} ls")).unwrap();
            assert!(
                p.commands[0].hazards.is_empty(),
                "{ok}: {:?}",
                p.commands[0].hazards
            );
        }
        for bad in [
            "zh_TW.BIG5",
            "zh_CN.GBK",
            "ja_JP.SJIS",
            "zh_TW",
            "de_DE",
            "x.UTF-8.GBK",
        ] {
            let p = parse(&format!("LC_ALL={bad} ls")).unwrap();
            assert_eq!(
                p.commands[0].hazards,
                vec![Hazard::EnvAssignment("LC_ALL".into())],
                "{bad}"
            );
        }
        for unknown in ["LANG=$L ls", "LANG+=.UTF-8 ls"] {
            let p = parse(unknown).unwrap();
            assert_eq!(
                p.commands[0].hazards,
                vec![Hazard::EnvAssignment("LANG".into())],
                "{unknown}"
            );
        }
    }

    #[test]
    fn guards_against_parser_limits() {
        assert!(matches!(
            parse("ls 12345678901>f"),
            Err(ParseError::Syntax(_))
        ));
        assert_eq!(
            parse(&"$(".repeat(MAX_NESTING_TOKENS)),
            Err(ParseError::TooComplex)
        );
        let p = parse("ls ~99999999999999999999999").unwrap();
        assert!(matches!(
            p.commands[0].hazards[..],
            [Hazard::Unparseable(_)]
        ));
        // Nesting beyond MAX_DEPTH command strings is cut short, visibly.
        let mut s = "rm x".to_owned();
        for _ in 0..MAX_DEPTH + 2 {
            s = format!("ls \"$({s})\"");
        }
        let p = parse(&s).unwrap();
        assert!(p.hazards.contains(&Hazard::TooComplex));
    }

    #[test]
    fn too_many_commands_is_a_hazard() {
        let p = parse(&vec!["ls"; MAX_COMMANDS + 10].join(";")).unwrap();
        assert_eq!(p.commands.len(), MAX_COMMANDS);
        assert_eq!(p.hazards, vec![Hazard::TooComplex]);
    }
}
