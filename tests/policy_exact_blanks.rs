//! "Always" and "for this session" on an exact command or file keep what
//! the prompt showed, to the byte: only the shell's own blanks (space, tab,
//! newline) at the ends are trimmed. Any other white space (a no-break
//! space, an em space, an ideographic space) is part of a word to bash:
//! `rm -f x\u{a0}` removes the file `x\u{a0}`, not `x`. Trimmed as Unicode
//! white space (`str::trim`, as before), the saved rule `bash(=rm -f x)`
//! allowed `rm -f x`, and the session grant covered it.
//! CONTROLS: the rules and grants made from the `str::trim`med text allow
//! the other command and file.

use std::path::Path;
use std::sync::Arc;

use airlock::call::{
    AgentInfo, CallInfo, CallView, GrantShape, Runner, Subject, ToolKind, Verdict,
};
use airlock::config::{TrustKeeper, TrustStore};
use airlock::policy::{Action, GrantScope, Mode, Policy, Rule};
use airlock::tui::prompt::choices;

/// White space that is not a shell blank, at the end of a word.
const NOT_BLANKS: [char; 4] = ['\u{a0}', '\u{2003}', '\u{3000}', '\u{85}'];

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

fn command(c: &str) -> Subject {
    Subject::Command {
        command: c.to_owned(),
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

fn saving(ws: &Path) -> Policy {
    let store = TrustStore::new(&ws.join(".test-data"));
    Policy::with_rules(Mode::Default, Vec::new(), ws, false)
        .with_save_observer(Arc::new(TrustKeeper::new(store)))
}

fn reloaded(ws: &Path) -> Policy {
    let store = TrustStore::new(&ws.join(".test-data"));
    let loaded = airlock::config::load_with(ws, None, false, &store).unwrap();
    Policy::with_rules(Mode::Default, loaded.rules, ws, false)
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
