//! Nothing a shell started outlives its timeout, a restart or its agent's
//! disconnect: `setsid -f`, a double fork into a new session and a perl
//! daemon all die with the shell (its PID namespace). Each case has a
//! control with `contain_processes = false` in which the same daemons
//! survive and write their marker.

mod sandbox_support;

use std::path::Path;
use std::time::Duration;

use sandbox_support::{Fixture, fixture};
use serde_json::json;

/// Three ways to leave the shell's session, each touching a marker in the
/// workspace after `DELAY` seconds.
fn daemons(tag: &str) -> String {
    format!(
        "setsid -f sh -c 'sleep 1.5; touch {tag}-setsid'; \
         setsid sh -c '(sleep 1.5; touch {tag}-double) &'; \
         perl -e 'use POSIX; fork and exit; POSIX::setsid(); fork and exit; sleep 1.5; open(F, \">{tag}-perl\");'"
    )
}

const MARKERS: [&str; 3] = ["setsid", "double", "perl"];

/// The markers there after the daemons' delay and a margin. A control
/// (`contain` off) waits on, up to 20 s, until all of them are there: a
/// loaded machine may run a surviving daemon late, and that must not fail
/// the control. With containment, any marker at all fails the test, so
/// the margin is the wait.
async fn markers_after_wait(f: &Fixture, tag: &str, contain: bool) -> Vec<String> {
    let patience = if contain {
        Duration::from_millis(2800)
    } else {
        Duration::from_secs(20)
    };
    let start = std::time::Instant::now();
    tokio::time::sleep(Duration::from_millis(2800)).await;
    loop {
        let found: Vec<String> = MARKERS
            .iter()
            .map(|m| format!("{tag}-{m}"))
            .filter(|m| Path::new(&f.ws.join(m)).exists())
            .collect();
        if found.len() == MARKERS.len() || start.elapsed() >= patience {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn on_timeout(contain: bool) -> Vec<String> {
    let f = fixture(&format!("contain_processes = {contain}"));
    let out = f
        .bash_args(json!({"command": format!("{}; sleep 30", daemons("t")), "timeout_secs": 1}))
        .await;
    assert!(
        out.is_error && out.text.contains("timed out"),
        "{}",
        out.text
    );
    markers_after_wait(&f, "t", contain).await
}

async fn on_restart(contain: bool) -> Vec<String> {
    let f = fixture(&format!("contain_processes = {contain}"));
    f.ok(&daemons("r")).await;
    f.restart().await;
    markers_after_wait(&f, "r", contain).await
}

async fn on_disconnect(contain: bool) -> Vec<String> {
    let f = fixture(&format!("contain_processes = {contain}"));
    f.ok(&daemons("d")).await;
    f.disconnect();
    markers_after_wait(&f, "d", contain).await
}

#[tokio::test]
async fn daemons_die_with_a_timed_out_command() {
    assert_eq!(on_timeout(true).await, Vec::<String>::new());
}

#[tokio::test]
async fn control_without_containment_daemons_survive_the_timeout() {
    assert_eq!(on_timeout(false).await.len(), 3);
}

#[tokio::test]
async fn daemons_die_with_a_restart() {
    assert_eq!(on_restart(true).await, Vec::<String>::new());
}

#[tokio::test]
async fn control_without_containment_daemons_survive_a_restart() {
    assert_eq!(on_restart(false).await.len(), 3);
}

#[tokio::test]
async fn daemons_die_when_the_agent_disconnects() {
    assert_eq!(on_disconnect(true).await, Vec::<String>::new());
}

#[tokio::test]
async fn control_without_containment_daemons_survive_a_disconnect() {
    assert_eq!(on_disconnect(false).await.len(), 3);
}

#[tokio::test]
async fn background_jobs_still_run_between_calls_and_the_shell_sees_its_own_pids() {
    let f = fixture("");
    f.ok("(sleep 0.3; touch bg-done) &").await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(f.ws.join("bg-done").exists());
    // The shell (the parent of each command's bash) is its namespace's init,
    // with a /proc of its own.
    assert_eq!(
        f.ok("echo $PPID; ls /proc | grep -c '^[0-9]*$' | tr -d ' '")
            .await
            .lines()
            .next(),
        Some("1")
    );
    // The shell's exit status still reaches the result.
    let out = f.bash("exit 7").await;
    assert!(out.text.contains('7'), "{}", out.text);
}

#[tokio::test]
async fn the_tool_description_claims_only_what_holds() {
    let desc = |f: &Fixture| {
        f.session
            .supervisor
            .tools()
            .get("bash")
            .map(|t| t.spec().description.to_string())
            .unwrap()
    };
    let on = fixture("");
    let d = desc(&on);
    assert!(
        d.contains("every process it starts ends with the shell"),
        "{d}"
    );
    assert!(d.contains("also when they appear later"), "{d}");
    assert!(d.contains("control files are read-only"), "{d}");
    let off = fixture("contain_processes = false\nprotect_git = false");
    let d = desc(&off);
    assert!(!d.contains("every process it starts"), "{d}");
    assert!(!d.contains("control files"), "{d}");
}
