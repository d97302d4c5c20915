//! `cargo run --release --example hook_bench [-- N]`: the round trip of an
//! auto-allowed native read through `airlock hook claude` — the real hook
//! process spawned against a running headless supervisor, process start
//! included — beside the floor of spawning `/bin/true`, in the same run.
//! Target: a median of at most 5 ms.
//!
//! The event is Claude Code 2.1.197's recorded `PreToolUse` for `Read`
//! (tests/fixtures/hooks), in a temporary workspace like the recording's.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn airlock_bin() -> PathBuf {
    // The example lives in target/<profile>/examples; the binary one up.
    let exe = std::env::current_exe().expect("own path");
    let dir = exe.parent().and_then(Path::parent).expect("target dir");
    dir.join("airlock")
}

/// Median and 99th percentile of `samples`.
fn stats(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    // The nearest rank, rounded half up, in whole numbers.
    let at = |percent: usize| samples[((samples.len() - 1) * percent + 50) / 100];
    (at(50), at(99))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The headless supervisor (no terminal: it serves its MCP and hook
/// sockets) for `ws`; returns once it says where it listens.
fn supervisor(bin: &Path, ws: &Path, data: &Path, runtime: &Path) -> Child {
    let mut child = Command::new(bin)
        .arg("--workspace")
        .arg(ws)
        .arg("--data-dir")
        .arg(data)
        .env("XDG_RUNTIME_DIR", runtime)
        .env("AIRLOCK_RUNTIME_DIR", runtime)
        .env("AIRLOCK_NO_USER_CONFIG", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the supervisor (cargo build --release first)");
    let out = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(out).lines();
    for line in lines.by_ref() {
        let line = line.expect("supervisor output");
        if line.trim_start().starts_with("socket:") {
            break;
        }
    }
    // Keep draining so the supervisor never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    child
}

fn hook_once(bin: &Path, ws: &Path, runtime: &Path, event: &[u8]) -> (Duration, String) {
    let start = Instant::now();
    let mut child = Command::new(bin)
        .args(["hook", "claude"])
        .current_dir(ws)
        .env("XDG_RUNTIME_DIR", runtime)
        .env("AIRLOCK_RUNTIME_DIR", runtime)
        .env("AIRLOCK_NO_USER_CONFIG", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn airlock hook");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(event)
        .expect("write the event");
    let out = child.wait_with_output().expect("hook output");
    let took = start.elapsed();
    (took, String::from_utf8_lossy(&out.stdout).into_owned())
}

fn true_once() -> Duration {
    let start = Instant::now();
    let status = Command::new("/bin/true").status().expect("/bin/true");
    assert!(status.success());
    start.elapsed()
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(300);
    let bin = airlock_bin();
    let tmp = tempfile::Builder::new()
        .prefix("airlock-hook-bench-")
        .tempdir()
        .expect("temp dir");
    let root = tmp.path().canonicalize().expect("temp dir path");
    let (ws, data, runtime) = (root.join("ws"), root.join("data"), root.join("run"));
    for d in [&ws, &data, &runtime] {
        std::fs::create_dir_all(d).expect("dirs");
    }
    std::fs::set_permissions(
        &runtime,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .expect("runtime dir mode");
    std::fs::write(ws.join("todo.txt"), "title: ship it\nstatus: draft\n").expect("workspace");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hooks/claude-2.1.197/PreToolUse-Read.json");
    let event = std::fs::read_to_string(&fixture)
        .expect("the recorded event")
        .replace("@ROOT@", &root.display().to_string());
    let event = serde_json::to_vec(&serde_json::from_str::<serde_json::Value>(&event).unwrap())
        .expect("one line");

    let mut sup = supervisor(&bin, &ws, &data, &runtime);
    let (_, answer) = hook_once(&bin, &ws, &runtime, &event);
    if !answer.contains("\"allow\"") {
        let _ = sup.kill();
        eprintln!("airlock hook did not allow the read: {answer:?}");
        std::process::exit(1);
    }
    let mut hook = Vec::with_capacity(n);
    let mut floor = Vec::with_capacity(n);
    for _ in 0..n {
        // Interleaved, so machine load hits both alike.
        floor.push(true_once());
        hook.push(hook_once(&bin, &ws, &runtime, &event).0);
    }
    let _ = sup.kill();
    let _ = sup.wait();
    let (hm, hp) = stats(hook);
    let (fm, fp) = stats(floor);
    println!("hook round trip, auto-allowed Read ({n} runs, process start included):");
    println!(
        "  airlock hook claude   median {:7.3} ms   p99 {:7.3} ms",
        ms(hm),
        ms(hp)
    );
    println!(
        "  /bin/true (floor)     median {:7.3} ms   p99 {:7.3} ms",
        ms(fm),
        ms(fp)
    );
    println!(
        "  ratio hook/floor      median {:7.2}x     p99 {:7.2}x",
        ms(hm) / ms(fm),
        ms(hp) / ms(fp)
    );
    println!(
        "  target: median <= 5 ms: {}",
        if ms(hm) <= 5.0 { "met" } else { "NOT met" }
    );
}
