//! The guardrails for input the shell parser rejects: the old tokenizer
//! (quotes, escapes, comments, here-document bodies; split on `;`, `&`, `|`,
//! `&&`, `||`, newlines, parentheses, braces, `$(`, backticks). Wrappers
//! and shells come from the policy's one table of each
//! ([`crate::policy::shell::is_wrapper`], [`crate::policy::shell::is_shell`]):
//! every word after a wrapper that is not an option or an assignment may
//! start the wrapped command.

use super::lex::{Simple, Tok, lex, simple_commands};
use super::{
    DISK_WRITE, FORK_BOMB, Guardrail, MKFS, RM_ROOT, approximate, is_disk, rm_root, writes_device,
};
use crate::policy::shell::{
    CommandOption, attached_command_strings, basename, code_options, command_option, is_shell,
    is_wrapper,
};

/// Nested strings (`bash -c`, `eval`, substitutions) deeper than this are
/// not looked into.
const MAX_DEPTH: usize = 8;

/// Leading words that only prefix the real command.
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "do", "while", "until", "!", "time", "{", "(",
];

/// Most strings lexed and word lists looked at for one command: the
/// look stops there (the policy asks for unparseable input anyway).
const MAX_STEPS: usize = 20_000;

pub(super) fn check(command: &str) -> Option<Guardrail> {
    Checker { steps: 0 }.check_depth(command, 0)
}

