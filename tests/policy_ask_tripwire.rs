//! Ask rules are tripwires too (red-team F6): with `allow bash` and
//! `ask bash(touch *)`, a command that hides its program (a substitution,
//! a variable, a glob, a shell reading stdin …) or that the parser cannot
//! read is asked, never allowed by the blanket rule, and the verdict says
//! why. CONTROLS: each command really runs `touch` in the real bash, the
//! ask rule itself does not match it, and without the ask rule the same
//! policy allows it.

mod policy_support;

use policy_support::{allow_bash_and_touch, evaluate, really_touches};

use airlock::call::{Verdict, VerdictSource};
use airlock::policy::{Action, Mode, Policy, Rule};

/// Commands whose program the ask rule cannot see.
const HIDDEN: &[&str] = &[
    "$(echo touch) X",
    "`echo touch` X",
    "x=touch; $x X",
    "/usr/bin/tou?h X",
    "echo touch X | sh",
    "eval \"$(printf 'touch X')\"",
    "env $(echo touch) X",
    "x=touch; bash -c \"$x X\"",
    "source <(echo touch X)",
];

/// Commands bash runs (the `touch` first) that the parser rejects.
const UNPARSEABLE: &[&str] = &[
    "touch X; for ((;;)); do break; done",
    "touch X; select x in a; do break; done </dev/null",
    "touch X\n(( ",
];

fn policy(ask: bool) -> Policy {
    allow_bash_and_touch(Action::Ask, ask)
}

/// CONTROL: the ask rule's own matching misses `command`, so without the
/// tripwire the blanket allow rule decides.
fn rule_misses(command: &str) {
    let spec = airlock::policy::shell::parse(command)
        .ok()
        .is_some_and(|p| airlock::policy::shell::specifier_matches_any("touch *", &p));
    assert!(
        !spec,
        "control: bash(touch *) itself should not see {command:?}"
    );
}

#[test]
fn commands_hiding_their_program_are_asked_under_an_ask_rule() {
    let with = policy(true);
    let without = policy(false);
    for command in HIDDEN.iter().chain(UNPARSEABLE) {
        really_touches(command);
        rule_misses(command);
        assert_eq!(
            evaluate(&without, command).verdict,
            Verdict::Allow,
            "control: without the ask rule {command:?} is allowed"
        );
        let v = evaluate(&with, command);
        assert_eq!(
            (v.verdict, &v.source),
            (Verdict::Ask, &VerdictSource::AskTripwire),
            "{command:?}: {v:?}"
        );
        assert!(
            v.rule.starts_with("asked: ") && v.rule.contains("ask rules such as bash(touch *)"),
            "{command:?}: the prompt says why: {}",
            v.rule
        );
    }
}

#[test]
fn plain_commands_follow_the_ask_and_allow_rules() {
    let with = policy(true);
    let v = evaluate(&with, "touch X");
    assert_eq!(
        (v.verdict, v.rule.as_str()),
        (Verdict::Ask, "bash(touch *)")
    );
    for command in ["ls -la", "echo hi | cat", "git status && cargo test"] {
        assert_eq!(
            evaluate(&with, command).verdict,
            Verdict::Allow,
            "{command}"
        );
    }
    // An ask rule of another tool sets no tripwire for bash.
    let other = Policy::with_rules(
        Mode::Default,
        vec![
            Rule::parse(Action::Allow, "bash", "t").unwrap(),
            Rule::parse(Action::Ask, "write_file(secret/**)", "t").unwrap(),
        ],
        std::path::Path::new("/ws"),
        false,
    );
    assert_eq!(evaluate(&other, "$(echo ls)").verdict, Verdict::Allow);
}

#[test]
fn a_deny_rule_names_its_own_tripwire_first() {
    let rules = vec![
        Rule::parse(Action::Allow, "bash", "t").unwrap(),
        Rule::parse(Action::Ask, "bash(touch *)", "t").unwrap(),
        Rule::parse(Action::Deny, "bash(rm *)", "t").unwrap(),
    ];
    let p = Policy::with_rules(Mode::Default, rules, std::path::Path::new("/ws"), false);
    let v = evaluate(&p, "$(echo touch) X");
    assert_eq!(
        (v.verdict, &v.source),
        (Verdict::Ask, &VerdictSource::DenyTripwire)
    );
    assert!(
        v.rule.contains("deny rules such as bash(rm *)"),
        "{}",
        v.rule
    );
}
