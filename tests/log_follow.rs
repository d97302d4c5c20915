//! `airlock log --follow` on a trail that is being written: records show
//! up as they arrive, a half-written line waits for its newline, a call
//! waiting for a decision is shown as waiting, and the command ends with
//! the session.

mod log_support;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use log_support::*;

fn spawn_follow(data: &Path, trail: &Path, extra: &[&str]) -> (Child, mpsc::Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_airlock"))
        .env("AIRLOCK_NO_USER_CONFIG", "1")
        .env("TZ", "UTC")
        .arg("--data-dir")
        .arg(data)
        .args(["log", "--follow"])
        .arg(trail)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// Lines received until one contains `want` (panics after 10 s).
fn until(rx: &mpsc::Receiver<String>, want: &[&str], seen: &mut Vec<String>) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(l) => {
                let hit = want.iter().all(|w| l.contains(w));
                seen.push(l);
                if hit {
                    return;
                }
            }
            Err(e) => panic!("no line with {want:?} ({e}); got:\n{}", seen.join("\n")),
        }
    }
}

fn append(f: &mut std::fs::File, bytes: &[u8]) {
    f.write_all(bytes).unwrap();
    f.flush().unwrap();
}

/// The exit status within 10 s.
fn exits(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(
            Instant::now() < deadline,
            "--follow did not end with the session"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test]
async fn follow_prints_a_live_trail_and_ends_with_the_session() {
    let f = every_outcome().await;
    let full = std::fs::read_to_string(&f.trail).unwrap();
    let src: Vec<&str> = full.split_inclusive('\n').collect();
    let live = f.dir.path().join("live.jsonl");
    let mut w = std::fs::File::create(&live).unwrap();
    // Up to and including call 1's result.
    let first_result = src
        .iter()
        .position(|l| l.contains("\"type\":\"call_finished\""))
        .unwrap();
    for l in &src[..=first_result] {
        append(&mut w, l.as_bytes());
    }
    let (mut child, rx) = spawn_follow(&f.data, &live, &[]);
    let mut seen = Vec::new();
    until(&rx, &["#1 agent-a"], &mut seen);
    assert!(
        seen.iter()
            .any(|l| l.contains("session") && l.contains("started on")),
        "{seen:?}"
    );

    // Call 2's request, torn in the middle: nothing until its newline.
    let mut next = first_result + 1;
    let (a, b) = src[next].split_at(src[next].len() / 2);
    append(&mut w, a.as_bytes());
    std::thread::sleep(Duration::from_millis(700));
    append(&mut w, b.as_bytes());
    next += 1;
    // Feed up to call 9's request (the call that will time out) and wait:
    // it is shown as waiting for a decision.
    let ninth = src
        .iter()
        .position(|l| l.contains("\"call\":{\"id\":9,"))
        .unwrap();
    for l in &src[next..=ninth] {
        append(&mut w, l.as_bytes());
    }
    until(&rx, &["#9", "waiting for a decision"], &mut seen);
    for l in &src[ninth + 1..] {
        append(&mut w, l.as_bytes());
        std::thread::sleep(Duration::from_millis(5));
    }
    until(&rx, &["session ended: test done"], &mut seen);
    assert!(exits(&mut child).success());
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(err.is_empty(), "the torn line was read whole: {err}");

    // Every call's final line once, in the order the results came.
    let finals: Vec<u64> = seen
        .iter()
        .filter(|l| l.contains("→") && !l.contains("→ waiting") && !l.contains("→ running"))
        .map(|l| l.split_whitespace().nth(1).unwrap()[1..].parse().unwrap())
        .collect();
    assert_eq!(finals, (1..=14).collect::<Vec<u64>>(), "{seen:#?}");
    assert!(
        seen.iter()
            .any(|l| l.contains("#9") && l.contains("timeout (no answer in time)"))
    );
}

#[tokio::test]
async fn follow_json_streams_whole_matching_calls() {
    let f = every_outcome().await;
    let full = std::fs::read_to_string(&f.trail).unwrap();
    let live = f.dir.path().join("live.jsonl");
    let mut w = std::fs::File::create(&live).unwrap();
    let (mut plain, plain_rx) = spawn_follow(&f.data, &live, &["--json"]);
    let (mut denied, denied_rx) = spawn_follow(&f.data, &live, &["--json", "--decision", "denied"]);
    for l in full.split_inclusive('\n') {
        append(&mut w, l.as_bytes());
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(exits(&mut plain).success());
    assert!(exits(&mut denied).success());
    let plain: Vec<String> = plain_rx.try_iter().collect();
    assert_eq!(
        plain.join("\n") + "\n",
        full,
        "unfiltered --follow --json is the trail"
    );
    let denied: Vec<String> = denied_rx.try_iter().collect();
    let want: Vec<&str> = full
        .lines()
        .filter(|l| {
            [4, 5].iter().any(|id| {
                l.contains(&format!("\"call_id\":{id},"))
                    || l.contains(&format!("\"call\":{{\"id\":{id},"))
            })
        })
        .collect();
    assert_eq!(want.len(), 6);
    assert_eq!(denied, want);
}
