//! The prefix rule proposed by "approve for this session".
//!
//! From each simple command: the program, then up to two leading
//! subcommand words (plain words such as `test` or `run`; the first option,
//! path, file name or value stops it), then ` *`. `cargo test --release foo`
//! gives `cargo test *`, `npm run build` gives `npm run build *`, `ls -la`
//! gives `ls *`. Nothing is proposed when the command has a hazard, when
//! its parts would give different prefixes, when the prefix would let
//! anything run (`python3 *`, `git *`), for interpreters (`bash`,
//! `python`, `node` …: any script is code) and for commands that delete,
//! move or overwrite (`rm`, `mv`, `dd`, `chmod`, `git push`, `git reset`,
//! `git clean` …): for those only the exact command is offered.

use super::special::{basename, is_shell, is_wrapper};
use super::{ParsedCommand, SimpleCommand};

/// Most subcommand words after the program.
const MAX_SUBCOMMANDS: usize = 2;

/// Interpreters and programs that run code or commands given to them
/// (a script, a string, a shell escape): for these, a prefix would allow
/// any program, so only the exact command is offered. Names that start
/// with one of [`INTERPRETER_FAMILIES`] count too (`python3.12`), and so
/// do the shells and wrappers of the parser's own tables.
const INTERPRETERS: &[&str] = &[
    "node",
    "nodejs",
    "deno",
    "bun",
    "bunx",
    "npx",
    "pnpx",
    "uvx",
    "pipx",
    "ruby",
    "irb",
    "perl",
    "php",
    "luajit",
    "Rscript",
    "R",
    "julia",
    "osascript",
    "pwsh",
    "powershell",
    "tclsh",
    "wish",
    "expect",
    "java",
    "jshell",
    "groovy",
    "scala",
    "kotlin",
    "elixir",
    "iex",
    "erl",
    "escript",
    "ghci",
    "runghc",
    "runhaskell",
    "swift",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "sed",
    "eval",
    "source",
    ".",
    "ssh",
    "gdb",
    "lldb",
    "vim",
    "vi",
    "nvim",
    "emacs",
    "nano",
    "less",
    "more",
    "man",
    "sqlite3",
    "psql",
    "mysql",
];

/// Prefixes of interpreter names with versions (`python3.12`, `lua5.4`).
const INTERPRETER_FAMILIES: &[&str] = &["python", "pypy", "lua", "perl", "ruby", "php", "node"];

/// Programs that delete, move or overwrite files or state: only the exact
/// command is offered.
const DESTRUCTIVE: &[&str] = &[
    "rm", "rmdir", "unlink", "mv", "cp", "dd", "ln", "install", "chmod", "chown", "chgrp",
    "chattr", "setfacl", "truncate", "shred", "wipefs", "tee", "find", "rsync", "tar", "unzip",
    "patch", "kill", "pkill", "killall", "crontab", "mkfs", "mke2fs", "mkswap", "fdisk", "sfdisk",
    "parted", "losetup", "mount", "umount", "reboot", "shutdown", "halt", "poweroff", "useradd",
    "userdel", "usermod", "passwd", "iptables", "nft", "sysctl",
];

/// docker and podman: the subcommands that run, remove or reshape things.
const CONTAINER_SUBCOMMANDS: &[&str] = &[
    "run",
    "exec",
    "rm",
    "rmi",
    "kill",
    "system",
    "volume",
    "image",
    "container",
    "network",
    "compose",
];

