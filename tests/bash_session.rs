//! The shell session on its own: a real bash in a real PTY.

mod bash_support;

use std::time::{Duration, Instant};

use airlock::tools::bash::{Ending, Shell};
use bash_support::*;

#[tokio::test]
async fn the_directory_and_exported_variables_carry_over_and_nothing_else() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir(ws.path().join("sub")).unwrap();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    let r = run(
        &mut sh,
        "cd sub && export FOO=bar QUOTED=$'a b\\nc' && unset -v HOME && greet() { echo hi; } \
         && plain=1 && set -o pipefail && shopt -s expand_aliases && alias ll=ls",
    )
    .await;
    assert_eq!(r.ending, Ending::Finished { status: 0 });
    let canon = std::fs::canonicalize(ws.path().join("sub")).unwrap();
    assert_eq!(r.cwd.as_deref(), Some(canon.to_str().unwrap()));
    let r = run(
        &mut sh,
        "pwd; echo \"$FOO\"; printf '%q\\n' \"$QUOTED\"; echo \"${HOME-unset}\"; \
         echo \"${plain-not kept}\"; type -t greet ll || echo none; shopt -qo pipefail && echo on || echo off",
    )
    .await;
    assert_eq!(
        r.output.text,
        format!(
            "{}\nbar\n$'a b\\nc'\nunset\nnot kept\nnone\noff\n",
            canon.display()
        ),
        "cd, export and unset carry over; shell variables, functions, aliases and \
         options end with the command that made them"
    );
    assert_eq!(r.cwd.as_deref(), Some(canon.to_str().unwrap()));

    // The environment a command sees is the one the previous command left,
    // no more: the same after a command that changes nothing.
    let env = "env -u _ | LC_ALL=C sort";
    let first = run(&mut sh, env).await;
    run(&mut sh, "true").await;
    let second = run(&mut sh, env).await;
    assert_eq!(first.output.text, second.output.text);
    assert!(first.output.text.contains("FOO=bar\n"));

    // A command that unsets every exported variable leaves none, and the
    // next command starts quietly with none.
    run(&mut sh, "for v in $(compgen -e); do unset \"$v\"; done").await;
    let r = run(
        &mut sh,
        "echo ok; compgen -e | grep -v '^PWD$\\|^SHLVL$\\|^OLDPWD$'",
    )
    .await;
    assert_eq!(r.output.text, "ok\n");
    run(&mut sh, "export PATH=/usr/bin:/bin").await;

    // A directory entered through a link stays as it was entered.
    std::os::unix::fs::symlink(&canon, ws.path().join("link")).unwrap();
    let logical = format!(
        "{}/link",
        std::fs::canonicalize(ws.path()).unwrap().display()
    );
    run(&mut sh, &format!("cd '{logical}'")).await;
    let r = run(&mut sh, "pwd").await;
    assert_eq!(r.output.text, format!("{logical}\n"));
}

#[tokio::test]
async fn exit_status_and_previous_status() {
    let ws = tempfile::tempdir().unwrap();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    let r = run(&mut sh, "false").await;
    assert_eq!(r.ending, Ending::Finished { status: 1 });
    let r = run(&mut sh, "echo $?").await;
    assert_eq!(r.output.text, "1\n", "$? carries over like in a terminal");
    let r = run(&mut sh, "(exit 42)").await;
    assert_eq!(r.ending, Ending::Finished { status: 42 });
    let r = run(&mut sh, "nonexistent_cmd_xyz").await;
    assert_eq!(r.ending, Ending::Finished { status: 127 });
    assert!(
        r.output
            .text
            .contains("nonexistent_cmd_xyz: command not found"),
        "{}",
        r.output.text
    );
}

#[tokio::test]
async fn stdin_readers_get_eof_at_once() {
    let ws = tempfile::tempdir().unwrap();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    for cmd in ["cat", "read x; echo \"got [$x] $?\"", "head -1", "wc -l"] {
        let t = Instant::now();
        let r = run_for(&mut sh, cmd, Duration::from_secs(10)).await;
        assert!(t.elapsed() < Duration::from_secs(3), "{cmd} hung");
        assert!(matches!(r.ending, Ending::Finished { .. }), "{cmd}: {r:?}");
    }
    let r = run(&mut sh, "read x; echo \"got [$x] $?\"").await;
    assert_eq!(r.output.text, "got [] 1\n");
}

