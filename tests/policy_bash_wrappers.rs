//! Wrappers and builtins that run code (review F5): programs of the one
//! wrapper table (`setpriv`, `setarch` and its aliases, `choom` …),
//! command strings and programs given as an option's attached value
//! (`env -S'…'`, `env -Stouch`, `su -c'…'`, `script -qc'…'`,
//! `--command=…`), and builtins whose options take code (`compgen -C`,
//! `compgen -W`, `mapfile -C`). With `allow bash` and `deny bash(touch *)`
//! each is denied or asked, never allowed, and the guardrails see
//! `rm -rf /` in the same places, on the parsed command and in the
//! tokenizer for input the parser rejects.
//!
//! CONTROLS: the real bash (with the real wrappers installed here) runs
//! `touch X`; without the deny rule the command is allowed; the same
//! words after a program that runs nothing (`echo`) are not denied; the
//! real bash hands a stub `rm` the operands `-rf /`.

mod policy_support;

use std::process::Command;

use policy_support::{allow_bash_and_touch, really_touches, verdict};

use airlock::call::Verdict;
use airlock::policy::guardrails::{self, RM_ROOT};
use airlock::policy::shell::parse;
use airlock::policy::{Action, Policy};

/// Each runs `touch X` in the working directory.
const RUNS_TOUCH: &[&str] = &[
    "env -S'touch X'",
    "env -Stouch X",
    "env -iS'touch X'",
    "env -uFOO -S'touch X'",
    "env --split-string='touch X'",
    "env --split='touch' X",
    "setpriv touch X",
    "setarch x86_64 touch X",
    "setarch x86_64 -R touch X",
    "x86_64 touch X",
    "linux64 touch X",
    "linux32 touch X",
    "i386 touch X",
    "choom -n 0 -- touch X",
    "nice -n1 setpriv touch X",
    "ionice -c3 touch X",
    "timeout -sKILL 5 touch X",
    "su -c'touch X'",
    "su --command='touch X'",
    "su --comm 'touch X'",
    "runuser -c'touch X' root",
    "script -qc'touch X' /dev/null",
    "script -qec'touch X' /dev/null",
    "capsh -- -c 'touch X'",
    "unshare -r touch X",
    "compgen -C 'touch X' x",
    "compgen -W '$(touch X)' x",
    "mapfile -tC 'touch X' -c1 a <<< x",
];

fn policy(deny: bool) -> Policy {
    allow_bash_and_touch(Action::Deny, deny)
}

#[test]
fn wrapped_and_option_commands_are_never_allowed_past_a_deny_rule() {
    let with = policy(true);
    let without = policy(false);
    for command in RUNS_TOUCH {
        really_touches(command);
        assert_eq!(
            verdict(&without, command),
            Verdict::Allow,
            "control: without the deny rule {command:?} is allowed"
        );
        let v = verdict(&with, command);
        assert_ne!(v, Verdict::Allow, "{command:?}");
        let first = command.split_whitespace().next().unwrap_or_default();
        // What can be resolved exactly is denied; `compgen`/`mapfile`
        // callbacks are asked (their arguments are appended).
        if !matches!(first, "compgen" | "mapfile") {
            assert_eq!(v, Verdict::Deny, "{command:?}: {:?}", parse(command));
        }
        // CONTROL: the same words after a program that runs nothing.
        let echoed = format!("echo {}", command.split_once(' ').unwrap_or_default().1);
        assert_eq!(
            verdict(&with, &echoed),
            Verdict::Allow,
            "control: {echoed:?} is not denied"
        );
    }
}

/// `env -S` splits its string itself (quotes, `\_`, `${VAR}`): such a
/// string is not modelled, so it is asked (or denied where it also
/// parses as a command that is). CONTROL: bash runs it.
#[test]
fn env_split_strings_with_their_own_syntax_are_asked() {
    let with = policy(true);
    for command in ["env -S'touch\\_X'", "env -S'${T} X'"] {
        assert_eq!(verdict(&with, command), Verdict::Ask, "{command:?}");
    }
    assert_eq!(verdict(&with, "env -S'\"touch\" X'"), Verdict::Deny);
    really_touches("env -S'\"touch\" X'");
    really_touches("T=touch env -S'${T} X'");
    really_touches("env -S'touch\\_X'");
}

/// The guardrails see `rm -rf /` behind the same wrappers and options,
/// and so does the tokenizer for unparseable input (a trailing `(`).
/// CONTROL: the real bash hands a stub `rm` first on PATH `-rf /`.
#[test]
fn guardrails_see_rm_root_behind_wrappers_and_options() {
    let cases: Vec<String> = RUNS_TOUCH
        .iter()
        .filter(|c| c.contains("touch X") && !c.starts_with("unshare"))
        .map(|c| c.replace("touch X", "rm -rf /"))
        .chain([
            "env -Srm -rf /".to_owned(),
            "flock f -c 'rm -rf /'".to_owned(),
        ])
        .collect();
    let scratch = tempfile::tempdir().unwrap();
    let bin = scratch.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let stub = bin.join("rm");
    std::fs::write(&stub, "#!/bin/sh\necho \"$@\" >> \"$AIRLOCK_ARGV\"\n").unwrap();
    Command::new("chmod").arg("+x").arg(&stub).status().unwrap();
    let log = scratch.path().join("argv");
    let mut ran = 0;
    for case in &cases {
        let _ = std::fs::remove_file(&log);
        Command::new("bash")
            .args(["--norc", "--noprofile", "-c", case])
            .env(
                "PATH",
                format!("{}:/usr/sbin:/usr/bin:/sbin:/bin", bin.display()),
            )
            .env("AIRLOCK_ARGV", &log)
            .current_dir(scratch.path())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        // `su`, `runuser` and `script` may reset PATH: the stub is not
        // reached there, the others must reach it.
        let argv = std::fs::read_to_string(&log).unwrap_or_default();
        if argv.contains("-rf /") {
            ran += 1;
        }
        assert_eq!(guardrails::check(case), Some(RM_ROOT), "{case:?}");
        let unparseable = format!("{case}\n(");
        assert!(parse(&unparseable).is_err(), "{unparseable:?} parses");
        assert_eq!(
            guardrails::check(&unparseable),
            Some(RM_ROOT),
            "tokenizer: {unparseable:?}"
        );
    }
    assert!(
        ran >= cases.len() - 6,
        "control: only {ran} of {} cases ran the stub",
        cases.len()
    );
}

/// Thousands of wrappers and option clusters are analysed in bounded
/// time on both readings. CONTROL: the same count of plain words.
#[test]
fn many_wrappers_stay_cheap() {
    let wrappers = "sudo -abcdefghijklmno ".repeat(300) + "rm -rf /";
    let start = std::time::Instant::now();
    assert_eq!(guardrails::check(&wrappers), Some(RM_ROOT));
    assert_eq!(guardrails::check(&format!("{wrappers}\n(")), Some(RM_ROOT));
    let nested = "sudo ".repeat(40) + "rm x ; (";
    assert_eq!(guardrails::check(&nested), None);
    assert!(
        start.elapsed() < std::time::Duration::from_secs(20),
        "took {:?}",
        start.elapsed()
    );
    assert_eq!(guardrails::check(&("echo ".repeat(300) + "rm -rf /")), None);
}
