//! `airlock review`'s behaviour, key by key: the filter, the jumps to the
//! next denied or failed call, the banners of an edited or torn trail, and
//! that no key does anything but move, filter and quit. On the fixed trail
//! and on one written by the real pipeline.

mod log_support;
mod review_support;

use airlock::tui::{App, Effect, Focus, Msg};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use ratatui::style::Color;
use review_support::*;

fn key(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn code(c: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(c, KeyModifiers::NONE))
}

fn type_text(app: &mut App, s: &str) {
    for c in s.chars() {
        assert!(app.update(key(c)).is_empty());
    }
}

/// The ids of the calls in the calls pane's list, in order.
fn listed(app: &App) -> Vec<u64> {
    let (first, end) = app.calls_span();
    (first..end)
        .map(|v| app.calls.get(app.call_pos(v).unwrap()).unwrap().info.id)
        .collect()
}

fn filter(app: &mut App, text: &str) -> Vec<u64> {
    app.update(key('/'));
    app.update(Msg::Key(KeyEvent::new(
        KeyCode::Char('u'),
        KeyModifiers::CONTROL,
    )));
    type_text(app, text);
    app.update(code(KeyCode::Enter));
    listed(app)
}

/// The ids `n` (or `N`) stops at, `count` presses.
fn jumps(app: &mut App, k: char, count: usize) -> Vec<u64> {
    (0..count)
        .map(|_| {
            app.update(key(k));
            selected_id(app).unwrap()
        })
        .collect()
}

/// Row `y` of the screen, and the background of its first cells.
fn row(app: &App, y: u16) -> (String, Option<Color>) {
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(
        app.size.width,
        app.size.height,
    ))
    .unwrap();
    t.draw(|f| airlock::tui::draw(f, app)).unwrap();
    let buf = t.backend().buffer();
    let text: String = (0..app.size.width)
        .map(|x| buf[(x, y)].symbol().to_string())
        .collect();
    (text, Some(buf[(2, y)].bg))
}

#[test]
fn slash_filters_on_text_who_and_decision_and_esc_clears() {
    let (_d, path) = trail();
    let mut app = review(&path, 80, 24);
    assert_eq!(listed(&app), (1..=12).collect::<Vec<_>>());
    assert_eq!(filter(&mut app, "rm -rf"), [6, 10], "the command");
    assert_eq!(selected_id(&app), Some(6), "the first match after #1");
    assert!(
        app.current_notice()
            .unwrap()
            .contains("2 of 12 calls match")
    );
    assert_eq!(
        filter(&mut app, "BY YOU"),
        [3, 4, 6, 8, 10],
        "who, any case"
    );
    assert_eq!(selected_id(&app), Some(6), "the selection stays");
    assert_eq!(filter(&mut app, "exit code: 101"), [9], "the output");
    assert_eq!(filter(&mut app, "bash(curl"), [7], "the rule");
    assert_eq!(filter(&mut app, "timeout"), [11], "the decision");
    assert_eq!(filter(&mut app, "build/tmp"), [10], "the edited command");
    assert_eq!(filter(&mut app, "excluded by pattern"), [5], "the reason");
    assert_eq!(filter(&mut app, "sed -i"), [3], "the diff");
    assert_eq!(filter(&mut app, "edit_file"), [3], "the tool");
    assert!(filter(&mut app, "no such thing").is_empty());
    assert_eq!(app.selected_call(), None);
    assert!(app.current_notice().unwrap().contains("no call matches"));
    app.update(code(KeyCode::Esc));
    assert_eq!(listed(&app).len(), 12, "Esc clears");
    filter(&mut app, "rm -rf");
    app.update(key('j'));
    assert_eq!(selected_id(&app), Some(10));
    // `/` reopens the field with the filter; Esc in it clears the filter.
    app.update(key('/'));
    assert_eq!(
        app.review().unwrap().typing.as_ref().unwrap().text(),
        "rm -rf"
    );
    app.update(code(KeyCode::Esc));
    assert!(app.review().unwrap().filter.is_none());
    assert_eq!(selected_id(&app), Some(10), "still on the same call");
}

