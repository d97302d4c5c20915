//! SIGKILL `airlock serve --stdio --approve-all` in the middle of a
//! 1,000-call run of reads and bash commands: every call the agent got an
//! answer for has its request, decision and result in the trail, every
//! decision in the trail follows its request, and the chain verifies up to
//! the last complete line; `--verify` fails all the same, since the session
//! never ended. The readers take the trail as it was left.
//!
//! The kill waits for what the checks need, not for a count alone: reads
//! are answered far faster than the one shell runs commands, so on a loaded
//! machine the first 400 answers can all be reads. The kill comes once
//! `KILL_AFTER` calls and at least `BASH_BEFORE_KILL` bash calls are
//! answered, with calls still in flight; a run that gets there by no
//! `DEADLINE` fails (the server is killed) instead of hanging.

mod log_support;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use airlock::audit::Timeline;
use airlock::call::Outcome;
use log_support::*;
use serde_json::{Value, json};

const CALLS: u64 = 1000;
const KILL_AFTER: usize = 400;
/// Bash calls answered before the kill, at least.
const BASH_BEFORE_KILL: usize = 5;
/// How long the run may take to reach the kill point.
const DEADLINE: Duration = Duration::from_secs(300);

/// What call `i` asks for: every third one is a bash command.
fn request(i: u64) -> (String, Value) {
    if i.is_multiple_of(3) {
        (
            "bash".into(),
            json!({ "command": format!("true # call {i}") }),
        )
    } else {
        ("read_file".into(), json!({ "path": format!("f{i}.txt") }))
    }
}

/// The marker that finds call `i` in the trail.
fn marker(i: u64) -> String {
    if i.is_multiple_of(3) {
        format!("true # call {i}")
    } else {
        format!("f{i}.txt")
    }
}

/// The ids of the calls answered (each without error) until `KILL_AFTER`
/// of them, `BASH_BEFORE_KILL` bash calls among them, or the end of the
/// answers.
fn answers_until_kill_point(answers: &mut BufReader<ChildStdout>) -> Vec<u64> {
    let mut answered = Vec::new();
    let mut bash = 0;
    let mut line = String::new();
    while answered.len() < KILL_AFTER || bash < BASH_BEFORE_KILL {
        line.clear();
        if answers.read_line(&mut line).unwrap() == 0 {
            break;
        }
        let v: Value = serde_json::from_str(&line).unwrap();
        if let Some(id) = v.get("id").and_then(Value::as_u64) {
            let result = &v["result"];
            assert_eq!(result["isError"], false, "call {id} failed: {v}");
            answered.push(id);
            bash += usize::from(id.is_multiple_of(3));
        }
    }
    answered
}

