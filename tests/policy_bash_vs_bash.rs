//! The parse of a command checked against what the real bash does with it.
//!
//! Generated commands run in bash with an empty `PATH` and a
//! `command_not_found_handle` that records every argv it is asked to run,
//! in a scratch directory holding two files. Whenever the parse finds no
//! hazard, bash must have run exactly the simple commands the parse lists
//! (same argv, as a multiset: pipelines run concurrently) and must not
//! have created or changed any file.

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

use airlock::policy::shell::parse;

/// Words built from quoting pieces (program names are never builtins, so
/// every command reaches the handler).
#[rustfmt::skip]
const PLAIN_PIECES: &[&str] = &[
    "a", "b", "-x", "--y=z", "'q r'", "\"s t\"", "\\u", "$'\\x41'", "\"\\$\"", "''", "\"\"",
    "$'\\''", "\"it's\"", "\\\"", "'\\'", "\"\\\\\"", "\\\\", "\"#\"", "%", ":", ",", "@",
    "\\;", "';'", "\\|", "\\>", "'>'", "\\&", "{}", "\\(", "=", "+",
    // bash keeps a backslash-newline inside `$'…'` (brush's tokenizer
    // deletes it), and deletes it everywhere else outside single quotes.
    "$'a\\\nb'", "'c\\\nd'", "\"e\\\nf\"", "g\\\nh",
];

/// Pieces that expand, substitute or run something.
#[rustfmt::skip]
const RISKY_PIECES: &[&str] = &[
    "$(p4 s)", "`p5 t`", "\"$(p6)\"", "<(p7)", "$x", "\"$x\"", "~", "*", "{a,b}", "$((1+2))",
    "${x:-$(p8)}", "\"${x:-'$(p9)'}\"",
];

/// Separators and harmless redirections. (No `||`: every command
/// succeeds, so what follows `||` would not run.)
#[rustfmt::skip]
const PLAIN_GLUE: &[&str] = &[
    " ", " ", " ", " ; ", " && ", " | ", " & ", "\n", ";", "&&", "|", "|&", " #c\n",
    " 2>/dev/null ", " 2>&1 ", " <f ", " >/dev/null ", " <<<x ", " >&2 ", " 3>&- ",
];

/// Redirections that write.
#[rustfmt::skip]
const RISKY_GLUE: &[&str] = &[
    " >f ", ">>g", " &>f ", " >&g ", " <>f ", " >|g ", " 2>f ", " 3>f ",
];

/// Deterministic xorshift.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        usize::try_from(self.0 % n as u64).expect("below n, a usize")
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

/// Mostly plain pieces; risky ones only when `risky`.
fn pick_from<'a>(rng: &mut Rng, plain: &[&'a str], risky: &[&'a str], is_risky: bool) -> &'a str {
    if is_risky && rng.below(4) == 0 {
        rng.pick(risky)
    } else {
        rng.pick(plain)
    }
}

fn word(rng: &mut Rng, risky: bool) -> String {
    let n = 1 + rng.below(3);
    (0..n)
        .map(|_| pick_from(rng, PLAIN_PIECES, RISKY_PIECES, risky))
        .collect()
}

/// A command line: `cmd` words and glue, sometimes grouped.
fn command_line(rng: &mut Rng, risky: bool) -> String {
    let mut s = String::from("cmd");
    for _ in 0..=rng.below(8) {
        let glue = pick_from(rng, PLAIN_GLUE, RISKY_GLUE, risky);
        s.push_str(glue);
        // After an operator, start a new command with a program name.
        if glue.trim_end().ends_with([';', '&', '|']) || glue.ends_with('\n') {
            s.push_str(["cmd", "p2", "p3"][rng.below(3)]);
            s.push(' ');
        }
        s.push_str(&word(rng, risky));
    }
    match rng.below(6) {
        0 => format!("( {s} )"),
        1 => format!("{{ {s}; }}"),
        _ => s,
    }
}

/// The files of `dir` and their contents.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap_or_default())
        })
        .collect()
}

/// What bash did with a command.
struct BashRun {
    /// The argvs it ran, sorted.
    runs: Vec<Vec<String>>,
    /// It complained (a failed redirection skips its command).
    complained: bool,
}