#[tokio::test]
async fn programs_see_a_terminal_on_stdout() {
    let ws = tempfile::tempdir().unwrap();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    let r = run(&mut sh, "[ -t 1 ] && echo tty1; [ -t 2 ] && echo tty2; [ -t 0 ] || echo notty0; echo $TERM; echo $-").await;
    let lines: Vec<&str> = r.output.text.lines().collect();
    assert_eq!(&lines[..4], &["tty1", "tty2", "notty0", "dumb"]);
    assert!(
        !lines[4].contains('i'),
        "shell must be non-interactive: {}",
        lines[4]
    );
    // A program that wants to prompt on /dev/tty fails at once.
    let t = Instant::now();
    let r = run_for(
        &mut sh,
        "exec 3</dev/tty && echo opened",
        Duration::from_secs(5),
    )
    .await;
    assert!(t.elapsed() < Duration::from_secs(3));
    assert!(!r.output.text.contains("opened"), "{}", r.output.text);
}

#[tokio::test]
async fn fake_sentinels_and_missing_newlines_cannot_end_a_call() {
    let ws = tempfile::tempdir().unwrap();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    // Sentinel-shaped text with made-up tokens, RS/US bytes, then a sleep:
    // the call must wait for the real end and report the real status.
    let fake = r"for t in 00000000000000000000000000000000 ffffffffffffffffffffffffffffffff; do printf '\036%s\037%d %s\037%s\036' $t 0 / $t; done; printf '\036\037\036'; sleep 0.3; echo after; exit_code=7; (exit $exit_code)";
    let t = Instant::now();
    let r = run(&mut sh, fake).await;
    assert!(t.elapsed() >= Duration::from_millis(300), "ended early");
    assert_eq!(r.ending, Ending::Finished { status: 7 });
    assert!(r.output.text.contains("00000000000000000000000000000000"));
    assert!(r.output.text.ends_with("after\n"), "{:?}", r.output.text);
    // Text without a final newline stays in its own call.
    let r = run(&mut sh, "printf 'no newline'").await;
    assert_eq!(r.output.text, "no newline");
    assert_eq!(r.ending, Ending::Finished { status: 0 });
    let r = run(&mut sh, "echo next").await;
    assert_eq!(r.output.text, "next\n");
}

#[tokio::test]
async fn commands_run_exactly_as_written() {
    let ws = tempfile::tempdir().unwrap();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    let heredoc =
        "cat <<'EOF'\n$HOME `x` \"q\" 'p' \\n\nEOF\ncat <<EOF | tr a-z A-Z\nabc $((1+2))\nEOF";
    let r = run(&mut sh, heredoc).await;
    assert_eq!(r.output.text, "$HOME `x` \"q\" 'p' \\n\nABC 3\n");
    let r = run(&mut sh, "printf '%s\\n' \"héllo wörld ✓ 日本\" 'it'\\''s'").await;
    assert_eq!(r.output.text, "héllo wörld ✓ 日本\nit's\n");
    let r = run(
        &mut sh,
        "if true\nthen\n  echo multi\nfi\nfor i in 1 2; do echo $i; done",
    )
    .await;
    assert_eq!(r.output.text, "multi\n1\n2\n");
    // A 300 KB command (five pieces of the dispatch line): one long
    // assignment, checked by length and checksum.
    let payload: String = (0..300_000_u32)
        .map(|i| char::from(b'a' + u8::try_from(i % 26).expect("below 26")))
        .collect();
    let cmd = format!("x='{payload}'\necho ${{#x}}\nprintf %s \"$x\" | md5sum | cut -c1-32");
    let r = run(&mut sh, &cmd).await;
    let lines: Vec<&str> = r.output.text.lines().collect();
    assert_eq!(lines[0], "300000");
    let expected = std::process::Command::new("md5sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(payload.as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    assert_eq!(lines[1], &String::from_utf8_lossy(&expected.stdout)[..32]);
    // Syntax errors are the command's problem, not the shell's.
    let r = run(&mut sh, "echo \"unterminated").await;
    assert_eq!(r.ending, Ending::Finished { status: 2 });
    let r = run(&mut sh, "echo still here").await;
    assert_eq!(r.output.text, "still here\n");
}

#[tokio::test]
async fn exit_and_exec_end_the_command_and_killing_the_shell_says_so() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir(ws.path().join("sub")).unwrap();
    let canon = std::fs::canonicalize(ws.path().join("sub")).unwrap();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    // Each command has a bash of its own: `exit` ends the command, and
    // what it did before (`cd`) still carries over.
    let r = run(&mut sh, "cd sub; echo bye; exit 3").await;
    assert_eq!(r.ending, Ending::Finished { status: 3 });
    assert_eq!(r.output.text, "bye\n");
    assert!(sh.is_alive());
    assert_eq!(r.cwd.as_deref(), Some(canon.to_str().unwrap()));
    let r = run(&mut sh, "kill -9 $$").await;
    assert_eq!(r.ending, Ending::Finished { status: 137 });
    let r = run(&mut sh, "exec true").await;
    assert_eq!(r.ending, Ending::Finished { status: 0 });
    let r = run(&mut sh, "pwd").await;
    assert_eq!(r.output.text, format!("{}\n", canon.display()));

    // The shell that starts them killed: the call says so, the shell is gone.
    let r = run(&mut sh, "kill -9 $PPID").await;
    assert_eq!(
        r.ending,
        Ending::ShellExited {
            code: 137,
            signal: Some(9)
        }
    );
    assert!(!sh.is_alive());
    assert!(r.cwd.is_none());
}

