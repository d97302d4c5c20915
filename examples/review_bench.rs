//! Benchmark: how long `airlock review` takes to open a 100,000-record
//! trail — read it, check its hash chain, build the timeline and the calls
//! pane's rows, and draw the first frame (ratatui's `TestBackend`,
//! 160×48) — and then how long a `/` filter and an `n` jump take.
//!
//! Run: `cargo run --release --example review_bench`. The trail is written
//! with `AuditLog::append`, so every line is real and chained.
//! Target: opening (load + first frame) under 1 s, median of 5 runs.

use std::time::{Duration, Instant};

use airlock::tui::review::Review;
use airlock::tui::{App, Msg};
use anyhow::bail;
use chrono::{Offset, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

#[path = "support/trail.rs"]
mod trail;

const RECORDS: usize = 100_000;
const RUNS: usize = 5;
const TARGET_S: f64 = 1.0;
const SIZE: (u16, u16) = (160, 48);

fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let trail = dir.path().join("20260101T000000.000Z-be7c.jsonl");
    let t0 = Instant::now();
    trail::write_trail(&trail, RECORDS)?;
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
        let app = App::reviewing(review, Utc::now(), tz, area);
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
    let r = app.review().map(|r| (r.timeline.records, r.verify.is_ok()));
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
    term.draw(|f| airlock::tui::draw(f, app))?;
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
