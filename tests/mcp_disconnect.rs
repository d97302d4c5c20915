//! An agent that disconnects takes its calls with it: a running command is
//! killed, not run to the end, and audited as cancelled by the disconnect.
//! Real binary (`airlock serve --stdio --approve-all`), raw JSON-RPC lines,
//! real bash; the control runs the same command without disconnecting.

mod mcp_support;

use std::process::Stdio;
use std::time::Duration;

use mcp_support::{Ws, of_type, read_audit, wait_for};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"leaver","version":"1"}}}"#;

/// Start the server, initialize, call `sleep 2; touch marker`, and once the
/// command runs either close stdin (`disconnect`) or wait for the reply.
async fn run(ws: &Ws, disconnect: bool) -> Vec<Value> {
    let mut child = ws
        .serve_stdio()
        .arg("--approve-all")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let call = json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
        "params":{"name":"bash","arguments":{"command":"sleep 2; touch marker"}}});
    let input = format!(
        "{INIT}\n{}\n{call}\n",
        json!({"jsonrpc":"2.0","method":"notifications/initialized"})
    );
    stdin.write_all(input.as_bytes()).await.unwrap();
    stdin.flush().await.unwrap();
    let first = lines.next_line().await.unwrap().unwrap();
    assert!(first.contains("\"serverInfo\""), "{first}");
    // The command is running once its decision is on disk and bash started.
    wait_for("the call's decision", 20, || {
        ws.audit_files().first().is_some_and(|f| {
            let records = read_audit(f);
            !of_type(&records, "call_decided").is_empty()
        })
    })
    .await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    if disconnect {
        drop(stdin);
    } else {
        let reply = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("the call is answered")
            .unwrap()
            .unwrap();
        let reply: Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(
            reply["result"]["structuredContent"]["exit_code"], 0,
            "{reply}"
        );
        drop(stdin);
    }
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait())
        .await
        .expect("the server exits")
        .unwrap();
    assert!(status.success());
    // Past the moment the command would have finished.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    ws.audit()
}

#[tokio::test]
async fn a_disconnect_kills_the_running_command_and_is_audited() {
    let ws = Ws::new();
    let records = run(&ws, true).await;
    assert!(
        !ws.root.join("marker").exists(),
        "the command was cut short, `touch` never ran"
    );
    let finished = of_type(&records, "call_finished");
    assert_eq!(finished.len(), 1, "{records:?}");
    assert_eq!(finished[0]["status"], "cancelled", "{}", finished[0]);
    assert_eq!(finished[0]["cancelled_by"], "disconnect", "{}", finished[0]);
    let types: Vec<_> = records.iter().map(|r| r["type"].clone()).collect();
    let finished_at = types.iter().position(|t| t == "call_finished").unwrap();
    let left_at = types
        .iter()
        .position(|t| t == "agent_disconnected")
        .unwrap();
    assert!(
        finished_at < left_at,
        "the call ends before the agent leaves"
    );
}

#[tokio::test]
async fn control_without_disconnect_the_command_runs_to_the_end() {
    let ws = Ws::new();
    let records = run(&ws, false).await;
    assert!(ws.root.join("marker").exists());
    let finished = of_type(&records, "call_finished");
    assert_eq!(finished[0]["status"], "ok");
    assert!(finished[0].get("cancelled_by").is_none());
}
