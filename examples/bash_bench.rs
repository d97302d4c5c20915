//! Round-trip time of the bash tool's session (a long-lived shell that runs
//! each command in a fresh bash of its own), unsandboxed and in
//! the default sandbox, against spawning a fresh `bash -c` per command.
//!
//! ```text
//! cargo run --release --example bash_bench [-- COUNT [FILES]]
//! ```
//!
//! Runs COUNT (default 1000) `true` commands each way and prints the
//! median, p90 and p99 side by side, then the sandbox's cost (median
//! difference, and the time to start a shell). The workspace is a fresh
//! temporary directory holding FILES (default 100,000) files — a git
//! repository with sources, `target/`, `node_modules/` and a few excluded
//! files — so the sandboxed shell start includes the full walk of every
//! directory (excluded files, hard links, repositories). The session's round trip
//! is the whole call on the session: dispatch line (with the command)
//! sent, the command run in a fresh bash, output read from the PTY until the sentinel, result normalised.

use std::sync::Arc;
use std::time::{Duration, Instant};

use airlock::sandbox::{Sandbox, SandboxConfig};
use airlock::scope::{DEFAULT_EXCLUDED, Exclusions};
use airlock::tools::bash::BashConfig;
use airlock::tools::bash::{Ending, EnvFilter, Shell, ShellConfig};

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "q is in [0, 1]: a rounded index within the slice"
    )]
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

async fn run_true(shell: &mut Shell) -> anyhow::Result<Duration> {
    let t = Instant::now();
    let r = shell
        .run(
            "true",
            Duration::from_secs(10),
            std::future::pending(),
            &mut |_| {},
        )
        .await?;
    let took = t.elapsed();
    anyhow::ensure!(
        matches!(r.ending, Ending::Finished { status: 0 }),
        "unexpected ending {:?}",
        r.ending
    );
    Ok(took)
}

/// Start a shell with `cfg` (timed), warm it up, then time `count` calls
/// of `true`.
async fn persistent(cfg: &ShellConfig, count: usize) -> anyhow::Result<(Duration, Vec<Duration>)> {
    let t = Instant::now();
    let mut shell = Shell::spawn(cfg).await?;
    let start = t.elapsed();
    for _ in 0..20 {
        run_true(&mut shell).await?;
    }
    let mut v = Vec::with_capacity(count);
    for _ in 0..count {
        v.push(run_true(&mut shell).await?);
    }
    v.sort();
    Ok((start, v))
}

/// A git repository of `files` files: sources in directories of 100,
/// a tenth under `target/`, a tenth under `node_modules/`, and an excluded
/// file in every hundredth directory.
fn make_workspace(ws: &std::path::Path, files: usize) -> anyhow::Result<()> {
    std::fs::create_dir_all(ws)?;
    let st = std::process::Command::new("git")
        .args(["init", "-q", "."])
        .current_dir(ws)
        .status()?;
    anyhow::ensure!(st.success(), "git init failed");
    let per_dir = 100;
    for d in 0..files.div_ceil(per_dir) {
        let top = match d % 10 {
            0 => "target/debug/deps",
            1 => "node_modules/pkg",
            _ => "src",
        };
        let dir = ws.join(format!("{top}/m{:03}/d{d:05}", d % 1000));
        std::fs::create_dir_all(&dir)?;
        for f in 0..per_dir.min(files - d * per_dir) {
            let name = if f == 0 && d % 100 == 0 {
                ".env".to_string()
            } else {
                format!("f{f:03}.rs")
            };
            std::fs::write(dir.join(name), "x")?;
        }
    }
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let count: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(1000);
    let files: usize = std::env::args()
        .nth(2)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(100_000);
    let dir = tempfile::tempdir()?;
    let ws = dir.path().join("ws");
    let t = Instant::now();
    make_workspace(&ws, files)?;
    let ws = std::fs::canonicalize(ws)?;
    println!(
        "workspace: {files} files in {} ({} to create)",
        ws.display(),
        ms(t.elapsed())
    );
    let env = EnvFilter::new(&BashConfig::default())?.apply(std::env::vars_os());
    let plain = ShellConfig {
        workspace: ws.clone(),
        env: env.clone(),
        max_output_bytes: 256 * 1024,
        sandbox: None,
    };
    let excluded: Vec<String> = DEFAULT_EXCLUDED
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    let sandbox = Sandbox::new(
        &SandboxConfig::default(),
        &ws,
        &Exclusions::new(&excluded).map_err(anyhow::Error::msg)?,
        &[],
    );
    println!("{}", sandbox.status().summary);
    let boxed = ShellConfig {
        env: sandbox.filter_env(env.clone())?,
        sandbox: Some(Arc::clone(&sandbox)),
        ..plain.clone()
    };

    let (plain_start, unsandboxed) = persistent(&plain, count).await?;
    let (boxed_start, sandboxed) = persistent(&boxed, count).await?;

    let mut spawned = Vec::with_capacity(count);
    for _ in 0..count {
        let t = Instant::now();
        let out = std::process::Command::new("bash")
            .args(["--noprofile", "--norc", "-c", "true"])
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .current_dir(&ws)
            .stdin(std::process::Stdio::null())
            .output()?;
        spawned.push(t.elapsed());
        anyhow::ensure!(out.status.success(), "bash -c true failed");
    }
    spawned.sort();

    println!("{count} × `true`              median      p90         p99");
    for (name, v) in [
        ("session, unsandboxed   ", &unsandboxed),
        ("session, sandboxed     ", &sandboxed),
        ("fresh bash -c          ", &spawned),
    ] {
        println!(
            "{name}   {:>10}  {:>10}  {:>10}",
            ms(quantile(v, 0.5)),
            ms(quantile(v, 0.9)),
            ms(quantile(v, 0.99))
        );
    }
    let diff = quantile(&sandboxed, 0.5).as_secs_f64() - quantile(&unsandboxed, 0.5).as_secs_f64();
    println!(
        "sandbox cost per command (median): {:+.3} ms (target: within 1 ms)",
        diff * 1000.0
    );
    println!(
        "shell start, {files} files: {} unsandboxed, {} sandboxed (full workspace walk, namespaces, mounts, watches)",
        ms(plain_start),
        ms(boxed_start)
    );
    let t = Instant::now();
    let walk = airlock::sandbox::scan::scan(
        &ws,
        &Exclusions::new(&excluded).map_err(anyhow::Error::msg)?,
        &[],
        &mut |_| {},
    );
    println!(
        "  of which the walk alone: {} ({} entries, {} directories, {} excluded, {} repositories)",
        ms(t.elapsed()),
        walk.entries,
        walk.dirs,
        walk.excluded.len(),
        walk.gitdirs.len()
    );
    let ratio = quantile(&unsandboxed, 0.5).as_secs_f64() / quantile(&spawned, 0.5).as_secs_f64();
    println!("session / bash -c (median): {ratio:.2}× (below 1: the session is faster)");
    Ok(())
}
