//! Options and operands that make a program write, delete or change
//! something named on its command line: `sort -o F`, `uniq IN OUT`,
//! `curl -o F`, `wget -O F`, `pytest --basetemp=DIR` (pytest empties
//! DIR), `find -delete`, `date -s`. A prefix rule (`bash(sort *)`) was
//! granted for the program's ordinary work — reading and printing, a test
//! run, a download to standard output — so it never matches a command
//! using one of them (`loaders.rs`); nor is such a command known-safe.
//! git's are in `git.rs`, per subcommand.
//!
//! This is the one table of these facts: the known-safe check and the
//! prefix rules read it (README's Policy section lists it; keep them in
//! step).

use super::Word;
use super::optword::{Style, may_expand_to_option, spells};

/// One program's writing options.
struct Writer {
    programs: &'static [&'static str],
    style: Style,
    /// Options that write, delete or set something.
    options: &'static [&'static str],
}

/// The list README's Policy section documents.
const WRITERS: &[Writer] = &[
    Writer {
        programs: &["sort", "shuf", "iconv"],
        style: Style::Clusters,
        options: &["-o", "--output"],
    },
    Writer {
        programs: &["tree"],
        style: Style::Clusters,
        options: &["-o"],
    },
    Writer {
        // `file -C` compiles a magic file into the current directory.
        programs: &["file"],
        style: Style::Clusters,
        options: &["-C", "--compile"],
    },
    Writer {
        programs: &["date"],
        style: Style::Clusters,
        options: &["-s", "--set"],
    },
    Writer {
        programs: &["find"],
        style: Style::Words,
        options: &[
            "-delete", "-fprint", "-fls", "-exec", "-execdir", "-ok", "-okdir",
        ],
    },
    Writer {
        programs: &["curl"],
        style: Style::Clusters,
        options: &[
            "-o",
            "-O",
            "-D",
            "-c",
            "--output",
            "--remote-name",
            "--remote-name-all",
            "--output-dir",
            "--dump-header",
            "--cookie-jar",
            "--trace",
            "--trace-ascii",
            "--stderr",
            "--libcurl",
            "--etag-save",
            "--hsts",
            "--alt-svc",
        ],
    },
    Writer {
        // `-c`/`-N`/`-r` rewrite or extend files named after the URL.
        programs: &["wget"],
        style: Style::Clusters,
        options: &[
            "-O",
            "-o",
            "-a",
            "-P",
            "-N",
            "-r",
            "-m",
            "-x",
            "-c",
            "--output-document",
            "--output-file",
            "--append-output",
            "--directory-prefix",
            "--timestamping",
            "--recursive",
            "--mirror",
            "--force-directories",
            "--continue",
            "--save-cookies",
            "--warc-file",
            "--rejected-log",
            "--hsts-file",
        ],
    },
    Writer {
        programs: &["pytest", "py.test"],
        style: Style::Clusters,
        options: &[
            "--basetemp",
            "--junitxml",
            "--junit-xml",
            "--resultlog",
            "--result-log",
            "--report-log",
            "--log-file",
            "--debug",
        ],
    },
    Writer {
        programs: &["jest", "vitest"],
        style: Style::Clusters,
        options: &["--outputFile", "--coverageDirectory"],
    },
    Writer {
        programs: &["eslint"],
        style: Style::Clusters,
        options: &["-o", "--output-file", "--cache-location"],
    },
    Writer {
        programs: &["prettier"],
        style: Style::Clusters,
        options: &["-w", "--write"],
    },
    Writer {
        programs: &["yq"],
        style: Style::Clusters,
        options: &["-i", "--inplace"],
    },
];

/// Programs whose second operand is a file they write (`uniq IN OUT`,
/// `xxd IN OUT`), with their options that take the next word as a value.
const OUTPUT_OPERAND: &[(&str, &[&str])] = &[
    (
        "uniq",
        &[
            "-f",
            "-s",
            "-w",
            "--skip-fields",
            "--skip-chars",
            "--check-chars",
        ],
    ),
    (
        "xxd",
        &[
            "-c",
            "-g",
            "-l",
            "-o",
            "-s",
            "-n",
            "-cols",
            "-groupsize",
            "-len",
            "-seek",
            "-name",
            "-offset",
        ],
    ),
];

/// `curl --write-out '%output{F}…'` writes F.
const CURL_WRITE_OUT_FILE: &str = "%output{";