/// Subcommands that delete, move, overwrite or publish, for programs
/// driven by a subcommand.
const DESTRUCTIVE_SUBCOMMANDS: &[(&str, &[&str])] = &[
    (
        "git",
        &[
            "push",
            "reset",
            "clean",
            "rm",
            "mv",
            "checkout",
            "switch",
            "restore",
            "rebase",
            "branch",
            "stash",
            "tag",
            "filter-branch",
            "filter-repo",
            "gc",
            "prune",
            "reflog",
            "update-ref",
            "worktree",
            "submodule",
            "config",
            "remote",
            "cherry-pick",
            "revert",
            "merge",
            "pull",
            "am",
            "apply",
            "replace",
            "notes",
            "lfs",
            // Run or send: a mail, a server, stored credentials, a bisect
            // that checks out, a merge tool that writes.
            "send-email",
            "daemon",
            "instaweb",
            "credential",
            "bisect",
            "mergetool",
            "for-each-repo",
            "hook",
        ],
    ),
    (
        "cargo",
        &["clean", "publish", "yank", "install", "uninstall", "owner"],
    ),
    (
        "npm",
        &[
            "uninstall",
            "remove",
            "rm",
            "un",
            "unlink",
            "publish",
            "unpublish",
            "prune",
            "exec",
            "x",
        ],
    ),
    (
        "pnpm",
        &[
            "uninstall",
            "remove",
            "rm",
            "un",
            "unlink",
            "publish",
            "prune",
            "exec",
            "dlx",
        ],
    ),
    ("yarn", &["remove", "unlink", "publish", "dlx", "exec"]),
    ("go", &["clean", "run", "generate"]),
    ("docker", CONTAINER_SUBCOMMANDS),
    ("podman", CONTAINER_SUBCOMMANDS),
    ("pip", &["uninstall"]),
    ("pip3", &["uninstall"]),
    ("uv", &["remove", "run", "tool"]),
    ("poetry", &["remove", "publish", "run"]),
    ("rustup", &["uninstall", "self", "toolchain"]),
    ("brew", &["uninstall", "remove", "rm", "cleanup"]),
    ("apt", &["remove", "purge", "autoremove"]),
    ("apt-get", &["remove", "purge", "autoremove"]),
    (
        "systemctl",
        &[
            "stop", "disable", "mask", "kill", "reboot", "poweroff", "halt",
        ],
    ),
    (
        "kubectl",
        &[
            "delete", "drain", "replace", "apply", "exec", "scale", "patch",
        ],
    ),
    ("helm", &["uninstall", "delete", "rollback"]),
    (
        "terraform",
        &["destroy", "apply", "import", "state", "taint"],
    ),
    ("gh", &["repo", "release", "secret", "api"]),
    ("aws", &["s3", "iam", "ec2"]),
];

/// Programs driven by a subcommand: without one, `prog *` is too broad.
const SUBCOMMAND_DRIVEN: &[&str] = &[
    "git",
    "cargo",
    "npm",
    "pnpm",
    "yarn",
    "npx",
    "go",
    "docker",
    "podman",
    "kubectl",
    "gh",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "rustup",
    "brew",
    "apt",
    "apt-get",
    "systemctl",
    "dotnet",
    "mvn",
    "gradle",
    "helm",
    "terraform",
    "aws",
    "gcloud",
    "az",
];

/// A prefix rule for "approve for this session", e.g. `cargo test *`.
/// `None` when the command has hazards, its parts differ, or no useful
/// prefix exists (offer the exact command instead).
pub fn propose_prefix(parsed: &ParsedCommand) -> Option<String> {
    if !parsed.is_hazard_free() || parsed.commands.is_empty() {
        return None;
    }
    let mut proposal: Option<String> = None;
    for cmd in &parsed.commands {
        let p = prefix_of(cmd)?;
        match &proposal {
            None => proposal = Some(p),
            Some(q) if *q == p => {}
            Some(_) => return None,
        }
    }
    proposal
}

fn prefix_of(cmd: &SimpleCommand) -> Option<String> {
    let program = cmd.program()?;
    // A prefix rule would not match it anyway (see `loaders.rs`).
    if super::loaders::refused_by_prefix(&cmd.words).is_some() {
        return None;
    }
    let plain = !program.is_empty()
        && !program.starts_with('-')
        && program
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./+-".contains(c));
    if !plain {
        return None;
    }
    let mut words = vec![program];
    for w in cmd.words[1..].iter().take(MAX_SUBCOMMANDS) {
        match w.literal() {
            Some(s) if is_subcommand(s) => words.push(s),
            _ => break,
        }
    }
    let name = basename(program);
    if is_interpreter(name) || DESTRUCTIVE.contains(&name) || name.starts_with("mkfs.") {
        return None;
    }
    if words.len() == 1 && SUBCOMMAND_DRIVEN.contains(&name) {
        return None;
    }
    if let Some(sub) = words.get(1)
        && DESTRUCTIVE_SUBCOMMANDS
            .iter()
            .any(|(p, subs)| *p == name && subs.contains(sub))
    {
        return None;
    }
    Some(format!("{} *", words.join(" ")))
}