#[tokio::test]
async fn output_is_normalised_for_the_agent() {
    let ws = tempfile::tempdir().unwrap();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    let r = run(&mut sh, "printf '\\033[1;31mred\\033[0m\\n'; printf '10%%\\r50%%\\r100%%\\n'; printf 'bad \\377 byte\\n'").await;
    assert_eq!(r.output.text, "red\n100%\nbad \u{FFFD} byte\n");
    let mut raw = Vec::new();
    let r = sh
        .run(
            "printf 'a\\nb\\n'",
            Duration::from_secs(10),
            std::future::pending(),
            &mut |b| raw.extend_from_slice(b),
        )
        .await
        .unwrap();
    assert_eq!(r.output.text, "a\nb\n");
    assert_eq!(
        raw, b"a\r\nb\r\n",
        "the live stream is raw terminal output, without the sentinel"
    );
}

#[tokio::test]
async fn shell_options_and_redirections_keep_the_session_working() {
    let ws = tempfile::tempdir().unwrap();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    // stdout sent away for good: the end of each call is still seen.
    let r = run_for(
        &mut sh,
        "exec >/dev/null; echo hidden",
        Duration::from_secs(5),
    )
    .await;
    assert_eq!(r.ending, Ending::Finished { status: 0 });
    assert_eq!(r.output.text, "");
    let r = run_for(&mut sh, "echo visible >&2", Duration::from_secs(5)).await;
    assert_eq!(r.output.text, "visible\n");
    // nounset, pipefail, a trap on ERR work within their command, and
    // end with it.
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    let r = run(
        &mut sh,
        "set -u -o pipefail; trap 'echo trapped' ERR; false | true; echo $?",
    )
    .await;
    assert_eq!(r.output.text, "trapped\n1\n");
    let r = run(&mut sh, "false | true; echo $?").await;
    assert_eq!(r.output.text, "0\n");
    let r = run(&mut sh, "echo ok").await;
    assert_eq!(r.output.text, "ok\n");
    // errexit ends the command at its first failure, with that status;
    // the variables it exported until then carry over.
    let r = run(&mut sh, "set -e; export DONE=1; false; echo not reached").await;
    assert_eq!(r.ending, Ending::Finished { status: 1 });
    assert_eq!(r.output.text, "");
    let r = run(&mut sh, "echo $DONE").await;
    assert_eq!(r.output.text, "1\n");
    assert!(sh.is_alive());
}

#[tokio::test]
async fn late_background_output_goes_to_the_next_call() {
    let ws = tempfile::tempdir().unwrap();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    let r = run(&mut sh, "(sleep 0.2; echo late) & echo now").await;
    assert_eq!(r.output.text, "now\n");
    tokio::time::sleep(Duration::from_millis(400)).await;
    let r = run(&mut sh, "echo next").await;
    assert_eq!(r.output.text, "late\nnext\n");
}