/// The argument of `words` (the whole argv) that makes the program write,
/// delete or set something named on the command line, if any. A word
/// the shell expands counts when it could become such an option (a glob
/// such as `*` may expand to a file named `-o`) or an output operand.
pub(super) fn writing_argument(words: &[Word]) -> Option<String> {
    let program = super::special::basename(words.first()?.literal()?);
    let args = &words[1..];
    if let Some((_, value_options)) = OUTPUT_OPERAND.iter().find(|(p, _)| *p == program) {
        return second_operand(args, value_options);
    }
    let writers: Vec<&Writer> = WRITERS
        .iter()
        .filter(|w| w.programs.contains(&program))
        .collect();
    if writers.is_empty() {
        return None;
    }
    let mut options_end = false;
    for arg in args {
        let a = match arg {
            Word::Literal(a) => a.as_str(),
            Word::Expanded(raw) if !options_end && may_expand_to_option(raw) => {
                return Some(raw.clone());
            }
            Word::Expanded(_) => continue,
        };
        options_end |= a == "--";
        if program == "curl" && a.contains(CURL_WRITE_OUT_FILE) {
            return Some(a.to_owned());
        }
        let writes = writers
            .iter()
            .any(|w| w.options.iter().any(|o| spells(a, o, w.style)));
        if writes {
            return Some(a.to_owned());
        }
    }
    None
}

/// The second operand (the output file) of `uniq`/`xxd`-style arguments,
/// if there is one. Every word after `--` is an operand, and so is `-`;
/// a value-taking option's separate value is skipped (`uniq -f 1 IN`); a
/// word the shell expands may become several operands.
fn second_operand(args: &[Word], value_options: &[&str]) -> Option<String> {
    let mut operands = 0;
    let mut options_end = false;
    let mut skip_value = false;
    for arg in args {
        let a = match arg {
            Word::Literal(a) => a.as_str(),
            Word::Expanded(raw) => return Some(raw.clone()),
        };
        if skip_value {
            skip_value = false;
            continue;
        }
        if !options_end && a == "--" {
            options_end = true;
        } else if options_end || a == "-" || !a.starts_with('-') {
            operands += 1;
            if operands > 1 {
                return Some(a.to_owned());
            }
        } else {
            skip_value = value_options.contains(&a) || takes_next_as_long(a, value_options);
        }
    }
    None
}

/// `--skip-fields` (or a prefix of it) without `=`: its value is the
/// next word.
fn takes_next_as_long(arg: &str, value_options: &[&str]) -> bool {
    !arg.contains('=')
        && value_options
            .iter()
            .filter_map(|o| o.strip_prefix("--"))
            .any(|o| super::optword::long_option(arg, o))
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    fn writes(c: &str) -> Option<String> {
        writing_argument(&parse(c).unwrap().commands[0].words)
    }

    #[test]
    fn options_that_write() {
        for c in [
            "sort -o victim.rs in",
            "sort -uo victim.rs in",
            "sort --output=victim.rs in",
            "sort --outp victim.rs in",
            "sort -ovictim.rs in",
            "sort {-o,victim.rs} in",
            "sort * ",
            "shuf -o x in",
            "curl -o x file:///etc/hostname",
            "curl -sSLo x http://h/",
            "curl -O http://h/victim.rs",
            "curl --output-dir /tmp -O http://h/x",
            "curl -w '%output{victim.rs}x' http://h/",
            "wget -O victim.rs http://h/",
            "wget --output-doc=victim.rs http://h/",
            "wget -N http://h/victim.rs",
            "pytest --basetemp=src",
            "pytest --basetemp src",
            "pytest --junitxml=victim.rs",
            "find . -name x -delete",
            "find . -fprint out",
            "date -s 2020-01-01",
            "file -C -m magic",
            "tree -o out",
            "yq -i .a=1 f.yaml",
            "prettier --write src",
        ] {
            assert!(writes(c).is_some(), "{c}");
        }
    }

    #[test]
    fn operands_that_write() {
        for c in [
            "uniq in out",
            "uniq - out",
            "uniq -- -a -b",
            "uniq -c in out",
            "uniq -f 1 in out",
            "uniq --skip-fields 1 in out",
            "uniq *",
            "uniq $f",
            "xxd in out",
            "xxd -l 16 in out",
        ] {
            assert!(writes(c).is_some(), "{c}");
        }
    }

    #[test]
    fn ordinary_use_writes_nothing() {
        for c in [
            "sort -u in",
            "sort -k 2 -t , in",
            "sort -- *",
            "sort src/*",
            "uniq -c in",
            "uniq -f 1 in",
            "uniq --skip-fields=1 in",
            "xxd -l 16 in",
            "curl -s http://h/",
            "curl -sS -H 'Accept: x' http://h/",
            "wget -q http://h/x",
            "pytest -x -q tests",
            "find . -name '*.rs' -type f",
            "date +%Y",
            "ls -o",
            "cat -o",
        ] {
            assert_eq!(writes(c), None, "{c}");
        }
    }
}
