//! The inline lane (`src/mcp/inline.rs`): read-only calls that end at once
//! are served where the line transport reads them, not on rmcp's tasks.
//! The same lines sent to a connection with the lane and to one without
//! (the control: rmcp dispatches every request) must give the agent the
//! same answers, byte for byte, and the trail the same records; the lane
//! must really have served the reads; and the calls it declines (a verdict
//! that asks, a large file, tools that are not read-only or need a thread)
//! must still wait, be answered and not hold up the reads behind them.

mod mcp_support;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use airlock::audit::AuditLog;
use airlock::call::EventBus;
use airlock::mcp::Dispatch;
use airlock::policy::{Action, Mode, Policy, Rule};
use airlock::scope::Scope;
use airlock::supervisor::{Supervisor, SupervisorParts};
use airlock::tools::{Limits, ToolRegistry};
use mcp_support::read_audit;
use mcp_support::waiting::Scripted;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio_util::sync::CancellationToken;

/// A workspace with a small file, a large one (more than a read on the
/// spot takes) and files the rules ask or deny about.
fn workspace() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("hello.txt"), "hello\n\tworld \"quoted\"\n").unwrap();
    std::fs::write(root.join("sub/b.txt"), "b\n").unwrap();
    std::fs::write(root.join("asked.txt"), "asked\n").unwrap();
    std::fs::write(root.join("denied.txt"), "denied\n").unwrap();
    let row = "x".repeat(50);
    let mut big = String::new();
    for i in 0..6000 {
        writeln!(big, "line {i:05} {row}").unwrap();
    }
    std::fs::write(root.join("big.txt"), big).unwrap();
    let root = std::fs::canonicalize(&root).unwrap();
    (dir, root)
}

/// A supervisor on `root` whose rules ask about `asked.txt` and deny
/// `denied.txt`; the confirmer approves after `delay`.
fn supervisor(root: &Path, audit: &Path, delay: Duration) -> Arc<Supervisor> {
    let rules = vec![
        Rule::parse(Action::Ask, "read_file(asked.txt)", "test").unwrap(),
        Rule::parse(Action::Deny, "read_file(denied.txt)", "test").unwrap(),
    ];
    Supervisor::new(SupervisorParts {
        scope: Scope::new(root, &[], &[]).unwrap(),
        tools: ToolRegistry::all(),
        policy: Policy::with_rules(Mode::Default, rules, root, false),
        confirmer: Scripted::new(Some(delay)),
        audit: Arc::new(AuditLog::create(audit).unwrap()),
        limits: Limits::default(),
        approval_timeout: None,
        events: EventBus::default(),
    })
}

fn call(id: u64, tool: &str, args: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": args}})
    .to_string()
}

/// The session every test sends after the handshake: every kind of read
/// the lane serves, refuses or declines.
fn calls() -> Vec<String> {
    vec![
        call(2, "read_file", &json!({"path": "hello.txt"})),
        call(
            3,
            "read_file",
            &json!({"path": "hello.txt", "offset": 2, "limit": 1}),
        ),
        call(4, "read_file", &json!({"path": "missing.txt"})),
        call(5, "read_file", &json!({"path": "../outside.txt"})),
        call(6, "read_file", &json!({"path": "denied.txt"})),
        call(7, "read_file", &json!({"path": "big.txt", "limit": 3})),
        call(8, "read_file", &json!({"path": "hello.txt", "bogus": 1})),
        call(9, "pwd", &json!({})),
        call(10, "cat", &json!({"path": "sub/b.txt"})),
        call(11, "head", &json!({"path": "hello.txt", "lines": 1})),
        call(12, "wc", &json!({"path": "hello.txt"})),
        call(13, "ls", &json!({"path": "sub"})),
        call(14, "grep", &json!({"pattern": "world", "path": "."})),
        call(15, "no_such_tool", &json!({})),
        json!({"jsonrpc": "2.0", "id": 16, "method": "tools/call",
               "params": {"name": "read_file"}})
        .to_string(),
        // Not the short parse's shape: `_meta` with a progress token.
        json!({"jsonrpc": "2.0", "id": "s", "method": "tools/call",
               "params": {"name": "read_file", "arguments": {"path": "hello.txt"},
                          "_meta": {"progressToken": 9}}})
        .to_string(),
        json!({"jsonrpc": "2.0", "id": 17, "method": "tools/list"}).to_string(),
    ]
}

