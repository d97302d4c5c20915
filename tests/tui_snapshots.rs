//! Snapshots of every pane and of the approval prompt in each step, on
//! ratatui's `TestBackend` at 80×24 and 160×48. The clock, the time zone and
//! the paths are fixed, so a frame is the same on every machine.

mod tui_support;

use airlock::tui::ui;
use airlock::tui::{Focus, Msg};
use crossterm::event::KeyCode;
use tui_support::*;

fn snap(name: &str, w: u16, h: u16, screen: &str) {
    insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen);
}

#[test]
fn empty_screen() {
    for (w, h) in SIZES {
        snap("empty", w, h, &screen(&app(w, h)));
    }
}

#[test]
fn calls_pane() {
    for (w, h) in SIZES {
        let mut app = busy_app(w, h);
        with_running(&mut app);
        let s = pane(w, h / 2, |f, area| {
            ui::calls::draw(f, &app.calls_pane(area), area);
        });
        snap("calls_pane", w, h, &s);
    }
}

#[test]
fn calls_pane_scrolled_up_with_focus() {
    for (w, h) in SIZES {
        let mut app = busy_app(w, h);
        app.update(key('k'));
        app.update(key('k'));
        let s = pane(w, h / 2, |f, area| {
            ui::calls::draw(f, &app.calls_pane(area), area);
        });
        snap("calls_pane_scrolled", w, h, &s);
    }
}

#[test]
fn detail_of_a_running_command_with_live_output() {
    for (w, h) in SIZES {
        let mut app = busy_app(w, h);
        with_running(&mut app);
        let s = pane(w, h / 2, |f, area| {
            ui::detail::draw(f, &app.detail_pane(), area);
        });
        snap("detail_running", w, h, &s);
    }
}

#[test]
fn detail_of_a_denied_command() {
    for (w, h) in SIZES {
        let mut app = busy_app(w, h);
        app.update(key('k'));
        let s = pane(w, h / 2, |f, area| {
            ui::detail::draw(f, &app.detail_pane(), area);
        });
        snap("detail_denied", w, h, &s);
    }
}

#[test]
fn detail_of_an_edit_with_its_diff() {
    for (w, h) in SIZES {
        let mut app = busy_app(w, h);
        for _ in 0..4 {
            app.update(key('k'));
        }
        let s = pane(w, h, |f, area| {
            ui::detail::draw(f, &app.detail_pane(), area);
        });
        snap("detail_edit", w, h, &s);
    }
}

#[test]
fn audit_pane() {
    for (w, h) in SIZES {
        let mut app = busy_app(w, h);
        app.focus = Focus::Audit;
        let s = pane(w, 8, |f, area| {
            ui::audit::draw(f, &app.audit_pane(area), area);
        });
        snap("audit_pane", w, h, &s);
    }
}

#[test]
fn status_bar() {
    for (w, h) in SIZES {
        let mut app = busy_app(w, h);
        with_running(&mut app);
        app.update(Msg::Prompt {
            call: bash(10, "cargo test", "run the tests"),
            verdict: ask("default: exec tools ask"),
        });
        let s = pane(w, 2, |f, area| {
            ui::status::draw(f, &app.status_bar().unwrap(), area);
        });
        snap("status_bar", w, h, &s);
    }
}

#[test]
fn status_bar_sandbox_off_says_why() {
    for (w, h) in SIZES {
        let mut app = busy_app(w, h);
        app.header.sandbox = Some((
            "sandbox: off — landlock: not supported by this kernel (+1 more)".into(),
            airlock::sandbox::SandboxState::Off,
        ));
        let s = pane(w, 2, |f, area| {
            ui::status::draw(f, &app.status_bar().unwrap(), area);
        });
        assert!(s.contains("sandbox: off — landlock"), "{s}");
        snap("status_bar_sandbox_off", w, h, &s);
    }
}

#[test]
fn full_screen() {
    for (w, h) in SIZES {
        let mut app = busy_app(w, h);
        with_running(&mut app);
        snap("full", w, h, &screen(&app));
    }
}