fn is_assignment(w: &str) -> bool {
    match w.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

/// A program [`Checker::check_words`] looks at, other than a wrapper.
fn checked_program(word: &str) -> bool {
    let name = basename(word);
    matches!(name, "rm" | "mkfs" | "mke2fs" | "dd" | "eval")
        || name.starts_with("mkfs.")
        || is_shell(name)
        || code_options(name, &[]).is_some()
}

/// One command's check, with its step budget.
struct Checker {
    steps: usize,
}

impl Checker {
    /// Another step, if the budget allows it.
    fn step(&mut self) -> bool {
        self.steps += 1;
        self.steps <= MAX_STEPS
    }

    fn check_depth(&mut self, command: &str, depth: usize) -> Option<Guardrail> {
        if depth > MAX_DEPTH || !self.step() {
            return None;
        }
        let lexed = lex(command);
        if fork_bomb(&lexed.tokens) {
            return Some(FORK_BOMB);
        }
        for cmd in simple_commands(&lexed.tokens) {
            if let Some(g) = self.check_simple(&cmd, depth) {
                return Some(g);
            }
        }
        lexed
            .nested
            .iter()
            .find_map(|inner| self.check_depth(inner, depth + 1))
    }

    fn check_simple(&mut self, cmd: &Simple, depth: usize) -> Option<Guardrail> {
        if cmd
            .redirect_targets
            .iter()
            .any(|t| is_disk(&approximate(t)))
        {
            return Some(DISK_WRITE);
        }
        self.check_words(&cmd.words, depth)
    }

    /// One simple command's words, as lexed (quotes removed, expansions
    /// as written): paths and the program are read approximated
    /// ([`approximate`]), command strings as they are.
    fn check_words(&mut self, words: &[String], depth: usize) -> Option<Guardrail> {
        if !self.step() {
            return None;
        }
        let start = words.iter().position(|w| {
            let w = approximate(w);
            !is_assignment(&w) && !KEYWORDS.contains(&w.as_str())
        })?;
        let words = &words[start..];
        let program = approximate(&words[0]);
        let name = basename(&program);
        let args = &words[1..];
        let approximated = || args.iter().map(|a| approximate(a)).collect::<Vec<String>>();
        if is_wrapper(name) {
            return self.wrapped(name, args, depth);
        }
        match name {
            "rm" => rm_root(&approximated()).then_some(RM_ROOT),
            "mkfs" | "mke2fs" => Some(MKFS),
            n if n.starts_with("mkfs.") => Some(MKFS),
            "dd" => approximated()
                .iter()
                .filter_map(|a| a.strip_prefix("of="))
                .any(writes_device)
                .then_some(DISK_WRITE),
            // `su -c` is a wrapper (above); the shells come from the
            // parser's table.
            n if is_shell(n) => {
                let i = args.iter().position(|a| {
                    a == "-c" || (a.starts_with('-') && !a.starts_with("--") && a.ends_with('c'))
                })?;
                let code = args[i + 1..].iter().find(|a| a.as_str() != "--")?;
                self.check_depth(code, depth + 1)
            }
            "eval" => self.check_depth(&args.join(" "), depth + 1),
            // `compgen -C 'cmd'`, `mapfile -C 'cmd'`: the parser's reading.
            n => {
                let words: Vec<Option<&str>> = args.iter().map(|a| Some(a.as_str())).collect();
                let code = code_options(n, &words)?;
                code.values
                    .iter()
                    .find_map(|v| self.check_depth(v, depth + 1))
            }
        }
    }

    /// A wrapper's arguments: any later word that is not an option may be
    /// the wrapped program; a word with blanks may be a command string
    /// (`su -c`, `watch`), and so may a value attached to an option
    /// (`su -lc'rm x'`); the values of the options that take a command or
    /// a program are read as the parser reads them (`env -Srm -rf /`). A
    /// tail that starts with another wrapper is not looked into again:
    /// this loop reaches every later word already.
    fn wrapped(&mut self, name: &str, args: &[String], depth: usize) -> Option<Guardrail> {
        for (i, a) in args.iter().enumerate() {
            if a.contains([' ', ';', '|', '&', '\n'])
                && let Some(g) = self.check_depth(a, depth + 1)
            {
                return Some(g);
            }
            for value in attached_command_strings(a).unwrap_or_default() {
                if let Some(g) = self.check_depth(value, depth + 1) {
                    return Some(g);
                }
            }
            let program = match command_option(name, a) {
                CommandOption::No => None,
                CommandOption::Attached(v) => Some((v, &args[i + 1..])),
                CommandOption::Next => args
                    .get(i + 1)
                    .map(|v| (v.as_str(), &args[(i + 2).min(args.len())..])),
            };
            if let Some((value, rest)) = program
                && let Some(g) = self.program_string(value, rest, depth)
            {
                return Some(g);
            }
            if !a.starts_with(['-', '+'])
                && !is_assignment(a)
                && !is_wrapper(basename(a))
                && let Some(g) = self.check_words(&args[i..], depth)
            {
                return Some(g);
            }
        }
        None
    }

    /// A command-taking option's value: a command string, or a program
    /// with its first arguments followed by `rest`.
    fn program_string(&mut self, value: &str, rest: &[String], depth: usize) -> Option<Guardrail> {
        if let Some(g) = self.check_depth(value, depth + 1) {
            return Some(g);
        }
        let split: Vec<&str> = value.split_ascii_whitespace().collect();
        for k in 0..split.len() {
            if !checked_program(split[k]) {
                continue;
            }
            let words: Vec<String> = split[k..]
                .iter()
                .map(|w| (*w).to_owned())
                .chain(rest.iter().cloned())
                .collect();
            if let Some(g) = self.check_words(&words, depth) {
                return Some(g);
            }
        }
        None
    }
}

/// `name() { … name | name … }` or `name() { … name & … }` anywhere, also
/// written `function name { … }`.
fn fork_bomb(tokens: &[Tok]) -> bool {
    let word = |i: usize| match tokens.get(i) {
        Some(Tok::Word(w)) => Some(w.as_str()),
        _ => None,
    };
    let is = |i: usize, s: &str| matches!(tokens.get(i), Some(Tok::Sep(x)) if *x == s);
    for i in 0..tokens.len() {
        let (name, body_from) = if word(i) == Some("function") && word(i + 1).is_some() {
            let name = word(i + 1).unwrap_or_default();
            let after = if is(i + 2, "(") && is(i + 3, ")") {
                i + 4
            } else {
                i + 2
            };
            (name, after)
        } else if let Some(name) = word(i)
            && is(i + 1, "(")
            && is(i + 2, ")")
        {
            (name, i + 3)
        } else {
            continue;
        };
        let mut j = body_from;
        while matches!(tokens.get(j), Some(Tok::Sep("newline"))) {
            j += 1;
        }
        if !is(j, "{") && !is(j, "(") {
            continue;
        }
        let mut depth = 0usize;
        for (k, tok) in tokens.iter().enumerate().skip(j) {
            match tok {
                Tok::Sep("{" | "(") => depth += 1,
                Tok::Sep("}" | ")") => depth = depth.saturating_sub(1),
                Tok::Word(w) if w == name => {
                    let piped = is(k + 1, "|") && word(k + 2) == Some(name);
                    let backgrounded = is(k + 1, "&");
                    if piped || backgrounded {
                        return true;
                    }
                }
                _ => {}
            }
            if depth == 0 {
                break;
            }
        }
    }
    false
}

#[cfg(test)]
mod shared_tables {
    use super::*;
    use crate::policy::shell::{SHELLS, WRAPPERS};

    /// The tokenizer looks into every shell's `-c` and behind every wrapper
    /// of the parser's tables, not a list of its own.
    #[test]
    fn every_shell_and_wrapper_of_the_parsers_tables_is_looked_into() {
        for shell in SHELLS {
            assert_eq!(
                check(&format!("{shell} -c 'rm -rf /'")),
                Some(RM_ROOT),
                "{shell}"
            );
        }
        for wrapper in WRAPPERS {
            assert_eq!(
                check(&format!("{wrapper} rm -rf /")),
                Some(RM_ROOT),
                "{wrapper}"
            );
        }
        // Control: the same words after a program that is neither.
        assert_eq!(check("echo -c 'rm -rf /'"), None);
        assert_eq!(check("echo rm -rf /"), None);
    }
}
