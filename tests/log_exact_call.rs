//! Every reader shows the exact call: commands beginning with `bash`,
//! `sh`, `env`, with quotes, newlines and unicode go through the real
//! pipeline into the trail and come back unchanged from `airlock log`,
//! `airlock log --json`, the timeline and `airlock review`'s panes — never
//! reparsed into a tool and arguments. After an edit: what ran, with the
//! proposal beside it.

mod log_support;

use std::sync::Arc;

use airlock::call::{ApprovedBy, Decision};
use airlock::session::{self, SessionOptions};
use airlock::supervisor::{ConfirmRequest, Confirmer};
use async_trait::async_trait;
use log_support::{airlock, records, stdout};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const COMMANDS: &[&str] = &[
    "bash -c 'echo hi'",
    "bash tests/run_tests.sh",
    "sh -c \"echo 'nested' && echo two\"",
    "env FOO=1 printenv FOO",
    "echo \"double\" 'single' `echo back` $HOME",
    "printf 'a\\n'\necho second-line",
    "echo héllo ✓ 日本語 \u{202E}rtl\u{200B}",
    "echo proposed-by-the-agent",
];

const EDITED: &str = "bash -c 'echo ran-instead'";

struct ApproveAll;

#[async_trait]
impl Confirmer for ApproveAll {
    async fn confirm(&self, r: ConfirmRequest) -> Decision {
        if r.call.args["command"] == "echo proposed-by-the-agent" {
            Decision::approve_edited(EDITED.into())
        } else {
            Decision::approve(ApprovedBy::User)
        }
    }

    fn kind(&self) -> airlock::call::ConfirmerKind {
        airlock::call::ConfirmerKind::ApproveAll
    }
}

/// The way a command is written on one line: newlines and invisible
/// characters as escapes, nothing dropped.
fn one_line(s: &str) -> String {
    airlock::tui::reveal::one_line(s)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(clippy::too_many_lines, reason = "one scenario, read top to bottom")]
async fn commands_round_trip_through_the_trail_and_every_reader() {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let data = dir.path().join("data");
    let s = session::start(
        &SessionOptions {
            workspace: ws.clone(),
            data_dir: Some(data.clone()),
            config_file: None,
            mode: airlock::call::SessionMode::Supervisor,
            policy_mode: None,
            user_config: false,
        },
        Arc::new(ApproveAll),
    )
    .unwrap();
    let agent = s
        .supervisor
        .agent_connected(Some("codex-mcp-client"), Some("0.171.0"));
    for c in COMMANDS {
        s.supervisor
            .call(
                &agent,
                "bash",
                json!({ "command": c }).as_object().cloned(),
                CancellationToken::new(),
                None,
            )
            .await
            .unwrap();
    }
    s.supervisor.shutdown("test done");
    let trail = s.audit_path.clone();

    // The trail: the command as the agent sent it, the edit as it ran.
    let text = std::fs::read_to_string(&trail).unwrap();
    let recs = records(&text);
    let requested: Vec<&serde_json::Value> = recs
        .iter()
        .filter(|r| r["type"] == "call_requested")
        .collect();
    for (r, c) in requested.iter().zip(COMMANDS) {
        assert_eq!(r["call"]["args"]["command"], *c);
        assert_eq!(
            r["call"]["agent"]["name"], "codex-mcp-client",
            "raw clientInfo kept"
        );
    }
    assert!(recs.iter().any(|r| r["edited_command"] == EDITED));
    // Waiting and running are recorded apart, and add up to the whole.
    for f in recs.iter().filter(|r| r["type"] == "call_finished") {
        let (w, r, d) = (&f["wait_ms"], &f["run_ms"], &f["duration_ms"]);
        assert!(w.is_u64() && r.is_u64(), "{f}");
        assert!(
            w.as_u64().unwrap() + r.as_u64().unwrap() <= d.as_u64().unwrap() + 1,
            "{f}"
        );
    }

    // `airlock log --json`: the same records.
    let o = airlock(&data, &["log", "--json", &s.id]);
    let json = stdout(&o);
    let out = records(&json);
    for c in COMMANDS {
        assert!(
            out.iter().any(|r| r["call"]["args"]["command"] == *c),
            "{c:?} in --json"
        );
    }

    // `airlock log`: each command whole, on one line, escapes for newlines.
    let o = airlock(&data, &["log", "--color", "never", &s.id]);
    let human = stdout(&o);
    assert!(o.status.success(), "{human}");
    for c in &COMMANDS[..7] {
        let shown = one_line(c);
        assert!(human.contains(&shown), "{shown:?} in:\n{human}");
    }
    assert!(
        !human.contains("bash  -c"),
        "never tool + arguments:\n{human}"
    );
    assert!(human.contains("bash -c 'echo hi'"), "{human}");
    // After the edit: what ran, then what the agent proposed.
    let at = human.find(EDITED).expect("the edited command as it ran");
    let proposed = human
        .find("the agent proposed: echo proposed-by-the-agent")
        .expect("the proposal beside it");
    assert!(at < proposed, "{human}");
    assert!(
        human.contains("codex "),
        "display name in the agent column:\n{human}"
    );
    assert!(!human.contains("codex-mcp-c…"), "{human}");

    // The timeline and the review panes.
    let t = airlock::audit::timeline::Timeline::load(&trail).unwrap();
    for (e, c) in t.calls.iter().zip(COMMANDS) {
        assert_eq!(e.call.args["command"], *c);
    }
    let mut app = airlock::tui::App::open_review(
        &trail,
        chrono::Utc::now(),
        chrono::FixedOffset::east_opt(0).unwrap(),
        ratatui::layout::Rect::new(0, 0, 200, 60),
    )
    .unwrap();
    let draw = |app: &airlock::tui::App| {
        let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(200, 60)).unwrap();
        term.draw(|f| airlock::tui::draw(f, app)).unwrap();
        term.backend().to_string()
    };
    let list = draw(&app);
    for c in &COMMANDS[..5] {
        assert!(list.contains(c), "{c:?} in the calls list:\n{list}");
    }
    assert!(list.contains("printf 'a\\n'\\necho second-line"), "{list}");
    assert!(list.contains("<U+202E>rtl<U+200B>"), "{list}");
    assert!(
        list.contains("✎ bash -c 'echo ran-instead' (proposed: echo proposed-by-the-agent)"),
        "{list}"
    );
    // The detail pane of every call shows its command.
    app.update(airlock::tui::Msg::Key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Char('g'),
        crossterm::event::KeyModifiers::NONE,
    )));
    for c in COMMANDS {
        let screen = draw(&app);
        let first = one_line(c.lines().next().unwrap());
        assert!(
            screen.contains(&format!("command: {first}")),
            "{first:?}:\n{screen}"
        );
        app.update(airlock::tui::Msg::Key(crossterm::event::KeyEvent::new(
            crossterm::event::KeyCode::Char('j'),
            crossterm::event::KeyModifiers::NONE,
        )));
    }
}