#[test]
fn keys_typed_into_the_filter_are_text() {
    let (_d, path) = trail();
    let mut app = review(&path, 80, 24);
    app.update(key('/'));
    for k in ['q', 'j', 'n', 'G', '?'] {
        assert!(app.update(key(k)).is_empty());
    }
    assert!(!app.quit);
    assert_eq!(selected_id(&app), Some(1));
    assert_eq!(
        app.review().unwrap().typing.as_ref().unwrap().text(),
        "qjnG?"
    );
    app.update(Msg::Paste("sleep".into()));
    app.update(code(KeyCode::Enter));
    assert!(listed(&app).is_empty(), "qjnG?sleep matches nothing");
}

#[test]
fn n_and_shift_n_jump_between_denied_blocked_refused_timed_out_and_failed_calls() {
    let (_d, path) = trail();
    let mut app = review(&path, 80, 24);
    assert_eq!(jumps(&mut app, 'n', 5), [5, 6, 7, 9, 11]);
    assert_eq!(app.current_notice(), None);
    assert_eq!(jumps(&mut app, 'n', 1), [5], "wraps to the top");
    assert!(app.current_notice().unwrap().contains("wrapped"));
    assert_eq!(jumps(&mut app, 'N', 2), [11, 9], "N goes back, wrapping");
    assert_eq!(jumps(&mut app, ']', 1), [11]);
    assert_eq!(jumps(&mut app, '[', 1), [9]);
    // Within a filter: only the matches count.
    filter(&mut app, "rm -rf");
    assert_eq!(jumps(&mut app, 'n', 2), [6, 6]);
    assert!(app.current_notice().unwrap().contains("only"));
    filter(&mut app, "README");
    app.update(key('n'));
    assert!(app.current_notice().unwrap().contains("no denied"));
}

#[test]
fn the_selected_call_brings_its_records_into_the_audit_pane() {
    let (_d, path) = trail();
    let mut app = review(&path, 160, 48);
    app.update(key('n'));
    app.update(key('n'));
    assert_eq!(selected_id(&app), Some(6));
    let (first, end) = app.audit_span();
    assert_eq!((first, end), (0, 41));
    let top = app.audit_view.window(first, end, 10).0;
    let line = app.audit_line(top).unwrap();
    assert_eq!(line.kind, "call_requested");
    assert!(line.text.starts_with("#6 bash rm -rf build"), "{line:?}");
    // The audit pane scrolls over every line of the trail.
    app.update(code(KeyCode::Tab));
    app.update(code(KeyCode::Tab));
    assert_eq!(app.focus, Focus::Audit);
    app.update(key('G'));
    let last = app.audit_view.selection(first, end).unwrap();
    assert_eq!(app.audit_line(last).unwrap().kind, "session_end");
}

