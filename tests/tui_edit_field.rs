//! The edit field shows what will run: the agent's command keeps its
//! control and invisible characters when `e` opens it for editing (they
//! run if the human approves), so the field draws each as the prompt does
//! (`<U+200B>`, `\r`), keeps the cursor on its cell, and warns about them.
//! A long field shows the rows around its cursor and says which. The
//! control draws the same text raw, as the field did: they vanish.

mod tui_support;

use airlock::call::Decision;
use airlock::tui::{App, Effect, Msg};
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};
use tui_support::*;

const HIDING: &str = "rm -rf ./build/\u{200B}cache\r ; echo\u{202E} done";

fn editing(cmd: &str, w: u16, h: u16) -> App {
    let mut app = app(w, h);
    app.update(Msg::Prompt {
        call: bash(1, cmd, "clean"),
        verdict: ask("default: exec tools ask"),
    });
    app.now = at(1000);
    app.update(key('e'));
    app
}

fn buffer(app: &App) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(app.size.width, app.size.height)).unwrap();
    t.draw(|f| airlock::tui::draw(f, app)).unwrap();
    t.backend().buffer().clone()
}

/// The text of the cells drawn reversed (the cursor).
fn cursor_cells(buf: &Buffer) -> String {
    let a = buf.area;
    let mut out = String::new();
    for y in a.top()..a.bottom() {
        for x in a.left()..a.right() {
            if buf[(x, y)].modifier.contains(Modifier::REVERSED) {
                out.push_str(buf[(x, y)].symbol());
            }
        }
    }
    out
}

fn answered(fx: &[Effect]) -> Option<Decision> {
    fx.iter().find_map(|e| match e {
        Effect::Respond { decision, .. } => Some(decision.clone()),
        _ => None,
    })
}

#[test]
fn the_field_shows_and_flags_what_will_run() {
    let mut app = editing(HIDING, 120, 40);
    let s = plain(&app);
    let field = "$ rm -rf ./build/<U+200B>cache\\r ; echo<U+202E> done";
    assert!(s.contains(field), "{s}");
    assert!(
        s.contains("the edited command contains 2 invisible or bidirectional-control characters"),
        "{s}"
    );
    assert!(
        s.contains("the edited command contains 1 control character"),
        "{s}"
    );
    type_text(&mut app, " x");
    let s = plain(&app);
    assert!(s.contains("echo<U+202E> done x"), "{s}");
    let d = answered(&app.update(code(KeyCode::Enter))).expect("approved");
    assert_eq!(d, Decision::approve_edited(format!("{HIDING} x")));
}

#[test]
fn the_cursor_stays_on_its_character() {
    let mut app = editing(HIDING, 120, 40);
    assert_eq!(cursor_cells(&buffer(&app)), " ", "after the end");
    app.update(code(KeyCode::Home));
    assert_eq!(cursor_cells(&buffer(&app)), "r");
    for _ in 0.."rm -rf ./build/".chars().count() {
        app.update(code(KeyCode::Right));
    }
    assert_eq!(cursor_cells(&buffer(&app)), "<U+200B>", "on the hidden one");
    app.update(code(KeyCode::Right));
    assert_eq!(cursor_cells(&buffer(&app)), "c");
    for _ in 0.."cache".chars().count() {
        app.update(code(KeyCode::Right));
    }
    assert_eq!(cursor_cells(&buffer(&app)), "\\r");
    // Deleting under the cursor removes the hidden character itself.
    app.update(code(KeyCode::Delete));
    let s = plain(&app);
    assert!(
        s.contains("./build/<U+200B>cache ; echo<U+202E> done"),
        "{s}"
    );
    assert!(!s.contains("the edited command contains 1 control"), "{s}");
    assert!(s.contains("this call contains 1 control character"), "{s}");
}

#[test]
fn control_drawn_raw_the_field_hides_them() {
    let area = Rect::new(0, 0, 80, 1);
    let mut buf = Buffer::empty(area);
    Paragraph::new(Line::raw(format!("$ {HIDING}"))).render(area, &mut buf);
    let shown: String = (0..80).map(|x| buf[(x, 0)].symbol()).collect();
    assert_eq!(shown.trim_end(), "$ rm -rf ./build/cache ; echo done");
}

#[test]
fn a_long_field_shows_the_rows_around_its_cursor_and_says_so() {
    let cmd = format!("echo start{}\necho hidden-end", "\nx".repeat(60));
    let mut app = app(80, 24);
    app.update(Msg::Prompt {
        call: bash(1, &cmd, "long"),
        verdict: ask("default: exec tools ask"),
    });
    app.now = at(1000);
    app.update(key('G'));
    app.update(key('e'));
    let s = plain(&app);
    assert!(s.contains("field rows") && s.contains("of 62"), "{s}");
    assert!(
        s.contains("echo hidden-end"),
        "the cursor's row, at the end:\n{s}"
    );
    assert!(s.contains("Enter approve the edited command"), "{s}");
    app.update(code(KeyCode::Home));
    let s = plain(&app);
    assert!(
        s.contains("$ echo start") && s.contains("field rows 1–"),
        "{s}"
    );
}

#[test]
fn control_a_field_that_fits_is_shown_whole_without_a_note() {
    let cmd = format!("echo start{}\necho hidden-end", "\nx".repeat(60));
    let mut app = app(80, 100);
    app.update(Msg::Prompt {
        call: bash(1, &cmd, "long"),
        verdict: ask("default: exec tools ask"),
    });
    app.now = at(1000);
    app.update(key('G'));
    app.update(key('e'));
    let s = plain(&app);
    assert!(!s.contains("field rows"), "{s}");
    assert!(
        s.contains("$ echo start") && s.contains("echo hidden-end"),
        "{s}"
    );
}
