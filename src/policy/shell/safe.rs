//! Known-safe read-only commands, for `bash.auto_approve_read_only`.
//!
//! A command is known-safe when it has no hazard at all and every simple
//! command in it is a program from the list below with arguments that
//! cannot write, delete or run anything. Programs with dangerous options
//! (`sort -o`, `find -delete`, `git diff --output`) need literal arguments,
//! so that a glob or a variable cannot smuggle such an option in. Long
//! options are compared by prefix, as GNU `getopt_long` accepts any
//! unambiguous abbreviation (`sort --o=F` writes F). Every entry is
//! checked against the real program in `tests/policy_read_only_vs_real.rs`;
//! programs not installed where that test runs (`tree`, `rg`) are not on
//! the list.

use super::{ParsedCommand, SimpleCommand, Word};

/// Programs that only read or print, whatever their arguments.
const ANY_ARGUMENTS: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "echo",
    "pwd",
    "true",
    "false",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "stat",
    "which",
    "type",
    "cut",
    "tr",
    "nl",
    "grep",
    "egrep",
    "fgrep",
    "du",
    "df",
    "diff",
    "cmp",
    "comm",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "id",
    "whoami",
    "groups",
    "uname",
    "nproc",
    "arch",
    "printenv",
];

/// `find` actions that write, delete or run.
const FIND_UNSAFE: &[&str] = &[
    "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
];

/// Some(the check that allowed it) when every part of the command is a
/// known read-only program with safe arguments and nothing in it is a
/// hazard (no redirection to a file, substitution, wrapper …).
pub fn known_safe(parsed: &ParsedCommand) -> Option<String> {
    if !parsed.is_hazard_free() || parsed.commands.is_empty() {
        return None;
    }
    let mut programs: Vec<String> = Vec::new();
    for cmd in &parsed.commands {
        let program = cmd.program()?;
        if !safe_arguments(program, &cmd.words[1..]) {
            return None;
        }
        let label = match (program, cmd.words.get(1).and_then(Word::literal)) {
            ("git", Some(sub)) => format!("git {sub}"),
            _ => program.to_owned(),
        };
        if !programs.contains(&label) {
            programs.push(label);
        }
    }
    Some(format!("known read-only command: {}", programs.join(", ")))
}

/// Whether `program` with `args` only reads.
fn safe_arguments(program: &str, args: &[Word]) -> bool {
    if reads_name_list(program, args) {
        return false;
    }
    if ANY_ARGUMENTS.contains(&program) {
        return true;
    }
    let literal: Option<Vec<&str>> = args.iter().map(Word::literal).collect();
    match program {
        // `printf -v var` is refused by the parser (a hazard); the format
        // is the first word and must be literal.
        "printf" => matches!(args.first().and_then(Word::literal), Some(f) if !f.starts_with("-v")),
        // `test`/`[`: `-v` and expanded words are hazards already.
        "test" | "[" => literal.is_some(),
        // With arguments, `env` runs a program and `hostname` sets the name.
        "env" | "hostname" => args.is_empty(),
        _ => literal.is_some_and(|a| safe_literal_arguments(program, &a)),
    }
}

/// Whether `program` reads the names of the files it reads from a file or
/// from its input (`wc --files0-from=F`, `sha256sum -c F`, `file -f F`,
/// `find -files0-from F`): those names are not words the scope check can
/// see, so such a command is never known-safe.
fn reads_name_list(program: &str, args: &[Word]) -> bool {
    let literal = || args.iter().filter_map(Word::literal);
    match program {
        "wc" | "du" | "sort" => literal().any(|a| long_option(a, "files0-from")),
        "md5sum" | "sha1sum" | "sha256sum" | "sha512sum" => {
            literal().any(|a| long_option(a, "check") || short_option_has(a, 'c'))
        }
        "file" => literal().any(|a| long_option(a, "files-from") || short_option_has(a, 'f')),
        "find" => literal().any(|a| a == "-files0-from"),
        _ => false,
    }
}

/// How a known-safe command reads directories beyond the paths its words
/// name, for the scope check of its words (the engine's `reach`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirectoryReads {
    /// It reads what it names; a directory is at most listed, one level.
    Named,
    /// It walks the directories it is given (or `.`) and everything below
    /// them (`grep -r`, `ls -R`, `du`, `find`); `follows_links`: through
    /// symbolic links too, so the walk can leave the tree it was given.
    Walks {
        /// Symbolic links met on the way are followed (`grep -R`, `find
        /// -L`, `du -L`, `ls -RL`, `diff -r`).
        follows_links: bool,
    },
    /// Given a directory, it reads the files in it, following symbolic
    /// links (`diff dir1 dir2`).
    FilesInside,
}