/// An interpreter or a program that runs code given to it: this table, the
/// shells and the wrappers (the parser's tables, shared with the
/// guardrails).
fn is_interpreter(name: &str) -> bool {
    INTERPRETERS.contains(&name)
        || is_shell(name)
        || is_wrapper(name)
        || INTERPRETER_FAMILIES.iter().any(|f| name.starts_with(f))
}

/// `test`, `run`, `build:prod`, `ls-files`: not an option, path, file
/// name or value.
fn is_subcommand(s: &str) -> bool {
    s.len() <= 40
        && s.starts_with(|c: char| c.is_ascii_alphanumeric())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_:".contains(c))
}

#[cfg(test)]
mod tests {
    use super::super::{Word, parse, specifier_matches};
    use super::*;

    fn propose(c: &str) -> Option<String> {
        propose_prefix(&parse(c).unwrap())
    }

    #[test]
    fn no_prefix_for_any_shell_or_wrapper_of_the_parsers_tables() {
        // `time` is a reserved word to bash: `time build x` runs `build`.
        let tables = super::super::SHELLS.iter().chain(super::super::WRAPPERS);
        for name in tables.filter(|n| **n != "time") {
            assert_eq!(propose(&format!("{name} build x")), None, "{name}");
        }
        // Control: an ordinary program with the same words gets one.
        assert_eq!(propose("make build x").as_deref(), Some("make build x *"));
    }

    #[test]
    fn proposals() {
        assert_eq!(
            propose("cargo test --release foo").as_deref(),
            Some("cargo test *")
        );
        assert_eq!(
            propose("git commit -m 'fix it'").as_deref(),
            Some("git commit *")
        );
        assert_eq!(propose("npm run build").as_deref(), Some("npm run build *"));
        assert_eq!(propose("ls -la src").as_deref(), Some("ls *"));
        assert_eq!(propose("ls").as_deref(), Some("ls *"));
        assert_eq!(propose("cat README.md").as_deref(), Some("cat *"));
        assert_eq!(
            propose("cargo test && cargo test -p x").as_deref(),
            Some("cargo test *")
        );
    }

    #[test]
    fn no_proposal() {
        for c in [
            "cargo build && cargo test",
            "cd src && ls",
            "ls > out",
            "ls $(pwd)",
            "sudo ls",
            "python3 script.py",
            "git -C x status",
            "git --no-pager log",
            "git grep -O less foo",
            "git send-email x.patch",
            "git bisect start",
            "sort -o out in",
            "uniq in out",
            "curl -o out http://h/",
            "cargo test --config x",
            "make test SHELL=/bin/sh",
            "$X y",
            "/tmp/a\\ b x",
            "",
        ] {
            assert_eq!(propose(c), None, "{c}");
        }
    }

    #[test]
    fn a_proposal_reads_back_as_the_words_it_was_made_of() {
        // "Always this prefix" saves `bash(<proposal>)`: whatever the
        // agent wrote, the rule is the command's leading words then ` *`,
        // and nothing in them is read as a pattern or an exact form.
        for c in [
            "cargo test # *",
            "cargo test -- *",
            "make build '*'",
            "make 'a b' x",
            "make \\* x",
            "npm run build:prod *",
            "cargo +nightly test",
            "make =x y",
            "ls '=x'",
            "./run.sh a b",
        ] {
            let parsed = parse(c).unwrap();
            let Some(p) = propose_prefix(&parsed) else {
                // A toolchain, a glob that may be an npm option.
                assert!(
                    c.contains('+') || c.ends_with('*'),
                    "{c} should get a proposal"
                );
                continue;
            };
            let spec = super::super::Specifier::parse(&p).unwrap();
            let head = p.strip_suffix(" *").unwrap();
            let argv: Vec<&str> = parsed.commands[0]
                .words
                .iter()
                .map_while(Word::literal)
                .collect();
            let words: Vec<&str> = head.split(' ').collect();
            assert!(argv.starts_with(&words), "{c}: {p}");
            assert!(spec.matches_all(&parsed), "{p} should match {c}");
        }
    }

    #[test]
    fn proposals_match_their_command() {
        for c in [
            "cargo test --release foo",
            "npm run build",
            "ls -la",
            "make",
        ] {
            let parsed = parse(c).unwrap();
            let p = propose_prefix(&parsed).unwrap();
            assert!(specifier_matches(&p, &parsed), "{p} should match {c}");
        }
    }
}
