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

use airlock::audit::{AuditEvent, AuditLog, ChangeRecord, Timeline};
use airlock::supervisor::{AgentInfo, CallInfo, DecidedBy, Decision, ToolKind, WriteAction};
use anyhow::{Context, bail};
use serde_json::json;

const RECORDS: usize = 100_000;
const RUNS: usize = 5;

fn main() -> anyhow::Result<()> {
    let bin = airlock_bin()?;
    let dir = tempfile::tempdir()?;
    let data = dir.path().join("data");
    let id = "20260101T000000.000Z-be7c";
    let trail = airlock::dirs::audit_dir(&data).join(format!("{id}.jsonl"));
    let t0 = Instant::now();
    write_trail(&trail)?;
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

/// A session's worth of records: start, two agents, then calls of three
/// records each — reads with 512-byte excerpts, bash commands, some
/// denied, and writes with diffs — and the end.
fn write_trail(path: &Path) -> anyhow::Result<()> {
    let log = AuditLog::create(path)?;
    log.append(&AuditEvent::SessionStart {
        session: "bench".into(),
        workspace: "/home/dev/project".into(),
        version: airlock::VERSION.into(),
        pid: 1,
        mode: "supervisor".into(),
        confirmer: "tui".into(),
        config_digest: "0".repeat(64),
        config_files: vec!["built-in".into()],
        roots: vec!["/home/dev/project".into()],
        excluded: vec![".env".into()],
        tools: vec!["bash".into(), "read_file".into(), "write_file".into()],
        policy_mode: "default".into(),
        rules: vec!["allow bash(cargo test *) (from /home/dev/project/.airlock.toml)".into()],
        sandbox: None,
    })?;
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
    let excerpt: String = "fn main() { println!(\"hello\"); }\n".repeat(16);
    let diff = format!(
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n{}",
        "-old line\n+new line\n".repeat(20)
    );
    let mut id = 0u64;
    let mut written = 3;
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
            received_at: chrono::Utc::now(),
            proposal: None,
        };
        log.append(&AuditEvent::CallRequested { call })?;
        let decision = match (kind, id % 7) {
            (ToolKind::Read, _) => Decision::approve(DecidedBy::Rule {
                rule: "default: read-only tools run without asking".into(),
                source: "built-in".into(),
            }),
            (_, 0) => Decision::deny(DecidedBy::User, Some("not now".into())),
            _ => Decision::approve(DecidedBy::User),
        };
        let approved = decision.approved;
        let status = if approved {
            "ok"
        } else {
            decision.refusal_status()
        };
        log.append(&AuditEvent::CallDecided {
            call_id: id,
            decision,
        })?;
        log.append(&AuditEvent::CallFinished {
            call_id: id,
            status: status.into(),
            duration_ms: 12,
            is_error: !approved,
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
