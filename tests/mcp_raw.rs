//! Raw JSON-RPC lines into the real `airlock serve --stdio`: malformed and
//! huge input gets an error and the server keeps serving; the stateless
//! 2026-07-28 revision works without `initialize`.

mod mcp_support;

use std::process::Stdio;
use std::time::Duration;

use mcp_support::{Ws, of_type};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::mpsc;

/// The binary with our hands on its stdin and stdout.
struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: mpsc::UnboundedReceiver<Value>,
    seen: Vec<Value>,
}

impl Raw {
    fn spawn(ws: &Ws) -> Self {
        Self::spawn_with(ws.serve_stdio())
    }

    fn spawn_with(mut cmd: tokio::process::Command) -> Self {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Some(line) = lines.next_line().await.unwrap() {
                // stdout is the MCP channel: every line must be JSON.
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("non-JSON on stdout ({e}): {line}"));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        Self {
            stdin: child.stdin.take(),
            child,
            rx,
            seen: Vec::new(),
        }
    }

    async fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).await.unwrap();
        stdin.flush().await.unwrap();
    }

    async fn send(&mut self, v: Value) {
        let mut line = serde_json::to_vec(&v).unwrap();
        line.push(b'\n');
        self.send_bytes(&line).await;
    }

    /// The next message matching `pred` (others are kept for later).
    async fn next_where(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.seen.iter().position(&pred) {
            return self.seen.remove(i);
        }
        loop {
            let v = tokio::time::timeout(Duration::from_secs(20), self.rx.recv())
                .await
                .unwrap_or_else(|_| panic!("no reply: {what}; other messages: {:?}", self.seen))
                .unwrap_or_else(|| panic!("stdout closed waiting for {what}"));
            if pred(&v) {
                return v;
            }
            self.seen.push(v);
        }
    }

    async fn reply(&mut self, id: i64) -> Value {
        self.next_where(&format!("reply to id {id}"), |v| v["id"] == id)
            .await
    }

    /// The next error that carries no id (answers to unreadable lines).
    async fn idless_error(&mut self) -> Value {
        self.next_where("an id-less error", |v| {
            v.get("error").is_some() && v.get("id").is_none_or(Value::is_null)
        })
        .await
    }

    async fn initialize(&mut self, name: &str) {
        self.send(
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":"2025-11-25","capabilities":{},
            "clientInfo":{"name":name,"version":"0.0.1"}}}),
        )
        .await;
        let r = self.reply(1).await;
        assert_eq!(r["result"]["serverInfo"]["name"], "airlock", "{r}");
        self.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
            .await;
    }

    /// Close stdin and wait for a clean exit.
    async fn finish(mut self) {
        drop(self.stdin.take());
        let status = tokio::time::timeout(Duration::from_secs(20), self.child.wait())
            .await
            .expect("the server exits once stdin closes")
            .unwrap();
        assert!(status.success(), "{status}");
    }
}

fn call(id: i64, tool: &str, arguments: Value) -> Value {
    let mut msg = json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
        "params":{"name":tool}});
    msg["params"]["arguments"] = arguments;
    msg
}

