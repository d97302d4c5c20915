//! What git's options can run or write, for prefix rules (`bash(git
//! grep *)`, `bash(git *)`, a session grant of `git clone`): a prefix
//! rule never matches a git command that uses one of them.
//!
//! * Before the subcommand, every option but a few that change nothing a
//!   rule could be surprised by (`--no-pager`, `-P`, `-p`, the pathspec
//!   switches …): `-c`, `-C`, `--git-dir`, `--exec-path`, `--bare` …
//!   load another configuration or repository. git matches these words
//!   exactly; the subcommand is the first word after them.
//! * After it, per subcommand, the options that run a command or write a
//!   file named on the command line, in every spelling git's
//!   parse-options accepts: short letters anywhere in a cluster
//!   (`git grep -iO'cmd'`), long names by prefix (`--open-f`); and a few
//!   operands that run what follows (`submodule foreach`, `bisect run`).
//! * Whole subcommands that exist to run commands (`filter-branch`,
//!   `for-each-repo`, `remote-ext`, `instaweb` …).
//! * Any subcommand: the long options of [`ANYWHERE`], and any long option
//!   whose name contains one of [`RISKY_WORDS`] (`--upload-pack`,
//!   `--sendmail-cmd`, `--extcmd` …), a net for options not listed.
//!
//! Checked against git 2.47 (`git <cmd> --git-completion-helper-all`
//! lists every option, hidden ones too).

use super::Word;
use super::optword::{Style, long_name, long_option, may_expand_to_option};

/// Options before the subcommand that a prefix rule may cover.
const HARMLESS_GLOBAL: &[&str] = &[
    "-p",
    "--paginate",
    "-P",
    "--no-pager",
    "--no-replace-objects",
    "--literal-pathspecs",
    "--no-literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--no-optional-locks",
    "--no-advice",
    "--no-lazy-fetch",
    "--version",
    "--html-path",
    "--man-path",
    "--info-path",
];

/// One or more subcommands' options that run or write, and first
/// operands that run what follows.
struct Sub {
    names: &'static [&'static str],
    options: &'static [&'static str],
    operands: &'static [&'static str],
}

/// The diff and log family: `--output=F` writes F, `--ext-diff` runs the
/// configured external diff, `--textconv` the text converters.
const DIFF_OPTIONS: &[&str] = &["--output", "--ext-diff", "--textconv"];

/// Per subcommand (README's Policy section lists them; keep in step).
const SUBCOMMANDS: &[Sub] = &[
    Sub {
        names: &[
            "diff",
            "diff-files",
            "diff-index",
            "diff-tree",
            "log",
            "show",
            "whatchanged",
            "range-diff",
            "stash",
            "cat-file",
        ],
        options: DIFF_OPTIONS,
        operands: &[],
    },
    Sub {
        names: &["grep"],
        options: &["-O", "--open-files-in-pager", "--textconv"],
        operands: &[],
    },
    Sub {
        names: &["difftool"],
        options: &["-x", "--extcmd", "-t", "--tool"],
        operands: &[],
    },
    Sub {
        names: &["mergetool"],
        options: &["-t", "--tool"],
        operands: &[],
    },
    Sub {
        names: &["clone"],
        options: &[
            "-u",
            "--upload-pack",
            "-c",
            "--config",
            "--template",
            "--separate-git-dir",
        ],
        operands: &[],
    },
    Sub {
        names: &["init", "init-db"],
        options: &["--template", "--separate-git-dir"],
        operands: &[],
    },
    Sub {
        names: &["fetch", "pull", "ls-remote", "fetch-pack"],
        options: &["--upload-pack", "--exec"],
        operands: &[],
    },
    Sub {
        names: &["push", "send-pack"],
        options: &["--receive-pack", "--exec"],
        operands: &[],
    },
    Sub {
        names: &["archive"],
        options: &["-o", "--output", "--exec", "--remote"],
        operands: &[],
    },
    Sub {
        names: &["rebase"],
        options: &["-x", "--exec"],
        operands: &[],
    },
    Sub {
        names: &["format-patch"],
        options: &["-o", "--output-directory", "--output"],
        operands: &[],
    },
    Sub {
        names: &["bugreport", "diagnose"],
        options: &["-o", "--output-directory"],
        operands: &[],
    },
    Sub {
        names: &["config"],
        options: &["-f", "--file", "-e", "--edit"],
        operands: &["edit"],
    },
    Sub {
        names: &["submodule"],
        options: &[],
        operands: &["foreach"],
    },
    Sub {
        names: &["bisect"],
        options: &[],
        operands: &["run"],
    },
    Sub {
        names: &["bundle"],
        options: &[],
        operands: &["create"],
    },
    Sub {
        names: &["send-email"],
        options: &[
            "--sendmail-cmd",
            "--to-cmd",
            "--cc-cmd",
            "--header-cmd",
            "--smtp-server",
        ],
        operands: &[],
    },
    Sub {
        names: &["credential-store"],
        options: &["--file"],
        operands: &[],
    },
    Sub {
        names: &["checkout-index"],
        options: &["--prefix"],
        operands: &[],
    },
    Sub {
        names: &["read-tree"],
        options: &["--index-output"],
        operands: &[],
    },
    Sub {
        names: &["fast-export", "fast-import"],
        options: &["--export-marks"],
        operands: &[],
    },
    Sub {
        names: &["apply"],
        options: &["--unsafe-paths"],
        operands: &[],
    },
    Sub {
        names: &["daemon"],
        options: &["--access-hook"],
        operands: &[],
    },
];

