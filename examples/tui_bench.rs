//! How long one frame of the TUI takes with 100,000 calls in the list.
//!
//! `cargo run --release --example tui_bench` fills the app with 100,000
//! finished calls (and their events, as the event loop would), then draws
//! the calls pane and the whole screen many times on ratatui's
//! `TestBackend` and prints the median and worst time per frame; then the
//! same with an approval prompt for a 10,000-line command on top. The
//! target is under 10 ms for one frame of each.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use airlock::call::{AgentInfo, ApprovedBy, CallInfo, CallOutcome, Decision, Event, ToolKind};
use airlock::tui::{App, Header, Msg};
use chrono::{FixedOffset, Utc};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

const CALLS: u64 = 100_000;
const FRAMES: usize = 200;

#[expect(clippy::too_many_lines, reason = "one benchmark, read top to bottom")]
fn main() {
    let (w, h) = (160, 48);
    let mut app = App::new(
        Header::default(),
        Utc::now(),
        FixedOffset::east_opt(0).expect("UTC"),
        Rect::new(0, 0, w, h),
    );
    let agent = AgentInfo {
        id: 1,
        name: "bench-agent".into(),
        version: None,
    };
    let fill = Instant::now();
    for id in 1..=CALLS {
        let info = CallInfo {
            id,
            agent: agent.clone(),
            tool: "read_file".into(),
            kind: Some(ToolKind::Read),
            args: serde_json::json!({ "path": format!("src/file_{id}.rs") }),
            summary: format!("read_file src/file_{id}.rs"),
            received_at: Utc::now(),
            runner: airlock::call::Runner::default(),
            view: airlock::call::CallView::default(),
            edit: None,
            grant: airlock::call::GrantShape::None,
            proposal: None,
        };
        for e in [
            Event::CallReceived(info),
            Event::CallDecided {
                id,
                decision: Decision::approve(ApprovedBy::User),
            },
            Event::CallStarted { id },
            Event::CallFinished {
                id,
                outcome: CallOutcome {
                    status: airlock::call::Outcome::Ok,
                    duration_ms: 2,
                    wait_ms: None,
                    run_ms: None,
                    text: "fn main() {}\n".into(),
                    is_error: false,
                    truncated: false,
                    structured: None,
                    shell_cwd: None,
                },
            },
        ] {
            app.update(Msg::Core(e));
        }
    }
    let fill = fill.elapsed();
    println!(
        "{CALLS} calls fed in (4 events each) in {:.0} ms ({:.2} µs per event)",
        fill.as_secs_f64() * 1e3,
        fill.as_secs_f64() * 1e6 / (CALLS * 4) as f64
    );

    let calls_pane = measure(w, h, |f| {
        let area = f.area();
        airlock::tui::ui::calls::draw(f, &app.calls_pane(area), area);
    });
    report("calls pane", w, h, &calls_pane);
    // Scrolled to the middle: the same cost wherever the view is.
    app.update(Msg::Key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Char('g'),
        crossterm::event::KeyModifiers::NONE,
    )));
    for _ in 0..(CALLS / 2 / 40) {
        app.update(Msg::Key(crossterm::event::KeyEvent::new(
            crossterm::event::KeyCode::PageDown,
            crossterm::event::KeyModifiers::NONE,
        )));
    }
    let middle = measure(w, h, |f| {
        let area = f.area();
        airlock::tui::ui::calls::draw(f, &app.calls_pane(area), area);
    });
    report("calls pane, scrolled to the middle", w, h, &middle);
    let screen = measure(w, h, |f| airlock::tui::draw(f, &app));
    report("whole screen", w, h, &screen);

    // A prompt for a 10,000-line command over the 100,000 calls: every
    // line is made visible and wrapped each frame, only the view is drawn.
    let command: String = (1..=10_000).fold(String::new(), |mut s, i| {
        let _ = writeln!(s, "echo line {i} of a very long script   \u{200B}");
        s
    });
    let prompt = CallInfo {
        id: CALLS + 1,
        agent: agent.clone(),
        tool: "bash".into(),
        kind: Some(ToolKind::Exec),
        args: serde_json::json!({ "command": command, "description": "bench" }),
        summary: "echo line 1 …".into(),
        received_at: Utc::now(),
        runner: airlock::call::Runner::default(),
        view: airlock::call::CallView::default(),
        edit: None,
        grant: airlock::call::GrantShape::None,
        proposal: None,
    };
    app.update(Msg::Prompt {
        call: prompt,
        verdict: airlock::call::PolicyVerdict {
            verdict: airlock::call::Verdict::Ask,
            rule: "default: exec tools ask".into(),
            source: "built-in".into(),
        },
    });
    let prompt_frames = measure(w, h, |f| airlock::tui::draw(f, &app));
    report(
        "whole screen with a prompt for a 10,000-line command",
        w,
        h,
        &prompt_frames,
    );
}

fn measure(w: u16, h: u16, mut draw: impl FnMut(&mut ratatui::Frame)) -> Vec<Duration> {
    let mut term = Terminal::new(TestBackend::new(w, h)).expect("a test terminal");
    let mut times = Vec::with_capacity(FRAMES);
    for _ in 0..FRAMES {
        let t = Instant::now();
        term.draw(&mut draw).expect("drawing on a test backend");
        times.push(t.elapsed());
    }
    times.sort();
    times
}

fn report(what: &str, w: u16, h: u16, times: &[Duration]) {
    let median = times[times.len() / 2];
    let worst = times[times.len() - 1];
    println!(
        "{what} ({w}x{h}): median {:.3} ms, worst {:.3} ms per frame over {} frames (target < 10 ms)",
        median.as_secs_f64() * 1e3,
        worst.as_secs_f64() * 1e3,
        times.len()
    );
}
