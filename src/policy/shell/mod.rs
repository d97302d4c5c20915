//! Bash commands parsed for policy matching.
//!
//! A command is parsed with a real shell parser (`brush-parser`) into the
//! simple commands it runs and the [`Hazard`]s that keep it from being
//! proven harmless. Matching is strict in one direction only:
//!
//! * an allow rule ([`specifier_matches`]) matches when **every** simple
//!   command the shell runs directly matches it and there is no hazard
//!   anywhere; anything not understood (a parse error, an unmodelled
//!   construct) means "no match", so the call is asked, never allowed;
//! * a deny or ask rule ([`specifier_matches_any`]) matches when **any**
//!   simple command matches it, including commands nested in
//!   substitutions, `bash -c` strings, `eval`, wrappers (`sudo rm x`) and
//!   `find -exec`.
//!
//! [`known_safe`] recognises read-only commands for
//! `bash.auto_approve_read_only`; [`propose_prefix`] proposes the prefix
//! rule offered by "approve for this session".

mod ansi_c;
mod braces;
mod classify;
mod continuation;
mod environ;
mod git;
mod loaders;
mod matcher;
mod operands;
mod options;
mod optword;
mod parse;
mod prefix;
mod redirect;
mod safe;
mod special;
mod wrapped;
mod writes;

use std::fmt;

pub use braces::expand as brace_expand;
pub use continuation::read_heredoc;
pub use environ::{is_process_state, prints_process_state};
pub use matcher::{
    Specifier, SpecifierError, allowed_by, exact_specifier, specifier_matches,
    specifier_matches_any, trim_blanks,
};
pub use parse::parse;
pub use prefix::propose_prefix;
pub use safe::{DirectoryReads, directory_reads, known_safe};
pub use special::{LOCALE_VARIABLES, plain_locale};
#[cfg(test)]
pub(crate) use special::{SHELLS, WRAPPERS};
pub use special::{basename, is_shell, is_wrapper};
pub use wrapped::{
    CodeOptions, CommandOption, attached_command_strings, code_options, command_option,
};

/// A command parsed for matching.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedCommand {
    /// The command as given to [`parse`], for exact rules (`bash(=…)`);
    /// empty for a command parsed otherwise.
    pub source: String,
    /// The simple commands the shell runs directly, in source order: the
    /// parts of lists and pipelines, and the commands inside subshells,
    /// `{ }` groups and `if`/`while`/`until`/`for`/`case` bodies.
    pub commands: Vec<SimpleCommand>,
    /// Commands that run indirectly: in command and process substitutions,
    /// `bash -c` strings, `eval`, under a wrapper (`sudo rm x` gives `rm x`),
    /// `find -exec`, function bodies. Used by deny/ask matching only; each
    /// of them comes with a hazard, so an allow rule never matches.
    pub nested: Vec<SimpleCommand>,
    /// Hazards not tied to one simple command (function definitions,
    /// redirections of compound commands, unmodelled constructs).
    pub hazards: Vec<Hazard>,
    /// Static brace expansions of commands whose words use braces
    /// (`{to,}uch x` is `touch uch x`), for deny/ask matching only.
    pub brace_expanded: Vec<SimpleCommand>,
    /// Why some program the command runs is not known statically: a
    /// variable, substitution, glob or brace expansion in command
    /// position, a shell reading commands from its standard input, `eval`
    /// of text that is not literal, a wrapper given an expanded program.
    /// Where a deny or an ask rule exists for the tool, such a command is
    /// asked, never allowed: no such rule can see what it runs.
    pub dynamic: Vec<String>,
    /// Where output is redirected to (`> F`, `>> F`, `&> F`, `<> F`,
    /// `>& F`), anywhere in the command, for the guardrails.
    pub output_targets: Vec<Word>,
    /// Files input is redirected from (`< F`, `2< F`), anywhere in the
    /// command: the known-safe check judges them as it judges the words
    /// (`cat < .env` reads `.env`).
    pub input_sources: Vec<Word>,
    /// Functions whose body pipes into or backgrounds the function itself
    /// (`:(){ :|:& };:`), for the guardrails.
    pub self_spawning: Vec<String>,
    /// Settings of `LC_ALL`, `LC_CTYPE` or `LANG` (an assignment, an
    /// `export`/`declare` argument, an `env` argument, `read`/`printf -v`
    /// into one, a `declare -n` reference to one) to anything but C,
    /// POSIX or a UTF-8 locale, or to a value not known before the command
    /// runs, as written: under BIG5, GBK or `Shift_JIS` bash, and a shell
    /// the command starts, read some bytes of a character and a following
    /// backslash or quote as one character, so the rest of the command
    /// would run otherwise than shown. For the guardrails.
    pub misread_locales: Vec<String>,
}

impl ParsedCommand {
    /// Every hazard: the command-wide ones, then those of each direct
    /// command. (Nested commands are covered by the hazard of their host.)
    pub fn all_hazards(&self) -> impl Iterator<Item = &Hazard> {
        self.hazards
            .iter()
            .chain(self.commands.iter().flat_map(|c| c.hazards.iter()))
    }

    /// True when nothing in the command keeps it from being matched.
    pub fn is_hazard_free(&self) -> bool {
        self.all_hazards().next().is_none() && self.nested.is_empty()
    }
}

