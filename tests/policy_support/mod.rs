//! Shared by the bash policy tests: a policy from rules, a command's
//! verdict, and the control that real bash runs `touch X` for a command.
#![allow(dead_code)]

use std::process::Command;

use airlock::call::{PolicyVerdict, Subject, ToolKind, Verdict};
use airlock::policy::{Action, Mode, Policy, Rule};

/// A default-mode policy over `/ws` with `rules` (from `test.toml`).
pub fn policy_of(rules: &[(Action, &str)], read_only: bool) -> Policy {
    let rules = rules
        .iter()
        .map(|(a, r)| Rule::parse(*a, r, "test.toml").unwrap())
        .collect();
    Policy::with_rules(Mode::Default, rules, std::path::Path::new("/ws"), read_only)
}

/// `allow = ["bash"]`, plus `action` on `bash(touch *)` when `with`.
pub fn allow_bash_and_touch(action: Action, with: bool) -> Policy {
    let mut rules = vec![(Action::Allow, "bash")];
    if with {
        rules.push((action, "bash(touch *)"));
    }
    policy_of(&rules, false)
}

/// The policy's verdict on bash running `command`.
pub fn evaluate(p: &Policy, command: &str) -> PolicyVerdict {
    let subject = Subject::Command {
        command: command.to_owned(),
    };
    p.evaluate("bash", ToolKind::Exec, &subject)
}

/// Just the verdict.
pub fn verdict(p: &Policy, command: &str) -> Verdict {
    evaluate(p, command).verdict
}

/// CONTROL: the real bash runs `touch X` for `command`.
pub fn really_touches(command: &str) {
    really_touches_after("", command);
}

/// CONTROL: the real bash runs `touch X` for `command`, run after `setup`
/// (lines of its own) in a fresh directory.
pub fn really_touches_after(setup: &str, command: &str) {
    let dir = tempfile::tempdir().unwrap();
    let script = format!("{setup}{command}");
    Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &script])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        dir.path().join("X").exists(),
        "control: {command:?} should run touch X in real bash"
    );
}
