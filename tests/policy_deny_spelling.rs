//! Deny rules and spelling: with `deny bash(touch *)`, a command that
//! hides its program (a variable, substitution, glob or brace in command
//! position, a shell reading stdin, `eval` of non-literal text, a wrapper
//! given an expanded program …) is asked — never allowed, not even under
//! a blanket `allow bash` — and the verdict says why; spellings that can
//! be resolved exactly (braces, paths, quoting, literal here-strings) are
//! denied. CONTROLS: each command really runs `touch` in the real bash,
//! and without the deny rule the same policy allows it.

mod policy_support;

use std::process::Command;

use policy_support::{allow_bash_and_touch, evaluate, really_touches};

use airlock::call::Verdict;
use airlock::policy::{Action, Mode, Policy, Rule};

/// Commands whose program is not static: asked.
const ASKED: &[&str] = &[
    "/usr/bin/tou?h X",
    "/usr/bin/tou[c]h X",
    "$(echo touch) X",
    "`echo touch` X",
    "x=touch; $x X",
    "x=touch; \"${x}\" X",
    "$(printf '\\x74ouch') X",
    "echo touch X | sh",
    "echo touch X | bash -s",
    "cat <<< 'touch X' | bash",
    "printf 'touch X\\n' > s; sh < s",
    "sh <<< \"$(echo touch X)\"",
    "eval \"$(printf 'touch X')\"",
    "x='touch X'; eval \"$x\"",
    "env $(echo touch) X",
    "x=touch; nice $x X",
    "x=touch; exec $x X",
    "x=touch; command $x X",
    "x=touch; bash -c \"$x X\"",
    "echo 'touch X' | xargs -I{} sh -c {}",
    "x=touch; find . -maxdepth 0 -exec $x X \\;",
    "ln -s /usr/bin/touch touch; find . -name touch -exec {} X \\;",
    "shopt -s expand_aliases\nalias t=touch\nt X",
    "x=touch; trap \"$x X\" EXIT",
    "source <(echo touch X)",
    ". /dev/stdin <<< 'touch X'",
    "SHELL=/bin/sh; $SHELL -c 'touch X'",
];

/// Spellings resolved exactly: denied by `touch *`.
const DENIED: &[&str] = &[
    "{to,}uch X",
    "{touch,true} X",
    "/usr/bin/touch X",
    "/usr/bin/../bin/touch X",
    "t\\ouch X",
    "$'\\x74ouch' X",
    "'to'\"uch\" X",
    "sh <<< 'touch X'",
    "bash -s <<< 'touch X'",
    "sh /dev/stdin <<< 'touch X'",
    "bash - <<< 'touch X'",
    "sh <<'EOF'\ntouch X\nEOF",
    "eval 'touch X'",
    "bash -c 'touch X'",
    "echo X | xargs touch",
    "x=1; nice touch X",
];

fn policy(deny: bool) -> Policy {
    allow_bash_and_touch(Action::Deny, deny)
}

#[test]
fn non_static_programs_are_asked_with_a_reason() {
    let with = policy(true);
    let without = policy(false);
    for command in ASKED {
        really_touches(command);
        assert_eq!(
            evaluate(&without, command).verdict,
            Verdict::Allow,
            "control: without the deny rule {command:?} is allowed"
        );
        let v = evaluate(&with, command);
        assert_eq!(v.verdict, Verdict::Ask, "{command:?}: {v:?}");
        assert!(
            v.rule.starts_with("asked: ") && v.rule.contains("bash(touch *)"),
            "{command:?}: the prompt says why: {}",
            v.rule
        );
    }
}

#[test]
fn exact_spellings_are_denied() {
    let with = policy(true);
    let without = policy(false);
    for command in DENIED {
        really_touches(command);
        assert_eq!(evaluate(&without, command).verdict, Verdict::Allow);
        let v = evaluate(&with, command);
        assert_eq!(v.verdict, Verdict::Deny, "{command:?}: {v:?}");
    }
}

#[test]
fn static_commands_still_follow_the_rules() {
    let with = policy(true);
    for command in [
        "ls -la",
        "echo hi | cat",
        "git status && cargo test",
        "bash script.sh",
    ] {
        assert_eq!(
            evaluate(&with, command).verdict,
            Verdict::Allow,
            "{command}"
        );
    }
    // Without any deny rule for bash, nothing changes for dynamic commands.
    let deny_writes = Policy::with_rules(
        Mode::Default,
        vec![
            Rule::parse(Action::Allow, "bash", "t").unwrap(),
            Rule::parse(Action::Deny, "write_file(secret/**)", "t").unwrap(),
        ],
        std::path::Path::new("/ws"),
        false,
    );
    assert_eq!(evaluate(&deny_writes, "$(echo ls)").verdict, Verdict::Allow);
}

/// `rm -rf` spelled other ways: the options apart, in another order,
/// among others, by their long names, `-R` for `-r`.
const RM_SPELLINGS: &[&str] = &[
    "rm -fr X",
    "rm -r -f X",
    "rm -f -r X",
    "rm -rfv X",
    "rm -Rf X",
    "rm --recursive --force X",
    "rm --rec --force X",
    "rm -r --force X",
];

#[test]
fn deny_rules_see_options_however_they_are_spelled() {
    let rules = |deny: bool| {
        let mut r = vec![Rule::parse(Action::Allow, "bash(rm *)", "t").unwrap()];
        if deny {
            r.push(Rule::parse(Action::Deny, "bash(rm -rf *)", "t").unwrap());
        }
        Policy::with_rules(Mode::Default, r, std::path::Path::new("/ws"), false)
    };
    let (with, without) = (rules(true), rules(false));
    for command in RM_SPELLINGS {
        // CONTROL: the real rm removes a tree with a read-only file in it
        // (what -r and -f do together), and without the deny rule the
        // allow rule lets it run.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("X/d")).unwrap();
        std::fs::write(dir.path().join("X/d/f"), "x").unwrap();
        let mut perms = std::fs::metadata(dir.path().join("X/d/f"))
            .unwrap()
            .permissions();
        perms.set_readonly(true);
        std::fs::set_permissions(dir.path().join("X/d/f"), perms).unwrap();
        Command::new("bash")
            .args(["--norc", "--noprofile", "-c", command])
            .current_dir(dir.path())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(
            !dir.path().join("X").exists(),
            "control: {command:?} removes the tree"
        );
        assert_eq!(
            evaluate(&without, command).verdict,
            Verdict::Allow,
            "{command:?}"
        );
        let v = evaluate(&with, command);
        assert_eq!(v.verdict, Verdict::Deny, "{command:?}: {v:?}");
    }
    // Not recursive and forced: the deny rule does not apply.
    for command in ["rm -v -- X", "rm -r X", "rm -f X", "rm -- -rf"] {
        assert_eq!(
            evaluate(&with, command).verdict,
            Verdict::Allow,
            "{command:?}"
        );
    }
}