const HANDSHAKE: [&str; 2] = [
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"lane-test","version":"1"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
];

/// What one connection gave: the answers by id, in the order they came,
/// and the trail.
struct Run {
    answers: Vec<(String, String)>,
    trail: Vec<Value>,
    served_inline: u64,
}

/// Send the handshake and `lines` to a connection dispatching inline or
/// not, on the workspace at `root` with a trail of its own in `dir`; read
/// an answer to every request, then close.
async fn run(inline: bool, (dir, root): (&Path, &Path), lines: &[String], delay: Duration) -> Run {
    let audit = dir.join(if inline {
        "lane.jsonl"
    } else {
        "control.jsonl"
    });
    let sup = supervisor(root, &audit, delay);
    let tools = airlock::mcp::handler::tool_list(&sup);
    let served = Arc::new(AtomicU64::new(0));
    let dispatch = if inline {
        Dispatch::Inline(served.clone())
    } else {
        Dispatch::Rmcp
    };
    let (client, server_io) = tokio::io::duplex(1 << 20);
    let server = tokio::spawn(airlock::mcp::serve_connection_via(
        sup,
        tools,
        tokio::io::split(server_io),
        CancellationToken::new(),
        dispatch,
    ));
    let (read, mut write) = tokio::io::split(client);
    let mut replies = BufReader::new(read).lines();
    let mut answers = Vec::new();
    let send = HANDSHAKE
        .iter()
        .map(|s| (*s).to_string())
        .chain(lines.iter().cloned());
    let expected = 1 + lines.len();
    for line in send {
        write
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
    }
    while answers.len() < expected {
        let line = tokio::time::timeout(Duration::from_secs(20), replies.next_line())
            .await
            .expect("an answer in time")
            .unwrap()
            .expect("the connection stays open");
        let v: Value = serde_json::from_str(&line).unwrap();
        if v.get("id").is_some() {
            // The workspace is a new temp dir each run.
            let line = line.replace(&root.display().to_string(), "<ws>");
            answers.push((v["id"].to_string(), line));
        }
    }
    write.shutdown().await.unwrap();
    drop(write);
    tokio::time::timeout(Duration::from_secs(20), server)
        .await
        .unwrap()
        .unwrap();
    let trail = read_audit(&audit);
    if std::env::var_os("LANE_DUMP").is_some() {
        for r in &trail {
            eprintln!("{r}");
        }
    }
    let ws = root.display().to_string();
    let trail = trail
        .into_iter()
        .map(|r| serde_json::from_str(&r.to_string().replace(&ws, "<ws>")).unwrap())
        .map(stable)
        .collect();
    Run {
        answers,
        trail,
        served_inline: served.load(Ordering::Relaxed),
    }
}

/// A record without what differs from run to run (times, durations, the
/// hash chain, the session's own ids and paths).
fn stable(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.retain(|k, _| {
                    !matches!(
                        k.as_str(),
                        "ts" | "hash"
                            | "prev"
                            | "duration_ms"
                            | "wait_ms"
                            | "run_ms"
                            | "received_at"
                            | "session"
                            | "pid"
                            | "workspace"
                            | "root"
                    )
                });
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

/// The answers sorted by id (the two ways may answer calls that wait in
/// another order than calls that do not).
fn by_id(answers: &[(String, String)]) -> Vec<(String, String)> {
    let mut a = answers.to_vec();
    a.sort();
    a
}

/// Each answer of `a` is byte for byte the one `b` got for the same id.
fn same_answers(a: &Run, b: &Run) {
    let (a, b) = (by_id(&a.answers), by_id(&b.answers));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y, "the answer to request {}", x.0);
    }
}

/// The two trails record the same calls, record for record.
fn same_calls(a: &[Value], b: &[Value]) {
    let (a, b) = (calls_of(a), calls_of(b));
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y, "a call's records");
    }
    assert_eq!(a.len(), b.len(), "as many calls and other records");
}

