//! Options that make a program load code or configuration named on the
//! command line (`cargo --config 'target.x.runner=[…]'`, `git -c
//! core.pager=…`, `npm --script-shell=…`, `make SHELL=…`), and, from
//! `writes.rs` and `git.rs`, options that run a command or write a file
//! named there (`sort -o F`, `git grep -O'cmd'`, `git clone -u …`). A
//! prefix rule (`cargo test *`) never matches a command using one of them:
//! the rule was granted for the program's own behaviour, not for whatever
//! such an option runs or overwrites. Exact rules (no ` *`) match as
//! written.
//!
//! Long options are compared by prefix as well (`--conf` is `--config`
//! for git and npm, which accept abbreviations), short options wherever
//! they start a word (`-Zbuild-std`, `-C dir`, `-fMakefile`) and, for
//! programs whose short options cluster, anywhere in a cluster (`make
//! -sfMakefile`, `rsync -avze cmd`). A word the shell expands that could
//! become such an option (a glob matching a file named `-o…`, a brace
//! expansion) counts as one.

use super::Word;
use super::optword::{Style, may_expand_to_option, spells};
use super::special::basename;

/// One program's code- or config-loading options.
struct Loader {
    programs: &'static [&'static str],
    style: Style,
    options: &'static [&'static str],
}

/// The list README's Policy section documents (keep them in step).
const LOADERS: &[Loader] = &[
    Loader {
        programs: &["cargo"],
        style: Style::Clusters,
        options: &["--config", "-Z", "--manifest-path", "-C"],
    },
    Loader {
        programs: &["npm", "pnpm", "yarn"],
        style: Style::Clusters,
        options: &[
            "--prefix",
            "--userconfig",
            "--globalconfig",
            "--script-shell",
            "--node-options",
            "--init-module",
            "--onload-script",
            "--shell",
            "--git",
            "--editor",
            "--browser",
            "--viewer",
            "--registry",
            "--cwd",
            "--dir",
            "-C",
            "--config",
        ],
    },
    Loader {
        programs: &["make", "gmake"],
        style: Style::Clusters,
        options: &[
            "-f",
            "--file",
            "--makefile",
            "--eval",
            "-E",
            "-C",
            "--directory",
            "-I",
            "--include-dir",
        ],
    },
    Loader {
        programs: &["go"],
        style: Style::Words,
        options: &[
            "-exec",
            "-toolexec",
            "-modfile",
            "-overlay",
            "-C",
            "--exec",
            "--toolexec",
        ],
    },
    Loader {
        programs: &["pytest", "py.test"],
        style: Style::Clusters,
        options: &[
            "-p",
            "-c",
            "--config-file",
            "-o",
            "--override-ini",
            "--rootdir",
        ],
    },
    Loader {
        programs: &["jest", "vitest", "eslint", "prettier", "mocha", "tsc"],
        style: Style::Clusters,
        options: &[
            "--config",
            "-c",
            "--plugin",
            "--rulesdir",
            "--require",
            "-r",
            "--project",
        ],
    },
    Loader {
        programs: &["docker", "podman", "kubectl", "helm"],
        style: Style::Clusters,
        options: &["--config", "-H", "--host", "--context", "--kubeconfig"],
    },
    Loader {
        programs: &["pip", "pip3", "uv", "poetry"],
        style: Style::Clusters,
        options: &[
            "--index-url",
            "-i",
            "--extra-index-url",
            "--find-links",
            "-f",
            "--config-file",
            "-C",
            "--directory",
            "-P",
            "--project",
        ],
    },
    Loader {
        programs: &["mvn", "gradle", "gradlew", "./gradlew"],
        style: Style::Words,
        options: &[
            "-s",
            "--settings",
            "-gs",
            "--global-settings",
            "-f",
            "--file",
            "-I",
            "--init-script",
            "-b",
            "--build-file",
            "-c",
            "--settings-file",
            "-p",
            "--project-dir",
        ],
    },
    Loader {
        programs: &["sort"],
        style: Style::Clusters,
        options: &["--compress-program"],
    },
    Loader {
        programs: &["tar"],
        style: Style::Clusters,
        options: &[
            "--to-command",
            "--use-compress-program",
            "-I",
            "--checkpoint-action",
            "--info-script",
            "--new-volume-script",
            "-F",
            "--rsh-command",
            "--rmt-command",
        ],
    },
    Loader {
        programs: &["rsync"],
        style: Style::Clusters,
        options: &["-e", "--rsh", "--rsync-path"],
    },
    Loader {
        programs: &["scp", "sftp"],
        style: Style::Clusters,
        options: &["-S", "-o", "-F"],
    },
    Loader {
        programs: &["curl"],
        style: Style::Clusters,
        options: &["-K", "--config"],
    },
    Loader {
        programs: &["wget"],
        style: Style::Clusters,
        options: &["-e", "--execute", "--config", "--use-askpass"],
    },
    Loader {
        programs: &["rg"],
        style: Style::Clusters,
        options: &["--pre", "--hostname-bin"],
    },
    Loader {
        programs: &["zip"],
        style: Style::Words,
        options: &["-TT", "--unzip-command"],
    },
    Loader {
        programs: &["cmake"],
        style: Style::Words,
        options: &["-P", "-C", "-E"],
    },
    Loader {
        programs: &["gcc", "g++", "cc", "c++", "clang", "clang++", "ld", "rustc"],
        style: Style::Words,
        options: &[
            "-wrapper", "-B", "-fplugin", "-specs", "--specs", "-plugin", "-C", "-Z",
        ],
    },
];

