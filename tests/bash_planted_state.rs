//! What an approved command leaves in its shell cannot change what a later
//! approved command runs: functions named like the builtins airlock's
//! dispatch uses, `readonly` variables, `enable -n`, a `DEBUG` trap with
//! `extdebug`, aliases, `set -n`, exported functions, lines written into
//! the shell's own input, a forged hand-over state.
//!
//! Each attack is run through the real [`Shell`] (a command of its own,
//! then `echo approved`), which must print exactly `approved`. The control
//! runs the same attack and the same dispatch in one shared bash (what
//! airlock did before each command got a bash of its own) and must see the
//! later command changed: so the test fails if the protection goes.

mod bash_support;

use std::io::Write;
use std::process::{Command, Stdio};

use airlock::tools::bash::dispatch::{self, Asked};
use airlock::tools::bash::sentinel::shell_quote;
use airlock::tools::bash::{Ending, Shell};
use bash_support::*;

/// Commands that try to change how a later command is read or run.
const ATTACKS: &[(&str, &str)] = &[
    ("readonly variable", "readonly __airlock_c='echo PLANTED'"),
    ("function eval", "eval() { echo PLANTED; }"),
    (
        "function printf",
        "printf() { __airlock_c='echo PLANTED'; }",
    ),
    ("function return", "return() { echo PLANTED; }"),
    ("function export", "export() { echo PLANTED; }"),
    ("function mapfile", "mapfile() { echo PLANTED; }"),
    ("function set", "set() { echo PLANTED; }"),
    ("builtin off", "enable -n eval"),
    ("printf off", "enable -n printf"),
    (
        "DEBUG trap",
        "shopt -s extdebug; trap 'echo PLANTED; false' DEBUG",
    ),
    (
        "alias",
        "shopt -s expand_aliases; alias eval='echo PLANTED;'",
    ),
    ("noexec", "set -n"),
    (
        "exported function",
        "eval() { echo PLANTED; }; export -f eval",
    ),
    (
        "sourced file",
        "printf 'eval() { echo PLANTED; }\\n' > planted.sh; . ./planted.sh",
    ),
];

/// The control: `attack`, then the runner's own text for `echo approved`,
/// in one bash. Returns what that bash printed.
fn in_one_shared_shell(ws: &std::path::Path, attack: &str) -> String {
    let state = ws.join("state");
    std::fs::write(&state, format!("{}\0X=1\0", ws.display())).unwrap();
    // The runner's trailing `exit` is dropped so that an attack that stops
    // it is seen.
    let script = format!("{attack}\n{}", dispatch::runner().replace("exit ", ": "));
    let state = state.to_string_lossy();
    bash_c(
        ws,
        &script,
        &[&state, "0", "a", "/usr/bin:/bin", "echo approved"],
    )
}