#[tokio::test]
#[expect(clippy::too_many_lines, reason = "one scenario, read top to bottom")]
async fn malformed_and_huge_input_is_answered_and_serving_goes_on() {
    let ws = Ws::new();
    let mut s = Raw::spawn(&ws);
    s.initialize("raw-client").await;

    // Not JSON: a parse error.
    s.send_bytes(b"this is not json\n").await;
    let e = s.idless_error().await;
    assert_eq!(e["error"]["code"], -32700, "{e}");

    // Params of the wrong type: invalid params, with the request's id.
    s.send(json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
        "params":{"name":"pwd","arguments":"not an object"}}))
        .await;
    let e = s.reply(2).await;
    assert_eq!(e["error"]["code"], -32602, "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("tools/call"),
        "{e}"
    );

    // An unknown tool: invalid params naming the tools there are.
    s.send(call(3, "launch_missiles", json!({}))).await;
    let e = s.reply(3).await;
    assert_eq!(e["error"]["code"], -32602, "{e}");
    let msg = e["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("launch_missiles") && msg.contains("pwd"),
        "{msg}"
    );

    // Arguments of the wrong type: an isError result.
    s.send(call(4, "read_file", json!({"path": ["a", "b"]})))
        .await;
    let r = s.reply(4).await;
    assert_eq!(r["result"]["isError"], true, "{r}");

    // A 10 MB line that is not JSON.
    let mut junk = vec![b'{'; 1];
    junk.extend(std::iter::repeat_n(b'x', 10 * 1024 * 1024));
    junk.push(b'\n');
    s.send_bytes(&junk).await;
    let e = s.idless_error().await;
    assert_eq!(e["error"]["code"], -32700, "{e}");

    // A valid 10 MB request: it is read, refused by the tool, audited (bounded).
    let big = "y".repeat(10 * 1024 * 1024);
    s.send(call(5, "pwd", json!({ "padding": big }))).await;
    let r = s.reply(5).await;
    assert_eq!(
        r["result"]["isError"],
        true,
        "{}",
        &r.to_string()[..200.min(r.to_string().len())]
    );

    // Past the 16 MiB limit: skipped unparsed, answered, not fatal.
    let mut huge = vec![b' '; 17 * 1024 * 1024];
    huge.push(b'\n');
    s.send_bytes(&huge).await;
    let e = s.idless_error().await;
    assert_eq!(e["error"]["code"], -32600, "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("too large"),
        "{e}"
    );

    // Not a request object at all.
    s.send_bytes(b"[1, 2, 3]\n").await;
    assert_eq!(s.idless_error().await["error"]["code"], -32600);
    s.send_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":6}\n").await;
    assert_eq!(s.reply(6).await["error"]["code"], -32600);
    s.send(json!({"jsonrpc":"2.0","id":7,"method":"no/such/method"}))
        .await;
    assert_eq!(s.reply(7).await["error"]["code"], -32601);
    // A cancellation for a request that does not exist is harmless.
    s.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled",
        "params":{"requestId":999,"reason":"test"}}))
        .await;

    // And the server still serves.
    s.send(json!({"jsonrpc":"2.0","id":8,"method":"ping"}))
        .await;
    assert_eq!(s.reply(8).await["result"], json!({}));
    s.send(call(9, "pwd", json!({}))).await;
    let r = s.reply(9).await;
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert_eq!(
        r["result"]["content"][0]["text"],
        ws.root.display().to_string()
    );
    s.finish().await;

    let audit = ws.audit();
    let requested = of_type(&audit, "call_requested");
    let tools: Vec<_> = requested
        .iter()
        .map(|r| r["call"]["tool"].clone())
        .collect();
    assert_eq!(
        tools,
        [
            json!("launch_missiles"),
            json!("read_file"),
            json!("pwd"),
            json!("pwd")
        ]
    );
    let padding = requested[2]["call"]["args"]["padding"].as_str().unwrap();
    assert!(
        padding.len() < 10_000 && padding.contains("more bytes"),
        "bounded in the audit"
    );
    let statuses: Vec<_> = of_type(&audit, "call_finished")
        .iter()
        .map(|r| r["status"].clone())
        .collect();
    assert_eq!(
        statuses,
        [
            json!("refused"),
            json!("refused"),
            json!("refused"),
            json!("ok")
        ]
    );
    // Every message rejected before it reached a tool is audited too.
    let rejected = of_type(&audit, "protocol_error");
    let errors: Vec<&str> = rejected
        .iter()
        .map(|r| r["error"].as_str().unwrap())
        .collect();
    assert!(rejected.len() >= 3, "{errors:?}");
    assert!(
        rejected[0]["excerpt"]
            .as_str()
            .unwrap()
            .contains("this is not json"),
        "{:?}",
        rejected[0]
    );
    assert_eq!(rejected[0]["agent"]["name"], "raw-client");
    assert!(
        rejected
            .iter()
            .any(|r| r["excerpt"].as_str().unwrap().contains("not an object")),
        "{errors:?}"
    );
    assert!(
        rejected
            .iter()
            .all(|r| r["excerpt"].as_str().unwrap().len() < 400),
        "bounded"
    );
    assert_eq!(audit.last().unwrap()["type"], "session_end");
}

