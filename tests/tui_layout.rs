//! Layout at 80×24 and up: the status bar gives way with an ellipsis, the
//! prompt's lines never wrap into stray fragments, keys the help lists work
//! where it says, and the small words are right.

mod tui_support;

use airlock::tui::{Focus, Msg};
use crossterm::event::KeyCode;
use std::fmt::Write as _;
use tui_support::*;

fn rows(s: &str) -> Vec<String> {
    s.lines().map(|l| l.trim_matches('"').to_string()).collect()
}

#[test]
fn the_status_bar_gives_way_with_an_ellipsis_and_no_socket_path() {
    for w in [80u16, 120, 160] {
        let mut app = busy_app(w, 24);
        app.header.workspace =
            "/home/dev/projects/a-rather-long-client-name/services/billing-api".into();
        let s = plain(&app);
        let r = rows(&s);
        let first = &r[r.len() - 2];
        assert!(
            !s.contains("socket /run"),
            "the socket path is in the help:\n{s}"
        );
        if first.contains("connect") {
            assert!(
                first.contains("airlock connect"),
                "never a fragment: {first}"
            );
        }
    }
    // A path longer than the bar is cut with an ellipsis, never mid-word
    // without one.
    let mut app = busy_app(80, 24);
    app.header.workspace = format!("/home/dev/{}", "very-long-directory/".repeat(5)).into();
    let s = plain(&app);
    let r = rows(&s);
    let first = &r[r.len() - 2];
    assert!(first.ends_with('…'), "{first:?}");
    let mut app = busy_app(160, 48);
    app.update(key('?'));
    let s = plain(&app);
    assert!(
        s.contains("/run/user/1000/airlock/5f1c0de2a9b7.sock"),
        "{s}"
    );
}

#[test]
fn the_bash_prompts_cwd_never_leaves_a_stray_fragment() {
    let mut app = app(80, 24);
    app.header.workspace = "/home/dev/projects/a-long-client-name/services/billing-api".into();
    app.update(Msg::Prompt {
        call: bash(1, "make", "build"),
        verdict: ask("default: exec tools ask"),
    });
    let s = plain(&app);
    assert!(s.contains("(the agent's shell starts here)"), "{s}");
    for r in rows(&s) {
        let inner = r.trim_matches(|c| c == '│' || c == ' ');
        assert!(
            inner != ")" && !inner.starts_with("here)"),
            "stray fragment in:\n{s}"
        );
    }
}

#[test]
fn g_and_end_reach_the_end_of_the_detail_pane() {
    let mut app = busy_app(80, 24);
    let long: String = (1..=200).fold(String::new(), |mut s, i| {
        let _ = writeln!(s, "line {i}");
        s
    });
    read_ok(
        &mut app,
        call(
            20,
            "cat",
            airlock::call::ToolKind::Read,
            serde_json::json!({"path": "x"}),
            "cat x",
        ),
        &long,
    );
    app.focus = Focus::Detail;
    app.update(key('G'));
    assert!(plain(&app).contains("line 200"), "G");
    app.update(key('g'));
    assert!(!plain(&app).contains("line 200"));
    app.update(code(KeyCode::End));
    assert!(plain(&app).contains("line 200"), "End");
}

#[test]
fn small_words() {
    // Quitting with one call waiting: singular, and it says cancel.
    let mut app = busy_app(80, 24);
    app.update(Msg::Prompt {
        call: bash(10, "make", "build"),
        verdict: ask("default: exec tools ask"),
    });
    app.now = at(1000);
    app.update(key('q'));
    let s = plain(&app);
    assert!(s.contains("1 call waits for your answer"), "{s}");
    assert!(
        s.contains("cancels the waiting calls") && !s.contains("call(s)"),
        "{s}"
    );
    // After a revoke: none left, not "yet".
    let mut app = busy_app(80, 24);
    let policy = airlock::policy::Policy::with_rules(
        airlock::policy::Mode::Default,
        vec![],
        std::path::Path::new("/home/dev/tinytodo"),
        false,
    );
    app.update(Msg::Grants(vec![policy.grant(
        airlock::policy::GrantScope::Prefix("cargo test".into()),
        &["bash"],
    )]));
    app.update(Msg::Grants(vec![]));
    app.update(key('r'));
    let s = plain(&app);
    assert!(s.contains("No grants left"), "{s}");
    // The audit pane does not cut record types.
    let mut app = busy_app(80, 24);
    app.update(Msg::Audit(vec![airlock::tui::records::AuditLine {
        seq: 8,
        time: "03:03:05".into(),
        kind: "agent_disconnected".into(),
        text: "agent claude-code disconnected".into(),
        tone: airlock::tui::records::Tone::Plain,
    }]));
    let s = plain(&app);
    assert!(s.contains("   9 03:03:05 agent_disconnected "), "{s}");
}

#[test]
fn the_demo_says_when_it_is_over() {
    let mut app = busy_app(80, 24);
    app.header.label = Some("demo".into());
    core(
        &mut app,
        vec![airlock::call::Event::AgentDisconnected(agent())],
    );
    app.now = at(60_000);
    let s = plain(&app);
    assert!(s.contains("The demo is over"), "{s}");
    assert!(s.contains("airlock review --last"), "{s}");
}