/// What `bash -c script` prints (stdout), run in `dir` with `args` as
/// `$1`…, stdin empty.
fn bash_c(dir: &std::path::Path, script: &str, args: &[&str]) -> String {
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-c", script, "bash"])
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The control's own control: with no attack, the shared shell runs the
/// later command as it is (so a control that differs shows the attack).
#[test]
fn without_an_attack_the_shared_shell_runs_the_command() {
    let ws = tempfile::tempdir().unwrap();
    assert_eq!(in_one_shared_shell(ws.path(), ":"), "approved\n");
}

#[tokio::test]
async fn planted_shell_state_cannot_change_a_later_command() {
    for (name, attack) in ATTACKS {
        let ws = tempfile::tempdir().unwrap();
        let control = in_one_shared_shell(ws.path(), attack);
        assert_ne!(
            control, "approved\n",
            "control for {name}: in one shared shell the attack changes the later command"
        );

        let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
        let planted = run(&mut sh, attack).await;
        assert!(
            matches!(planted.ending, Ending::Finished { .. }),
            "{name}: {planted:?}"
        );
        let later = run(&mut sh, "echo approved").await;
        assert_eq!(later.ending, Ending::Finished { status: 0 }, "{name}");
        assert_eq!(later.output.text, "approved\n", "{name}");
        let again = run(&mut sh, "echo approved; type -t eval").await;
        assert_eq!(again.output.text, "approved\nbuiltin\n", "{name}");
    }
}

/// The shell's input: a command cannot open it through `/proc` to feed the
/// shell a line of its own (the control shows that it can when the input
/// is a pipe, as it was).
#[tokio::test]
async fn a_command_cannot_write_into_the_shells_input() {
    let inject = "echo 'echo PLANTED' > /proc/$PPID/fd/0; echo \"rc=$?\"";

    // Control: a bash reading its commands from a pipe, as airlock's did.
    let mut control = Command::new("bash")
        .args(["--noprofile", "--norc"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut input = control.stdin.take().unwrap();
    writeln!(input, "bash -c {} < /dev/null", shell_quote(inject)).unwrap();
    // Wait for the injected line to be in the pipe before closing it.
    writeln!(input, "sleep 0.2").unwrap();
    drop(input);
    let out = control.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("PLANTED"), "control: {text}");

    let ws = tempfile::tempdir().unwrap();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    let r = run(&mut sh, inject).await;
    assert!(r.output.text.contains("rc=1"), "{}", r.output.text);
    assert!(
        r.output.text.contains("No such device or address"),
        "{}",
        r.output.text
    );
    let later = run(&mut sh, "echo approved").await;
    assert_eq!(later.output.text, "approved\n");
}

/// The hand-over state is data: a command that rewrites it can set the
/// next command's directory and variables (as `cd` and `export` could),
/// never define a function or run anything.
#[tokio::test]
async fn a_forged_hand_over_state_is_only_data() {
    let ws = tempfile::tempdir().unwrap();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    let forge = "trap - EXIT; printf '%s\\0' / 'FORGED=$(echo PLANTED)' \
                 'BASH_FUNC_eval%%=() { echo PLANTED; }' \"PATH=$PATH\" > \"$__airlock_st\"; \
                 exit 0";
    let r = run(&mut sh, forge).await;
    assert_eq!(r.ending, Ending::Finished { status: 0 });
    // The forged state was read: the directory and the variable came
    // through, as plain text.
    assert_eq!(r.cwd.as_deref(), Some("/"));
    let later = run(&mut sh, "echo approved; echo \"$FORGED\"; type -t eval").await;
    assert_eq!(later.output.text, "approved\n$(echo PLANTED)\nbuiltin\n");
}

/// A variable that makes every later bash run a file (`BASH_ENV`, `ENV`)
/// does not carry over to the next command, as the shell's first
/// environment does not have it; the control shows the same variable
/// carried makes a later `bash -c` run the planted file.
#[tokio::test]
async fn a_startup_file_variable_does_not_carry_over() {
    let plant = "printf 'echo PLANTED\\n' > \"$PWD/planted.sh\"; \
                 export BASH_ENV=\"$PWD/planted.sh\" ENV=\"$PWD/planted.sh\" KEPT=1";
    let later = "bash -c 'echo approved'; sh -ic 'true' 2>/dev/null; echo \"$KEPT\"";

    let ws = tempfile::tempdir().unwrap();
    assert!(
        bash_c(ws.path(), &format!("{plant}\n{later}"), &[]).contains("PLANTED"),
        "control: carried, the variable runs the file"
    );

    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    run(&mut sh, plant).await;
    let r = run(&mut sh, later).await;
    assert_eq!(r.output.text, "approved\n1\n");
}

/// A prompt variable with code in it does not carry over: `PS4` is
/// expanded for every line `set -x` traces, so an approved `export
/// PS4='$(…)'` made a later `set -x; echo approved` run the substitution
/// (the control, in one bash); the first environment does not have the
/// prompts either.
#[tokio::test]
async fn a_prompt_with_code_does_not_carry_over() {
    let plant = "export PS4='$(echo PLANTED >&2)+ ' PS1='$(echo PLANTED)' KEPT=1";
    let later = "set -x; echo approved; set +x; bash -ic 'true' < /dev/null; echo \"$KEPT\"";

    let ws = tempfile::tempdir().unwrap();
    let control = Command::new("bash")
        .args(["--noprofile", "--norc", "-c", &format!("{plant}\n{later}")])
        .current_dir(ws.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&control.stderr).contains("PLANTED"),
        "control: carried, the prompt runs its code"
    );

    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    run(&mut sh, plant).await;
    let r = run(&mut sh, later).await;
    assert!(!r.output.text.contains("PLANTED"), "{}", r.output.text);
    assert!(r.output.text.contains("approved\n"), "{}", r.output.text);
    assert!(r.output.text.ends_with("1\n"), "{}", r.output.text);
}

/// A command nobody was asked about (a known read-only command,
/// `bash.auto_approve_read_only`) runs without what an earlier approved
/// command exported to make programs run code of its choosing: a `PATH`
/// with the workspace's own `ls` first, `LD_PRELOAD`, `GIT_EXTERNAL_DIFF`,
/// a pager. The next approved command has them all again. The control:
/// the same commands run as approved ones, where the planted `ls`, diff
/// and library run.
#[tokio::test]
async fn a_command_nobody_was_asked_about_runs_without_planted_loaders() {
    let ws = tempfile::tempdir().unwrap();
    let bin = ws.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    for (name, body) in [("ls", "echo PLANTED-ls"), ("diff.sh", "echo PLANTED-diff")] {
        let path = bin.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        let exec = <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o755);
        std::fs::set_permissions(&path, exec).unwrap();
    }
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(ws.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    std::fs::write(ws.path().join("a.txt"), "one\n").unwrap();
    git(&["add", "a.txt"]);
    git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-qm",
        "a",
    ]);
    std::fs::write(ws.path().join("a.txt"), "two\n").unwrap();

    let plant = "export PATH=\"$PWD/bin:$PATH\" GIT_EXTERNAL_DIFF=\"$PWD/bin/diff.sh\" \
                 LD_PRELOAD=/nonexistent/planted.so PAGER=planted KEPT=1";
    let later = "ls a.txt; git diff; echo \"[${LD_PRELOAD-}|$PAGER|$KEPT]\"";
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    run(&mut sh, plant).await;

    // The control: run as an approved command, the plants run.
    let approved = run(&mut sh, later).await;
    assert!(
        approved.output.text.contains("PLANTED-ls")
            && approved.output.text.contains("PLANTED-diff"),
        "control: {}",
        approved.output.text
    );

    let unasked = sh
        .run_as(
            later,
            Asked::No,
            std::time::Duration::from_secs(30),
            std::future::pending(),
            &mut |_| {},
        )
        .await
        .unwrap();
    let text = &unasked.output.text;
    assert!(!text.contains("PLANTED"), "{text}");
    assert!(text.starts_with("a.txt\n"), "{text}");
    assert!(text.ends_with("[|cat|1]\n"), "{text}");
    assert!(!text.contains("cannot be preloaded"), "{text}");

    // Put back for the next approved command.
    let after = run(
        &mut sh,
        "echo \"[$LD_PRELOAD|$PAGER|$KEPT]\"; command -v ls",
    )
    .await;
    let planted_ls = format!("{}\n", bin.join("ls").display());
    assert!(
        after
            .output
            .text
            .contains("[/nonexistent/planted.so|planted|1]\n")
            && after.output.text.ends_with(&planted_ls),
        "{}",
        after.output.text
    );
}

