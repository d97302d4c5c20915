//! SIGKILL the server in the middle of a run: the trail's chain verifies up
//! to the last complete line, and every call the agent got an answer for has
//! its decision in the trail.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

#[test]
fn sigkill_mid_run_leaves_a_verifiable_trail() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    std::fs::write(ws.join("f.txt"), "x".repeat(4096)).unwrap();
    let data = dir.path().join("data");
    let mut child = Command::new(env!("CARGO_BIN_EXE_airlock"))
        .env("AIRLOCK_NO_USER_CONFIG", "1")
        .args(["serve", "--stdio", "--workspace"])
        .arg(&ws)
        .arg("--data-dir")
        .arg(&data)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"crash-test","version":"1"}}});
    writeln!(stdin, "{init}").unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc":"2.0","method":"notifications/initialized"})
    )
    .unwrap();

    // Pipeline 1,000 calls from a writer thread; kill after 300 answers.
    let writer = std::thread::spawn(move || {
        for i in 1..=1000 {
            let req = json!({"jsonrpc":"2.0","id":i,"method":"tools/call",
                "params":{"name":"read_file","arguments":{"path":"f.txt"}}});
            if writeln!(stdin, "{req}").is_err() {
                break;
            }
        }
    });
    let mut answered = Vec::new();
    while answered.len() < 300 {
        line.clear();
        if stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
        let v: Value = serde_json::from_str(&line).unwrap();
        if let Some(id) = v.get("id").and_then(Value::as_u64) {
            assert!(v.get("result").is_some(), "{v}");
            answered.push(id);
        }
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let _ = writer.join();
    assert_eq!(answered.len(), 300);

    let trail = std::fs::read_dir(data.join("audit"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let report = airlock::audit::verify_file(&trail).unwrap();
    assert!(
        report.error.is_none() || report.torn_tail,
        "chain broken: {report:?}"
    );
    let text = std::fs::read_to_string(&trail).unwrap();
    let complete: Vec<Value> = text
        .lines()
        .take(report.verified)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let decided = complete
        .iter()
        .filter(|r| r["type"] == "call_decided")
        .count();
    let finished = complete
        .iter()
        .filter(|r| r["type"] == "call_finished")
        .count();
    assert!(
        decided >= answered.len(),
        "{decided} decisions for {} answers",
        answered.len()
    );
    assert!(
        finished >= answered.len(),
        "{finished} results for {} answers",
        answered.len()
    );
    assert!(
        !complete.iter().any(|r| r["type"] == "session_end"),
        "killed, not ended"
    );
}