#[tokio::test]
async fn bad_input_before_initialize_does_not_end_the_session() {
    let ws = Ws::new();
    let mut s = Raw::spawn(&ws);
    s.send_bytes(b"garbage before anything\n").await;
    assert_eq!(s.idless_error().await["error"]["code"], -32700);
    // An initialize with missing fields: invalid params, and we can try again.
    s.send(
        json!({"jsonrpc":"2.0","id":"bad-init","method":"initialize",
        "params":{"protocolVersion":"2025-11-25"}}),
    )
    .await;
    let e = s
        .next_where("reply to bad-init", |v| v["id"] == "bad-init")
        .await;
    assert_eq!(e["error"]["code"], -32602, "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("invalid params for initialize"),
        "{e}"
    );
    // A notification before the handshake would make rmcp give up; it is dropped.
    s.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
        .await;
    s.initialize("late-starter").await;
    s.send(call(2, "pwd", json!({}))).await;
    assert_eq!(s.reply(2).await["result"]["isError"], false);
    s.finish().await;
}

#[tokio::test]
async fn a_last_message_without_newline_is_still_served() {
    let ws = Ws::new();
    let mut s = Raw::spawn(&ws);
    s.initialize("no-newline").await;
    let mut last = serde_json::to_vec(&call(2, "pwd", json!({}))).unwrap();
    last.retain(|&b| b != b'\n');
    s.send_bytes(&last).await;
    drop(s.stdin.take());
    let r = s.reply(2).await;
    assert_eq!(r["result"]["isError"], false, "{r}");
    s.finish().await;
}

