//! Deny and ask rules and options before the subcommand (review F3): with
//! `deny bash(git push *)`, `git --no-pager push`, `git -P push --force`,
//! `git -C . push`, `git -c k=v push`, `git -c alias.p=push p` are denied
//! too; the same for `cargo
//! -q publish`, `cargo +stable publish`, `npm --silent publish`, `kubectl
//! -n prod delete`, `docker --log-level debug rm` under their rules, and
//! README's `ask bash(cargo publish *)` asks for them. Allow rules do not
//! get broader: `allow bash(git push *)` does not admit `git --no-pager
//! push`.
//! CONTROLS: without the rule the same policy allows each command, and
//! the real program does reach the subcommand (git pushes to a local
//! remote; cargo, npm, kubectl and docker print the subcommand's help).

use std::path::Path;
use std::process::Command;

use airlock::call::{Subject, ToolKind, Verdict};
use airlock::policy::{Action, Mode, Policy, Rule};

fn verdict(p: &Policy, command: &str) -> Verdict {
    let subject = Subject::Command {
        command: command.to_owned(),
    };
    p.evaluate("bash", ToolKind::Exec, &subject).verdict
}

/// `allow bash`, and `rule` as `action` when there is one.
fn policy(rule: Option<(Action, &str)>) -> Policy {
    let mut rules = vec![Rule::parse(Action::Allow, "bash", "test.toml").unwrap()];
    if let Some((action, text)) = rule {
        rules.push(Rule::parse(action, text, "test.toml").unwrap());
    }
    Policy::with_rules(Mode::Default, rules, Path::new("/ws"), false)
}

/// (rule, command with options before or between the subcommand words,
/// what the real program prints for the command with `--help` added).
const CASES: &[(&str, &str, &str)] = &[
    (
        "bash(cargo publish *)",
        "cargo -q publish",
        "Upload a package",
    ),
    (
        "bash(cargo publish *)",
        "cargo +stable publish",
        "Upload a package",
    ),
    (
        "bash(cargo publish *)",
        "cargo --color never publish",
        "Upload a package",
    ),
    (
        "bash(npm publish *)",
        "npm --silent publish",
        "Publish a package",
    ),
    (
        "bash(npm publish *)",
        "npm --prefix /tmp/x publish",
        "Publish a package",
    ),
    (
        "bash(kubectl delete *)",
        "kubectl -n prod delete pod x",
        "Delete resources",
    ),
    (
        "bash(kubectl delete pod *)",
        "kubectl delete -n prod pod x",
        "Delete resources",
    ),
    (
        "bash(kubectl delete *)",
        "kubectl --namespace=prod delete pod x",
        "Delete resources",
    ),
    (
        "bash(docker rm *)",
        "docker --log-level debug rm -f x",
        "Remove one or more containers",
    ),
    (
        "bash(docker rm *)",
        "docker -H unix:///nonexistent rm x",
        "Remove one or more containers",
    ),
];

fn installed(program: &str) -> bool {
    Command::new(program).arg("--version").output().is_ok()
}

#[test]
fn deny_and_ask_rules_see_past_global_options() {
    for (rule, command) in CASES
        .iter()
        .map(|(r, c, _)| (r, c))
        .chain(GIT_PUSHES.iter().map(|c| (&"bash(git push *)", c)))
    {
        assert_eq!(
            verdict(&policy(Some((Action::Deny, rule))), command),
            Verdict::Deny,
            "deny {rule}: {command}"
        );
        assert_eq!(
            verdict(&policy(Some((Action::Ask, rule))), command),
            Verdict::Ask,
            "ask {rule}: {command}"
        );
        // CONTROL: without the rule, the same policy allows it.
        assert_eq!(verdict(&policy(None), command), Verdict::Allow, "{command}");
        // Allow rules do not get broader.
        let only = Rule::parse(Action::Allow, rule, "test.toml").unwrap();
        let p = Policy::with_rules(Mode::Default, vec![only], Path::new("/ws"), false);
        assert_ne!(
            verdict(&p, command),
            Verdict::Allow,
            "allow {rule}: {command}"
        );
    }
}

#[test]
fn the_real_programs_reach_the_subcommand() {
    for (rule, command, marker) in CASES {
        let program = command.split(' ').next().unwrap();
        if !installed(program) {
            eprintln!("skipped: {program} is not installed");
            continue;
        }
        let help = format!("{command} --help");
        assert_eq!(
            verdict(&policy(Some((Action::Deny, rule))), &help),
            Verdict::Deny,
            "{help}"
        );
        let out = Command::new("bash")
            .args(["--norc", "--noprofile", "-c", &help])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(marker), "control: {help} printed {text}");
    }
}

/// Pushes with options before `push`, each to `origin` (a bare
/// repository next to the workspace).
const GIT_PUSHES: &[&str] = &[
    "git --no-pager push origin HEAD:main",
    "git -P push --force origin HEAD:main",
    "git -C . push origin HEAD:main",
    "git -c push.default=current push origin HEAD:main",
    "git --git-dir=.git push origin HEAD:main",
    "git --no-pager -c x.y=z push origin HEAD:main",
    "git -c alias.p=push p origin HEAD:main",
    "git -c alias.p='!git push' p origin HEAD:main",
];

#[test]
fn git_really_pushes_with_options_before_the_subcommand() {
    for command in GIT_PUSHES {
        let dir = tempfile::tempdir().unwrap();
        let run = |script: &str| {
            Command::new("bash")
                .args(["--norc", "--noprofile", "-c", script])
                .current_dir(dir.path())
                .env("HOME", dir.path())
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .output()
                .unwrap()
        };
        run("git init -q --bare remote.git && git init -q ws && cd ws \
             && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x \
             && git remote add origin ../remote.git");
        assert_eq!(
            verdict(&policy(Some((Action::Deny, "bash(git push *)"))), command),
            Verdict::Deny,
            "{command}"
        );
        // CONTROL: the real git pushes.
        run(&format!("cd ws && {command}"));
        let refs = run("git --git-dir=remote.git show-ref");
        assert!(
            String::from_utf8_lossy(&refs.stdout).contains("refs/heads/main"),
            "control: {command} should push"
        );
    }
}