/// Subcommands that exist to run commands or programs given to them (or
/// a browser, a web server): a prefix rule never covers them.
const RUNS_COMMANDS: &[&str] = &[
    "filter-branch",
    "for-each-repo",
    "remote-ext",
    "instaweb",
    "web--browse",
    "hook",
];

/// Long options refused after any subcommand (by prefix).
const ANYWHERE: &[&str] = &[
    "upload-pack",
    "receive-pack",
    "exec",
    "extcmd",
    "template",
    "ext-diff",
    "config",
    "output",
    "textconv",
];

/// Words that, in a long option's name, say it names a program to run or
/// a file to write.
const RISKY_WORDS: &[&str] = &[
    "exec", "cmd", "command", "pack", "tool", "pager", "output", "template", "hook", "helper",
    "browser", "httpd", "sendmail",
];

/// The argument of `args` (git's, after the program) that a prefix rule
/// must not cover, if any.
pub(super) fn risky_argument(args: &[Word]) -> Option<String> {
    let mut rest = args;
    // Global options: only the harmless ones, matched exactly.
    while let Some((first, tail)) = rest.split_first() {
        match first {
            Word::Literal(a) if HARMLESS_GLOBAL.contains(&a.as_str()) => rest = tail,
            Word::Literal(a) if a.starts_with('-') => return Some(a.clone()),
            Word::Literal(_) => break,
            Word::Expanded(raw) => return Some(raw.clone()),
        }
    }
    let (sub, after) = rest.split_first()?;
    let sub = sub.literal()?;
    if RUNS_COMMANDS.contains(&sub) {
        return Some(sub.to_owned());
    }
    let table = SUBCOMMANDS.iter().find(|s| s.names.contains(&sub));
    let mut options_end = false;
    let mut first_operand = true;
    for arg in after {
        let a = match arg {
            Word::Literal(a) => a.as_str(),
            Word::Expanded(raw) if !options_end && table.is_some() && may_expand_to_option(raw) => {
                return Some(raw.clone());
            }
            // It may be an operand that runs what follows (`f*` beside a
            // file named `foreach`).
            Word::Expanded(raw)
                if first_operand && table.is_some_and(|t| !t.operands.is_empty()) =>
            {
                return Some(raw.clone());
            }
            Word::Expanded(_) => {
                first_operand = false;
                continue;
            }
        };
        if a == "--" {
            options_end = true;
            continue;
        }
        if !a.starts_with('-') || options_end {
            if first_operand && table.is_some_and(|t| t.operands.contains(&a)) {
                return Some(a.to_owned());
            }
            first_operand = false;
            continue;
        }
        if risky_long(a) || table.is_some_and(|t| t.options.iter().any(|o| spells(a, o))) {
            return Some(a.to_owned());
        }
    }
    None
}

/// Config keys that can make a subcommand name stand for another command:
/// aliases, and included files (which may hold aliases).
const ALIAS_KEYS: &[&str] = &["alias.", "include.", "includeif."];

/// Does this git command set, on its command line, configuration that can
/// define an alias (`git -c alias.p=push p`, `-calias.p=…`,
/// `--config-env=alias.p=VAR`, `-c include.path=F`)? Then its subcommand
/// may be any command, which deny and ask rules assume.
pub(super) fn may_define_alias(args: &[Word]) -> bool {
    args.iter().filter_map(Word::literal).any(|w| {
        let key = w
            .strip_prefix("--config-env=")
            .or_else(|| w.strip_prefix("-c"))
            .unwrap_or(w)
            .to_ascii_lowercase();
        ALIAS_KEYS.iter().any(|k| key.starts_with(k))
    })
}