/// Entries of a forged hand-over state that `export` would act on are not
/// taken: the runner's own variables (the command it is about to run), a
/// startup file through `+=`, a relative or option-like directory. The
/// control applies the same entries with a bare `export`, where they
/// replace the command and plant the file.
#[tokio::test]
async fn a_forged_state_cannot_name_the_runners_variables_or_append() {
    let ws = tempfile::tempdir().unwrap();
    let evil = ws.path().join("evil.sh");
    std::fs::write(&evil, "echo PLANTED\n").unwrap();
    let entries = [
        "__airlock_c=echo PLANTED".to_string(),
        format!("BASH_ENV+={}", evil.display()),
        "__airlock_saved=1".to_string(),
    ];

    let control = bash_c(
        ws.path(),
        "printf -v __airlock_c %s 'echo approved'; export -- \"$@\"; \
         eval \"$__airlock_c\"; bash -c 'echo child'",
        &entries.each_ref().map(String::as_str),
    );
    assert_eq!(control, "PLANTED\nPLANTED\nchild\n", "control");

    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    // Exported by an approved command, the runner's variable stays behind.
    run(
        &mut sh,
        "export __airlock_c='echo PLANTED' __airlock_st=/tmp/x",
    )
    .await;
    let r = run(&mut sh, "echo approved").await;
    assert_eq!(r.output.text, "approved\n");
    let forge = format!(
        "trap - EXIT; printf '%s\\0' - {} \"PATH=$PATH\" > \"$__airlock_st\"; exit 0",
        entries.map(|e| shell_quote(&e)).join(" ")
    );
    let r = run(&mut sh, &forge).await;
    assert_eq!(r.ending, Ending::Finished { status: 0 });
    let later = run(&mut sh, "echo approved; bash -c 'echo child'; pwd").await;
    assert_eq!(
        later.output.text,
        format!(
            "approved\nchild\n{}\n",
            std::fs::canonicalize(ws.path()).unwrap().display()
        )
    );
}