#[test]
#[expect(clippy::too_many_lines, reason = "one scenario, read top to bottom")]
fn sigkill_mid_run_of_1000_calls_loses_no_decision() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    for i in 1..=CALLS {
        std::fs::write(ws.join(format!("f{i}.txt")), format!("file {i}\n")).unwrap();
    }
    let data = dir.path().join("data");
    let mut child = Command::new(env!("CARGO_BIN_EXE_airlock"))
        .env("AIRLOCK_NO_USER_CONFIG", "1")
        .args(["serve", "--stdio", "--approve-all", "--workspace"])
        .arg(&ws)
        .arg("--data-dir")
        .arg(&data)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut answers = BufReader::new(child.stdout.take().unwrap());
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"crash-1000","version":"1"}}});
    writeln!(stdin, "{init}").unwrap();
    let mut line = String::new();
    answers.read_line(&mut line).unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc":"2.0","method":"notifications/initialized"})
    )
    .unwrap();

    let writer = std::thread::spawn(move || {
        for i in 1..=CALLS {
            let (name, arguments) = request(i);
            let req = json!({"jsonrpc":"2.0","id":i,"method":"tools/call",
                "params":{"name":name,"arguments":arguments}});
            if writeln!(stdin, "{req}").is_err() {
                break;
            }
        }
        // Kept open: closing stdin is the agent leaving, which cancels its
        // calls still in flight.
        stdin
    });
    // The watchdog: SIGKILL at the deadline, unless told the run got there.
    let (done, watch) = mpsc::channel::<()>();
    let pid = rustix::process::Pid::from_child(&child);
    let watchdog = std::thread::spawn(move || {
        // Disconnected (the run got there, or the test panicked): not late.
        let late = matches!(
            watch.recv_timeout(DEADLINE),
            Err(mpsc::RecvTimeoutError::Timeout)
        );
        if late {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
        late
    });
    let answered = answers_until_kill_point(&mut answers);
    drop(done);
    // Joined before the child is reaped, so its pid cannot be reused.
    let late = watchdog.join().unwrap();
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    drop(writer.join());
    let bash = answered.iter().filter(|i| i.is_multiple_of(3)).count();
    assert!(
        answered.len() >= KILL_AFTER && bash >= BASH_BEFORE_KILL && !late,
        "{} answers ({bash} bash) before the server ended{}",
        answered.len(),
        if late { ", killed at the deadline" } else { "" }
    );
    assert!(
        answered.len() < usize::try_from(CALLS).unwrap(),
        "killed mid-run: calls were still in flight"
    );

    let trail = airlock::audit::list_trails(&airlock::dirs::audit_dir(&data)).unwrap()[0]
        .path
        .clone();
    let report = airlock::audit::verify_file(&trail).unwrap();
    let text = std::fs::read_to_string(&trail).unwrap();
    let total_lines = text.split_inclusive('\n').count();
    match &report.error {
        None => assert_eq!(report.verified, total_lines),
        Some(e) => {
            assert!(report.torn_tail, "chain broken: {report:?}");
            assert_eq!(
                (e.line, report.verified + 1),
                (total_lines, total_lines),
                "only the last line may be torn"
            );
        }
    }

    // The verified lines, read as a timeline.
    let t = Timeline::load(&trail).unwrap();
    assert!(t.problems.is_empty(), "{:?}", t.problems);
    assert_eq!(t.torn_tail.is_some(), report.torn_tail);
    assert_eq!(t.records, report.verified);
    assert!(t.ended.is_none(), "killed, not ended");
    let by_marker: HashMap<String, &airlock::audit::CallEntry> = t
        .calls
        .iter()
        .map(|c| {
            let m = c.call.args["path"]
                .as_str()
                .or(c.call.args["command"].as_str())
                .unwrap();
            (m.to_string(), c)
        })
        .collect();
    for id in &answered {
        let c = by_marker
            .get(&marker(*id))
            .unwrap_or_else(|| panic!("answered call {id} is not in the trail"));
        let d = c
            .decided
            .as_ref()
            .unwrap_or_else(|| panic!("answered call {id} has no decision"));
        assert!(d.decision.is_approved());
        assert!(d.at.seq > c.requested.seq);
        let f = c
            .finished
            .as_ref()
            .unwrap_or_else(|| panic!("answered call {id} has no result"));
        assert_eq!(f.status, Outcome::Ok, "call {id}");
        assert!(f.at.seq > d.at.seq);
    }
    // No call ran without a decision on disk first: a result always
    // follows a decision.
    assert!(
        t.calls
            .iter()
            .all(|c| c.finished.is_none() || c.decided.is_some())
    );

    // Killed: no session_end, no supervisor writing it. The anchor (kept
    // at each flush before a command ran) is never ahead of the trail.
    assert_eq!(report.end, airlock::audit::TrailEnd::Unfinished);
    assert!(
        matches!(report.anchor, airlock::audit::AnchorCheck::Matches { records } if records > 0),
        "{report:?}"
    );

    // The commands see the same: --verify fails, saying the session did
    // not end (or, first, that the last line is torn).
    let o = airlock(&data, &["log", "--verify"]);
    assert!(!o.status.success(), "{}", stdout(&o));
    let why = if report.torn_tail {
        "torn last line"
    } else {
        "without session_end, and no supervisor is writing it: the supervisor was killed"
    };
    assert!(stderr(&o).contains(why), "{}", stderr(&o));
    let o = airlock(&data, &["log", "--json"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().count(), report.verified);
    let o = airlock(&data, &["sessions"]);
    assert!(stdout(&o).contains("no session_end"), "{}", stdout(&o));
}
