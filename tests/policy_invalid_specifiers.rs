//! A deny or ask rule whose specifier cannot be read would never match: a
//! user who wrote `deny = ["read_file(secrets/[ab)"]` (a glob missing its
//! `]`) or `deny = ["bash(git push --force 'origin)"]` (a quote left open) believed it
//! protected something while every call went through. Such a rule is now
//! a load error naming the file, the line and the rule; readable rules of
//! every kind still load.
//! CONTROLS: the same rules put into a policy without the load check do
//! not deny what they were written to deny (the hole the check closes).

use std::path::Path;

use airlock::call::{Subject, ToolKind, Verdict};
use airlock::config::{TrustStore, load_with};
use airlock::policy::{Action, Mode, Policy, Rule};

/// (rule, why it cannot be read, a call it was meant to deny: tool, kind,
/// subject relative to the workspace or a command)
const UNREADABLE: &[(&str, &str, &str, ToolKind, &str)] = &[
    (
        "read_file(secrets/[ab)",
        "path pattern",
        "read_file",
        ToolKind::Read,
        "secrets/a",
    ),
    (
        "write_file(deploy/{prod)",
        "path pattern",
        "write_file",
        ToolKind::Write,
        "deploy/prod",
    ),
    (
        "bash(git push --force 'origin)",
        "bash rule",
        "bash",
        ToolKind::Exec,
        "git push --force origin",
    ),
    (
        "bash(git * push)",
        "bash rule",
        "bash",
        ToolKind::Exec,
        "git origin push",
    ),
    (
        "*('[x)",
        "neither a command",
        "read_file",
        ToolKind::Read,
        "'[x",
    ),
];

/// Load a user config file holding `deny = [rule]` (and nothing else).
fn load(ws: &Path, rule: &str) -> Result<airlock::config::LoadedConfig, String> {
    let file = ws.join("config.toml");
    let text = format!("# rules\ndeny = [{}]\n", toml_string(rule));
    std::fs::write(&file, text).unwrap();
    let trust = TrustStore::new(&ws.join(".trust"));
    load_with(ws, Some(&file), false, &trust).map_err(|e| e.to_string())
}

fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn verdict(p: &Policy, ws: &Path, tool: &str, kind: ToolKind, target: &str) -> Verdict {
    let subject = if kind == ToolKind::Exec {
        Subject::Command {
            command: target.to_string(),
        }
    } else {
        Subject::Paths {
            paths: vec![ws.join(target)],
        }
    };
    p.evaluate(tool, kind, &subject).verdict
}

#[test]
fn an_unreadable_specifier_is_a_load_error_naming_the_rule() {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    for (rule, why, ..) in UNREADABLE {
        let err = load(&ws, rule).expect_err(rule);
        assert!(err.contains(&format!("(rule {rule:?})")), "{rule}: {err}");
        assert!(err.contains(why), "{rule}: {err}");
        assert!(err.contains("config.toml:2"), "the line: {err}");
        assert!(err.contains("would never match"), "{rule}: {err}");
    }
}

#[test]
fn readable_rules_of_every_kind_still_load_and_deny() {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    for (rule, tool, kind, target) in [
        (
            "read_file(secrets/**)",
            "read_file",
            ToolKind::Read,
            "secrets/a",
        ),
        ("read_file(=.env)", "read_file", ToolKind::Read, ".env"),
        (
            "write_file(deploy/{prod,stage}/**)",
            "write_file",
            ToolKind::Write,
            "deploy/prod/x",
        ),
        (
            "bash(git push *)",
            "bash",
            ToolKind::Exec,
            "git push origin",
        ),
        ("bash(=rm -f *)", "bash", ToolKind::Exec, "rm -f *"),
        ("*(**/.ssh/**)", "cat", ToolKind::Read, "home/.ssh/id"),
        ("*(curl *)", "bash", ToolKind::Exec, "curl example.org"),
        (
            "my_mcp_tool(anything at all)",
            "read_file",
            ToolKind::Read,
            "x",
        ),
    ] {
        let loaded = load(&ws, rule).unwrap_or_else(|e| panic!("{rule}: {e}"));
        let p = Policy::with_rules(Mode::Default, loaded.rules, &ws, false);
        if !rule.starts_with("my_mcp_tool") {
            assert_eq!(
                verdict(&p, &ws, tool, kind, target),
                Verdict::Deny,
                "{rule}"
            );
        }
    }
}

#[test]
fn control_without_the_check_the_rules_deny_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    for (rule, _, tool, kind, target) in UNREADABLE {
        let parsed = Rule::parse(Action::Deny, rule, "control").unwrap();
        let p = Policy::with_rules(Mode::Default, vec![parsed], &ws, false);
        assert_ne!(
            verdict(&p, &ws, tool, *kind, target),
            Verdict::Deny,
            "{rule} would have denied it after all"
        );
    }
}