/// How `cmd` (a known-safe simple command) reads directories. A word that
/// is not literal could be any option: the worst is assumed.
pub fn directory_reads(cmd: &SimpleCommand) -> DirectoryReads {
    let worst = DirectoryReads::Walks {
        follows_links: true,
    };
    let Some(program) = cmd.program() else {
        return worst;
    };
    let Some(argv) = cmd.literal_argv() else {
        return worst;
    };
    let args = &argv[1..];
    let any = |f: &dyn Fn(&str) -> bool| args.iter().any(|a| f(a));
    let walks = |follows_links| DirectoryReads::Walks { follows_links };
    match program {
        // `-d recurse`, `--directories=recurse` walk as `-r` does; `-R`
        // follows every link.
        "grep" | "egrep" | "fgrep" => {
            if any(&|a| short_option_has(a, 'R') || long_option(a, "dereference-recursive")) {
                walks(true)
            } else if any(&|a| {
                short_option_has(a, 'r')
                    || short_option_has(a, 'd')
                    || long_option(a, "recursive")
                    || long_option(a, "directories")
            }) {
                walks(false)
            } else {
                DirectoryReads::Named
            }
        }
        "ls" if any(&|a| short_option_has(a, 'R') || long_option(a, "recursive")) => {
            walks(any(&|a| {
                short_option_has(a, 'L') || long_option(a, "dereference")
            }))
        }
        "du" => walks(any(&|a| {
            short_option_has(a, 'L') || long_option(a, "dereference")
        })),
        // `-H` follows only the links named on the command line, which the
        // scope check resolves.
        "find" => walks(any(&|a| matches!(a, "-L" | "-follow"))),
        "diff" if any(&|a| short_option_has(a, 'r') || long_option(a, "recursive")) => walks(true),
        "diff" => DirectoryReads::FilesInside,
        "git" if args.first() == Some(&"diff") && any(&|a| long_option(a, "no-index")) => {
            walks(false)
        }
        _ => DirectoryReads::Named,
    }
}

/// The options and operands that write or run, for the programs whose
/// other arguments are harmless. GNU `getopt_long` accepts any unambiguous
/// prefix of a long option (`sort --o=F` is `--output=F`), so every long
/// option is compared by prefix ([`long_option`]); a short option is
/// refused wherever it appears in a cluster (`-uo F`), even where it would
/// be the value of another option: stricter, never looser.
fn safe_literal_arguments(program: &str, args: &[&str]) -> bool {
    match program {
        "date" => !args
            .iter()
            .any(|a| long_option(a, "set") || short_option_has(a, 's')),
        "sort" => !args.iter().any(|a| {
            long_option(a, "output")
                || long_option(a, "compress-program")
                || short_option_has(a, 'o')
        }),
        // `uniq IN OUT` writes OUT (`-` is an operand too, and after `--`
        // so is everything).
        "uniq" => uniq_operands(args) <= 1,
        // `file -C` compiles a magic file.
        "file" => !args
            .iter()
            .any(|a| long_option(a, "compile") || short_option_has(a, 'C')),
        "find" => !args.iter().any(|a| FIND_UNSAFE.contains(a)),
        "git" => git_read_only(args),
        _ => false,
    }
}

/// `uniq`'s operands, counting option values (`-f 1`) as operands too.
fn uniq_operands(args: &[&str]) -> usize {
    let mut operands = 0;
    let mut options_done = false;
    for a in args {
        if !options_done && *a == "--" {
            options_done = true;
        } else if options_done || *a == "-" || !a.starts_with('-') {
            operands += 1;
        }
    }
    operands
}

/// `git status|log|diff|show|rev-parse|ls-files …` and `git branch`
/// listing. No global options (`-c`, `-C`, `--git-dir`, `--exec-path`)
/// and no `--output`/`--ext-diff` (git's option parser accepts unique
/// prefixes, so those are compared by prefix).
fn git_read_only(args: &[&str]) -> bool {
    let Some((&sub, rest)) = args.split_first() else {
        return false;
    };
    let writes = |a: &&str| long_option(a, "output") || long_option(a, "ext-diff");
    match sub {
        "status" | "rev-parse" | "ls-files" | "log" | "diff" | "show" => !rest.iter().any(writes),
        // Without options that only list, `git branch NAME` creates a branch.
        "branch" => rest.iter().all(|a| {
            matches!(
                *a,
                "-a" | "-r"
                    | "-v"
                    | "-vv"
                    | "-l"
                    | "--all"
                    | "--remotes"
                    | "--verbose"
                    | "--list"
                    | "--show-current"
                    | "--no-color"
            )
        }),
        _ => false,
    }
}