/// One simple command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimpleCommand {
    /// Its words (argv), after quote removal where they are literal. Empty
    /// for a command made only of assignments or redirections.
    pub words: Vec<Word>,
    /// Variables assigned for the command or in the shell (`RUST_LOG=x
    /// cargo test`, `X=1`), by name. All but a few harmless ones
    /// (`RUST_LOG`, `RUST_BACKTRACE`, `NO_COLOR`, `LANG` …) are hazards.
    pub assignments: Vec<String>,
    /// Why this command cannot be proven harmless for matching.
    pub hazards: Vec<Hazard>,
}

impl SimpleCommand {
    /// The program word, when it is literal.
    pub fn program(&self) -> Option<&str> {
        self.words.first().and_then(Word::literal)
    }

    /// The whole argv, when every word is literal.
    pub fn literal_argv(&self) -> Option<Vec<&str>> {
        self.words.iter().map(Word::literal).collect()
    }
}

/// One word of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Word {
    /// Known exactly: the word after quote removal (`g''it` is `git`,
    /// `$'\x41'` is `A`). Contains no unquoted glob or brace expansion.
    Literal(String),
    /// Its value is only known when the shell runs it (parameter, tilde,
    /// arithmetic or brace expansion, a glob pattern, a substitution). The
    /// text is the word as written.
    Expanded(String),
}

impl Word {
    /// The literal value, if the word is literal.
    pub fn literal(&self) -> Option<&str> {
        match self {
            Word::Literal(s) => Some(s),
            Word::Expanded(_) => None,
        }
    }
}

/// Why a command (or part of it) cannot be proven harmless for matching.
/// Any hazard keeps an allow rule from matching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hazard {
    /// Output redirected to a file (`>`, `>>`, `&>`, `>|`, `<>`, `>&file`),
    /// anything but `/dev/null`, `/dev/stdout`, `/dev/stderr`, or input
    /// read from a file whose name is not literal or is a `/dev/tcp` socket.
    RedirectToFile(String),
    /// `$(…)` or `` `…` ``, in a word, a redirection or a here-document.
    CommandSubstitution,
    /// `<(…)` or `>(…)`.
    ProcessSubstitution,
    /// `eval`, `trap`, `fc`, `mapfile -C`, `compgen -C`, `bind -x`: a string
    /// run as code.
    Eval,
    /// `source` or `.`.
    Source,
    /// A shell given a command string (`bash -c`, `sh -c`, `zsh -c` …).
    ShellDashC,
    /// A shell reading commands from its standard input (`… | sh`,
    /// `bash <<< '…'`, `sh -s`, `bash < script`).
    ShellStdin,
    /// A program that runs another program (`env`, `sudo`, `xargs` …).
    Wrapper(String),
    /// `find -exec`, `-execdir`, `-ok`, `-okdir`.
    FindExec,
    /// The program is a parameter expansion (`$CMD status`).
    VariableInCommandPosition,
    /// The program name is not literal for another reason (a glob such as
    /// `/bin/l?`, brace or tilde expansion).
    NonLiteralCommandName(String),
    /// A variable assigned for the command (`PATH=… ls`) or in the shell
    /// (`PATH=…`): it can change what runs.
    EnvAssignment(String),
    /// An expansion that can run code through a variable's contents:
    /// arithmetic on variables, indirect `${!x}`, `${x@P}`.
    CodeInExpansion(String),
    /// A function definition (`git() { rm x; }; git status`).
    FunctionDefinition,
    /// A construct the matcher does not model (`[[ ]]`, `(( ))`, `coproc`,
    /// arithmetic `for`).
    Unmodeled(String),
    /// A part that could not be parsed (a word, a nested command string).
    Unparseable(String),
    /// Too many nested parts or levels to analyse.
    TooComplex,
}

impl fmt::Display for Hazard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Hazard::RedirectToFile(t) => write!(f, "redirection to a file ({t})"),
            Hazard::CommandSubstitution => f.write_str("command substitution"),
            Hazard::ProcessSubstitution => f.write_str("process substitution"),
            Hazard::Eval => f.write_str("a string run as code (eval)"),
            Hazard::Source => f.write_str("source"),
            Hazard::ShellDashC => f.write_str("a shell given a command string (-c)"),
            Hazard::ShellStdin => f.write_str("a shell reading commands from its standard input"),
            Hazard::Wrapper(w) => write!(f, "a wrapper that runs another program ({w})"),
            Hazard::FindExec => f.write_str("find -exec"),
            Hazard::VariableInCommandPosition => f.write_str("a variable as the program"),
            Hazard::NonLiteralCommandName(w) => {
                write!(f, "a program name that is not literal ({w})")
            }
            Hazard::EnvAssignment(n) => write!(f, "a variable assignment ({n})"),
            Hazard::CodeInExpansion(what) => write!(f, "an expansion that can run code ({what})"),
            Hazard::FunctionDefinition => f.write_str("a function definition"),
            Hazard::Unmodeled(what) => write!(f, "a construct not modelled for matching ({what})"),
            Hazard::Unparseable(what) => write!(f, "a part that cannot be parsed ({what})"),
            Hazard::TooComplex => f.write_str("too complex to analyse"),
        }
    }
}

/// Why a command could not be parsed. The caller asks; it never allows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The shell parser rejected it.
    #[error("the command cannot be parsed: {0}")]
    Syntax(String),
    /// Too long or too deeply nested to parse safely.
    #[error("the command is too long or too deeply nested to analyse")]
    TooComplex,
}
