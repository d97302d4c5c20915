//! Helpers for the bash tests (real bash, real PTY, real /proc).
#![allow(dead_code)]

use std::path::Path;
use std::time::{Duration, Instant};

use airlock::tools::bash::BashConfig;
use airlock::tools::bash::{EnvFilter, RunOutcome, Shell, ShellConfig, procs};

/// A shell config for `ws` with the default filtered environment.
pub fn config(ws: &Path) -> ShellConfig {
    config_with(ws, 256 * 1024)
}

/// Same with another output cap.
pub fn config_with(ws: &Path, max_output_bytes: usize) -> ShellConfig {
    let filter = EnvFilter::new(&BashConfig::default()).unwrap();
    ShellConfig {
        workspace: ws.to_path_buf(),
        env: filter.apply(std::env::vars_os()),
        max_output_bytes,
        sandbox: None,
    }
}

/// Run with a 30 s timeout.
pub async fn run(sh: &mut Shell, cmd: &str) -> RunOutcome {
    run_for(sh, cmd, Duration::from_secs(30)).await
}

/// Run with `timeout`.
pub async fn run_for(sh: &mut Shell, cmd: &str, timeout: Duration) -> RunOutcome {
    sh.run(cmd, timeout, std::future::pending(), &mut |_| {})
        .await
        .unwrap()
}

/// Whether `pid` is a live process (a zombie waiting to be reaped by
/// init is dead).
pub fn alive(pid: i32) -> bool {
    procs::stat(pid).is_some_and(|s| s.state != 'Z' && s.state != 'X')
}

/// Wait up to `within` for `pid` to be gone.
pub fn gone_within(pid: i32, within: Duration) -> bool {
    let until = Instant::now() + within;
    while Instant::now() < until {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    !alive(pid)
}

/// Live processes in process group or session `id`.
pub fn live_in_group(id: i32) -> Vec<i32> {
    procs::all()
        .into_iter()
        .filter(|p| (p.pgrp == id || p.session == id) && p.state != 'Z' && p.state != 'X')
        .map(|p| p.pid)
        .collect()
}

/// Our open file descriptors of the kinds a shell uses (terminals, pipes,
/// files in its private directory). Async runtimes of tests running in
/// parallel come and go with epoll/eventfd/socket descriptors: not counted.
pub fn open_fds() -> usize {
    fd_list()
        .iter()
        .filter(|l| {
            l.contains("/dev/ptmx")
                || l.contains("/dev/pts")
                || l.contains("pipe:")
                || l.contains("airlock-bash")
        })
        .count()
}

/// Our open file descriptors and what they point to.
pub fn fd_list() -> Vec<String> {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(std::result::Result::ok)
        .map(|e| {
            let target = std::fs::read_link(e.path()).unwrap_or_default();
            format!("{}->{}", e.file_name().to_string_lossy(), target.display())
        })
        .collect()
}

/// Our live child processes.
pub fn children() -> Vec<i32> {
    let me = i32::try_from(std::process::id()).expect("a pid fits an i32");
    procs::all()
        .into_iter()
        .filter(|p| p.ppid == me && p.state != 'Z')
        .map(|p| p.pid)
        .collect()
}

/// Our resident set size in KiB.
pub fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}