/// `--NAME` or `--NAME=VALUE` where NAME is `full` or any prefix of it (an
/// abbreviation `getopt_long` and git accept when it is unambiguous).
fn long_option(arg: &str, full: &str) -> bool {
    arg.strip_prefix("--").is_some_and(|rest| {
        let name = rest.split('=').next().unwrap_or(rest);
        !name.is_empty() && full.starts_with(name)
    })
}

/// `-xyz` (a cluster of short options, not `--long`) containing `c`.
fn short_option_has(arg: &str, c: char) -> bool {
    arg.strip_prefix('-')
        .is_some_and(|rest| !rest.starts_with('-') && rest.contains(c))
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    fn safe(c: &str) -> bool {
        known_safe(&parse(c).unwrap()).is_some()
    }

    #[test]
    fn read_only_programs_are_safe() {
        for c in [
            "ls -la src",
            "cat README.md | grep -n foo | head -5",
            "wc -l *.rs",
            "git status",
            "git log --oneline -5",
            "git diff HEAD~1 -- src",
            "git branch -a",
            "find . -name '*.rs' -type f",
            "sort -u list.txt",
            "date +%Y",
            "printf '%s\\n' a b",
            "env",
            "ls 2>/dev/null",
        ] {
            assert!(safe(c), "{c} should be known-safe");
        }
    }

    #[test]
    fn writers_and_runners_are_not() {
        for c in [
            "rm -rf x",
            "ls > out.txt",
            "cat $(echo x)",
            "sort -o out in",
            "sort -uo out in",
            "uniq in out",
            "find . -delete",
            "find . -exec rm {} \\;",
            "find $DIR",
            "git branch new-feature",
            "git diff --output=x",
            "git -c core.pager=x log",
            "git push",
            "rg --pre cat x",
            "rg foo",
            "tree",
            "sort --o=out in",
            "sort --outp=out in",
            "sort --compress-prog=sh in",
            "uniq - out",
            "uniq -- -a -b",
            "git diff --outp=x",
            "git log --ext",
            "date --se 2020-01-01",
            "test -v 'a[$(id)]'",
            "[ -v x ]",
            "[ -n \"$x\" ]",
            "printf \"$f\" x",
            "printf -v PATH /tmp",
            "env rm x",
            "date -s 2020-01-01",
            "tree -o out",
            "cd src && ls",
            "",
            "/bin/ls",
        ] {
            assert!(!safe(c), "{c} should not be known-safe");
        }
    }

    #[test]
    fn names_read_from_a_file_are_not_known_safe() {
        for c in [
            "wc -c --files0-from=list",
            "du --files0-from list",
            "sort --files0=list",
            "sha256sum -c sums",
            "md5sum --check sums",
            "sha1sum -bc sums",
            "file -f names",
            "file --files-from names",
            "find . -files0-from list",
        ] {
            assert!(!safe(c), "{c} should not be known-safe");
        }
        for c in [
            "wc -c list",
            "sort list",
            "sha256sum list",
            "file list",
            "du -sh .",
        ] {
            assert!(safe(c), "{c} should be known-safe");
        }
    }

    #[test]
    fn how_commands_read_directories() {
        let reads = |c: &str| directory_reads(&parse(c).unwrap().commands[0]);
        let walks = |follows_links| DirectoryReads::Walks { follows_links };
        for (c, want) in [
            ("grep -n x f", DirectoryReads::Named),
            ("grep -rn x", walks(false)),
            ("grep -d recurse x .", walks(false)),
            ("grep --directories=recurse x .", walks(false)),
            ("grep --rec x .", walks(false)),
            ("grep -R x .", walks(true)),
            ("grep --dereference-recursive x .", walks(true)),
            ("ls -la", DirectoryReads::Named),
            ("ls -L", DirectoryReads::Named),
            ("ls -R", walks(false)),
            ("ls -RL", walks(true)),
            ("du -sh", walks(false)),
            ("du -L", walks(true)),
            ("du --dereference-args x", walks(false)),
            ("find . -name x", walks(false)),
            ("find -H . -name x", walks(false)),
            ("find -L .", walks(true)),
            ("find . -follow", walks(true)),
            ("diff a b", DirectoryReads::FilesInside),
            ("diff -ru a b", walks(true)),
            ("git diff --no-index a b", walks(false)),
            ("git diff HEAD", DirectoryReads::Named),
            ("cat *.rs", walks(true)),
        ] {
            assert_eq!(reads(c), want, "{c}");
        }
    }

    #[test]
    fn names_the_check() {
        let why = known_safe(&parse("ls | grep x | ls").unwrap()).unwrap();
        assert_eq!(why, "known read-only command: ls, grep");
    }
}
