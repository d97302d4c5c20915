//! The app's behaviour, key by key: what each key answers, the key guard,
//! the FIFO of prompts, grants, quitting, following and scrolling.

mod tui_support;

use airlock::call::{ApprovedBy, DecidedBy, Decision, Event};
use airlock::policy::GrantScope;
use airlock::tui::{App, Effect, Msg, Overlay};
use crossterm::event::KeyCode;
use tui_support::*;

/// An app with prompts for `calls` (oldest first), past the key guard.
fn with_prompts(calls: Vec<airlock::call::CallInfo>) -> App {
    let mut app = app(80, 24);
    for c in calls {
        let fx = app.update(Msg::Prompt {
            call: c,
            verdict: ask("default: exec tools ask"),
        });
        assert!(matches!(fx.as_slice(), [Effect::Notify(_)]), "{fx:?}");
    }
    app.now = at(1000);
    app
}

fn respond(fx: &[Effect]) -> (u64, Decision) {
    fx.iter()
        .find_map(|e| match e {
            Effect::Respond { id, decision } => Some((*id, decision.clone())),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no answer in {fx:?}"))
}

#[test]
fn y_approves_the_oldest_prompt_first() {
    let mut app = with_prompts(vec![bash(1, "make", "build"), bash(2, "make test", "test")]);
    let (id, d) = respond(&app.update(key('y')));
    assert_eq!(id, 1);
    assert_eq!(d, Decision::approve(ApprovedBy::User));
    assert_eq!(app.live().unwrap().prompts.len(), 1);
    assert_eq!(app.live().unwrap().prompts.front().unwrap().call.id, 2);
}

#[test]
fn keys_right_after_a_prompt_appears_are_ignored() {
    let mut app = with_prompts(vec![bash(1, "make", "build"), bash(2, "make test", "test")]);
    app.update(key('y'));
    // Call 2's prompt appeared at 1000 ms: a second y 100 ms later is
    // ignored, one 350 ms later counts.
    app.now = at(1100);
    assert!(app.update(key('y')).is_empty());
    assert_eq!(app.live().unwrap().prompts.len(), 1);
    app.now = at(1350);
    assert_eq!(respond(&app.update(key('y'))).0, 2);
}

#[test]
fn n_then_a_typed_reason_denies_with_it() {
    let mut app = with_prompts(vec![bash(1, "rm -rf build", "clean")]);
    assert!(app.update(key('n')).is_empty());
    type_text(&mut app, "keep it");
    app.update(code(KeyCode::Backspace));
    type_text(&mut app, "t please");
    let (_, d) = respond(&app.update(code(KeyCode::Enter)));
    assert_eq!(
        d,
        Decision::deny(DecidedBy::User, Some("keep it please".into()))
    );
}

#[test]
fn n_then_enter_denies_without_a_reason_and_esc_goes_back() {
    let mut app = with_prompts(vec![bash(1, "rm -rf build", "clean")]);
    app.update(key('n'));
    assert!(app.update(code(KeyCode::Esc)).is_empty());
    assert_eq!(
        app.live().unwrap().prompts.step,
        airlock::tui::prompt::Step::Choose
    );
    app.update(key('n'));
    let (_, d) = respond(&app.update(code(KeyCode::Enter)));
    assert_eq!(d, Decision::deny(DecidedBy::User, None));
}

#[test]
fn e_edits_the_command_then_approves_the_edit() {
    let mut app = with_prompts(vec![bash(1, "rm -rf build", "clean")]);
    app.update(key('e'));
    app.update(ctrl('w'));
    type_text(&mut app, "build/tmp");
    let (_, d) = respond(&app.update(code(KeyCode::Enter)));
    assert_eq!(d, Decision::approve_edited("rm -rf build/tmp".into()));
}

#[test]
fn an_unchanged_edit_is_a_plain_approval_and_an_empty_one_is_refused() {
    let mut app = with_prompts(vec![bash(1, "make", "build")]);
    app.update(key('e'));
    app.update(ctrl('u'));
    assert!(
        app.update(code(KeyCode::Enter)).is_empty(),
        "empty: stays open"
    );
    assert!(app.current_notice().unwrap().contains("empty"));
    type_text(&mut app, "make");
    let (_, d) = respond(&app.update(code(KeyCode::Enter)));
    assert_eq!(d, Decision::approve(ApprovedBy::User));
}

#[test]
fn writes_cannot_be_edited() {
    let mut app = with_prompts(vec![edit(1)]);
    assert!(app.update(key('e')).is_empty());
    assert_eq!(
        app.current_notice().unwrap(),
        "the change cannot be edited before approval; y approves it as shown"
    );
    assert_eq!(app.live().unwrap().prompts.len(), 1);
}

#[test]
fn s_grants_the_picked_scope_then_approves() {
    let mut app = with_prompts(vec![bash(1, "cargo test --release", "test")]);
    assert!(app.update(key('s')).is_empty());
    app.update(key('j'));
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(
        fx[0],
        Effect::Grant {
            scope: GrantScope::Prefix("cargo test".into()),
            tools: &["bash"]
        }
    );
    assert_eq!(respond(&fx).1, Decision::approve(ApprovedBy::User));
    let mut app = with_prompts(vec![bash(1, "cargo test --release", "test")]);
    app.update(key('s'));
    let fx = app.update(key('1'));
    assert_eq!(
        fx[0],
        Effect::Grant {
            scope: GrantScope::ExactCommand("cargo test --release".into()),
            tools: &["bash"]
        }
    );
}

#[test]
fn s_on_a_write_grants_its_file() {
    let mut app = with_prompts(vec![edit(1)]);
    app.update(key('s'));
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(
        fx[0],
        Effect::Grant {
            scope: GrantScope::File("/home/dev/tinytodo/todo.sh".into()),
            tools: &["write_file", "edit_file"]
        }
    );
}

#[test]
fn a_saves_the_rule_then_approves() {
    let mut app = with_prompts(vec![bash(1, "npm run build", "build")]);
    app.update(key('a'));
    app.update(key('j'));
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(
        fx[0],
        Effect::SaveRules(vec!["bash(npm run build *)".into()])
    );
    assert_eq!(respond(&fx).1, Decision::approve(ApprovedBy::User));
}

#[test]
fn ctrl_c_in_a_prompt_denies_the_current_call_in_any_step() {
    for setup in ["", "n", "e", "s"] {
        let mut app = with_prompts(vec![bash(1, "make", "build")]);
        type_text(&mut app, setup);
        let (id, d) = respond(&app.update(ctrl('c')));
        assert_eq!(
            (id, d),
            (1, Decision::deny(DecidedBy::User, None)),
            "after {setup:?}"
        );
        assert!(!app.quit);
    }
}

#[test]
fn a_decision_elsewhere_or_a_withdrawal_drops_the_prompt() {
    let mut app = with_prompts(vec![bash(1, "make", "build"), bash(2, "ls", "look")]);
    app.update(Msg::Core(Event::CallDecided {
        id: 1,
        decision: Decision::deny(DecidedBy::Timeout, None),
    }));
    assert_eq!(app.live().unwrap().prompts.front().unwrap().call.id, 2);
    app.update(Msg::PromptWithdrawn(2));
    assert!(app.live().unwrap().prompts.is_empty());
    assert!(app.update(key('y')).is_empty(), "nothing left to answer");
}

#[test]
fn q_quits_at_once_when_nothing_waits() {
    let mut app = busy_app(80, 24);
    assert_eq!(app.update(key('q')), [Effect::Quit]);
    assert!(app.quit);
}

#[test]
fn q_asks_first_when_calls_wait() {
    let mut app = with_prompts(vec![bash(1, "make", "build")]);
    assert!(app.update(key('q')).is_empty());
    assert_eq!(app.overlay, Some(Overlay::QuitConfirm));
    app.update(key('n'));
    assert_eq!(app.overlay, None);
    assert!(!app.quit);
    app.update(key('q'));
    assert_eq!(app.update(key('y')), [Effect::Quit]);
    assert!(app.quit);
}

#[test]
fn the_grants_view_revokes_the_selected_grant() {
    let mut app = busy_app(80, 24);
    let policy = airlock::policy::Policy::new();
    let grants = vec![
        policy.grant(GrantScope::Prefix("cargo test".into()), &["bash"]),
        policy.grant(GrantScope::ExactCommand("make".into()), &["bash"]),
    ];
    let second = grants[1].id;
    app.update(Msg::Grants(grants));
    app.update(key('r'));
    app.update(key('j'));
    assert_eq!(app.update(key('d')), [Effect::Revoke(second)]);
    app.update(code(KeyCode::Esc));
    assert_eq!(app.overlay, None);
}

#[test]
fn the_list_follows_new_calls_until_scrolled_and_again_after_g() {
    let mut app = busy_app(80, 24);
    assert_eq!(
        app.selected_call()
            .and_then(|p| app.calls.get(p))
            .unwrap()
            .info
            .id,
        8
    );
    app.update(key('k'));
    read_ok(
        &mut app,
        call(
            20,
            "pwd",
            airlock::call::ToolKind::Read,
            serde_json::json!({}),
            "pwd",
        ),
        "/",
    );
    assert_eq!(
        app.selected_call()
            .and_then(|p| app.calls.get(p))
            .unwrap()
            .info
            .id,
        7,
        "stays put"
    );
    app.update(key('G'));
    assert_eq!(
        app.selected_call()
            .and_then(|p| app.calls.get(p))
            .unwrap()
            .info
            .id,
        20
    );
    app.update(key('g'));
    assert_eq!(
        app.selected_call()
            .and_then(|p| app.calls.get(p))
            .unwrap()
            .info
            .id,
        1
    );
}

#[test]
fn the_mouse_wheel_scrolls_the_pane_under_it() {
    use crossterm::event::{KeyModifiers, MouseEvent, MouseEventKind};
    let mut app = busy_app(80, 24);
    let wheel = |kind, row| {
        Msg::Mouse(MouseEvent {
            kind,
            column: 5,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    app.update(wheel(MouseEventKind::ScrollUp, 2));
    assert_eq!(
        app.selected_call()
            .and_then(|p| app.calls.get(p))
            .unwrap()
            .info
            .id,
        5
    );
    app.update(wheel(MouseEventKind::ScrollUp, 20));
    assert!(!app.audit_view.follow, "the audit pane scrolled");
}

#[test]
fn tab_cycles_focus_and_spinner_ticks_only_while_something_moves() {
    let mut app = busy_app(80, 24);
    assert_eq!(app.tick_interval(), None, "idle: no timer");
    app.update(code(KeyCode::Tab));
    assert_eq!(app.focus, airlock::tui::Focus::Detail);
    app.update(Msg::Key(crossterm::event::KeyEvent::new(
        KeyCode::BackTab,
        crossterm::event::KeyModifiers::SHIFT,
    )));
    assert_eq!(app.focus, airlock::tui::Focus::Calls);
    with_running(&mut app);
    assert!(app.tick_interval().is_some(), "a spinner while a call runs");
}

#[test]
fn the_countdown_counts_down() {
    let mut app = with_prompts(vec![bash(1, "make", "build")]);
    app.live_mut().unwrap().approval_timeout = Some(std::time::Duration::from_secs(60));
    app.now = at(20_200);
    assert_eq!(app.seconds_left(), Some(40));
    app.now = at(90_000);
    assert_eq!(app.seconds_left(), Some(0));
}

#[test]
fn a_hundred_thousand_calls_render_quickly() {
    let mut app = app(160, 48);
    for id in 1..=100_000u64 {
        read_ok(
            &mut app,
            call(
                id,
                "read_file",
                airlock::call::ToolKind::Read,
                serde_json::json!({"path": "a"}),
                "read_file a",
            ),
            "x",
        );
    }
    assert_eq!(app.calls.len(), 100_000);
    let started = std::time::Instant::now();
    let frames = 20;
    for _ in 0..frames {
        let _ = pane(160, 24, |f, area| {
            airlock::tui::ui::calls::draw(f, &app.calls_pane(area), area);
        });
    }
    let per_frame = started.elapsed() / frames;
    // Debug build and a shared machine: a generous bound; the release
    // benchmark (examples/tui_bench.rs) measures the real number.
    assert!(per_frame.as_millis() < 200, "{per_frame:?} per frame");
}

#[test]
fn bash_prompt_shows_the_shell_directory_after_the_agents_last_command() {
    let mut app = app(120, 40);
    // Before any command: the workspace, where the shell starts.
    app.update(Msg::Prompt {
        call: bash(1, "ls", "look"),
        verdict: ask("default: exec tools ask"),
    });
    let s = screen(&app);
    assert!(
        s.contains("/home/dev/tinytodo (the agent's shell starts here)"),
        "{s}"
    );
    // The command ran after a `cd`: the next prompt shows where the shell is now.
    let mut done = outcome("ok", 3, "exit code: 0", false);
    done.structured = Some(serde_json::json!({"exit_code": 0, "cwd": "/home/dev/tinytodo/src"}));
    done.shell_cwd = Some("/home/dev/tinytodo/src".into());
    core(
        &mut app,
        vec![
            Event::CallDecided {
                id: 1,
                decision: Decision::approve(ApprovedBy::User),
            },
            Event::CallStarted { id: 1 },
            Event::CallFinished {
                id: 1,
                outcome: done,
            },
        ],
    );
    app.update(Msg::Prompt {
        call: bash(2, "cargo test", "test"),
        verdict: ask("default: exec tools ask"),
    });
    let s = screen(&app);
    assert!(
        s.contains("/home/dev/tinytodo/src (after the agent's last command)"),
        "{s}"
    );
}

#[test]
fn the_prompt_says_when_the_agent_gives_up_from_its_own_config() {
    let codex = |id| {
        let mut c = bash(id, "cargo test", "test");
        c.agent.name = "codex-mcp-client".into();
        c
    };
    // Without its config airlock knows Codex's default (300 s); the call
    // arrived 59 s before the clock.
    let mut app = app(120, 40);
    app.update(Msg::Prompt {
        call: codex(1),
        verdict: ask("default: exec tools ask"),
    });
    let s = screen(&app);
    assert!(s.contains("codex gives up in 4:01"), "{s}");
    // `airlock init codex` set tool_timeout_sec = 3600: the prompt says so.
    let mut app = tui_support::app(120, 40);
    app.live_mut().unwrap().agent_timeouts = vec![("codex".into(), 3600)];
    app.update(Msg::Prompt {
        call: codex(1),
        verdict: ask("default: exec tools ask"),
    });
    let s = screen(&app);
    assert!(s.contains("codex gives up in 59:01"), "{s}");
    // Claude Code: no known limit, nothing claimed.
    let mut app = tui_support::app(120, 40);
    app.update(Msg::Prompt {
        call: bash(1, "cargo test", "test"),
        verdict: ask("default: exec tools ask"),
    });
    assert!(!screen(&app).contains("gives up"));
}
