//! Benchmark: how long `airlock review` takes to open a 100,000-record
//! trail — read it, check its hash chain, build the timeline and the calls
//! pane's rows, and draw the first frame (ratatui's `TestBackend`,
//! 160×48) — and then how long a `/` filter and an `n` jump take.
//!
//! Run: `cargo run --release --example review_bench`. The trail is written
//! with `AuditLog::append`, so every line is real and chained.
//! Target: opening (load + first frame) under 1 s, median of 5 runs.

use std::path::Path;
use std::time::{Duration, Instant};

use airlock::audit::{AuditEvent, AuditLog, ChangeRecord};
use airlock::supervisor::{AgentInfo, CallInfo, DecidedBy, Decision, ToolKind, WriteAction};
use airlock::tui::review::Review;
use airlock::tui::{App, Msg};
use anyhow::bail;
use chrono::{Offset, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use serde_json::json;

const RECORDS: usize = 100_000;
const RUNS: usize = 5;
const TARGET_S: f64 = 1.0;
const SIZE: (u16, u16) = (160, 48);

fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let trail = dir.path().join("20260101T000000.000Z-be7c.jsonl");
    let t0 = Instant::now();
    write_trail(&trail)?;
    println!(
        "trail: {RECORDS} records, {:.1} MB, written in {:.2} s",
        std::fs::metadata(&trail)?.len() as f64 / 1e6,
        t0.elapsed().as_secs_f64()
    );
    let tz = Utc.fix();
    let area = Rect::new(0, 0, SIZE.0, SIZE.1);
    let (mut load, mut app_t, mut frame, mut open) = (vec![], vec![], vec![], vec![]);
    let mut last = None;
    for _ in 0..RUNS {
        let start = Instant::now();
        let review = Review::load(&trail)?;
        let loaded = Instant::now();
        let app = review.into_app(Utc::now(), tz, area);
        let built = Instant::now();
        draw(&app)?;
        let drawn = Instant::now();
        load.push(loaded - start);
        app_t.push(built - loaded);
        frame.push(drawn - built);
        open.push(drawn - start);
        last = Some(app);
    }
    let Some(mut app) = last else { bail!("no run") };
    let r = app
        .review
        .as_ref()
        .map(|r| (r.timeline.records, r.verify.is_ok()));
    if r != Some((RECORDS, true)) {
        bail!("the review read {r:?}, expected {RECORDS} records that verify");
    }
    report("read + verify + timeline", &mut load, None);
    report("calls pane rows", &mut app_t, None);
    report("first frame (160x48)", &mut frame, None);
    report("open: all of the above", &mut open, Some(TARGET_S));

    let mut filter = Vec::new();
    for _ in 0..RUNS {
        let t = Instant::now();
        app.set_filter("cargo test -q t7");
        filter.push(t.elapsed());
    }
    let matches = app.calls_span().1;
    report(&format!("/ filter ({matches} matches)"), &mut filter, None);
    app.set_filter("");
    let mut jump = Vec::new();
    for _ in 0..RUNS * 20 {
        let t = Instant::now();
        app.update(Msg::Key(KeyEvent::new(
            KeyCode::Char('n'),
            KeyModifiers::NONE,
        )));
        draw(&app)?;
        jump.push(t.elapsed());
    }
    report("n (next denied or failed) + frame", &mut jump, None);
    Ok(())
}

fn draw(app: &App) -> anyhow::Result<()> {
    let mut term = Terminal::new(TestBackend::new(SIZE.0, SIZE.1))?;
    term.draw(|f| airlock::tui::ui::draw(f, app))?;
    Ok(())
}

fn report(name: &str, times: &mut [Duration], target: Option<f64>) {
    times.sort();
    let median = times[times.len() / 2].as_secs_f64();
    let best = times[0].as_secs_f64();
    let verdict = match target {
        Some(t) if median < t => format!("  (target < {t} s: met)"),
        Some(t) => format!("  (target < {t} s: MISSED)"),
        None => String::new(),
    };
    println!("{name:<38} median {median:.3} s, best {best:.3} s{verdict}");
}