fn meta(name: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": name, "version": "7"},
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

#[tokio::test]
async fn stateless_revision_without_initialize() {
    let ws = Ws::new();
    let mut s = Raw::spawn(&ws);

    s.send(json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta": meta("raw-stateless")}}))
        .await;
    let r = s.reply(1).await;
    let versions = r["result"]["supportedVersions"].as_array().unwrap();
    assert!(versions.contains(&json!("2026-07-28")) && versions.contains(&json!("2025-11-25")));
    assert_eq!(r["result"]["capabilities"]["tools"], json!({}));
    assert_eq!(
        r["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "airlock"
    );

    // Without the required per-request metadata: invalid params, not fatal.
    s.send(json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}))
        .await;
    let e = s.reply(2).await;
    assert_eq!(e["error"]["code"], -32602, "{e}");

    s.send(json!({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta": meta("raw-stateless")}}))
        .await;
    let r = s.reply(3).await;
    let tools = r["result"]["tools"].as_array().unwrap();
    let pwd = tools.iter().find(|t| t["name"] == "pwd").unwrap();
    assert_eq!(pwd["annotations"]["readOnlyHint"], true);
    assert_eq!(pwd["inputSchema"]["type"], "object");

    let mut m = meta("raw-stateless");
    m["progressToken"] = json!("tok-1");
    s.send(json!({"jsonrpc":"2.0","id":4,"method":"tools/call",
        "params":{"name":"pwd","arguments":{},"_meta": m}}))
        .await;
    let r = s.reply(4).await;
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert_eq!(
        r["result"]["content"][0]["text"],
        ws.root.display().to_string()
    );

    // Malformed input is answered here too.
    s.send_bytes(b"{not json}\n").await;
    assert_eq!(s.idless_error().await["error"]["code"], -32700);
    s.send(json!({"jsonrpc":"2.0","id":5,"method":"tools/call",
        "params":{"name":"nope","arguments":{},"_meta": meta("raw-stateless")}}))
        .await;
    assert_eq!(s.reply(5).await["error"]["code"], -32602);
    s.finish().await;

    let audit = ws.audit();
    let connected = of_type(&audit, "agent_connected");
    assert_eq!(connected.len(), 1);
    assert_eq!(connected[0]["agent"]["name"], "raw-stateless");
    assert_eq!(connected[0]["agent"]["version"], "7");
}

#[tokio::test]
async fn a_call_without_client_info_gets_a_numbered_agent() {
    let ws = Ws::new();
    let mut s = Raw::spawn(&ws);
    let mut m = meta("x");
    m.as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientInfo");
    s.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
        "params":{"name":"pwd","arguments":{},"_meta": m}}))
        .await;
    assert_eq!(s.reply(1).await["result"]["isError"], false);
    s.finish().await;
    let audit = ws.audit();
    let connected = of_type(&audit, "agent_connected");
    assert_eq!(connected.len(), 1);
    assert_eq!(connected[0]["agent"]["name"], "agent-1");
}

#[tokio::test]
async fn every_request_with_an_id_is_answered_even_when_unreadable() {
    let ws = Ws::new();
    let mut s = Raw::spawn(&ws);
    s.initialize("raw-ids").await;
    let pad = "a".repeat(17 * 1024 * 1024);
    let huge = |before: &str, after: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",{before}\"method\":\"tools/call\",\"params\":{{\"id\":5,\
             \"name\":\"cat\",\"arguments\":{{\"path\":\"{pad}\"}}}}{after}}}\n"
        )
    };
    let too_large = |e: &Value| {
        assert_eq!(e["error"]["code"], -32600, "{e}");
        let m = e["error"]["message"].as_str().unwrap();
        assert!(m.contains("too large"), "{e}");
    };

    // Over the size limit, the id first (a nested "id" is not taken for it).
    s.send_bytes(huge("\"id\":77,", "").as_bytes()).await;
    too_large(&s.reply(77).await);
    // The id last, a number and a string.
    s.send_bytes(huge("", ",\"id\":78").as_bytes()).await;
    too_large(&s.reply(78).await);
    s.send_bytes(huge("", ", \"id\" : \"tail-id\" ").as_bytes())
        .await;
    too_large(
        &s.next_where("reply to tail-id", |v| v["id"] == "tail-id")
            .await,
    );
    // No id to be found: the reply says id null, as JSON-RPC asks.
    s.send_bytes(format!("{{\"jsonrpc\":\"2.0\",\"params\":\"{pad}\"}}\n").as_bytes())
        .await;
    let e = s
        .next_where("an id-null error", |v| v.get("id") == Some(&Value::Null))
        .await;
    too_large(&e);

    // A lone UTF-16 surrogate is not Unicode: a parse error, with the id.
    s.send_bytes(
        br#"{"jsonrpc":"2.0","id":79,"method":"tools/call","params":{"name":"cat","arguments":{"path":"\ud800"}}}
"#,
    )
    .await;
    let e = s.reply(79).await;
    assert_eq!(e["error"]["code"], -32700, "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("surrogate"),
        "{e}"
    );
    s.send_bytes(
        br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"\udfff"},"id":"s-id"}
"#,
    )
    .await;
    let e = s.next_where("reply to s-id", |v| v["id"] == "s-id").await;
    assert_eq!(e["error"]["code"], -32700, "{e}");

    // Still serving.
    s.send(call(80, "pwd", json!({}))).await;
    let r = s.reply(80).await;
    assert_eq!(r["result"]["isError"], false, "{r}");
    s.finish().await;
    let records = ws.audit();
    let errors = of_type(&records, "protocol_error");
    assert_eq!(errors.len(), 6, "each bad line is audited: {errors:?}");
    assert!(errors[0]["error"].as_str().unwrap().contains("too large"));
    assert!(errors[4]["error"].as_str().unwrap().contains("surrogate"));
}

