//! Snapshots of `airlock review` on ratatui's `TestBackend` at 80×24 and
//! 160×48: a trail with fixed content and times (every kind of decision,
//! a write with its diff), the detail of a denied call and of the write,
//! the filter, the help, and the banners of an edited and a torn trail.

mod review_support;

use airlock::tui::{Focus, Msg};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use review_support::*;

fn snap(name: &str, w: u16, h: u16, screen: &str) {
    insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen);
}

fn key(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn code(c: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(c, KeyModifiers::NONE))
}

/// Select call `id` by moving down from the first.
fn select(app: &mut airlock::tui::App, id: u64) {
    app.update(key('g'));
    for _ in 1..id {
        app.update(key('j'));
    }
    assert_eq!(selected_id(app), Some(id));
}

#[test]
fn review_opens_on_the_first_call() {
    let (_d, path) = trail();
    for (w, h) in SIZES {
        snap("review_open", w, h, &screen(&review(&path, w, h)));
    }
}

#[test]
fn review_of_a_write_shows_its_diff() {
    let (_d, path) = trail();
    for (w, h) in SIZES {
        let mut app = review(&path, w, h);
        select(&mut app, 3);
        snap("review_write", w, h, &screen(&app));
        app.update(code(KeyCode::Tab));
        assert_eq!(app.focus, Focus::Detail);
        let detail = pane(w, h, |f, area| {
            airlock::tui::ui::detail::draw(f, &app.detail_pane(), area);
        });
        snap("review_write_detail", w, h, &detail);
    }
}

#[test]
fn review_of_a_denied_call_says_who_and_why() {
    let (_d, path) = trail();
    for (w, h) in SIZES {
        let mut app = review(&path, w, h);
        app.update(key('n'));
        app.update(key('n'));
        assert_eq!(selected_id(&app), Some(6));
        snap("review_denied", w, h, &screen(&app));
        let detail = pane(w, h / 2, |f, area| {
            airlock::tui::ui::detail::draw(f, &app.detail_pane(), area);
        });
        snap("review_denied_detail", w, h, &detail);
    }
}

#[test]
fn review_filter_being_typed_and_applied() {
    let (_d, path) = trail();
    for (w, h) in SIZES {
        let mut app = review(&path, w, h);
        app.update(key('/'));
        for c in "rm -rf".chars() {
            app.update(key(c));
        }
        snap("review_filter_typing", w, h, &screen(&app));
        app.update(code(KeyCode::Enter));
        app.now = at(400_000);
        snap("review_filtered", w, h, &screen(&app));
    }
}

#[test]
fn review_help() {
    let (_d, path) = trail();
    for (w, h) in SIZES {
        let mut app = review(&path, w, h);
        app.update(key('?'));
        snap("review_help", w, h, &screen(&app));
    }
}

#[test]
fn review_of_an_edited_trail_says_where_it_breaks() {
    let (_d, path, line) = edited_trail();
    assert_eq!(line, 19, "call #6's decision");
    for (w, h) in SIZES {
        let mut app = review(&path, w, h);
        select(&mut app, 6);
        snap("review_edited", w, h, &screen(&app));
    }
}

#[test]
fn review_of_a_torn_trail_says_so() {
    let (_d, path) = torn_trail();
    for (w, h) in SIZES {
        let mut app = review(&path, w, h);
        app.update(key('G'));
        snap("review_torn", w, h, &screen(&app));
    }
}

/// One pane drawn on its own at `w`×`h`.
fn pane(w: u16, h: u16, draw: impl FnOnce(&mut ratatui::Frame, ratatui::layout::Rect)) -> String {
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    t.draw(|f| {
        let area = f.area();
        draw(f, area);
    })
    .unwrap();
    styled::render(t.backend().buffer())
}