#[test]
fn the_mouse_wheel_scrolls_the_pane_under_it() {
    let (_d, path) = trail();
    let mut app = review(&path, 80, 24);
    let wheel = |row| {
        Msg::Mouse(MouseEvent {
            kind: MouseEventKind::ScrollDown,
            column: 10,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    app.update(wheel(3));
    assert_eq!(selected_id(&app), Some(4), "calls: three down");
    let before = app.audit_view;
    app.update(wheel(18));
    assert_ne!(app.audit_view, before, "the audit pane moved");
    assert_eq!(selected_id(&app), Some(4));
}

#[test]
fn nothing_but_quitting_comes_out_of_a_review() {
    let (_d, path) = trail();
    let before = std::fs::read(&path).unwrap();
    let mut app = review(&path, 80, 24);
    let mut keys: Vec<Msg> = "yYsaeErdxnN[]jkgG1234 ".chars().map(key).collect();
    keys.extend(
        [
            KeyCode::Enter,
            KeyCode::Esc,
            KeyCode::Tab,
            KeyCode::BackTab,
            KeyCode::PageDown,
            KeyCode::PageUp,
            KeyCode::Delete,
        ]
        .map(code),
    );
    for k in keys {
        let fx = app.update(k);
        assert!(fx.is_empty(), "{fx:?}");
    }
    assert!(app.prompt_pane().is_none() && app.overlay.is_none() && !app.quit);
    assert_eq!(app.update(key('q')), [Effect::Quit]);
    assert!(app.quit);
    let mut app = review(&path, 80, 24);
    app.update(Msg::Key(KeyEvent::new(
        KeyCode::Char('c'),
        KeyModifiers::CONTROL,
    )));
    assert!(app.quit, "Ctrl-C quits");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the trail is untouched"
    );
}

#[test]
fn the_status_bar_says_review_and_whether_the_chain_verifies() {
    let (_d, path) = trail();
    let app = review(&path, 160, 48);
    let (top, _) = row(&app, 45);
    assert!(top.contains("REVIEW · read-only"), "{top}");
    assert!(top.contains("/home/dev/tinytodo"), "{top}");
    assert!(top.contains("2026-01-02 03:04:05"), "{top}");
    assert!(top.contains("5m01s"), "{top}");
    assert!(top.contains("ended: the user quit"), "{top}");
    let (ok, bg) = row(&app, 46);
    assert!(ok.contains("✓ hash chain verified: 41 records"), "{ok}");
    assert!(
        ok.contains("12 calls: 3 auto 4 by you 1 denied 2 blocked 2 unanswered 1 failed"),
        "{ok}"
    );
    assert_ne!(bg, Some(Color::Red));

    let (_d, path, line) = edited_trail();
    let app = review(&path, 160, 48);
    let (bad, bg) = row(&app, 46);
    assert!(
        bad.contains(&format!(
            "DOES NOT VERIFY at line {line}: hash mismatch: the line was edited"
        )),
        "{bad}"
    );
    assert_eq!(bg, Some(Color::Red), "in red");
    assert_eq!(app.review().unwrap().bad_line(), Some(line));

    let (_d, path) = torn_trail();
    let mut app = review(&path, 160, 48);
    let (torn, bg) = row(&app, 46);
    assert!(torn.contains("TORN LAST LINE 39"), "{torn}");
    assert!(torn.contains("the 38 lines before it verify"), "{torn}");
    assert_eq!(bg, Some(Color::Red));
    let (top, _) = row(&app, 45);
    assert!(top.contains("no session_end"), "{top}");
    app.update(key('G'));
    assert_eq!(selected_id(&app), Some(12));
    let pos = app.selected_call().unwrap();
    assert_eq!(
        app.calls.get(pos).unwrap().status,
        airlock::tui::calls::CallStatus::Unfinished,
        "approved, never finished"
    );
    // The filter matches the words the row and the detail show.
    assert_eq!(filter(&mut app, "no result recorded"), [12]);
    assert!(!filter(&mut app, "running").contains(&12));
}

#[tokio::test]
async fn a_trail_from_the_real_pipeline_reviews_with_every_outcome() {
    let f = log_support::every_outcome().await;
    let mut app = airlock::tui::App::open_review(
        &f.trail,
        chrono::Utc::now(),
        chrono::FixedOffset::east_opt(0).unwrap(),
        ratatui::layout::Rect::new(0, 0, 160, 48),
    )
    .unwrap();
    let r = app.review().unwrap();
    assert!(r.verify.is_ok(), "{:?}", r.verify);
    assert_eq!(listed(&app), (1..=14).collect::<Vec<_>>());
    // Denied (by you, headless), blocked (rule, guardrail), refused (the
    // scope), timed out, failed — not the cancelled one (#10).
    assert_eq!(jumps(&mut app, 'n', 8), [4, 5, 6, 7, 8, 9, 11, 4]);
    assert_eq!(filter(&mut app, "headless"), [5]);
    assert_eq!(filter(&mut app, "guardrail"), [7]);
    assert_eq!(filter(&mut app, "write_file"), [12]);
    let pos = app.selected_call().unwrap();
    let detail: Vec<String> = airlock::tui::ui::detail::lines(&app.detail_pane(), 70)
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    let text = detail.join("\n");
    assert!(
        text.contains("── change: new.txt (create, +1 −0)"),
        "{text}"
    );
    assert!(
        detail.iter().any(|l| l.contains("  1 │ +fresh line")),
        "the diff with its line numbers: {text}"
    );
    assert!(text.contains("approved by you"), "{text}");
    assert!(app.calls.get(pos).unwrap().recorded.is_some());
}