/// A request that reuses the id of one still running is refused before it
/// runs (rmcp would run both and drop one answer, so a command could run
/// and its result never arrive); the first is answered as usual, the
/// refusal is audited, and once answered the id can be used again.
#[tokio::test]
async fn a_request_reusing_an_id_in_flight_is_refused_not_run() {
    let ws = Ws::new();
    let mut cmd = ws.serve_stdio();
    cmd.arg("--approve-all").arg("--sandbox").arg("off");
    let mut raw = Raw::spawn_with(cmd);
    raw.initialize("dup-id").await;
    let bash = |c: &str| json!({ "command": c });
    raw.send(call(78, "bash", bash("sleep 1; echo slow"))).await;
    raw.send(call(78, "bash", bash("touch dup-ran; echo fast")))
        .await;
    let first = raw.reply(78).await;
    let message = first["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("has not been answered yet"), "{first}");
    let second = raw.reply(78).await;
    let text = second["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("slow"), "{second}");
    assert!(!ws.root.join("dup-ran").exists(), "the refused request ran");
    // Answered: the id is free again, and a request with it runs.
    raw.send(call(78, "bash", bash("touch dup-ran; echo again")))
        .await;
    let third = raw.reply(78).await;
    assert!(
        third["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("again"),
        "{third}"
    );
    // The control: the same request, given a fresh id, runs.
    assert!(ws.root.join("dup-ran").exists());
    raw.finish().await;
    let audit = ws.audit();
    let rejected = of_type(&audit, "protocol_error");
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert!(
        rejected[0].to_string().contains("touch dup-ran; echo fast"),
        "{}",
        rejected[0]
    );
    assert_eq!(of_type(&audit, "call_requested").len(), 2);
}

/// A request the agent cancelled, then a new request with the same id:
/// the new one runs to its end and gets its own answer. rmcp matched the
/// cancelled handler's late answer by id, so it cancelled the new command
/// and sent it the old one's answer (red-team finding).
#[tokio::test]
async fn an_id_reused_after_a_cancel_gets_its_own_answer() {
    let ws = Ws::new();
    let mut cmd = ws.serve_stdio();
    cmd.arg("--approve-all").arg("--sandbox").arg("off");
    let mut raw = Raw::spawn_with(cmd);
    raw.initialize("reuse-after-cancel").await;
    let bash = |c: &str| json!({ "command": c });
    raw.send(call(5, "bash", bash("sleep 2; echo FIRST"))).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    // The cancellation and the new request in one write: rmcp reads the
    // second before the cancelled handler has ended.
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 5, "reason": "test"}});
    let again = call(5, "bash", bash("sleep 1; touch second-ran; echo SECOND"));
    let mut both = serde_json::to_vec(&cancel).unwrap();
    both.push(b'\n');
    both.extend(serde_json::to_vec(&again).unwrap());
    both.push(b'\n');
    raw.send_bytes(&both).await;
    let r = raw.reply(5).await;
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("SECOND") && !text.contains("FIRST"), "{r}");
    assert!(
        ws.root.join("second-ran").exists(),
        "the second command was stopped"
    );
    // Nothing else is answered with id 5 (the cancelled call's answer is
    // not passed on).
    raw.send(call(6, "pwd", json!({}))).await;
    raw.reply(6).await;
    assert!(
        !raw.seen.iter().any(|v| v["id"] == 5),
        "a second answer to id 5: {:?}",
        raw.seen
    );
    raw.finish().await;
    let audit = ws.audit();
    let finished = of_type(&audit, "call_finished");
    let statuses: Vec<&str> = finished
        .iter()
        .map(|f| f["status"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == "ok").count(),
        2,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == "cancelled").count(),
        1,
        "{statuses:?}"
    );
}
