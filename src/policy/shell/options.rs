//! Deny and ask rules that name short options (`rm -rf *`) match the
//! same options however the command spells them: in any order, clustered
//! or apart, among other options (`rm -fr`, `rm -r -f`, `rm -rfv`), and,
//! for the commands in [`SPELLINGS`], by their long names or their other
//! letter (`rm --recursive --force`, `rm -Rf`). Only the options' letters
//! are compared; the rule's other words must still be the command's first
//! operands, in order.

/// A program, its letters that mean another letter, and its long options
/// with the letter each means.
type Spelling = (
    &'static str,
    &'static [(char, char)],
    &'static [(&'static str, char)],
);

/// Per program: letters that mean another letter, and long option names
/// with the letter they mean (a long option may be shortened to any
/// unambiguous prefix, as `getopt_long` allows; a shortened one counts for
/// every name it could be).
const SPELLINGS: &[Spelling] = &[
    (
        "rm",
        &[('R', 'r')],
        &[
            ("recursive", 'r'),
            ("force", 'f'),
            ("dir", 'd'),
            ("interactive", 'i'),
            ("verbose", 'v'),
        ],
    ),
    (
        "cp",
        // `-a` is `-dR --preserve=all`: recursive.
        &[('R', 'r'), ('a', 'r')],
        &[
            ("recursive", 'r'),
            ("archive", 'r'),
            ("force", 'f'),
            ("verbose", 'v'),
        ],
    ),
    // `--force` is `-f` for every git command that has both (push, clean,
    // branch, checkout, tag, worktree …); `--force-with-lease` is not it.
    ("git", &[], &[("force", 'f')]),
    ("mv", &[], &[("force", 'f'), ("verbose", 'v')]),
    (
        "ln",
        &[],
        &[("force", 'f'), ("symbolic", 's'), ("verbose", 'v')],
    ),
    ("chmod", &[], &[("recursive", 'R'), ("verbose", 'v')]),
    ("chown", &[], &[("recursive", 'R'), ("verbose", 'v')]),
    ("chgrp", &[], &[("recursive", 'R'), ("verbose", 'v')]),
];

/// A cluster of short options: `-rf` (a dash, then letters or digits).
fn cluster(word: &str) -> Option<&str> {
    let rest = word.strip_prefix('-')?;
    (!rest.is_empty() && !rest.starts_with('-') && rest.chars().all(|c| c.is_ascii_alphanumeric()))
        .then_some(rest)
}

/// The words of a rule or a command after its program, split into the
/// option letters (normalised for `program`) and the other words in
/// order. Words after `--` are all operands.
fn split<'a>(program: &str, words: impl Iterator<Item = &'a str>) -> (Vec<char>, Vec<&'a str>) {
    let spelling = SPELLINGS.iter().find(|(p, _, _)| *p == program);
    let same = |c: char| {
        spelling
            .and_then(|(_, same, _)| same.iter().find(|(from, _)| *from == c))
            .map_or(c, |&(_, to)| to)
    };
    let mut letters = Vec::new();
    let mut operands = Vec::new();
    let mut options_end = false;
    for w in words {
        if options_end {
            operands.push(w);
        } else if w == "--" {
            options_end = true;
        } else if let Some(c) = cluster(w) {
            letters.extend(c.chars().map(same));
        } else if let Some(name) = w.strip_prefix("--") {
            // A long option: its letter when the program's spelling names
            // it; otherwise an option all the same, never an operand.
            let name = name.split('=').next().unwrap_or(name);
            if let Some((_, _, long)) = spelling {
                letters.extend(
                    long.iter()
                        .filter(|(full, _)| !name.is_empty() && full.starts_with(name))
                        .map(|&(_, c)| c),
                );
            }
        } else {
            operands.push(w);
        }
    }
    (letters, operands)
}

/// Does a rule with these words (its program first) match `command` (its
/// program first, already compared) by options? `None` when the rule names
/// no short option (the words are then compared as written). With
/// `any_tail`, the command may have more options and more operands;
/// without, the same letters and the same operands.
pub(super) fn matches(rule: &[String], command: &[&str], any_tail: bool) -> Option<bool> {
    let program = super::special::basename(command.first()?);
    if !rule.iter().skip(1).any(|w| cluster(w).is_some()) {
        return None;
    }
    let (want, want_ops) = split(program, rule.iter().skip(1).map(String::as_str));
    let (got, got_ops) = split(program, command.iter().skip(1).copied());
    let letters = want.iter().all(|c| got.contains(c));
    if any_tail {
        return Some(letters && got_ops.starts_with(&want_ops));
    }
    Some(letters && got.iter().all(|c| want.contains(c)) && got_ops == want_ops)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(rule: &str, command: &str, any_tail: bool) -> Option<bool> {
        let rule: Vec<String> = rule.split(' ').map(str::to_owned).collect();
        let command: Vec<&str> = command.split(' ').collect();
        matches(&rule, &command, any_tail)
    }

    #[test]
    fn short_options_match_in_any_spelling() {
        for c in [
            "rm -rf x",
            "rm -fr x",
            "rm -r -f x",
            "rm -f -r x",
            "rm -rfv x",
            "rm -v -f -r x",
            "rm -Rf x",
            "rm --recursive --force x",
            "rm --rec --fo x",
            "rm -r --force x",
            "/bin/rm -fr x",
        ] {
            assert_eq!(m("rm -rf", c, true), Some(true), "{c}");
        }
        assert_eq!(
            m("rm -rf /", "rm -rf --no-preserve-root /", false),
            Some(true),
            "an unknown long option is not an operand"
        );
        for c in ["rm -r x", "rm -f x", "rm x", "rm -- -rf", "rm -i x"] {
            assert_eq!(m("rm -rf", c, true), Some(false), "{c}");
        }
    }

    #[test]
    fn the_rules_other_words_stay_in_order() {
        assert_eq!(m("git push -f", "git push -f origin", true), Some(true));
        assert_eq!(m("git push -f", "git push origin -f", true), Some(true));
        assert_eq!(m("git push -f", "git pull -f", true), Some(false));
        // Exact rules: the same letters and operands, nothing more.
        assert_eq!(m("rm -rf x", "rm -fr x", false), Some(true));
        assert_eq!(m("rm -rf x", "rm -rfv x", false), Some(false));
        assert_eq!(m("rm -rf x", "rm -rf x y", false), Some(false));
    }

    #[test]
    fn git_force_and_cp_archive() {
        assert_eq!(
            m("git push -f", "git push --force origin main", true),
            Some(true)
        );
        assert_eq!(m("git push -f", "git push --forc origin", true), Some(true));
        assert_eq!(
            m("git push -f", "git push --force-with-lease origin", true),
            Some(false)
        );
        assert_eq!(m("cp -r", "cp -a src dst", true), Some(true));
        assert_eq!(m("cp -r", "cp --archive src dst", true), Some(true));
        assert_eq!(m("cp -r", "cp src dst", true), Some(false));
    }

    #[test]
    fn rules_without_short_options_are_left_as_written() {
        assert_eq!(m("git push --force", "git push -f", true), None);
        assert_eq!(m("curl", "curl -s x", true), None);
    }
}