/// `arg` spells `option` as git's parse-options reads it.
fn spells(arg: &str, option: &str) -> bool {
    super::optword::spells(arg, option, Style::Clusters)
}

/// A long option of [`ANYWHERE`] or one whose name says it runs or writes
/// (negations, `--no-…`, never do).
fn risky_long(arg: &str) -> bool {
    let Some(name) = long_name(arg) else {
        return false;
    };
    if name.starts_with("no-") {
        return false;
    }
    ANYWHERE.iter().any(|o| long_option(arg, o)) || RISKY_WORDS.iter().any(|w| name.contains(w))
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    fn risky(c: &str) -> Option<String> {
        let parsed = parse(c).unwrap();
        risky_argument(&parsed.commands[0].words[1..])
    }

    #[test]
    fn options_that_run_or_write() {
        for c in [
            "git grep -O'touch PWNED' hello",
            "git grep -iOtouch hello",
            "git grep --open-files-in-pager=x hello",
            "git grep --open-f=x hello",
            "git --no-pager grep -O x hello",
            "git difftool -y -x 'touch PWNED' --no-index a b",
            "git difftool --extcmd=x",
            "git difftool -t vimdiff",
            "git mergetool --tool=x",
            "git clone -u 'touch x; git-upload-pack' . x",
            "git clone --upload=x . y",
            "git clone -c core.sshCommand=x ssh://h/r y",
            "git clone --separate-git-dir=../x . y",
            "git archive -o ../F HEAD",
            "git archive --out=F HEAD",
            "git archive --remote=x --exec=y HEAD",
            "git fetch --upload-pack=x .",
            "git fetch --upl=x .",
            "git push --receive-pack=x origin",
            "git ls-remote --exec=x .",
            "git rebase -x 'make test' main",
            "git rebase --exec=x main",
            "git log --output=F",
            "git show --ext-diff",
            "git diff --textconv",
            "git format-patch -o ../out HEAD~1",
            "git config -f ~/.bashrc a.b c",
            "git config --edit",
            "git config edit",
            "git submodule foreach 'touch x'",
            "git bisect run make",
            "git bundle create ../b HEAD",
            "git send-email --sendmail-cmd=x",
            "git send-email --to-cmd=x",
            "git filter-branch --tree-filter x",
            "git for-each-repo --config=x log",
            "git remote-ext x 'touch y'",
            "git instaweb --httpd=x",
            "git web--browse --browser=x u",
            "git checkout-index --prefix=../x/ -a",
            "git read-tree --index-output=../x HEAD",
            "git fast-export --export-marks=../x HEAD",
            "git daemon --access-hook=x",
            "git apply --unsafe-paths p",
            "git -c core.pager=x log",
            "git -C .. status",
            "git --git-dir=x log",
            "git --bare log",
            "git --attr-source HEAD log",
            "git --exec-path=/tmp log",
            "git $X log",
            "git log --foo-command=x",
            "git archive *",
            "git archive \"-o\"*",
            "git submodule f*",
            "git submodule $cmd",
        ] {
            assert!(risky(c).is_some(), "{c}");
        }
    }

    #[test]
    fn aliases_defined_on_the_command_line() {
        let args = |c: &str| parse(c).unwrap().commands[0].words[1..].to_vec();
        for c in [
            "git -c alias.p=push p origin",
            "git -c Alias.p='!git push' p",
            "git -calias.p=push p",
            "git --config-env=alias.p=X p",
            "git -c include.path=/tmp/cfg p",
            "git -c includeIf.onbranch:main.path=x p",
        ] {
            assert!(may_define_alias(&args(c)), "{c}");
        }
        for c in ["git -c color.ui=never status", "git log --grep=alias.x"] {
            assert!(!may_define_alias(&args(c)), "{c}");
        }
    }

    #[test]
    fn ordinary_use() {
        for c in [
            "git status",
            "git --no-pager log -5 --oneline",
            "git -P diff HEAD",
            "git log -c",
            "git commit -c HEAD",
            "git commit -am x",
            "git commit -t msg.txt",
            "git fetch -u origin",
            "git push -u origin main",
            "git log -O order.txt",
            "git diff --no-ext-diff",
            "git log --no-textconv",
            "git grep -n foo",
            "git grep -e -x foo",
            "git add *",
            "git log -- *",
            "git submodule update --init",
            "git bisect start",
            "git config user.name x",
            "git clone --depth 1 https://h/r",
            "git config --get user.name",
        ] {
            assert_eq!(risky(c), None, "{c}");
        }
    }
}
