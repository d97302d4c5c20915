//! Benchmark: edit the middle of a 10 MB file through the full pipeline
//! (proposal with diff, approval, audit, atomic write).
//!
//! Run: `cargo run --release --example write_bench`
//! Target: median under 200 ms.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

use airlock::audit::AuditLog;
use airlock::call::EventBus;
use airlock::policy::Policy;
use airlock::scope::Scope;
use airlock::supervisor::{ApproveAllConfirmer, Supervisor, SupervisorParts};
use airlock::tools::{Limits, ToolRegistry};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const RUNS: usize = 21;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws)?;
    // ~10 MB of source-like lines, with a unique marker line in the middle.
    let mut content = String::with_capacity(10_500_000);
    let mut i = 0;
    while content.len() < 10_000_000 {
        if i == 62_500 {
            content.push_str("    let marker = \"EDIT-ME-0\";\n");
        }
        let _ = writeln!(
            content,
            "    let value_{i:07} = compute({i}, \"some filler text here\");"
        );
        i += 1;
    }
    std::fs::write(ws.join("big.rs"), &content)?;
    let size = content.len();
    drop(content);

    let sup = Supervisor::new(SupervisorParts {
        scope: Scope::new(&ws, &[], &[])?,
        tools: ToolRegistry::all(),
        policy: Policy::new(),
        confirmer: Arc::new(ApproveAllConfirmer),
        audit: Arc::new(AuditLog::create(&dir.path().join("audit/bench.jsonl"))?),
        limits: Limits::default(),
        approval_timeout: None,
        events: EventBus::default(),
    });
    let agent = sup.agent_connected(Some("bench"), None);
    let mut times = Vec::with_capacity(RUNS);
    for run in 0..RUNS {
        let args = json!({
            "path": "big.rs",
            "old_text": format!("\"EDIT-ME-{run}\""),
            "new_text": format!("\"EDIT-ME-{}\"", run + 1),
        });
        let start = Instant::now();
        let out = sup
            .call(
                &agent,
                "edit_file",
                args.as_object().cloned(),
                CancellationToken::new(),
                None,
            )
            .await?;
        times.push(start.elapsed());
        anyhow::ensure!(!out.is_error, "edit failed: {}", out.text);
    }
    times.sort();
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    println!(
        "edit_file in the middle of a {:.1} MB file ({} lines), {RUNS} runs, full pipeline:",
        size as f64 / 1e6,
        i + 1
    );
    println!(
        "  median {:.1} ms   min {:.1} ms   max {:.1} ms   (target: median < 200 ms)",
        ms(times[RUNS / 2]),
        ms(times[0]),
        ms(times[RUNS - 1])
    );
    Ok(())
}
