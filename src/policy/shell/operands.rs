//! Deny and ask rules naming a subcommand (`git push *`, `cargo publish
//! *`, `kubectl delete pod *`) match however many options stand before or
//! between its words: `git --no-pager push`, `git -C x push`, `cargo
//! +nightly publish`, `kubectl -n prod delete pod x`, `docker --log-level
//! debug rm -f x`, `npm --prefix x publish`.
//!
//! Which options take a value is not known for every program (or every
//! version of one), so the word after an option may be its value or an
//! operand: the rule matches when *some* reading puts the rule's
//! subcommand words first among the command's operands. That errs toward
//! matching, the safe direction for deny and ask (`git -C push status` is
//! taken for a push); allow rules never use this.
//!
//! A word only known when the shell runs it (`$X`, `$(…)`, a glob such as
//! `p*sh`) may be any option, value or operand: it may stand for the
//! subcommand word (the rule then matches) or be skipped.

use std::collections::HashSet;

use super::Word;

/// Where the rule's subcommand words can end in the command.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Readings {
    /// For each reading, the index in the arguments just after the last
    /// subcommand word (ascending, no repeats).
    pub ends: Vec<usize>,
    /// A word the shell expands could be a subcommand word.
    pub expanded: bool,
}

/// Where one reading stands.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct State {
    /// The next argument.
    arg: usize,
    /// The next subcommand word to find.
    sub: usize,
    /// The previous argument was an option that may take the next word
    /// as its value.
    after_option: bool,
    /// `--` was seen: every later word is an operand.
    options_end: bool,
}

/// The readings of `args` (the words after the program) that put `sub`
/// (the rule's subcommand words, none starting with `-`) first among the
/// operands, options and their possible values skipped.
pub(super) fn readings(sub: &[&str], args: &[Word]) -> Readings {
    let mut out = Readings::default();
    let mut seen = HashSet::new();
    let mut todo = vec![State {
        arg: 0,
        sub: 0,
        after_option: false,
        options_end: false,
    }];
    while let Some(s) = todo.pop() {
        if !seen.insert(s) {
            continue;
        }
        let Some(&want) = sub.get(s.sub) else {
            out.ends.push(s.arg);
            continue;
        };
        let Some(word) = args.get(s.arg) else {
            continue;
        };
        let next = |sub: usize, after_option: bool, options_end: bool| State {
            arg: s.arg + 1,
            sub,
            after_option,
            options_end,
        };
        match word {
            Word::Expanded(raw) => {
                out.expanded |= may_be(raw, want);
                // It may also be options (or nothing): skip it.
                todo.push(next(s.sub, true, s.options_end));
            }
            Word::Literal(w) if !s.options_end && w == "--" => {
                todo.push(next(s.sub, false, true));
            }
            Word::Literal(w) if !s.options_end && is_option(w) => {
                todo.push(next(s.sub, !w.contains('='), false));
            }
            Word::Literal(w) => {
                if w == want {
                    todo.push(next(s.sub + 1, false, s.options_end));
                }
                if s.after_option {
                    // The previous option's value.
                    todo.push(next(s.sub, false, s.options_end));
                }
            }
        }
    }
    out.ends.sort_unstable();
    out.ends.dedup();
    out
}

/// `-x`, `--long`, `+toolchain` (cargo, rustup): an option to skip. A
/// lone `-` is an operand (standard input).
pub(super) fn is_option(w: &str) -> bool {
    w.len() > 1 && w.starts_with(['-', '+'])
}

/// Could the expanded word (as written) become `want`? A parameter,
/// substitution, quoting or extended glob: assume so. A plain glob: if
/// it matches.
fn may_be(raw: &str, want: &str) -> bool {
    if raw.contains(['$', '`', '"', '\'', '\\', '(']) {
        return true;
    }
    globset::GlobBuilder::new(raw)
        .literal_separator(true)
        .build()
        .map_or(true, |g| g.compile_matcher().is_match(want))
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    fn ends(sub: &[&str], c: &str) -> Readings {
        readings(sub, &parse(c).unwrap().commands[0].words[1..])
    }

    #[test]
    fn options_before_and_between_subcommand_words_are_skipped() {
        assert_eq!(ends(&["push"], "git push origin").ends, [1]);
        assert_eq!(ends(&["push"], "git --no-pager push origin").ends, [2]);
        assert_eq!(ends(&["push"], "git -C x push").ends, [3]);
        assert_eq!(ends(&["push"], "git -c a=b push").ends, [3]);
        assert_eq!(ends(&["push"], "git --git-dir=x push").ends, [2]);
        assert_eq!(ends(&["publish"], "cargo +nightly publish").ends, [2]);
        assert_eq!(
            ends(&["delete", "pod"], "kubectl delete -n prod pod x").ends,
            [4]
        );
        assert_eq!(ends(&["rm"], "docker --log-level debug rm -f x").ends, [3]);
        assert_eq!(ends(&["push"], "git -- push").ends, [2]);
    }

    #[test]
    fn other_operands_first_do_not_match() {
        for c in [
            "git stash push",
            "git log push",
            "git commit -m push",
            "git",
            "git -c push=1 status",
        ] {
            assert_eq!(ends(&["push"], c), Readings::default(), "{c}");
        }
    }

    #[test]
    fn expanded_words_may_be_the_subcommand() {
        for c in ["git $X origin", "git \"$(echo push)\"", "git p*sh", "git *"] {
            assert!(ends(&["push"], c).expanded, "{c}");
        }
        assert!(!ends(&["push"], "git pu*x").expanded);
        // Skipped, it lets the next word be the subcommand.
        assert_eq!(ends(&["push"], "git $OPTS push").ends, [2]);
    }
}