fn prompted(w: u16, h: u16, call: airlock::call::CallInfo) -> airlock::tui::App {
    let mut app = busy_app(w, h);
    app.update(Msg::Prompt {
        call,
        verdict: ask("default: exec tools ask"),
    });
    app.update(Msg::Prompt {
        call: bash(11, "ls -la", "look"),
        verdict: ask("default: exec tools ask"),
    });
    app.now = at(1000);
    app
}

#[test]
fn prompt_for_bash() {
    for (w, h) in SIZES {
        let app = prompted(
            w,
            h,
            bash(
                10,
                "cargo test --release -p airlock",
                "run the tests in release mode",
            ),
        );
        snap("prompt_bash", w, h, &screen(&app));
    }
}

#[test]
fn prompt_for_bash_with_countdown() {
    for (w, h) in SIZES {
        let mut app = prompted(w, h, bash(10, "cargo test", "run the tests"));
        app.live_mut().unwrap().approval_timeout = Some(std::time::Duration::from_secs(120));
        app.now = at(35_500);
        snap("prompt_countdown", w, h, &screen(&app));
    }
}

#[test]
fn prompt_for_a_write_with_its_diff() {
    for (w, h) in SIZES {
        let app = prompted(w, h, edit(10));
        snap("prompt_write", w, h, &screen(&app));
    }
}

#[test]
fn prompt_for_a_write_scrolled() {
    for (w, h) in SIZES {
        let mut app = prompted(w, h, edit(10));
        app.update(key('j'));
        app.update(key('j'));
        app.update(key('j'));
        snap("prompt_write_scrolled", w, h, &screen(&app));
    }
}

#[test]
fn prompt_in_edit_mode() {
    for (w, h) in SIZES {
        let mut app = prompted(w, h, bash(10, "rm -rf build", "clean the build output"));
        app.update(key('e'));
        app.update(ctrl('w'));
        type_text(&mut app, "build/tmp");
        app.update(code(KeyCode::Left));
        snap("prompt_edit", w, h, &screen(&app));
    }
}

#[test]
fn prompt_in_deny_reason_mode() {
    for (w, h) in SIZES {
        let mut app = prompted(w, h, bash(10, "rm -rf build", "clean the build output"));
        app.update(key('n'));
        type_text(&mut app, "keep the build, it is the release");
        snap("prompt_deny", w, h, &screen(&app));
    }
}

#[test]
fn prompt_choosing_a_session_grant() {
    for (w, h) in SIZES {
        let mut app = prompted(w, h, bash(10, "cargo test --release", "run the tests"));
        app.update(key('s'));
        app.update(key('j'));
        snap("prompt_session", w, h, &screen(&app));
    }
}

#[test]
fn prompt_choosing_an_always_rule() {
    for (w, h) in SIZES {
        let mut app = prompted(w, h, edit(10));
        app.update(key('a'));
        snap("prompt_always", w, h, &screen(&app));
    }
}

#[test]
fn help_overlay() {
    for (w, h) in SIZES {
        let mut app = busy_app(w, h);
        app.update(key('?'));
        snap("help", w, h, &screen(&app));
    }
}

#[test]
fn grants_view() {
    for (w, h) in SIZES {
        let mut app = busy_app(w, h);
        let policy = airlock::policy::Policy::with_rules(
            airlock::policy::Mode::Default,
            vec![],
            std::path::Path::new("/home/dev/tinytodo"),
            false,
        );
        let mut grants = vec![
            policy.grant(
                airlock::policy::GrantScope::Prefix("cargo test".into()),
                &["bash"],
            ),
            policy.grant(
                airlock::policy::GrantScope::File("/home/dev/tinytodo/todo.sh".into()),
                &["write_file", "edit_file"],
            ),
        ];
        for g in &mut grants {
            g.created = at(-30_000);
        }
        app.update(Msg::Grants(grants));
        app.update(key('r'));
        app.update(key('j'));
        snap("grants", w, h, &screen(&app));
    }
}

#[test]
fn quit_question_when_calls_wait() {
    for (w, h) in SIZES {
        let mut app = prompted(w, h, bash(10, "make", "build"));
        app.update(key('q'));
        snap("quit", w, h, &screen(&app));
    }
}
