//! The prompt never hides part of a call: a command longer than the prompt
//! scrolls and says so, and `y`/`s`/`a`/`e` approve nothing until its end
//! has been on screen; hidden characters are shown and flagged; a huge
//! write scrolls and states its size; every argument of any tool is shown.
//! Each has a control: the same keys on a call that fits approve at once.

mod tui_support;

use std::fmt::Write as _;
use std::sync::Arc;

use airlock::call::{ApprovedBy, Decision, Proposal, ToolKind, WriteAction};
use airlock::tui::{App, Effect, Msg};
use crossterm::event::KeyCode;
use serde_json::json;
use tui_support::*;

fn prompted(w: u16, h: u16, call: airlock::call::CallInfo) -> App {
    let mut app = app(w, h);
    app.update(Msg::Prompt {
        call,
        verdict: ask("default: exec tools ask"),
    });
    app.now = at(1000);
    app
}

fn answered(fx: &[Effect]) -> Option<Decision> {
    fx.iter().find_map(|e| match e {
        Effect::Respond { decision, .. } => Some(decision.clone()),
        _ => None,
    })
}

fn eighty_two_lines() -> String {
    format!("echo harmless{}touch X", "\n".repeat(81))
}

fn padded() -> String {
    format!("echo harmless{}; touch X", " ".repeat(20_000))
}

#[test]
fn a_command_longer_than_the_prompt_cannot_be_approved_before_its_end_is_seen() {
    for cmd in [eighty_two_lines(), padded()] {
        for (w, h) in SIZES {
            let mut app = prompted(w, h, bash(1, &cmd, "looks harmless"));
            let s = plain(&app);
            assert!(!s.contains("touch X"), "the end is below at {w}x{h}:\n{s}");
            assert!(s.contains("lines 1–"), "it says it scrolls:\n{s}");
            assert!(s.contains("j/k PgUp/PgDn to scroll"), "{s}");
            for k in ['y', 's', 'a', 'e'] {
                let fx = app.update(key(k));
                assert_eq!(answered(&fx), None, "{k} approved unseen text");
                assert_eq!(
                    app.live().unwrap().prompts.step,
                    airlock::tui::prompt::Step::Choose
                );
            }
            let s = plain(&app);
            assert!(s.contains("more lines below: scroll to the end"), "{s}");
            assert!(app.current_notice().unwrap().contains("scroll to its end"));
            app.update(key('G'));
            let s = plain(&app);
            assert!(s.contains("touch X"), "the end is on screen:\n{s}");
            assert!(s.contains("(the end)"), "{s}");
            // Scrolling back up does not undo having seen it.
            app.update(key('g'));
            let d = answered(&app.update(key('y'))).expect("approved once seen");
            assert_eq!(d, Decision::approve(ApprovedBy::User));
        }
    }
}

#[test]
fn paging_down_to_the_end_counts_as_seeing_it() {
    let mut app = prompted(80, 24, bash(1, &eighty_two_lines(), "x"));
    for _ in 0..3 {
        app.update(code(KeyCode::PageDown));
        assert_eq!(answered(&app.update(key('y'))), None);
    }
    for _ in 0..5 {
        app.update(code(KeyCode::PageDown));
    }
    assert!(plain(&app).contains("touch X"));
    assert!(answered(&app.update(key('y'))).is_some());
}

#[test]
fn control_a_command_that_fits_is_approved_at_once() {
    let mut app = prompted(80, 24, bash(1, "echo harmless; touch X", "x"));
    let s = plain(&app);
    assert!(s.contains("touch X") && !s.contains("lines 1–"), "{s}");
    assert!(answered(&app.update(key('y'))).is_some());
    // A taller screen shows 82 lines whole: no scrolling needed there.
    let mut app = prompted(120, 120, bash(1, &eighty_two_lines(), "x"));
    assert!(plain(&app).contains("touch X"));
    assert!(answered(&app.update(key('y'))).is_some());
}

#[test]
fn hidden_characters_are_shown_and_flagged() {
    let cmd = "echo safe\u{202E}gnp.exe\u{200B} \x1b[2K   ";
    let app = prompted(120, 40, bash(1, cmd, "x"));
    let s = plain(&app);
    assert!(
        s.contains("echo safe<U+202E>gnp.exe<U+200B> \\x1b[2K···"),
        "{s}"
    );
    assert!(
        s.contains("2 invisible or bidirectional-control characters"),
        "{s}"
    );
    assert!(s.contains("1 control character"), "{s}");
    assert!(s.contains("trailing whitespace on 1 line"), "{s}");
    let s = plain(&prompted(120, 40, bash(1, "echo plain", "x")));
    assert!(!s.contains("⚠"), "control: nothing to flag\n{s}");
}

#[test]
fn every_argument_of_any_tool_is_shown_whole() {
    let args = json!({
        "path": "notes.txt",
        "pattern": "line one\nline two\nline three",
        "extra": {"nested": [1, 2, 3]},
    });
    let c = call(
        1,
        "mystery_tool",
        ToolKind::Exec,
        args,
        "mystery_tool notes.txt",
    );
    let mut app = prompted(120, 40, c);
    let s = plain(&app);
    for want in [
        "path: notes.txt",
        "pattern: line one",
        "line three",
        "\"nested\"",
    ] {
        assert!(s.contains(want), "{want}:\n{s}");
    }
    assert!(answered(&app.update(key('y'))).is_some());
    // Extra arguments of a bash call too.
    let mut b = bash(2, "make", "build");
    b.args["timeout_secs"] = json!(5);
    let s = plain(&prompted(120, 40, b));
    assert!(s.contains("timeout_secs: 5"), "{s}");
}

fn big_write(lines: usize) -> airlock::call::CallInfo {
    let content: String = (1..=lines).fold(String::new(), |mut s, i| {
        let _ = writeln!(s, "line {i}");
        s
    });
    let mut diff = format!("--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,{lines} @@\n");
    for i in 1..=lines {
        let _ = writeln!(diff, "+line {i}");
    }
    let mut c = call(
        1,
        "write_file",
        ToolKind::Write,
        json!({ "path": "big.txt", "content": content }),
        "write big.txt",
    );
    c.view = airlock::call::CallView::Change;
    c.grant = airlock::tools::write::grant("/home/dev/tinytodo/big.txt".into(), "big.txt");
    c.proposal = Some(Arc::new(Proposal {
        path: "big.txt".into(),
        action: WriteAction::Create,
        diff: Some(diff),
        added: lines,
        removed: 0,
        binary: false,
        old_bytes: 0,
        new_bytes: content.len() as u64,
    }));
    c
}

#[test]
fn a_five_thousand_line_write_scrolls_states_its_size_and_waits_for_its_end() {
    let mut app = prompted(80, 24, big_write(5000));
    let s = plain(&app);
    assert!(s.contains("size  0 bytes → 47.7 KB"), "{s}");
    assert!(s.contains("5,003 lines"), "{s}");
    assert!(s.contains("of 5"), "{s}");
    assert!(!s.contains("line 5000"), "{s}");
    assert_eq!(answered(&app.update(key('y'))), None);
    app.update(code(KeyCode::End));
    let s = plain(&app);
    assert!(s.contains("+line 5000"), "{s}");
    assert!(answered(&app.update(key('y'))).is_some());
}
