//! bash rule specifiers: `git status` (exactly that argv), `cargo test *`
//! (those words, then any words, including none) or `=rm -f *` (exactly
//! this command line, as text: nothing in it is a wildcard). "Always" on
//! the prompt's "this exact command" saves the last form
//! ([`exact_specifier`]), so that a command ending in ` *` (`rm -f *`,
//! `rm -rf build # *`) cannot become a prefix rule.

use super::loaders::refused_by_prefix;
use super::parse::parse_inline;
use super::special::basename;
use super::{ParsedCommand, SimpleCommand, Word};

/// A parsed bash rule specifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Specifier {
    /// The literal leading words (after quote removal).
    words: Vec<String>,
    /// A final ` *`: any further words.
    any_tail: bool,
    /// `=TEXT`: exactly this command line (trimmed); `words` is empty.
    exact: Option<String>,
}

/// The marker of an exact specifier: `bash(=make test)`.
const EXACT: char = '=';

/// The specifier that matches exactly `command` and nothing else:
/// `=` and the command's text, trimmed of shell blanks. No word of it is
/// a pattern.
pub fn exact_specifier(command: &str) -> String {
    format!("{EXACT}{}", trim_blanks(command))
}

/// `s` without the blanks the shell separates words with (space, tab,
/// newline) at its ends. Not `str::trim`: other Unicode white space (a
/// no-break space, an em space …) is part of a word to the shell, so
/// `rm -f x\u{a0}` names another file than `rm -f x`.
pub fn trim_blanks(s: &str) -> &str {
    s.trim_matches([' ', '\t', '\n'])
}

/// Why a specifier is not valid. An invalid specifier matches nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecifierError {
    /// `bash()`: no command at all.
    #[error("empty bash rule")]
    Empty,
    /// The shell parser refused the specifier.
    #[error("bash rule cannot be parsed: {0}")]
    Unparseable(String),
    /// More than one command, or a word that is not a literal.
    #[error("bash rule must be one command of literal words, optionally ending in ` *`: {0}")]
    NotLiteral(String),
}

impl Specifier {
    /// Parses `cargo test *`, `git status`, `"my tool" --flag`, `=ls
    /// *.rs`. A `*` is only a wildcard as the last word, alone, of a
    /// specifier not starting with `=`; elsewhere it is an error.
    pub fn parse(specifier: &str) -> Result<Self, SpecifierError> {
        let s = trim_blanks(specifier);
        if let Some(text) = s.strip_prefix(EXACT) {
            let text = trim_blanks(text);
            if text.is_empty() {
                return Err(SpecifierError::Empty);
            }
            return Ok(Self {
                words: Vec::new(),
                any_tail: false,
                exact: Some(text.to_owned()),
            });
        }
        if s.is_empty() {
            return Err(SpecifierError::Empty);
        }
        let (head, any_tail) = if s == "*" {
            ("", true)
        } else if let Some(head) = s.strip_suffix(" *").or_else(|| s.strip_suffix("\t*")) {
            (head, true)
        } else {
            (s, false)
        };
        if head.trim().is_empty() {
            return Ok(Self {
                words: Vec::new(),
                any_tail,
                exact: None,
            });
        }
        let parsed = parse_inline(head)
            .map_err(|e| SpecifierError::Unparseable(format!("{specifier}: {e}")))?;
        let not_literal = || SpecifierError::NotLiteral(specifier.to_owned());
        if !parsed.is_hazard_free()
            || parsed.commands.len() != 1
            || !parsed.commands[0].assignments.is_empty()
        {
            return Err(not_literal());
        }
        let words = parsed.commands[0]
            .literal_argv()
            .ok_or_else(not_literal)?
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>();
        if words.is_empty() {
            return Err(not_literal());
        }
        Ok(Self {
            words,
            any_tail,
            exact: None,
        })
    }

    /// An exact specifier (`=…`) and the whole command line is its text.
    fn matches_exactly(&self, parsed: &ParsedCommand) -> bool {
        self.exact
            .as_deref()
            .is_some_and(|text| trim_blanks(&parsed.source) == text)
    }

    /// Allow rules: every command the shell runs directly matches (the
    /// program compared exactly: `/usr/bin/git` is not `git`), and nothing
    /// in the command is a hazard. A prefix rule (`cargo test *`) does not
    /// match a command with an option that loads code or config
    /// (`--config`, `-Z`, `git -c` …, see `loaders.rs`). An exact
    /// specifier matches the command line with that text, when it has no
    /// hazard either. An empty command matches nothing.
    pub fn matches_all(&self, parsed: &ParsedCommand) -> bool {
        parsed.is_hazard_free()
            && !parsed.commands.is_empty()
            && (self.matches_exactly(parsed)
                || parsed.commands.iter().all(|c| self.matches_one(c, false)))
    }

