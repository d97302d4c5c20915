//! How bash reads a command does not depend on the locale. In BIG5,
//! BIG5-HKSCS, GBK, GB18030 and `Shift_JIS` the last byte of some UTF-8
//! characters starts a two-byte character whose second byte is the `\`
//! after it, so `echo "中\"; echo PWNED # \""`, one quoted string to
//! airlock, to its analysis and to the prompt, runs `echo PWNED` in bash.
//! The locale can come from airlock's own environment, from an earlier
//! command (`export LC_ALL=…`, carried to the next one), or from an earlier
//! line of the same command.
//!
//! Each case runs through the real [`Shell`] and must print the string as
//! airlock reads it; each control runs the same command in a plain bash
//! under the same locale and must see `PWNED` (so the test fails if the
//! protection goes). The locales are built with `localedef` (Debian's
//! `locales` has the tables) into a temporary directory, which each test
//! mounts over `/usr/lib/locale` in a user and mount namespace of its own
//! (`unshare`), where it runs again: bash loads a locale only from there
//! (it does not hand `LOCPATH` to its own `setlocale`), and the test
//! must not install anything on the machine.

mod bash_support;
mod locale_support;

use std::path::Path;

use airlock::call::{Subject, ToolKind, Verdict};
use airlock::policy::Policy;
use airlock::tools::bash::sentinel::shell_quote;
use airlock::tools::bash::{Ending, Shell, ShellConfig};
use bash_support::*;
use locale_support::*;

/// The shell's config with `LC_ALL=locale` in its first environment.
fn config_locale(ws: &Path, locale: &str) -> ShellConfig {
    let mut cfg = config(ws);
    cfg.env
        .retain(|(k, _)| !k.to_string_lossy().starts_with("LC_") && k != "LANG");
    cfg.env.push(("LC_ALL".into(), locale.into()));
    cfg
}

/// The controls: under each locale, a plain bash runs the hidden command,
/// whether the locale comes from its environment or from an earlier line
/// (and under C.UTF-8 it does not: the payload is what it seems there).
#[test]
fn controls_bash_reads_the_payload_otherwise_under_these_locales() {
    if !in_locale_namespace("controls_bash_reads_the_payload_otherwise_under_these_locales") {
        return;
    }
    for (name, _, _, ch) in LOCALES {
        let script = format!("eval {}", shell_quote(&payload(ch)));
        assert!(
            ran_pwned(&plain_bash(&script, &[("LC_ALL", name)])),
            "control {name}"
        );
        let lines = format!("export LC_ALL={name}\n{}", payload(ch));
        assert!(
            ran_pwned(&plain_bash(&lines, &[])),
            "control {name}, set by a line"
        );
        let utf8 = plain_bash(&script, &[("LC_ALL", "C.UTF-8")]);
        assert_eq!(utf8, as_shown(ch), "{name}: under UTF-8 it is one echo");
    }
}

/// The locale airlock itself runs under (and gives the shell) is
/// replaced by C.UTF-8 when the shell starts.
#[tokio::test]
async fn an_inherited_locale_does_not_change_how_a_command_is_read() {
    if !in_locale_namespace("an_inherited_locale_does_not_change_how_a_command_is_read") {
        return;
    }
    for (name, _, _, ch) in LOCALES {
        let ws = tempfile::tempdir().unwrap();
        let mut sh = Shell::spawn(&config_locale(ws.path(), name)).await.unwrap();
        let r = run(&mut sh, &payload(ch)).await;
        assert_eq!(r.ending, Ending::Finished { status: 0 }, "{name}");
        assert!(!ran_pwned(&r.output.text), "{name}: {}", r.output.text);
        assert_eq!(r.output.text, as_shown(ch), "{name}");
        // The replacement (made when the shell started) carries over.
        let again = run(&mut sh, &format!("{}; echo \"$LC_ALL\"", payload(ch))).await;
        assert_eq!(
            again.output.text,
            format!("{}C.UTF-8\n", as_shown(ch)),
            "{name}"
        );
    }
}

/// A locale an approved command exported, carried to the next command.
#[tokio::test]
async fn a_carried_locale_does_not_change_how_a_later_command_is_read() {
    if !in_locale_namespace("a_carried_locale_does_not_change_how_a_later_command_is_read") {
        return;
    }
    for (name, _, _, ch) in LOCALES {
        let ws = tempfile::tempdir().unwrap();
        let mut sh = Shell::spawn(&config_locale(ws.path(), "C.UTF-8"))
            .await
            .unwrap();
        run(&mut sh, &format!("export LC_ALL={name}")).await;
        let r = run(&mut sh, &payload(ch)).await;
        assert!(!ran_pwned(&r.output.text), "{name}: {}", r.output.text);
        assert!(
            r.output.text.ends_with(&as_shown(ch)),
            "{name}: {}",
            r.output.text
        );
        assert!(
            r.output
                .text
                .starts_with(&format!("airlock: the locale (LC_ALL={name}) joins"))
                && r.output.text.contains("it is replaced by C.UTF-8\n"),
            "{name}: said so: {}",
            r.output.text
        );
    }
}