/// The trail as calls: each call's records (in their order, without the
/// call's id and the records' sequence numbers, which depend on which
/// call came first when some wait), sorted; then the records of no call.
fn calls_of(trail: &[Value]) -> Vec<String> {
    let mut by_call: BTreeMap<u64, Vec<Value>> = BTreeMap::new();
    let mut other = Vec::new();
    for r in trail {
        let mut r = r.clone();
        let m = r.as_object_mut().unwrap();
        m.remove("seq");
        let id = m.remove("call_id").or_else(|| {
            m.get_mut("call")
                .and_then(|c| c.as_object_mut()?.remove("id"))
        });
        match id.and_then(|i| i.as_u64()) {
            Some(id) => by_call.entry(id).or_default().push(r),
            None => other.push(r.to_string()),
        }
    }
    let mut calls: Vec<String> = by_call
        .into_values()
        .map(|records| serde_json::to_string(&records).unwrap())
        .collect();
    calls.sort();
    calls.extend(other);
    calls
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lane_answers_and_records_exactly_what_rmcp_would() {
    let lines = calls();
    let (dir, root) = workspace();
    let at = (dir.path(), root.as_path());
    let lane = run(true, at, &lines, Duration::from_millis(10)).await;
    let control = run(false, at, &lines, Duration::from_millis(10)).await;
    // The lane served the reads that end at once (ids 2-6, 8-12, 16 and
    // "s") and nothing else; the control served none.
    assert_eq!(lane.served_inline, 12, "calls served inline");
    assert_eq!(control.served_inline, 0);
    same_answers(&lane, &control);
    same_calls(&lane.trail, &control.trail);
    // And the answers are the expected ones, not two equal failures.
    let answer = |id: &str| -> Value {
        let (_, line) = lane.answers.iter().find(|(i, _)| i == id).unwrap();
        serde_json::from_str(line).unwrap()
    };
    let text = |id: &str| {
        answer(id)["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(text("2").contains("\tworld \"quoted\""), "{}", text("2"));
    assert_eq!(answer("4")["result"]["isError"], true);
    assert_eq!(answer("5")["result"]["isError"], true);
    assert!(text("6").contains("denied"), "{}", text("6"));
    assert!(text("7").contains("line 00002"), "{}", text("7"));
    assert_eq!(answer("15")["error"]["code"], -32602);
    assert_eq!(
        answer("\"s\"")["result"]["content"],
        answer("2")["result"]["content"]
    );
    assert!(answer("17")["result"]["tools"].is_array());
    let finished = lane
        .trail
        .iter()
        .filter(|r| r["type"] == "call_finished")
        .count();
    assert_eq!(
        finished, 16,
        "every call is on the trail, the unknown tool's too"
    );
    // A call the lane declined got no id of its own before rmcp served
    // it: the ids run 1, 2, 3 … without a gap.
    let mut ids: Vec<u64> = lane
        .trail
        .iter()
        .filter(|r| r["type"] == "call_requested")
        .map(|r| r["call"]["id"].as_u64().unwrap())
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (1..=16).collect::<Vec<u64>>());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_the_policy_asks_about_waits_without_holding_up_the_reads_behind_it() {
    // asked.txt waits 600 ms for the (scripted) human; the read sent after
    // it is served meanwhile, and then the asked one is answered too.
    let lines = vec![
        call(2, "read_file", &json!({"path": "asked.txt"})),
        call(3, "read_file", &json!({"path": "hello.txt"})),
    ];
    let (dir, root) = workspace();
    let at = (dir.path(), root.as_path());
    let lane = run(true, at, &lines, Duration::from_millis(600)).await;
    let order: Vec<&str> = lane.answers.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(order, ["1", "3", "2"], "the quick read first");
    assert_eq!(
        lane.served_inline, 1,
        "only the quick read was served inline"
    );
    let asked: Value = serde_json::from_str(&lane.answers[2].1).unwrap();
    assert_eq!(asked["result"]["content"][0]["text"], "     1\tasked\n");
    let control = run(false, at, &lines, Duration::from_millis(600)).await;
    same_answers(&lane, &control);
    same_calls(&lane.trail, &control.trail);
}