    /// Deny and ask rules: some command matches, direct or nested (in a
    /// substitution, under a wrapper, in a `bash -c` string …); the
    /// program is compared by its last path component (`/bin/rm` is `rm`)
    /// unless the rule names a path. An exact specifier matches the command
    /// line with its text.
    pub fn matches_any(&self, parsed: &ParsedCommand) -> bool {
        self.matches_exactly(parsed)
            || parsed
                .commands
                .iter()
                .chain(parsed.nested.iter())
                .chain(parsed.brace_expanded.iter())
                .any(|c| self.matches_one(c, true))
    }

    /// One simple command (an exact specifier matches none: it is about
    /// the whole command line).
    fn matches_one(&self, cmd: &SimpleCommand, by_basename: bool) -> bool {
        self.exact.is_none() && self.matches_as_written(&cmd.words, by_basename)
            || by_basename && self.matches_after_options(cmd)
    }

    /// The rule's words against the command's, position by position (or,
    /// for deny and ask rules naming short options, by `options.rs`).
    fn matches_as_written(&self, words: &[Word], by_basename: bool) -> bool {
        if by_basename && self.matches_by_options(words) {
            return true;
        }
        if words.is_empty() || words.len() < self.words.len() {
            return false;
        }
        let prefix_ok = self
            .words
            .iter()
            .zip(words)
            .enumerate()
            .all(|(i, (want, got))| {
                let Word::Literal(got) = got else {
                    return false;
                };
                if i == 0 && by_basename && !want.contains('/') {
                    basename(got) == want
                } else {
                    got == want
                }
            });
        if !prefix_ok {
            return false;
        }
        if !self.any_tail {
            return words.len() == self.words.len();
        }
        // A prefix rule allows the program's own behaviour, not what an
        // option that loads code or config would run.
        by_basename || refused_by_prefix(words).is_none()
    }
}

impl Specifier {
    /// Deny and ask rules naming short options: the same options however
    /// the command spells them (`options.rs`). A word only known when the
    /// shell runs it is an operand no rule word equals.
    fn matches_by_options(&self, words: &[Word]) -> bool {
        if !self.same_program(words) {
            return false;
        }
        let words: Vec<&str> = words
            .iter()
            .map(|w| match w {
                Word::Literal(s) => s.as_str(),
                Word::Expanded(_) => "\0expanded",
            })
            .collect();
        super::options::matches(&self.words, &words, self.any_tail).unwrap_or(false)
    }

    /// Deny and ask rules naming a subcommand (`git push *`): the same
    /// rule on the command read with the options before and between its
    /// subcommand words left out (`git --no-pager push`, `git -C x push`,
    /// `kubectl -n prod delete pod x`; `operands.rs`). A word the shell
    /// expands that could be a subcommand word matches.
    fn matches_after_options(&self, cmd: &SimpleCommand) -> bool {
        let sub: Vec<&str> = self
            .words
            .iter()
            .skip(1)
            .map(String::as_str)
            .take_while(|w| !super::operands::is_option(w))
            .collect();
        if sub.is_empty() || !self.same_program(&cmd.words) {
            return false;
        }
        let args = &cmd.words[1..];
        let readings = super::operands::readings(&sub, args);
        // An expanded word, or a git alias defined on the command line,
        // may stand for the subcommand.
        let program = cmd.program().map(basename);
        if readings.expanded || program == Some("git") && super::git::may_define_alias(args) {
            return true;
        }
        readings.ends.iter().any(|&end| {
            let view: Vec<Word> = cmd.words[..1]
                .iter()
                .cloned()
                .chain(sub.iter().map(|w| Word::Literal((*w).to_owned())))
                .chain(args[end..].iter().cloned())
                .collect();
            self.matches_as_written(&view, true)
        })
    }

    /// The command's program is the rule's: by its last path component
    /// unless the rule names a path.
    fn same_program(&self, words: &[Word]) -> bool {
        let Some(Word::Literal(program)) = words.first() else {
            return false;
        };
        match self.words.first().map(String::as_str) {
            Some(w) if !w.contains('/') => basename(program) == w,
            Some(w) => program == w,
            None => false,
        }
    }
}

/// Does an allow rule's specifier match the whole command? True only when
/// every simple command matches and there is no hazard anywhere. An
/// invalid specifier matches nothing.
pub fn specifier_matches(specifier: &str, parsed: &ParsedCommand) -> bool {
    Specifier::parse(specifier).is_ok_and(|s| s.matches_all(parsed))
}

