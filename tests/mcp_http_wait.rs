//! A call that waits for a human, over Streamable HTTP: the real endpoint
//! (airlock's `HttpServer`, rmcp's streamable-HTTP service, hyper) in-process
//! on a real supervisor whose confirmer is scripted. Progress notifications
//! reach the client on the call's SSE stream while it waits;
//! `notifications/cancelled` cancels it; a client that drops the
//! connection while its call waits has it cancelled (control: the same
//! call, connection kept, is approved and runs).

mod mcp_http_support;
mod mcp_support;

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use airlock::config::http::HttpConfig;
use airlock::mcp::http::HttpServer;
use mcp_http_support::{Endpoint, Session};
use mcp_support::waiting::Waiting;
use mcp_support::{of_type, read_audit, wait_for};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio_util::sync::CancellationToken;

struct Setup {
    ws: Waiting,
    ep: Endpoint,
    _stop: tokio_util::sync::DropGuard,
}

fn setup(delay: Option<Duration>) -> Setup {
    let ws = Waiting::new(delay);
    let config = HttpConfig {
        listen: Some("127.0.0.1:0".into()),
        ..Default::default()
    };
    let server = HttpServer::bind(&config).unwrap().expect("HTTP on");
    let ep = Endpoint::from_url(&server.listening().url);
    let stop = CancellationToken::new();
    tokio::spawn(server.serve(ws.supervisor(), stop.clone()));
    Setup {
        ws,
        ep,
        _stop: stop.drop_guard(),
    }
}

fn write_call(id: u64, path: &str, progress: bool) -> Value {
    let mut params = json!({"name": "write_file", "arguments": {"path": path, "content": "hi\n"}});
    if progress {
        params["_meta"] = json!({"progressToken": "tok-1"});
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

#[tokio::test]
async fn progress_reaches_the_client_while_the_call_waits() {
    let s = setup(Some(Duration::from_secs(6)));
    let session = Session::open(&s.ep, "patient").await;
    let reply = session.post(&write_call(5, "note.txt", true)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let messages = reply.messages();
    let progress: Vec<&Value> = messages
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    assert!(!progress.is_empty(), "progress while waiting: {messages:?}");
    assert_eq!(progress[0]["params"]["progressToken"], "tok-1");
    assert_eq!(
        progress[0]["params"]["message"],
        "waiting for approval in airlock (5s)"
    );
    let answer = reply.answer();
    assert_eq!(answer["id"], 5);
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(
        std::fs::read_to_string(s.ws.root.join("note.txt")).unwrap(),
        "hi\n"
    );
}

#[tokio::test]
async fn cancelled_notification_cancels_a_waiting_call() {
    let s = setup(None);
    let session = Arc::new(Session::open(&s.ep, "changes-mind").await);
    let pending = {
        let session = session.clone();
        tokio::spawn(async move { session.post(&write_call(9, "never.txt", false)).await })
    };
    tokio::time::timeout(Duration::from_secs(10), s.ws.confirmer.asked.notified())
        .await
        .expect("the call reaches the confirmer");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 9, "reason": "changed my mind"}});
    assert_eq!(session.post(&cancel).await.status, 202);
    wait_for("the cancelled call's records", 10, || {
        of_type(&read_audit(&s.ws.audit), "call_finished").len() == 1
    })
    .await;
    let records = read_audit(&s.ws.audit);
    assert_eq!(of_type(&records, "call_finished")[0]["status"], "cancelled");
    assert!(!s.ws.root.join("never.txt").exists(), "nothing was written");
    let _ = tokio::time::timeout(Duration::from_secs(5), pending).await;
}

/// Send a `write_file` call on a raw connection, wait until it asks the
/// human, then drop the connection (`disconnect`) or keep it.
async fn waiting_call(disconnect: bool) -> (bool, Vec<Value>) {
    let s = setup(if disconnect {
        None
    } else {
        Some(Duration::from_secs(1))
    });
    let session = Session::open(&s.ep, "walks-away").await;
    let body = serde_json::to_vec(&write_call(3, "left.txt", false)).unwrap();
    let mut raw = tokio::net::TcpStream::connect(s.ep.addr).await.unwrap();
    let mut head = format!(
        "POST {} HTTP/1.1\r\nContent-Length: {}\r\n",
        s.ep.path(),
        body.len()
    );
    for (k, v) in session.headers() {
        let _ = write!(head, "{k}: {v}\r\n");
    }
    head.push_str("\r\n");
    raw.write_all(head.as_bytes()).await.unwrap();
    raw.write_all(&body).await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), s.ws.confirmer.asked.notified())
        .await
        .expect("the call reaches the confirmer");
    if disconnect {
        drop(raw);
    }
    wait_for("the call to finish", 15, || {
        of_type(&read_audit(&s.ws.audit), "call_finished").len() == 1
    })
    .await;
    (s.ws.root.join("left.txt").exists(), read_audit(&s.ws.audit))
}

#[tokio::test]
async fn a_client_that_drops_its_connection_while_the_call_waits_has_it_cancelled() {
    let (written, records) = waiting_call(true).await;
    assert!(!written);
    assert_eq!(of_type(&records, "call_finished")[0]["status"], "cancelled");
    // Control: connection kept, the approval arrives and the write runs.
    let (written, records) = waiting_call(false).await;
    assert!(written);
    assert_eq!(of_type(&records, "call_finished")[0]["status"], "ok");
}