/// A `LANG` (or `LC_CTYPE`) that joins bytes is replaced too, though a
/// safe `LC_ALL` hides it: a command that unsets `LC_ALL` must not bring it
/// back (the control: a plain bash where it does, and the substitution
/// the backslash was to keep literal runs).
#[tokio::test]
async fn a_locale_under_a_safe_lc_all_is_replaced_too() {
    if !in_locale_namespace("a_locale_under_a_safe_lc_all_is_replaced_too") {
        return;
    }
    for (name, _, _, ch) in LOCALES {
        let cmd = format!("unset LC_ALL; echo \"{ch}\\$(echo PWNED)\"; echo \"$LANG\"");
        for var in ["LANG", "LC_CTYPE"] {
            let env = [("LC_ALL", "C.UTF-8"), (var, *name)];
            let control = plain_bash(&cmd, &env);
            assert!(
                control.contains("\\PWNED\n"),
                "control {var}={name}: {control}"
            );

            let ws = tempfile::tempdir().unwrap();
            let mut cfg = config_locale(ws.path(), "C.UTF-8");
            cfg.env.push((var.into(), (*name).into()));
            let mut sh = Shell::spawn(&cfg).await.unwrap();
            let r = run(&mut sh, &cmd).await;
            let lang = if var == "LANG" { "C.UTF-8" } else { "" };
            assert_eq!(
                r.output.text,
                format!("{ch}$(echo PWNED)\n{lang}\n"),
                "{var}={name}"
            );
        }
    }
}

/// A locale set by an earlier line of the same command: the whole command
/// is read before any of it runs, so its later lines are not split
/// otherwise, and then runs under the locale it set (a program it starts
/// sees it). Not closed: bash removes quotes and expands words as it runs
/// them, under that locale, so the argument `echo` gets here is not the
/// one shown (and `"中\$(…)"` would run the substitution); from the next
/// command on the locale is replaced.
#[tokio::test]
async fn a_locale_set_inside_a_command_does_not_change_how_its_later_lines_are_read() {
    if !in_locale_namespace(
        "a_locale_set_inside_a_command_does_not_change_how_its_later_lines_are_read",
    ) {
        return;
    }
    for (name, _, _, ch) in LOCALES {
        let ws = tempfile::tempdir().unwrap();
        let mut sh = Shell::spawn(&config_locale(ws.path(), "C.UTF-8"))
            .await
            .unwrap();
        let cmd = format!("export LC_ALL={name}\n{}\nprintenv LC_ALL", payload(ch));
        let r = run(&mut sh, &cmd).await;
        assert!(!ran_pwned(&r.output.text), "{name}: {}", r.output.text);
        assert!(
            r.output.text.ends_with(&format!("\n{name}\n")),
            "{name}: {}",
            r.output.text
        );
    }
}

/// The policy refuses the command that sets such a locale itself, before
/// anyone is asked (the `misread-locale` guardrail): bash would remove
/// quotes and expand its later words under it. The control is the
/// in-command case of [`controls_bash_reads_the_payload_otherwise_under_these_locales`].
#[test]
fn a_command_that_sets_such_a_locale_is_refused() {
    let policy = Policy::new();
    for (name, _, _, ch) in LOCALES {
        for cmd in [
            format!("export LC_ALL={name}\n{}", payload(ch)),
            format!("LANG={name}; echo \"{ch}\\$(id)\""),
            format!("LC_ALL={name} bash -c {}", shell_quote(&payload(ch))),
        ] {
            let subject = Subject::Command {
                command: cmd.clone(),
            };
            let v = policy.evaluate("bash", ToolKind::Exec, &subject);
            assert_eq!(v.verdict, Verdict::Deny, "{cmd}");
            assert!(v.rule.contains("misread-locale"), "{cmd}: {}", v.rule);
        }
    }
    let plain = Subject::Command {
        command: format!("export LC_ALL=C.UTF-8\n{}", payload("中")),
    };
    let v = policy.evaluate("bash", ToolKind::Exec, &plain);
    assert_ne!(v.verdict, Verdict::Deny, "a UTF-8 locale is not refused");
}

/// A UTF-8 locale is kept as it is, for the command and its programs, and
/// `$?` still starts as the previous command's status.
#[tokio::test]
async fn a_utf8_locale_is_kept_and_the_status_carries_over() {
    let ws = tempfile::tempdir().unwrap();
    let mut sh = Shell::spawn(&config_locale(ws.path(), "C.UTF-8"))
        .await
        .unwrap();
    run(&mut sh, "(exit 3)").await;
    let r = run(
        &mut sh,
        "echo $?; echo \"$LC_ALL\"; printenv LC_ALL; echo \"${#x}\"",
    )
    .await;
    assert_eq!(r.output.text, "3\nC.UTF-8\nC.UTF-8\n0\n");
    let r = run(
        &mut sh,
        "x=é; echo ${#x}; unset LC_ALL; echo \"${LC_ALL-unset}\"",
    )
    .await;
    assert_eq!(r.output.text, "1\nunset\n");
}
