//! Benchmark: a 100,000-record trail (written with `AuditLog::append`, so
//! every line is real and chained) streamed by `airlock log --json` and
//! read into a `Timeline` (what `airlock review` does on open).
//!
//! Run: `cargo build --release && cargo run --release --example log_bench`
//! (the `airlock` binary is taken from next to this example, or from
//! `AIRLOCK_BIN`).
//! Targets: `log --json` under 1 s; `Timeline::load` under 1 s.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use airlock::audit::Timeline;
use anyhow::{Context, bail};

#[path = "support/trail.rs"]
mod trail;

const RECORDS: usize = 100_000;
const RUNS: usize = 5;

fn main() -> anyhow::Result<()> {
    let bin = airlock_bin()?;
    let dir = tempfile::tempdir()?;
    let data = dir.path().join("data");
    let id = "20260101T000000.000Z-be7c";
    let trail = airlock::dirs::audit_dir(&data).join(format!("{id}.jsonl"));
    let t0 = Instant::now();
    trail::write_trail(&trail, RECORDS)?;
    let size = std::fs::metadata(&trail)?.len();
    println!(
        "trail: {RECORDS} records, {:.1} MB, written in {:.2} s",
        size as f64 / 1e6,
        t0.elapsed().as_secs_f64()
    );

    let report = |name: &str, times: &mut Vec<Duration>, target: Option<f64>| {
        times.sort();
        let median = times[times.len() / 2].as_secs_f64();
        let best = times[0].as_secs_f64();
        let verdict = match target {
            Some(t) if median < t => format!("  (target < {t} s: met)"),
            Some(t) => format!("  (target < {t} s: MISSED)"),
            None => String::new(),
        };
        println!("{name:<38} median {median:.3} s, best {best:.3} s{verdict}");
    };

    let mut times = Vec::new();
    let mut bytes = 0;
    for _ in 0..RUNS {
        let (d, n) = run(&bin, &data, &["log", "--json", id])?;
        times.push(d);
        bytes = n;
    }
    if bytes as u64 != size {
        bail!("log --json wrote {bytes} bytes, the trail has {size}");
    }
    report("airlock log --json", &mut times, Some(1.0));

    let mut times = Vec::new();
    for _ in 0..RUNS {
        let start = Instant::now();
        let t = Timeline::load(&trail)?;
        times.push(start.elapsed());
        if t.records != RECORDS || !t.problems.is_empty() {
            bail!(
                "timeline read {} records, {} problems",
                t.records,
                t.problems.len()
            );
        }
    }
    report("Timeline::load (review opening)", &mut times, Some(1.0));

    for args in [
        &["log", "--json", "--tool", "bash", id][..],
        &["log", "--color", "never", id],
        &["log", "--verify", id],
    ] {
        let mut times = Vec::new();
        for _ in 0..RUNS {
            times.push(run(&bin, &data, args)?.0);
        }
        report(
            &format!("airlock {}", args[..args.len() - 1].join(" ")),
            &mut times,
            None,
        );
    }
    Ok(())
}

/// The release binary next to this example (`target/release/airlock`).
fn airlock_bin() -> anyhow::Result<PathBuf> {
    if let Some(p) = std::env::var_os("AIRLOCK_BIN") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe()?;
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .map(|d| d.join("airlock"))
        .context("cannot find the target directory")?;
    if !bin.exists() {
        bail!(
            "{} not found: run `cargo build --release` first (or set AIRLOCK_BIN)",
            bin.display()
        );
    }
    Ok(bin)
}

/// Run the binary with stdout to a pipe that is drained; returns the wall
/// time and the bytes read.
fn run(bin: &Path, data: &Path, args: &[&str]) -> anyhow::Result<(Duration, usize)> {
    let start = Instant::now();
    let mut child = Command::new(bin)
        .env("AIRLOCK_NO_USER_CONFIG", "1")
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut out = child.stdout.take().context("no stdout")?;
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0;
    loop {
        match out.read(&mut buf)? {
            0 => break,
            n => total += n,
        }
    }
    let status = child.wait()?;
    let elapsed = start.elapsed();
    if !status.success() {
        bail!("airlock {} failed: {status}", args.join(" "));
    }
    Ok((elapsed, total))
}
