//! Round-trip time of the bash tool's persistent shell against spawning a
//! fresh `bash -c` per command.
//!
//! ```text
//! cargo run --release --example bash_bench [-- COUNT]
//! ```
//!
//! Runs COUNT (default 1000) `true` commands each way and prints the
//! median, p90 and p99 side by side. The persistent round trip is the whole
//! call on the session: command file written, dispatch line sent, output
//! read from the PTY until the sentinel, result normalised.

use std::time::{Duration, Instant};

use airlock::config::BashConfig;
use airlock::tools::bash::{EnvFilter, Shell, ShellConfig};

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let count: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(1000);
    let ws = std::env::current_dir()?;
    let env = EnvFilter::new(&BashConfig::default())?.apply(std::env::vars_os());
    let cfg = ShellConfig {
        workspace: ws.clone(),
        env: env.clone(),
        max_output_bytes: 256 * 1024,
        sandbox: None,
    };

    let mut shell = Shell::spawn(&cfg).await?;
    for _ in 0..20 {
        shell
            .run(
                "true",
                Duration::from_secs(10),
                std::future::pending(),
                &mut |_| {},
            )
            .await?;
    }
    let mut persistent = Vec::with_capacity(count);
    for _ in 0..count {
        let t = Instant::now();
        let r = shell
            .run(
                "true",
                Duration::from_secs(10),
                std::future::pending(),
                &mut |_| {},
            )
            .await?;
        persistent.push(t.elapsed());
        anyhow::ensure!(
            matches!(
                r.ending,
                airlock::tools::bash::Ending::Finished { status: 0 }
            ),
            "unexpected ending {:?}",
            r.ending
        );
    }
    drop(shell);

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

    persistent.sort();
    spawned.sort();
    println!("{count} × `true`           median      p90         p99");
    for (name, v) in [
        ("persistent session", &persistent),
        ("fresh bash -c     ", &spawned),
    ] {
        println!(
            "{name}   {:>10}  {:>10}  {:>10}",
            ms(quantile(v, 0.5)),
            ms(quantile(v, 0.9)),
            ms(quantile(v, 0.99))
        );
    }
    let ratio = quantile(&spawned, 0.5).as_secs_f64() / quantile(&persistent, 0.5).as_secs_f64();
    println!("persistent session is {ratio:.1}× faster (median)");
    Ok(())
}
