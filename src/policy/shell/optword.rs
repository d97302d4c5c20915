//! Whether one argument spells an option, for the tables of options a
//! prefix rule refuses (`loaders.rs`, `writes.rs`, `git.rs`).
//!
//! * `--name`: `--name`, `--name=value`, or any shorter prefix of it
//!   (`--conf` is `--config`: `getopt_long`, git and most option parsers
//!   take an unambiguous abbreviation; an ambiguous one is an error, so
//!   counting it costs nothing).
//! * `-x` for a program that reads options as `getopt` does
//!   ([`Style::Clusters`]): the letter anywhere in a cluster of short
//!   options (`-uo F` is `-u -o F`, `-sSLo F`, `-iO'cmd'`), even where it
//!   is part of another option's attached value: stricter, never looser.
//! * `-x` or `-name` otherwise ([`Style::Words`]): the word itself, or
//!   with its value attached (`-Zx`, `-fplugin=x`, `-C.`).

/// How a program reads its short options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    /// Letters cluster: `-abc` is `-a -b -c`, and the last may take the
    /// rest of the word or the next word as its value (`getopt`, git's
    /// parse-options, clap, pflag, argparse, curl).
    Clusters,
    /// Each option is one word (`-exec`, `-fplugin`, `-DskipTests`): gcc,
    /// go, maven, cmake.
    Words,
}

/// Does `arg` spell `option` (`--long`, `-x`, `-word`) for a program
/// reading options in `style`?
pub(super) fn spells(arg: &str, option: &str, style: Style) -> bool {
    if let Some(long) = option.strip_prefix("--") {
        return long_option(arg, long);
    }
    let Some(short) = option.strip_prefix('-') else {
        return false;
    };
    let mut letters = short.chars();
    if let (Style::Clusters, Some(letter), None) = (style, letters.next(), letters.next()) {
        return cluster_has(arg, letter);
    }
    arg == option || arg.starts_with(option) && !arg.starts_with("--")
}

/// `--NAME` or `--NAME=VALUE` where NAME is `full` or a prefix of it.
pub(super) fn long_option(arg: &str, full: &str) -> bool {
    arg.strip_prefix("--").is_some_and(|rest| {
        let name = rest.split('=').next().unwrap_or(rest);
        !name.is_empty() && full.starts_with(name)
    })
}

/// `-xyz` (a cluster of short options, not `--long`) containing `letter`.
pub(super) fn cluster_has(arg: &str, letter: char) -> bool {
    arg.strip_prefix('-')
        .is_some_and(|rest| !rest.starts_with('-') && rest.contains(letter))
}

/// The long option's name (`--output=F` gives `output`), if `arg` is one.
pub(super) fn long_name(arg: &str) -> Option<&str> {
    let rest = arg.strip_prefix("--")?;
    let name = rest.split('=').next().unwrap_or(rest);
    (!name.is_empty()).then_some(name)
}

/// A word the shell expands (`*`, `-o*`, `"-o"*`, `{-o,x}`, `@(…)`) that
/// may become a word starting with `-`, an option: anything but a word
/// whose first character (after opening quotes) is an ordinary one (`a*`,
/// `src/*`, `'src'/*`, `~/x`) or a parameter (`$x`, `"$x"`: what a
/// variable holds is set by an earlier command; README says so).
pub(super) fn may_expand_to_option(raw: &str) -> bool {
    let first = raw.trim_start_matches(['"', '\'']).chars().next();
    !first.is_some_and(|c| c.is_ascii_alphanumeric() || "$`./_~,=%:".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_options_by_prefix() {
        for arg in ["--output", "--output=x", "--outp", "--o=x"] {
            assert!(spells(arg, "--output", Style::Clusters), "{arg}");
        }
        for arg in ["--no-output", "--outputs", "-output", "--", "output"] {
            assert!(!spells(arg, "--output", Style::Clusters), "{arg}");
        }
    }

    #[test]
    fn short_options_in_clusters_or_as_words() {
        for arg in ["-o", "-ofile", "-uo", "-sSLo", "-iOtouch x"] {
            let letter = if arg.contains('O') { "-O" } else { "-o" };
            assert!(spells(arg, letter, Style::Clusters), "{arg}");
        }
        assert!(!spells("--o", "-o", Style::Clusters));
        assert!(!spells("-u", "-o", Style::Clusters));
        // Words: only the word, or the value attached.
        assert!(spells("-Zx", "-Z", Style::Words));
        assert!(spells("-fplugin=x", "-fplugin", Style::Words));
        assert!(!spells("-qZ", "-Z", Style::Words));
        assert!(spells("-qZ", "-Z", Style::Clusters));
    }

    #[test]
    fn expansions_that_may_be_options() {
        for raw in [
            "*", "?x", "[-]o", "-o*", "{-o,x}", "@(-o)", "\"-o\"*", "'-'*", "\\-o*",
        ] {
            assert!(may_expand_to_option(raw), "{raw}");
        }
        for raw in [
            "src/*", "$x", "\"$x\"", "~/x", "a*", "a{b,c}", "'src'/*", "./*",
        ] {
            assert!(!may_expand_to_option(raw), "{raw}");
        }
    }
}