/// Runs `command` in bash; the argvs it tried to run (each recorded with
/// one write, as parts of a pipeline run at the same time), or None when
/// bash rejected the syntax.
fn run_in_bash(command: &str, work: &Path, log: &Path) -> Option<BashRun> {
    let _ = std::fs::remove_file(log);
    let script = format!(
        "PATH=/nonexistent\ncommand_not_found_handle() {{ local r; printf -v r '%s\\037' \"$@\"; r=${{r//$'\\n'/$'\\035'}}; printf '%s\\036' \"$r\" >> \"$AIRLOCK_LOG\"; return 0; }}\n\
         {command}\nwait\n"
    );
    // Its own process group: a background job inside a subshell outlives
    // both `wait` and bash's output pipes (`p |& q &` in `( … )`), so the
    // log is read only once every process of the group has exited.
    let child = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &script])
        .env("AIRLOCK_LOG", log)
        .current_dir(work)
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bash runs");
    let group = rustix::process::Pid::from_raw(i32::try_from(child.id()).expect("a pid fits i32"))
        .expect("a child's pid is positive");
    let out = child.wait_with_output().expect("bash runs");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while rustix::process::test_kill_process_group(group).is_ok() {
        assert!(
            std::time::Instant::now() < deadline,
            "{command:?} left processes running"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("syntax error") || stderr.contains("unexpected EOF") {
        return None;
    }
    let text = std::fs::read(log).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let mut runs: Vec<Vec<String>> = text
        .split('\u{1e}')
        .filter(|r| !r.is_empty())
        .map(|r| {
            r.strip_suffix('\u{1f}')
                .unwrap_or(r)
                .split('\u{1f}')
                .map(|w| w.replace('\u{1d}', "\n"))
                .collect()
        })
        .collect();
    runs.sort();
    Some(BashRun {
        runs,
        complained: !stderr.trim().is_empty(),
    })
}

#[test]
fn hazard_free_parses_agree_with_bash() {
    let scratch = tempfile::tempdir().unwrap();
    let work = scratch.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let log = scratch.path().join("log");

    // AIRLOCK_FUZZ_SEED / AIRLOCK_FUZZ_CASES explore further locally.
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let mut rng = Rng(env("AIRLOCK_FUZZ_SEED").unwrap_or(0x9E37_79B9_7F4A_7C15) | 1);
    let cases = env("AIRLOCK_FUZZ_CASES").unwrap_or(600);
    let mut compared = 0;
    let mut flagged = 0;
    let mut files_checked = 0;
    for i in 0..cases {
        let command = command_line(&mut rng, i % 2 == 0);
        let Ok(parsed) = parse(&command) else {
            continue;
        };
        std::fs::write(work.join("f"), "f").unwrap();
        std::fs::write(work.join("g"), "g").unwrap();
        let before = snapshot(&work);
        let Some(bash) = run_in_bash(&command, &work, &log) else {
            continue;
        };
        let after = snapshot(&work);
        // Reset for the next command.
        for name in after.keys() {
            std::fs::remove_file(work.join(name)).unwrap();
        }
        if !parsed.is_hazard_free() {
            flagged += 1;
            continue;
        }
        files_checked += 1;
        assert_eq!(before, after, "{command:?} changed files, yet no hazard");
        // Expansions (`*`, `$x`) make argv differ from the words as
        // written: only the files are compared then.
        let literal: Option<Vec<Vec<String>>> = parsed
            .commands
            .iter()
            .map(|c| {
                c.literal_argv()
                    .map(|argv| argv.into_iter().map(str::to_owned).collect())
            })
            .collect();
        let Some(mut ours) = literal else {
            continue;
        };
        compared += 1;
        ours.sort();
        if bash.complained {
            let mut rest = ours.clone();
            for run in &bash.runs {
                let i = rest.iter().position(|o| o == run);
                let i = i
                    .unwrap_or_else(|| panic!("bash ran {run:?} for {command:?}, not in {ours:?}"));
                rest.remove(i);
            }
        } else {
            assert_eq!(bash.runs, ours, "what bash ran for {command:?}");
        }
    }
    eprintln!("compared {compared}, files checked {files_checked}, flagged {flagged}");
    assert!(compared >= 100, "only {compared} commands compared");
    assert!(flagged >= 50, "only {flagged} commands flagged");
}

/// Pieces of here-document lines: substitutions hidden by a
/// backslash-newline (bash deletes the pair before it expands the body),
/// escaped backslashes (which do not start one), quotes (literal in a
/// body), and lines that end in a backslash (joined with the next one:
/// `x\⏎EOF` is not the delimiter, `EO\⏎F` is).
#[rustfmt::skip]
const HEREDOC_PIECES: &[&str] = &[
    "text ", "a b ", "'q' ", "\"r\" ", "$\\\n(p4 s)", "$(p5 t)", "`p6 u`", "'$(p7 v)'",
    "$\\\n\\\n(p8)", "${x:-$\\\n(p9 w)}", "$\\\n((1+2))", "$\\\n{x:-a}", "\\\\\n", "\\\\$(p1)",
    "\\$(p2)", "\\\n", "EO\\\n", "x\\\n", "\\\\\\\n", "`p3\\\n`",
];

/// A command with a here-document (unquoted, `<<-` or quoted) whose
/// lines are made of [`HEREDOC_PIECES`], sometimes a line that is the
/// delimiter's end or a whole command, then maybe a command after it.
fn heredoc_command(rng: &mut Rng) -> String {
    let (op, delimiter, tab) = match rng.below(4) {
        0 => ("<<-", "EOF", "\t"),
        1 => ("<<", "'EOF'", ""),
        _ => ("<<", "EOF", ""),
    };
    let mut s = format!("cmd {op}{delimiter}\n");
    for _ in 0..=rng.below(4) {
        s.push_str(tab);
        for _ in 0..=rng.below(3) {
            s.push_str(rng.pick(HEREDOC_PIECES));
        }
        match rng.below(5) {
            0 => s.push_str("\nF"),
            1 => s.push_str("\np2 z"),
            _ => {}
        }
        s.push('\n');
    }
    s.push_str(tab);
    s.push_str("EOF\n");
    if rng.below(2) == 0 {
        s.push_str("p3 y\n");
    }
    s
}

/// Here-documents against bash: everything bash runs (literal argvs) is
/// a command the parse lists, directly or nested, so that deny rules see
/// it; when the parse finds no hazard, bash runs exactly its commands and
/// writes no file.
#[test]
fn heredoc_bodies_agree_with_bash() {
    let scratch = tempfile::tempdir().unwrap();
    let work = scratch.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let log = scratch.path().join("log");
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let mut rng = Rng(env("AIRLOCK_FUZZ_SEED").unwrap_or(0x2545_F491_4F6C_DD1D) | 1);
    let cases = env("AIRLOCK_FUZZ_CASES").unwrap_or(300);
    let (mut seen_runs, mut joined, mut hazard_free) = (0, 0, 0);
    for _ in 0..cases {
        let command = heredoc_command(&mut rng);
        let Ok(parsed) = parse(&command) else {
            continue;
        };
        let before = snapshot(&work);
        let Some(bash) = run_in_bash(&command, &work, &log) else {
            continue;
        };
        let after = snapshot(&work);
        for name in after.keys() {
            std::fs::remove_file(work.join(name)).unwrap();
        }
        if command.contains("\\\n")
            && parsed
                .all_hazards()
                .any(|h| h.to_string().contains("backslash-newline"))
        {
            joined += 1;
        }
        let listed: Vec<Vec<&str>> = parsed
            .commands
            .iter()
            .chain(&parsed.nested)
            .filter_map(airlock::policy::shell::SimpleCommand::literal_argv)
            .collect();
        for run in &bash.runs {
            seen_runs += 1;
            assert!(
                listed.iter().any(|l| l == run),
                "bash ran {run:?} for {command:?}; the parse lists {listed:?}"
            );
        }
        if parsed.is_hazard_free() {
            hazard_free += 1;
            assert_eq!(before, after, "{command:?} changed files, yet no hazard");
            let mut ours: Vec<Vec<String>> = listed
                .iter()
                .map(|l| l.iter().map(|w| (*w).to_owned()).collect())
                .collect();
            ours.sort();
            assert_eq!(bash.runs, ours, "what bash ran for {command:?}");
        }
    }
    eprintln!("runs seen {seen_runs}, joined {joined}, hazard-free {hazard_free}");
    assert!(seen_runs >= 300, "only {seen_runs} runs compared");
    assert!(joined >= 50, "only {joined} here-documents joined");
    assert!(hazard_free >= 20, "only {hazard_free} hazard-free commands");
}