/// Programs for which `NAME=value` arguments set variables that can name
/// the programs run (`make test SHELL=/tmp/x`, `CC=…`).
const VARIABLE_ARGS: &[&str] = &["make", "gmake"];

/// Programs that read options from `@file` response files.
const RESPONSE_FILES: &[&str] = &["gcc", "g++", "cc", "c++", "clang", "clang++", "ld", "rustc"];

/// The argument in `words` (the whole argv) that loads code or config,
/// runs a command or writes a file named on the command line, if any: a
/// prefix rule must not match such a command.
pub(super) fn refused_by_prefix(words: &[Word]) -> Option<String> {
    let program = basename(words.first()?.literal()?);
    let args = &words[1..];
    if program == "git" {
        return super::git::risky_argument(args);
    }
    if let Some(a) = super::writes::writing_argument(words) {
        return Some(a);
    }
    let loaders: Vec<&Loader> = LOADERS
        .iter()
        .filter(|l| l.programs.contains(&program))
        .collect();
    let mut options_end = false;
    for (i, arg) in args.iter().enumerate() {
        let a = match arg {
            Word::Literal(a) => a.as_str(),
            Word::Expanded(raw)
                if !options_end && !loaders.is_empty() && may_expand_to_option(raw) =>
            {
                return Some(raw.clone());
            }
            Word::Expanded(_) => continue,
        };
        options_end |= a == "--";
        if program == "cargo" && i == 0 && a.starts_with('+') {
            return Some(a.to_owned());
        }
        if VARIABLE_ARGS.contains(&program) && is_variable_assignment(a) {
            return Some(a.to_owned());
        }
        if RESPONSE_FILES.contains(&program) && a.starts_with('@') {
            return Some(a.to_owned());
        }
        // tar's old style: the first word is a cluster without the dash
        // (`tar xIf cmd a.tar`).
        let old_style;
        let a_as_option =
            if program == "tar" && i == 0 && a.chars().all(|c| c.is_ascii_alphabetic()) {
                old_style = format!("-{a}");
                old_style.as_str()
            } else {
                a
            };
        let loads = loaders
            .iter()
            .any(|l| l.options.iter().any(|o| spells(a_as_option, o, l.style)));
        if loads {
            return Some(a.to_owned());
        }
    }
    None
}

fn is_variable_assignment(a: &str) -> bool {
    a.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '+' || c == ':')
    })
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    fn loads(c: &str) -> bool {
        refused_by_prefix(&parse(c).unwrap().commands[0].words).is_some()
    }

    #[test]
    fn options_that_load_code() {
        for c in [
            "cargo test --config 'target.x.runner=[\"sh\"]'",
            "cargo test --config=x",
            "cargo test -Zunstable-options",
            "cargo test -Z x",
            "cargo +nightly test",
            "cargo test --manifest-path ../x/Cargo.toml",
            "git -c core.pager=sh log",
            "git --exec-path=/tmp log",
            "git -C .. status",
            "git fetch --upload-pack=x",
            "git push --rec=x",
            "npm run build --prefix /tmp",
            "npm test --userconfig=/tmp/rc",
            "npm run x --script-shell=/tmp/sh",
            "make test SHELL=/tmp/sh",
            "make -f /tmp/Makefile",
            "make --eval=x",
            "go test -exec /tmp/x ./...",
            "sort --compress-prog=sh x",
            "gcc @opts x.c",
        ] {
            assert!(loads(c), "{c}");
        }
        for c in [
            "cargo test --release -p x",
            "cargo test --color=always",
            "git log -C",
            "git commit -c HEAD",
            "npm run build",
            "make test",
            "go test ./...",
        ] {
            assert!(!loads(c), "{c}");
        }
    }
}
