//! `airlock serve --stdio` driven by rmcp's real client over the real
//! binary's stdin/stdout, in both protocol revisions.

mod mcp_support;

use std::collections::BTreeSet;

use mcp_support::{CHANGING_TOOLS, NamedClient, READ_ONLY_TOOLS, Ws, args, of_type};
use rmcp::model::{CallToolRequestParams, ErrorCode, ProtocolVersion};
use rmcp::service::ServiceError;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use rmcp::{RoleClient, ServiceExt, service::RunningService};
use serde_json::json;

type Client = RunningService<RoleClient, NamedClient>;

async fn start(ws: &Ws, name: &'static str) -> Client {
    let transport = TokioChildProcess::new(ws.serve_stdio()).unwrap();
    NamedClient(name).serve(transport).await.unwrap()
}

fn text(r: &rmcp::model::CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

async fn call(client: &Client, tool: &str, a: serde_json::Value) -> rmcp::model::CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args(a)))
        .await
        .unwrap()
}

#[tokio::test]
#[expect(clippy::too_many_lines, reason = "one scenario, read top to bottom")]
async fn initialize_handshake_lists_calls_and_audits() {
    let ws = Ws::new();
    let client = start(&ws, "stdio-test").await;

    let info = client.peer_info().unwrap();
    let server = info.server_info.as_ref().unwrap();
    assert_eq!(server.name, "airlock");
    assert_eq!(server.version, env!("CARGO_PKG_VERSION"));
    assert_eq!(info.protocol_version, ProtocolVersion::V_2025_11_25);
    assert!(info.capabilities.tools.is_some());

    // Every tool: an object schema, a title, and annotations from its kind.
    let tools = client.list_all_tools().await.unwrap();
    assert!(!tools.is_empty());
    for t in &tools {
        assert_eq!(
            t.input_schema.get("type"),
            Some(&json!("object")),
            "{}",
            t.name
        );
        assert!(t.title.is_some() && t.description.is_some(), "{}", t.name);
        let a = t.annotations.as_ref().unwrap();
        if READ_ONLY_TOOLS.contains(&t.name.as_ref()) {
            assert_eq!(a.read_only_hint, Some(true), "{}", t.name);
            assert_ne!(a.destructive_hint, Some(true), "{}", t.name);
        } else {
            assert!(
                CHANGING_TOOLS.contains(&t.name.as_ref()),
                "unexpected tool {}",
                t.name
            );
            assert_eq!(a.read_only_hint, Some(false), "{}", t.name);
            assert_eq!(a.destructive_hint, Some(true), "{}", t.name);
        }
    }

    // pwd is the workspace.
    let r = call(&client, "pwd", json!({})).await;
    assert_eq!(r.is_error, Some(false));
    assert_eq!(text(&r), ws.root.display().to_string());

    // read_file reads a workspace file.
    let r = call(&client, "read_file", json!({"path": "hello.txt"})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    assert!(text(&r).contains("world"), "{}", text(&r));

    // An unknown tool is a JSON-RPC error the model can act on.
    let err = client
        .call_tool(CallToolRequestParams::new("rm_rf"))
        .await
        .unwrap_err();
    let ServiceError::McpError(e) = err else {
        panic!("expected an MCP error, got {err:?}")
    };
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
    assert!(
        e.message.contains("rm_rf") && e.message.contains("pwd"),
        "{}",
        e.message
    );

    // Wrong argument types: an isError result, and the session goes on.
    let r = call(&client, "read_file", json!({"path": 42})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).contains("invalid"), "{}", text(&r));
    let r = call(&client, "pwd", json!({"unexpected": true})).await;
    assert_eq!(r.is_error, Some(true));
    let r = call(&client, "pwd", json!({})).await;
    assert_eq!(r.is_error, Some(false));

    client.cancel().await.unwrap();

    let audit = ws.audit();
    let connected = of_type(&audit, "agent_connected");
    assert_eq!(connected.len(), 1);
    assert_eq!(connected[0]["agent"]["name"], "stdio-test");
    assert_eq!(connected[0]["agent"]["version"], "1.2.3");
    let requested = of_type(&audit, "call_requested");
    let decided = of_type(&audit, "call_decided");
    let finished = of_type(&audit, "call_finished");
    assert_eq!(requested.len(), 6);
    assert_eq!(decided.len(), 6);
    assert_eq!(finished.len(), 6);
    let tools: Vec<_> = requested
        .iter()
        .map(|r| r["call"]["tool"].clone())
        .collect();
    assert_eq!(
        tools,
        [
            json!("pwd"),
            json!("read_file"),
            json!("rm_rf"),
            json!("read_file"),
            json!("pwd"),
            json!("pwd")
        ]
    );
    let statuses: Vec<_> = finished.iter().map(|r| r["status"].clone()).collect();
    assert_eq!(
        statuses,
        [
            json!("ok"),
            json!("ok"),
            json!("refused"),
            json!("refused"),
            json!("refused"),
            json!("ok")
        ]
    );
    assert!(
        requested
            .iter()
            .all(|r| r["call"]["agent"]["name"] == "stdio-test")
    );
    assert_eq!(of_type(&audit, "agent_disconnected").len(), 1);
    assert_eq!(audit.last().unwrap()["type"], "session_end");
}

#[tokio::test]
async fn all_eleven_read_only_tools_are_listed() {
    let ws = Ws::new();
    let client = start(&ws, "list-test").await;
    let tools = client.list_all_tools().await.unwrap();
    let read_only: BTreeSet<String> = tools
        .iter()
        .filter(|t| t.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true))
        .map(|t| t.name.to_string())
        .collect();
    let want: BTreeSet<String> = READ_ONLY_TOOLS
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    assert_eq!(read_only, want);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn stateless_2026_revision_discovers_and_calls() {
    let ws = Ws::new();
    let transport = TokioChildProcess::new(ws.serve_stdio()).unwrap();
    let client = NamedClient("stateless-test")
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    let info = client.peer_info().unwrap();
    assert_eq!(info.protocol_version, ProtocolVersion::V_2026_07_28);
    assert_eq!(info.server_info.as_ref().unwrap().name, "airlock");

    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "pwd"));
    let r = call(&client, "pwd", json!({})).await;
    assert_eq!(r.is_error, Some(false));
    assert_eq!(text(&r), ws.root.display().to_string());
    let r = call(&client, "read_file", json!({"path": "../outside"})).await;
    assert_eq!(r.is_error, Some(true));
    client.cancel().await.unwrap();

    let audit = ws.audit();
    let connected = of_type(&audit, "agent_connected");
    assert_eq!(connected.len(), 1, "one connection, one agent");
    assert_eq!(connected[0]["agent"]["name"], "stateless-test");
    assert_eq!(of_type(&audit, "call_finished").len(), 2);
    assert_eq!(of_type(&audit, "agent_disconnected").len(), 1);
}

#[tokio::test]
async fn auto_lifecycle_probes_then_works() {
    let ws = Ws::new();
    let transport = TokioChildProcess::new(ws.serve_stdio()).unwrap();
    let client = NamedClient("auto-test")
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: Some(ProtocolVersion::V_2025_11_25),
            },
        )
        .await
        .unwrap();
    let r = call(&client, "pwd", json!({})).await;
    assert_eq!(r.is_error, Some(false));
    client.cancel().await.unwrap();
    let audit = ws.audit();
    assert_eq!(
        of_type(&audit, "agent_connected")[0]["agent"]["name"],
        "auto-test"
    );
}