/// A session: start, two agents, calls of three records each — reads
/// with 512-byte excerpts, bash commands (some denied, some failing,
/// some blocked), writes with diffs — and the end.
fn write_trail(path: &Path) -> anyhow::Result<()> {
    let log = AuditLog::create(path)?;
    let start: AuditEvent = serde_json::from_value(json!({
        "type": "session_start", "session": "bench", "workspace": "/home/dev/project",
        "version": airlock::VERSION, "pid": 1, "mode": "supervisor", "confirmer": "tui",
        "config_digest": "0".repeat(64), "config_files": ["built-in"],
        "roots": ["/home/dev/project"], "excluded": [".env"],
        "tools": ["bash", "read_file", "write_file"], "policy_mode": "default",
        "rules": ["deny bash(curl *) (from /home/dev/project/.airlock.toml)"],
    }))?;
    log.append(&start)?;
    let agents: Vec<AgentInfo> = (1..=2)
        .map(|id| AgentInfo {
            id,
            name: format!("agent-{id}"),
            version: Some("1.0".into()),
        })
        .collect();
    for a in &agents {
        log.append(&AuditEvent::AgentConnected { agent: a.clone() })?;
    }
    let excerpt = "fn main() { println!(\"hello\"); }\n".repeat(16);
    let diff = format!(
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,20 +1,20 @@\n{}",
        "-old line\n+new line\n".repeat(20)
    );
    let (mut id, mut written) = (0u64, 3);
    while written + 3 < RECORDS {
        id += 1;
        let (tool, kind, args, summary) = match id % 10 {
            0..=5 => (
                "read_file",
                ToolKind::Read,
                json!({"path": format!("src/m{id}.rs")}),
                format!("read_file src/m{id}.rs"),
            ),
            6..=8 => (
                "bash",
                ToolKind::Exec,
                json!({"command": format!("cargo test -q t{id}")}),
                format!("cargo test -q t{id}"),
            ),
            _ => (
                "write_file",
                ToolKind::Write,
                json!({"path": "src/lib.rs", "content": "new line\n".repeat(20)}),
                "overwrite src/lib.rs (+20 −20)".into(),
            ),
        };
        let call = CallInfo {
            id,
            agent: agents[(id % 2) as usize].clone(),
            tool: tool.into(),
            kind: Some(kind),
            args,
            summary,
            received_at: Utc::now(),
            proposal: None,
        };
        log.append(&AuditEvent::CallRequested { call })?;
        let decision = match (kind, id % 13) {
            (ToolKind::Read, _) => Decision::approve(DecidedBy::Rule {
                rule: "default: read-only tools run without asking".into(),
                source: "built-in".into(),
            }),
            (_, 0) => Decision::deny(DecidedBy::User, Some("not now".into())),
            (_, 1) => Decision::deny(
                DecidedBy::Rule {
                    rule: "bash(curl *)".into(),
                    source: "/home/dev/project/.airlock.toml".into(),
                },
                None,
            ),
            _ => Decision::approve(DecidedBy::User),
        };
        let status = match (decision.approved, id % 17) {
            (true, 0) => "error",
            (true, _) => "ok",
            (false, _) => decision.refusal_status(),
        };
        log.append(&AuditEvent::CallDecided {
            call_id: id,
            decision,
        })?;
        log.append(&AuditEvent::CallFinished {
            call_id: id,
            status: status.into(),
            duration_ms: 12,
            is_error: status != "ok",
            truncated: false,
            output_bytes: excerpt.len(),
            output_sha256: "0".repeat(64),
            excerpt: excerpt.clone(),
            change: (kind == ToolKind::Write).then(|| ChangeRecord {
                path: "src/lib.rs".into(),
                action: WriteAction::Overwrite,
                summary: "+20 −20".into(),
                diff: Some(diff.clone()),
                diff_sha256: Some("0".repeat(64)),
                diff_truncated: false,
            }),
        })?;
        written += 3;
    }
    while written < RECORDS - 1 {
        log.append(&AuditEvent::AgentDisconnected {
            agent: agents[0].clone(),
        })?;
        written += 1;
    }
    log.append(&AuditEvent::SessionEnd {
        reason: "shutdown".into(),
    })?;
    Ok(())
}
