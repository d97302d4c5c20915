//! Options that make a program load code or configuration named on the
//! command line (`cargo --config 'target.x.runner=[…]'`, `git -c
//! core.pager=…`, `npm --script-shell=…`, `make SHELL=…`). A prefix rule
//! (`cargo test *`) never matches a command using one of them: the rule
//! was granted for the program's own behaviour, not for whatever such an
//! option runs. Exact rules (no ` *`) match as written.
//!
//! Long options are compared by prefix as well (`--conf` is `--config`
//! for git and npm, which accept abbreviations), and short options
//! wherever they start a word (`-Zbuild-std`, `-C dir`, `-fMakefile`).

use super::Word;
use super::special::basename;

/// Where an option counts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum At {
    /// Anywhere after the program.
    Anywhere,
    /// Only before the first operand (git's global options: `git -C x
    /// log`, but `git log -C` is copy detection).
    BeforeSubcommand,
}

/// One program's code- or config-loading options.
struct Loader {
    programs: &'static [&'static str],
    at: At,
    options: &'static [&'static str],
}

/// The list README's Policy section documents (keep them in step).
const LOADERS: &[Loader] = &[
    Loader {
        programs: &["cargo"],
        at: At::Anywhere,
        options: &["--config", "-Z", "--manifest-path", "-C"],
    },
    Loader {
        programs: &["git"],
        at: At::BeforeSubcommand,
        options: &[
            "-c",
            "-C",
            "--exec-path",
            "--git-dir",
            "--work-tree",
            "--config-env",
            "--namespace",
            "--super-prefix",
        ],
    },
    Loader {
        programs: &["git"],
        at: At::Anywhere,
        options: &[
            "--upload-pack",
            "--receive-pack",
            "--exec",
            "--extcmd",
            "--template",
            "--ext-diff",
            "--config",
            "--output",
        ],
    },
    Loader {
        programs: &["npm", "pnpm", "yarn"],
        at: At::Anywhere,
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
        at: At::Anywhere,
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
        at: At::Anywhere,
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
        at: At::Anywhere,
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
        at: At::Anywhere,
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
        at: At::Anywhere,
        options: &["--config", "-H", "--host", "--context", "--kubeconfig"],
    },
    Loader {
        programs: &["pip", "pip3", "uv", "poetry"],
        at: At::Anywhere,
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
        at: At::Anywhere,
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
        at: At::Anywhere,
        options: &["--compress-program"],
    },
    Loader {
        programs: &["tar"],
        at: At::Anywhere,
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
        at: At::Anywhere,
        options: &["-e", "--rsh", "--rsync-path"],
    },
    Loader {
        programs: &["scp", "sftp"],
        at: At::Anywhere,
        options: &["-S", "-o", "-F"],
    },
    Loader {
        programs: &["curl"],
        at: At::Anywhere,
        options: &["-K", "--config"],
    },
    Loader {
        programs: &["wget"],
        at: At::Anywhere,
        options: &["-e", "--execute", "--config", "--use-askpass"],
    },
    Loader {
        programs: &["rg"],
        at: At::Anywhere,
        options: &["--pre", "--hostname-bin"],
    },
    Loader {
        programs: &["zip"],
        at: At::Anywhere,
        options: &["-TT", "--unzip-command"],
    },
    Loader {
        programs: &["cmake"],
        at: At::Anywhere,
        options: &["-P", "-C", "-E"],
    },
    Loader {
        programs: &["gcc", "g++", "cc", "c++", "clang", "clang++", "ld", "rustc"],
        at: At::Anywhere,
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

/// The option in `words` (the whole argv) that loads code or config, if
/// any: a prefix rule must not match such a command.
pub(super) fn code_loading_option(words: &[Word]) -> Option<String> {
    let program = basename(words.first()?.literal()?);
    let args = &words[1..];
    for (i, arg) in args.iter().enumerate() {
        let Some(a) = arg.literal() else { continue };
        if program == "cargo" && i == 0 && a.starts_with('+') {
            return Some(a.to_owned());
        }
        if VARIABLE_ARGS.contains(&program) && is_variable_assignment(a) {
            return Some(a.to_owned());
        }
        if RESPONSE_FILES.contains(&program) && a.starts_with('@') {
            return Some(a.to_owned());
        }
        let before_subcommand = args[..i]
            .iter()
            .all(|w| w.literal().is_some_and(|s| s.starts_with('-')));
        for loader in LOADERS.iter().filter(|l| l.programs.contains(&program)) {
            if loader.at == At::BeforeSubcommand && !before_subcommand {
                continue;
            }
            if loader.options.iter().any(|o| option_is(a, o)) {
                return Some(a.to_owned());
            }
        }
    }
    None
}

/// `arg` spells `option`: `--config`, `--config=x`, an abbreviation
/// `--conf`, or a short option with its value attached (`-Zx`, `-C.`).
fn option_is(arg: &str, option: &str) -> bool {
    if let Some(long) = option.strip_prefix("--") {
        return arg.strip_prefix("--").is_some_and(|rest| {
            let name = rest.split('=').next().unwrap_or(rest);
            !name.is_empty() && long.starts_with(name)
        });
    }
    // Single-dash options (`-Z`, `-exec`, `-fplugin`): exact, `=value`,
    // or with the value attached.
    arg == option || arg.starts_with(option) && !arg.starts_with("--")
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
        code_loading_option(&parse(c).unwrap().commands[0].words).is_some()
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
