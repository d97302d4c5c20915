//! Known-safe commands that print the environment or processes' state,
//! judged at the real site: where the agent runs them itself they print
//! its own environment (its keys and tokens), so they are asked; in
//! airlock's shell, whose environment is filtered, they stay known-safe.
//! CONTROLS: each command really prints a secret of the environment it
//! runs with, and the same command is known-safe on airlock's site.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Mode, Policy};
use crate::call::{ShellEnv, ShellSite, Subject, ToolKind, Verdict, VerdictSource};
use crate::scope::Scope;

/// The variable the CONTROL puts in the environment.
const SECRET_VAR: &str = "AIRLOCK_TEST_TOKEN";
const SECRET: &str = "tok-7f3a-not-for-the-model";

struct Fixture {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    policy: Policy,
}

/// A workspace whose scope also has `/proc` as a root (so only the
/// environment rule, not the roots, can refuse `/proc/self/environ`).
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(ws.join("notes.txt"), "hello\n").unwrap();
    let scope = Scope::new(&ws, &[PathBuf::from("/proc")], &[]).unwrap();
    let policy =
        Policy::with_rules(Mode::Default, Vec::new(), &ws, true).with_scope(Arc::new(scope));
    Fixture {
        _dir: dir,
        ws,
        policy,
    }
}

fn site(cwd: &Path, env: ShellEnv) -> ShellSite {
    ShellSite {
        cwd: Some(cwd.to_path_buf()),
        hides_excluded: env == ShellEnv::Filtered,
        env,
    }
}

impl Fixture {
    fn verdict(&self, command: &str, site: &ShellSite) -> (Verdict, String) {
        let subject = Subject::Command {
            command: command.to_string(),
        };
        let v = self
            .policy
            .evaluate_at("bash", ToolKind::Exec, &subject, site);
        if v.verdict == Verdict::Allow {
            assert_eq!(v.source, VerdictSource::KnownSafe, "{command}");
        }
        (v.verdict, v.rule)
    }
}

/// CONTROL: the real bash in `cwd`, with the secret in its environment,
/// prints it for `command`.
fn prints_the_secret(cwd: &Path, command: &str) {
    let out = std::process::Command::new("bash")
        .args(["--norc", "--noprofile", "-c", command])
        .current_dir(cwd)
        .env(SECRET_VAR, SECRET)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(SECRET),
        "control: {command:?} prints the environment's secret: {text:?}"
    );
}

#[test]
fn commands_that_print_the_environment_are_known_safe_only_in_airlocks_shell() {
    let f = fixture();
    let ws = f.ws.as_path();
    let cases = [
        ("printenv", ws),
        ("printenv AIRLOCK_TEST_TOKEN", ws),
        ("env", ws),
        ("printenv | grep TOKEN", ws),
        ("cat notes.txt && env", ws),
        ("cat /proc/self/environ", ws),
        ("grep -a TOKEN /proc/self/environ", ws),
        ("cat environ", Path::new("/proc/self")),
    ];
    for (command, cwd) in cases {
        prints_the_secret(cwd, command);
        // The agent runs it with its own environment: asked.
        let (v, why) = f.verdict(command, &site(cwd, ShellEnv::Agents));
        assert_eq!(v, Verdict::Ask, "{command} on the hook site");
        assert!(
            why.contains("environment") || why.contains("process"),
            "{command}: {why}"
        );
        // CONTROL: in airlock's shell, whose environment is filtered, the
        // same command is known-safe.
        let (v, why) = f.verdict(command, &site(cwd, ShellEnv::Filtered));
        assert_eq!(v, Verdict::Allow, "{command} in airlock's shell: {why}");
    }
    // A plain read stays known-safe on the hook site.
    let (v, _) = f.verdict("cat notes.txt", &site(&f.ws, ShellEnv::Agents));
    assert_eq!(v, Verdict::Allow);
}

#[test]
fn the_rest_of_the_class_is_never_known_safe_on_the_hook_site() {
    let f = fixture();
    let hook = site(&f.ws, ShellEnv::Agents);
    // CONTROL: the builtins and `ps e` print the environment too.
    for command in ["export -p", "declare -x", "set"] {
        prints_the_secret(&f.ws, command);
    }
    for command in [
        "export -p",
        "declare -x",
        "declare -p",
        "typeset -x",
        "set",
        "ps e",
        "ps eww",
        "pgrep -a bash",
        "cat /proc/1/environ",
        "head -c 100 /proc/self/cmdline",
        "/usr/bin/printenv",
    ] {
        assert_eq!(f.verdict(command, &hook).0, Verdict::Ask, "{command}");
    }
}

#[test]
fn the_recheck_keeps_the_sites_environment() {
    let f = fixture();
    let subject = Subject::Command {
        command: "printenv".into(),
    };
    let airlock = site(&f.ws, ShellEnv::Filtered);
    let recheck = f.policy.known_safe_recheck(&subject, &airlock).unwrap();
    assert!(recheck.check(&f.ws).is_ok());
    let hook = site(&f.ws, ShellEnv::Agents);
    let recheck = f.policy.known_safe_recheck(&subject, &hook).unwrap();
    assert!(recheck.check(&f.ws).is_err());
}
