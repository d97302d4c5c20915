//! "Always → this exact command" saves a rule that matches that command
//! only (review F7): approving exactly `rm -f *` (or `git add *`, or `rm
//! -rf build # *`, whose trailing comment an agent adds to get a ` *`)
//! saves `bash(=…)`, which the prompt shows as it will be saved, which
//! round-trips through `.airlock.toml`, and which allows the identical
//! command and nothing else. "Always" on a write saves `write_file(=…)`:
//! a file named `*` or `~/x` is not a pattern either.
//! CONTROLS: the same command saved as a plain rule (`bash(rm -f *)`,
//! what was saved before) allows `rm -f ../../anything`; the same file name
//! as a plain path rule allows writes to other files.
//!
//! Exact means to the byte: only the shell's own blanks (space, tab,
//! newline) at the ends are trimmed. Any other white space (a no-break
//! space, an em space, an ideographic space) is part of a word to bash:
//! `rm -f x\u{a0}` removes the file `x\u{a0}`, not `x`. Trimmed as Unicode
//! white space (`str::trim`, as before), the saved rule `bash(=rm -f x)`
//! allowed `rm -f x`, and the session grant covered it. CONTROLS: the rules
//! and grants made from the `str::trim`med text allow the other command
//! and file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use airlock::call::{
    AgentInfo, CallInfo, CallView, GrantShape, Runner, Subject, ToolKind, Verdict,
};
use airlock::config::{TrustKeeper, TrustStore};
use airlock::policy::{Action, GrantScope, Mode, Policy, Rule};
use airlock::tui::prompt::choices;

fn call(grant: GrantShape) -> CallInfo {
    CallInfo {
        id: 1,
        agent: AgentInfo {
            id: 1,
            name: "a".into(),
            version: None,
        },
        tool: "bash".into(),
        kind: None,
        args: serde_json::json!({}),
        summary: String::new(),
        received_at: chrono::DateTime::UNIX_EPOCH,
        runner: Runner::default(),
        view: CallView::default(),
        edit: None,
        grant,
        proposal: None,
    }
}

fn bash_verdict(p: &Policy, c: &str) -> Verdict {
    p.evaluate("bash", ToolKind::Exec, &command(c)).verdict
}

fn write_verdict(p: &Policy, path: &Path) -> Verdict {
    let subject = Subject::Paths {
        paths: vec![path.to_path_buf()],
    };
    p.evaluate("write_file", ToolKind::Write, &subject).verdict
}

fn command(c: &str) -> Subject {
    Subject::Command {
        command: c.to_owned(),
    }
}

/// White space that is not a shell blank, at the end of a word.
const NOT_BLANKS: [char; 4] = ['\u{a0}', '\u{2003}', '\u{3000}', '\u{85}'];

/// The trust store of the test's data directory (inside `ws`).
fn store(ws: &Path) -> TrustStore {
    TrustStore::new(&ws.join(".test-data"))
}

/// A session's policy for `ws`: what "always" saves is kept in the trust
/// store, as `session::start` wires it.
fn saving(ws: &Path) -> Policy {
    Policy::with_rules(Mode::Default, Vec::new(), ws, false)
        .with_save_observer(Arc::new(TrustKeeper::new(store(ws))))
}

/// The rules of `ws`'s `.airlock.toml` as a fresh session reads them.
fn reloaded(ws: &Path) -> Policy {
    let loaded = airlock::config::load_with(ws, None, false, &store(ws)).unwrap();
    Policy::with_rules(Mode::Default, loaded.rules, ws, false)
}

/// (exact command approved "always", other commands it must not allow)
const COMMANDS: &[(&str, &[&str])] = &[
    (
        "rm -f *",
        &["rm -f ../../anything", "rm -f * ../x", "rm -f"],
    ),
    ("git add *", &["git add ../x", "git add -A"]),
    (
        "rm -rf build # *",
        &["rm -rf build /home/u/project", "rm -rf build"],
    ),
    (
        "echo \"a'b\" '\"c\"' \\\\ # \"\"\" ''' *",
        &["echo \"a'b\" '\"c\"' \\\\ x"],
    ),
    ("printf '%s\\n' x\t*", &["printf '%s\\n' x y"]),
];

#[test]
fn always_this_exact_command_matches_it_only() {
    for (command, others) in COMMANDS {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        let c = choices(&call(airlock::tools::bash::grant(command)));
        let shown = &c[0].rules;
        assert_eq!(c[0].label, "this exact command");
        assert_eq!(shown.len(), 1);
        let policy = saving(ws);
        let saved = policy.always(Action::Allow, &shown[0]).unwrap();
        // The prompt shows exactly the rule it saves, and the file holds it.
        assert_eq!(&saved.text(), &shown[0]);
        let fresh = reloaded(ws);
        let texts: Vec<String> = fresh.rules().iter().map(Rule::text).collect();
        assert!(texts.contains(&shown[0]), "{texts:?} lacks {}", shown[0]);
        for p in [&policy, &fresh] {
            assert_eq!(bash_verdict(p, command), Verdict::Allow, "{command}");
            for other in *others {
                assert_ne!(
                    bash_verdict(p, other),
                    Verdict::Allow,
                    "{shown:?} allowed {other}"
                );
            }
        }
        // CONTROL: the command as a plain rule, as it was saved before.
        let plain = Rule::parse(Action::Allow, &format!("bash({command})"), "t").unwrap();
        let old = Policy::with_rules(Mode::Default, vec![plain], ws, false);
        let widened = others
            .iter()
            .any(|o| bash_verdict(&old, o) == Verdict::Allow);
        if command.trim_end().ends_with('*') {
            assert!(widened, "control: bash({command}) should allow more");
        }
    }
}

