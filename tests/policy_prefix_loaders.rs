//! Prefix rules and options that run other programs: `bash(cargo test *)`
//! does not admit `cargo test --config 'build.rustc-wrapper=…'`, nor
//! `bash(git status *)` a `git -c core.fsmonitor=…`, nor a session prefix
//! grant the same. CONTROLS: the real cargo, git and make do run the
//! planted program, and the same rule allows the command without the
//! option.

use std::path::Path;
use std::process::Command;

use airlock::call::{Subject, ToolKind, Verdict};
use airlock::policy::{Action, GrantScope, Mode, Policy, Rule};

fn verdict(p: &Policy, command: &str) -> Verdict {
    let subject = Subject::Command {
        command: command.to_owned(),
    };
    p.evaluate("bash", ToolKind::Exec, &subject).verdict
}

fn policy(rules: &[&str], ws: &Path) -> Policy {
    let rules = rules
        .iter()
        .map(|r| Rule::parse(Action::Allow, r, "test.toml").unwrap())
        .collect();
    Policy::with_rules(Mode::Default, rules, ws, false)
}

fn bash(dir: &Path, script: &str) {
    Command::new("bash")
        .args(["--norc", "--noprofile", "-c", script])
        .current_dir(dir)
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap();
}

/// A program that leaves `X` next to itself and fails.
fn plant(dir: &Path) -> String {
    let evil = dir.join("evil.sh");
    std::fs::write(&evil, "#!/bin/sh\ntouch \"$(dirname \"$0\")/X\"\nexit 1\n").unwrap();
    bash(dir, "chmod +x evil.sh");
    evil.display().to_string()
}

/// (setup, rule, benign command the rule allows, attack with the planted
/// program at EVIL)
const CASES: &[(&str, &str, &str, &str)] = &[
    (
        "cargo init -q --offline --name p . 2>/dev/null || cargo init -q --name p .",
        "bash(cargo test *)",
        "cargo test --offline --release",
        "cargo test --offline --config \"build.rustc-wrapper='EVIL'\"",
    ),
    (
        "cargo init -q --offline --name p . 2>/dev/null || cargo init -q --name p .",
        "bash(cargo build *)",
        "cargo build --offline",
        "cargo build --offline --config=\"build.rustc-wrapper='EVIL'\"",
    ),
    (
        "git init -q .",
        "bash(git *)",
        "git status",
        "git -c core.fsmonitor=EVIL status",
    ),
    (
        "printf 'test:\\n\\ttrue\\n' > Makefile",
        "bash(make test *)",
        "make test",
        "make test SHELL=EVIL",
    ),
    (
        "printf 'all:\\n\\ttrue\\n' > Makefile; printf 'test:\\n\\tEVIL\\n' > other.mk",
        "bash(make *)",
        "make",
        "make -f other.mk test",
    ),
    (
        "printf 'b\\na\\n' > in",
        "bash(sort *)",
        "sort -S 1 in",
        "sort --compress-prog=EVIL -S 1 -T . in",
    ),
];

#[test]
fn prefix_rules_do_not_admit_code_loading_options() {
    for (setup, rule, benign, attack) in CASES {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        let evil = plant(ws);
        bash(ws, &setup.replace("EVIL", &evil));
        let attack = attack.replace("EVIL", &evil);
        let p = policy(&[rule], ws);
        // CONTROL: the same rule allows the command without the option.
        assert_eq!(
            verdict(&p, benign),
            Verdict::Allow,
            "{rule} allows {benign}"
        );
        assert_ne!(
            verdict(&p, &attack),
            Verdict::Allow,
            "{rule} admitted {attack}"
        );
        // A session prefix grant is held to the same.
        let words = rule
            .trim_start_matches("bash(")
            .trim_end_matches(')')
            .trim_end_matches(" *")
            .trim_end_matches('*')
            .trim();
        let g = policy(&[], ws);
        g.grant(GrantScope::Prefix(words.to_owned()), &["bash"]);
        if words.contains(' ') {
            assert_eq!(
                verdict(&g, benign),
                Verdict::Allow,
                "grant {words} allows {benign}"
            );
        }
        assert_ne!(
            verdict(&g, &attack),
            Verdict::Allow,
            "grant {words} admitted {attack}"
        );
        // CONTROL: the real program runs the planted one.
        if attack.starts_with("sort") {
            // sort only compresses big temporary files: feed it enough.
            bash(ws, "seq 1 200000 > in");
        }
        bash(ws, &attack);
        assert!(ws.join("X").exists(), "control: {attack} should run {evil}");
    }
}
