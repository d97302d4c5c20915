//! A call that waits for a human, over real MCP: rmcp's client talks to
//! airlock's connection handler (in-process, over a byte pipe) on top of a
//! real supervisor whose confirmer is scripted. Covers progress
//! notifications while waiting, `notifications/cancelled`, and an agent
//! that disconnects while its call waits.

mod mcp_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use airlock::supervisor::Supervisor;
use mcp_support::waiting::{self, Scripted, Waiting};
use mcp_support::{args, of_type, read_audit, wait_for};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest,
    Implementation, ProgressNotificationParam,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::json;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// A client that keeps the progress notifications it receives.
#[derive(Clone, Default)]
struct ProgressClient(Arc<Mutex<Vec<ProgressNotificationParam>>>);

impl ClientHandler for ProgressClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("waiting-agent", "1"),
        )
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.0.lock().unwrap().push(params);
    }
}

struct Setup {
    ws: Waiting,
    client: RunningService<RoleClient, ProgressClient>,
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    server: JoinHandle<()>,
}

/// The supervisor serving MCP over an in-process pipe: the client's end
/// and the server task.
fn serve_in_process(sup: Arc<Supervisor>) -> (tokio::io::DuplexStream, JoinHandle<()>) {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_io);
    let tools = airlock::mcp::handler::tool_list(&sup);
    let server = tokio::spawn(airlock::mcp::serve_connection(
        sup,
        tools,
        read,
        write,
        CancellationToken::new(),
    ));
    (client_io, server)
}

async fn setup(delay: Option<Duration>) -> Setup {
    let ws = Waiting::new(delay);
    let (client_io, server) = serve_in_process(ws.supervisor());
    let handler = ProgressClient::default();
    let progress = handler.0.clone();
    let client = handler.serve(client_io).await.unwrap();
    Setup {
        ws,
        client,
        progress,
        server,
    }
}

fn write_request(path: &str) -> ClientRequest {
    ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("write_file")
            .with_arguments(args(json!({"path": path, "content": "hello\n"}))),
    ))
}

#[tokio::test]
#[expect(
    clippy::float_cmp,
    reason = "5 seconds, exact in f64: the notification says so"
)]
async fn progress_is_sent_while_the_call_waits_for_approval() {
    let s = setup(Some(Duration::from_secs(6))).await;
    let r = s
        .client
        .call_tool(
            CallToolRequestParams::new("write_file")
                .with_arguments(args(json!({"path": "note.txt", "content": "hi\n"}))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false), "{r:?}");
    assert_eq!(
        std::fs::read_to_string(s.ws.root.join("note.txt")).unwrap(),
        "hi\n"
    );
    let progress = s.progress.lock().unwrap().clone();
    assert!(
        !progress.is_empty(),
        "a progress notification while waiting"
    );
    assert_eq!(progress[0].progress, 5.0);
    assert_eq!(
        progress[0].message.as_deref(),
        Some("waiting for approval in airlock (5s)")
    );
    s.client.cancel().await.unwrap();
}

#[tokio::test]
async fn cancelled_notification_cancels_a_waiting_call_and_is_audited() {
    let s = setup(None).await;
    let handle = s
        .client
        .send_cancellable_request(write_request("never.txt"), PeerRequestOptions::no_options())
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(10), s.ws.confirmer.asked.notified())
        .await
        .expect("the call reaches the confirmer");
    handle.cancel(Some("changed my mind".into())).await.unwrap();

    let audit = s.ws.audit.clone();
    wait_for("the cancelled call's records", 10, || {
        of_type(&read_audit(&audit), "call_finished").len() == 1
    })
    .await;
    let records = read_audit(&audit);
    assert_eq!(of_type(&records, "call_decided")[0]["by"], "cancelled");
    assert_eq!(of_type(&records, "call_finished")[0]["status"], "cancelled");
    assert!(!s.ws.root.join("never.txt").exists(), "nothing was written");

    // The session goes on.
    let r = s
        .client
        .call_tool(CallToolRequestParams::new("pwd"))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    s.client.cancel().await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), s.server)
        .await
        .unwrap()
        .unwrap();
    let records = read_audit(&audit);
    assert_eq!(records.last().unwrap()["type"], "agent_disconnected");
}

#[tokio::test]
async fn a_disconnect_cancels_the_waiting_call_before_the_agent_leaves() {
    let s = setup(None).await;
    let _handle = s
        .client
        .send_cancellable_request(
            write_request("orphan.txt"),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(10), s.ws.confirmer.asked.notified())
        .await
        .expect("the call reaches the confirmer");
    s.client.cancel().await.unwrap();
    tokio::time::timeout(Duration::from_secs(20), s.server)
        .await
        .expect("the connection winds down")
        .unwrap();
    let records = read_audit(&s.ws.audit);
    let types: Vec<_> = records
        .iter()
        .map(|r| r["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "agent_connected",
            "call_requested",
            "call_decided",
            "call_finished",
            "agent_disconnected"
        ]
    );
    assert_eq!(records[2]["by"], "disconnected");
    assert_eq!(records[3]["status"], "cancelled");
    assert_eq!(records[4]["agent"]["name"], "waiting-agent");
    assert!(!s.ws.root.join("orphan.txt").exists());
}

/// Raw JSON-RPC over the same in-process connection: the client's own
/// progress token (a string) is echoed in every progress notification, the
/// progress only grows, and a call without a token gets none.
#[tokio::test]
async fn raw_progress_token_is_echoed_while_waiting_and_absent_without_one() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let sup_dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(sup_dir.path()).unwrap();
    let confirmer = Scripted::new(Some(Duration::from_secs(11)));
    let (client_io, server) = serve_in_process(waiting::supervisor(
        &root,
        &root.join("audit.jsonl"),
        confirmer,
    ));
    let (cr, mut cw) = tokio::io::split(client_io);
    let mut lines = BufReader::new(cr).lines();
    let send = |v: serde_json::Value| format!("{v}\n");
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}});
    let write = |path: &str, id: i64, meta: Option<serde_json::Value>| {
        let mut params = json!({"name":"write_file","arguments":{"path":path,"content":"x\n"}});
        if let Some(m) = meta {
            params["_meta"] = m;
        }
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":params})
    };
    let input = [
        send(init),
        send(json!({"jsonrpc":"2.0","method":"notifications/initialized"})),
        send(write("a.txt", 2, Some(json!({"progressToken": "tok-1"})))),
        send(write("b.txt", 3, None)),
    ]
    .concat();
    cw.write_all(input.as_bytes()).await.unwrap();
    let mut progress = Vec::new();
    let mut answered = 0;
    while answered < 2 {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("messages keep coming")
            .unwrap()
            .unwrap();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        if v["method"] == "notifications/progress" {
            progress.push(v["params"].clone());
        } else if v["id"] == 2 || v["id"] == 3 {
            assert_eq!(v["result"]["isError"], false, "{v}");
            answered += 1;
        }
    }
    assert!(progress.len() >= 2, "{progress:?}");
    let mut last = 0.0;
    for p in &progress {
        assert_eq!(
            p["progressToken"], "tok-1",
            "only the call with a token: {p}"
        );
        let n = p["progress"].as_f64().unwrap();
        assert!(n > last, "progress grows: {progress:?}");
        last = n;
        assert!(
            p["message"]
                .as_str()
                .unwrap()
                .starts_with("waiting for approval")
        );
    }
    drop((cw, lines));
    tokio::time::timeout(Duration::from_secs(20), server)
        .await
        .unwrap()
        .unwrap();
}