#[test]
fn always_this_file_matches_it_only() {
    for name in ["*", "**", "src/*.rs", "~/notes", "a.rs", "[ab]"] {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        let path = ws.join(name);
        let c = choices(&call(airlock::tools::write::grant(path.clone(), name)));
        let policy = saving(&ws);
        for rule in &c[0].rules {
            policy.always(Action::Allow, rule).unwrap();
        }
        let fresh = reloaded(&ws);
        let others: Vec<PathBuf> = ["sub/a.rs", "b", "src/b.rs"]
            .iter()
            .map(|o| ws.join(o))
            .collect();
        for p in [&policy, &fresh] {
            assert_eq!(write_verdict(p, &path), Verdict::Allow, "{name}");
            for o in &others {
                assert_ne!(write_verdict(p, o), Verdict::Allow, "{name} allowed {o:?}");
            }
        }
        // CONTROL: the name as a plain path rule covers more.
        let plain = Rule::parse(Action::Allow, &format!("write_file({name})"), "t").unwrap();
        let old = Policy::with_rules(Mode::Default, vec![plain], &ws, false);
        let widened = others
            .iter()
            .any(|p| write_verdict(&old, p) == Verdict::Allow);
        if let Some(rest) = name.strip_prefix("~/") {
            // The plain rule means a file in the home directory instead.
            let home = PathBuf::from(std::env::var_os("HOME").unwrap()).join(rest);
            assert_eq!(
                write_verdict(&old, &home),
                Verdict::Allow,
                "control: {name}"
            );
            assert_ne!(write_verdict(&fresh, &home), Verdict::Allow, "{name}");
        } else {
            assert!(widened, "control: write_file({name}) should allow more");
        }
    }
}

#[test]
fn always_this_exact_command_keeps_white_space_that_is_part_of_a_word() {
    for ws_char in NOT_BLANKS {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        let approved = format!("rm -f x{ws_char}");
        let c = choices(&call(airlock::tools::bash::grant(&approved)));
        assert_eq!(c[0].label, "this exact command");
        let shown = &c[0].rules[0];
        assert!(shown.ends_with(&format!("x{ws_char})")), "{shown:?}");
        let policy = saving(ws);
        let saved = policy.always(Action::Allow, shown).unwrap();
        assert_eq!(&saved.text(), shown, "saved as shown");
        for p in [&policy, &reloaded(ws)] {
            assert_eq!(bash_verdict(p, &approved), Verdict::Allow, "{approved:?}");
            assert_ne!(bash_verdict(p, "rm -f x"), Verdict::Allow, "{shown:?}");
        }
        // CONTROL: the rule made from the `str::trim`med command.
        let old = Rule::parse(Action::Allow, &format!("bash(={})", approved.trim()), "t").unwrap();
        let old = Policy::with_rules(Mode::Default, vec![old], ws, false);
        assert_eq!(bash_verdict(&old, "rm -f x"), Verdict::Allow, "control");
    }
}

#[test]
fn this_exact_command_for_the_session_covers_that_word_only() {
    for ws_char in NOT_BLANKS {
        let approved = format!("rm -f x{ws_char}");
        let grant = GrantScope::ExactCommand(approved.clone());
        assert!(grant.covers(ToolKind::Exec, &command(&approved)));
        assert!(grant.covers(ToolKind::Exec, &command(&format!(" {approved}\n"))));
        assert!(
            !grant.covers(ToolKind::Exec, &command("rm -f x")),
            "{approved:?}"
        );
        // CONTROL: the grant as `str::trim` compared it.
        assert_eq!(approved.trim(), "rm -f x", "control");
    }
}

#[test]
fn shell_blanks_at_the_ends_are_still_trimmed() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    let c = choices(&call(airlock::tools::bash::grant("  rm -f x \t\n")));
    let shown = &c[0].rules[0];
    assert_eq!(shown, "bash(=rm -f x)");
    let policy = saving(ws);
    policy.always(Action::Allow, shown).unwrap();
    assert_eq!(bash_verdict(&policy, "rm -f x"), Verdict::Allow);
    assert_eq!(bash_verdict(&policy, "rm -f x  "), Verdict::Allow);
}

#[test]
fn an_exact_file_rule_keeps_white_space_that_is_part_of_the_name() {
    for ws_char in NOT_BLANKS {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        let name = format!("notes{ws_char}");
        let rule = Rule::parse(Action::Allow, &format!("write_file(={name})"), "t").unwrap();
        assert_eq!(rule.text(), format!("write_file(={name})"));
        let p = Policy::with_rules(Mode::Default, vec![rule], &ws, false);
        assert_eq!(write_verdict(&p, &ws.join(&name)), Verdict::Allow);
        assert_ne!(
            write_verdict(&p, &ws.join("notes")),
            Verdict::Allow,
            "{name:?}"
        );
        // CONTROL: the rule as `str::trim` read it.
        let old =
            Rule::parse(Action::Allow, &format!("write_file(={})", name.trim()), "t").unwrap();
        let old = Policy::with_rules(Mode::Default, vec![old], &ws, false);
        assert_eq!(
            write_verdict(&old, &ws.join("notes")),
            Verdict::Allow,
            "control"
        );
    }
}