/// Allow rules taken together: when every command the shell runs directly
/// matches at least one of `specifiers` and nothing in the command is a
/// hazard, the indices of the rules used (each command counts its first
/// matching rule; ascending, no repeats). `ls && git status` is allowed by
/// `["git status", "ls *"]` although neither rule matches it alone.
/// Invalid specifiers match nothing.
pub fn allowed_by(specifiers: &[&str], parsed: &ParsedCommand) -> Option<Vec<usize>> {
    if !parsed.is_hazard_free() || parsed.commands.is_empty() {
        return None;
    }
    let parsed_specs: Vec<Option<Specifier>> = specifiers
        .iter()
        .map(|s| Specifier::parse(s).ok())
        .collect();
    if let Some(i) = parsed_specs
        .iter()
        .position(|s| s.as_ref().is_some_and(|s| s.matches_exactly(parsed)))
    {
        return Some(vec![i]);
    }
    let mut used = Vec::new();
    for cmd in &parsed.commands {
        let i = parsed_specs
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| s.matches_one(cmd, false)))?;
        used.push(i);
    }
    used.sort_unstable();
    used.dedup();
    Some(used)
}

/// Does a deny or ask rule's specifier match any part of the command,
/// including nested commands? An invalid specifier matches nothing.
pub fn specifier_matches_any(specifier: &str, parsed: &ParsedCommand) -> bool {
    Specifier::parse(specifier).is_ok_and(|s| s.matches_any(parsed))
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    fn spec(s: &str) -> Specifier {
        Specifier::parse(s).unwrap()
    }

    #[test]
    fn parses_words_and_tail() {
        assert_eq!(
            spec("cargo test *"),
            Specifier {
                words: vec!["cargo".into(), "test".into()],
                any_tail: true,
                exact: None,
            }
        );
        assert_eq!(
            spec("  git   status "),
            Specifier {
                words: vec!["git".into(), "status".into()],
                any_tail: false,
                exact: None,
            }
        );
        assert_eq!(spec("'my tool' \"a b\"").words, vec!["my tool", "a b"]);
        assert_eq!(spec("*").words, Vec::<String>::new());
        assert!(spec("*").any_tail);
    }

    #[test]
    fn rejects_invalid_specifiers() {
        assert_eq!(Specifier::parse("  "), Err(SpecifierError::Empty));
        for bad in [
            "git * status",
            "cargo test*",
            "ls $HOME",
            "ls; rm x",
            "ls > f",
            "$(x)",
            "ls (",
            "A=1",
            "RUST_LOG=debug cargo test *",
        ] {
            assert!(Specifier::parse(bad).is_err(), "{bad} should be rejected");
        }
    }

    #[test]
    fn exact_and_prefix_matching() {
        let p = |c: &str| parse(c).unwrap();
        assert!(spec("git status").matches_all(&p("git status")));
        assert!(!spec("git status").matches_all(&p("git status --short")));
        assert!(!spec("git status").matches_all(&p("git")));
        assert!(spec("cargo test *").matches_all(&p("cargo test")));
        assert!(spec("cargo test *").matches_all(&p("cargo test -p x $NAME")));
        assert!(!spec("cargo test *").matches_all(&p("cargo testx")));
        assert!(!spec("cargo test *").matches_all(&p("cargo $T x")));
        assert!(!spec("git status").matches_all(&p("/usr/bin/git status")));
        assert!(spec("rm *").matches_any(&p("/bin/rm -rf x")));
        assert!(!spec("/bin/rm *").matches_any(&p("rm x")));
        assert!(spec("*").matches_all(&p("anything at all")));
        assert!(!spec("*").matches_all(&p("")));
    }

    #[test]
    fn deny_rules_see_past_options_before_the_subcommand() {
        let p = |c: &str| parse(c).unwrap();
        for (rule, c) in [
            ("git push *", "git --no-pager push origin HEAD:main"),
            ("git push *", "git -P push --force x"),
            ("git push *", "git -C x -c a=b push"),
            ("git push *", "sudo git --git-dir=.git push"),
            ("git push", "git --no-pager push"),
            ("git push -f *", "git -C x push -f"),
            ("git push --force *", "git -P push --force"),
            ("cargo publish *", "cargo -q publish"),
            ("cargo publish *", "cargo +nightly publish"),
            ("kubectl delete pod *", "kubectl delete -n prod pod x"),
            ("git push *", "git $SUB origin"),
            ("git push *", "git p*sh origin"),
            ("git push *", "git -c alias.p=push p origin"),
        ] {
            let words = &p(c).commands.last().unwrap().words.clone();
            assert!(spec(rule).matches_any(&p(c)), "{rule} should deny {c}");
            // CONTROL: compared position by position, the rule misses it.
            let nested = p(c).nested.first().map(|n| n.words.clone());
            let as_written = |w: &[Word]| spec(rule).matches_as_written(w, true);
            assert!(
                !as_written(words) && !nested.as_deref().is_some_and(as_written),
                "{rule} should not match {c} as written"
            );
            // Allow rules do not get broader.
            assert!(!spec(rule).matches_all(&p(c)), "{rule} allowed {c}");
        }
        for (rule, c) in [
            ("git push *", "git stash push"),
            ("git push *", "git log push"),
            ("git push", "git --no-pager push origin"),
            ("git push -f *", "git -P push origin"),
            ("git push *", "git pu*x"),
        ] {
            assert!(!spec(rule).matches_any(&p(c)), "{rule} denied {c}");
        }
    }

    #[test]
    fn prefix_rules_refuse_options_that_run_or_write() {
        let p = |c: &str| parse(c).unwrap();
        for (rule, c) in [
            ("git grep *", "git grep -O'touch PWNED' hello"),
            ("git *", "git -P grep -iOx hello"),
            (
                "git difftool *",
                "git difftool -y -x 'touch PWNED' --no-index a b",
            ),
            ("git clone *", "git clone -u 'x; git-upload-pack' . y"),
            ("sort *", "sort -o victim.rs in"),
            ("uniq *", "uniq in victim"),
            ("curl *", "curl -o victim http://h/"),
        ] {
            assert!(!spec(rule).matches_all(&p(c)), "{rule} allowed {c}");
            // CONTROL: deny and ask rules (which do not refuse) match it.
            assert!(spec(rule).matches_any(&p(c)), "{rule} should match {c}");
        }
    }

    #[test]
    fn exact_specifiers_match_that_command_line_only() {
        let p = |c: &str| parse(c).unwrap();
        for (command, others) in [
            (
                "rm -f *",
                &["rm -f ../../anything", "rm -f * x", "rm -f"][..],
            ),
            ("git add *", &["git add ../x", "git add -A"][..]),
            (
                "rm -rf build # *",
                &["rm -rf build /home/u/project", "rm -rf build"][..],
            ),
            ("ls -la *", &["ls -la /etc", "ls -la"][..]),
            (
                "cargo build && cargo test",
                &["cargo build", "cargo test"][..],
            ),
        ] {
            let exact = spec(&exact_specifier(command));
            assert!(exact.matches_all(&p(command)), "{command}");
            assert!(
                exact.matches_all(&p(&format!("  {command}\n"))),
                "{command}"
            );
            assert_eq!(
                allowed_by(&["git status", &exact_specifier(command)], &p(command)),
                Some(vec![1])
            );
            for other in others {
                assert!(!exact.matches_all(&p(other)), "{command} allowed {other}");
                assert_eq!(allowed_by(&[&exact_specifier(command)], &p(other)), None);
            }
        }
        // CONTROL: the same text as a plain rule (what "always" saved
        // before) is a prefix rule.
        assert!(spec("rm -f *").matches_all(&p("rm -f ../../anything")));
        assert!(spec("rm -rf build # *").matches_all(&p("rm -rf build /home/u/project")));
        assert!(spec("*").matches_all(&p("rm -rf x")));
        // `*` alone: as a plain rule, everything; exact, nothing else (and
        // not itself: a glob as the program is a hazard).
        assert!(!spec(&exact_specifier("*")).matches_all(&p("rm -rf x")));
        // Like every allow rule, never a command with a hazard; deny and
        // ask rules see the text all the same.
        let redirect = spec(&exact_specifier("ls > out"));
        assert!(!redirect.matches_all(&p("ls > out")));
        assert!(redirect.matches_any(&p("ls > out")));
        assert!(!redirect.matches_any(&p("ls > other")));
        assert_eq!(Specifier::parse("= "), Err(SpecifierError::Empty));
    }

    #[test]
    fn rules_together() {
        let p = |c: &str| parse(c).unwrap();
        let rules = ["git status", "bad * rule", "ls *"];
        assert_eq!(allowed_by(&rules, &p("ls && git status")), Some(vec![0, 2]));
        assert_eq!(allowed_by(&rules, &p("ls -la | ls")), Some(vec![2]));
        assert_eq!(allowed_by(&rules, &p("ls; rm x")), None);
        assert_eq!(allowed_by(&rules, &p("ls > f")), None);
        assert_eq!(allowed_by(&rules, &p("")), None);
        assert_eq!(allowed_by(&[], &p("ls")), None);
    }
}
