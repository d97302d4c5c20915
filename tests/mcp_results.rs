//! Results every MCP client reads correctly, over the real binary (`airlock
//! serve --stdio`, rmcp's client): every tool that returns
//! `structuredContent` declares an `outputSchema`, every result validates
//! against it (errors included), and the text and structured forms carry
//! the same thing — Claude Code and Codex show the model only the
//! structured form, Gemini only the text.

mod mcp_support;

use std::collections::BTreeMap;

use mcp_support::{NamedClient, Ws, args};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt, service::RunningService};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, NamedClient>;

/// The tools whose results have structure.
const STRUCTURED: [&str; 5] = ["bash", "edit_file", "stat", "wc", "write_file"];

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

struct Checker {
    client: Client,
    schemas: BTreeMap<String, Option<jsonschema::Validator>>,
    checked: Vec<(String, bool)>,
}

impl Checker {
    async fn start(ws: &Ws, approve_all: bool) -> Self {
        let mut cmd = ws.serve_stdio();
        if approve_all {
            cmd.arg("--approve-all");
        }
        let client = NamedClient("results-check")
            .serve(TokioChildProcess::new(cmd).unwrap())
            .await
            .unwrap();
        let mut schemas = BTreeMap::new();
        for tool in client.list_all_tools().await.unwrap() {
            let validator = tool.output_schema.as_ref().map(|s| {
                let schema = Value::Object((**s).clone());
                // MCP requires an object root (rmcp strips others).
                assert_eq!(schema["type"], "object", "{}: {schema}", tool.name);
                jsonschema::validator_for(&schema)
                    .unwrap_or_else(|e| panic!("{}: invalid outputSchema: {e}", tool.name))
            });
            schemas.insert(tool.name.to_string(), validator);
        }
        Self {
            client,
            schemas,
            checked: Vec::new(),
        }
    }

    /// Call a tool and check the result's two forms; returns it.
    async fn call(&mut self, tool: &str, arguments: Value) -> CallToolResult {
        let r = self
            .client
            .call_tool(
                CallToolRequestParams::new(tool.to_string())
                    .with_arguments(args(arguments.clone())),
            )
            .await
            .unwrap_or_else(|e| panic!("{tool} {arguments}: {e}"));
        let is_error = r.is_error == Some(true);
        let t = text(&r);
        match &self.schemas[tool] {
            None => assert!(
                r.structured_content.is_none(),
                "{tool} has no outputSchema but returned structuredContent"
            ),
            Some(v) => {
                let s = r
                    .structured_content
                    .as_ref()
                    .unwrap_or_else(|| panic!("{tool} {arguments}: no structuredContent: {t}"));
                let errors: Vec<String> = v.iter_errors(s).map(|e| e.to_string()).collect();
                assert!(
                    errors.is_empty(),
                    "{tool} {arguments}: {s} does not validate: {errors:?}"
                );
                agree(tool, &t, s, is_error);
            }
        }
        self.checked.push((tool.to_string(), is_error));
        r
    }
}

fn str_of<'a>(s: &'a Value, k: &str) -> &'a str {
    s[k].as_str().unwrap_or_else(|| panic!("{k} in {s}"))
}

/// The text and the structured form say the same thing.
fn agree(tool: &str, text: &str, s: &Value, is_error: bool) {
    if let Some(e) = s.get("error") {
        assert!(is_error, "{tool}: an error form on a success: {s}");
        assert_eq!(e.as_str(), Some(text), "{tool}: the error's two forms");
        return;
    }
    match tool {
        "bash" => {
            let mut expect = String::new();
            if let Some(n) = s.get("notice") {
                expect.push_str(n.as_str().unwrap());
                expect.push('\n');
            }
            expect.push_str(str_of(s, "output"));
            if !expect.is_empty() && !expect.ends_with('\n') {
                expect.push('\n');
            }
            expect.push_str(str_of(s, "message"));
            assert_eq!(text, expect, "bash: text rendered from {s}");
            let clean = s["status"] == "exited" || s["status"] == "restarted";
            let failed = !clean || s["exit_code"].as_i64().is_some_and(|c| c != 0);
            assert_eq!(is_error, failed, "bash isError vs {s}");
        }
        "write_file" | "edit_file" => {
            assert!(!is_error);
            assert_eq!(str_of(s, "message"), text, "{tool}: the confirmation");
        }
        "wc" => {
            let line = format!(
                "{}: {} lines, {} words, {} bytes\n",
                str_of(s, "path"),
                s["lines"],
                s["words"],
                s["bytes"]
            );
            assert!(text.starts_with(&line), "wc: {text:?} vs {s}");
            match s.get("note") {
                Some(n) => assert_eq!(&text[line.len()..], format!("[{}]\n", n.as_str().unwrap())),
                None => assert_eq!(text, line),
            }
            assert_eq!(s["truncated"], s.get("note").is_some());
        }
        "stat" => {
            for line in [
                format!("path: {}\n", str_of(s, "path")),
                format!("type: {}\n", str_of(s, "type")),
                format!("size: {} bytes\n", s["size"]),
                format!(
                    "permissions: {} ({})\n",
                    str_of(s, "permissions"),
                    str_of(s, "mode")
                ),
            ] {
                assert!(text.contains(&line), "stat: {line:?} not in {text:?}");
            }
            if let Some(t) = s.get("target") {
                assert!(text.contains(&format!("target: {}\n", t.as_str().unwrap())));
            }
        }
        other => panic!("no agreement rule for {other}"),
    }
}

#[tokio::test]
#[expect(clippy::too_many_lines, reason = "one scenario, read top to bottom")]
async fn every_result_validates_and_both_forms_agree() {
    let ws = Ws::new();
    std::fs::write(ws.root.join("big.txt"), "w\n".repeat(1000)).unwrap();
    std::os::unix::fs::symlink("hello.txt", ws.root.join("link")).unwrap();
    let mut c = Checker::start(&ws, true).await;
    let declared: Vec<&str> = c
        .schemas
        .iter()
        .filter(|(_, v)| v.is_some())
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(
        declared, STRUCTURED,
        "the tools that declare an outputSchema"
    );

    // bash: the output is in the structured form, escapes stripped.
    let r = c
        .call(
            "bash",
            json!({"command": "printf '\\033[31mhello-from-agent\\033[0m\\n'"}),
        )
        .await;
    let s = r.structured_content.clone().unwrap();
    assert_eq!(s["output"], "hello-from-agent\n");
    assert_eq!(s["exit_code"], 0);
    assert_eq!(s["status"], "exited");
    assert_eq!(text(&r), "hello-from-agent\nexit code: 0");
    let r = c
        .call("bash", json!({"command": "echo to-stderr >&2; exit 3"}))
        .await;
    let s = r.structured_content.unwrap();
    assert_eq!(
        (s["exit_code"].clone(), s["output"].clone()),
        (json!(3), json!("to-stderr\n"))
    );
    c.call("bash", json!({"command": "true"})).await;
    c.call("bash", json!({"command": "seq 1 200000"})).await;
    c.call("bash", json!({"restart": true})).await;
    c.call("bash", json!({"command": "exit 4"})).await;
    c.call("bash", json!({"command": "pwd"})).await;
    let r = c
        .call("bash", json!({"command": "pwd", "restart": true}))
        .await;
    assert!(
        r.structured_content.unwrap()["notice"].is_string(),
        "the restart is noticed"
    );
    let r = c
        .call("bash", json!({"command": "sleep 20", "timeout_secs": 1}))
        .await;
    assert_eq!(r.structured_content.unwrap()["timed_out"], true);
    // Refused before running: guardrail, bad arguments.
    let r = c.call("bash", json!({"command": "rm -fr /"})).await;
    assert!(
        r.structured_content.unwrap()["error"]
            .as_str()
            .unwrap()
            .contains("rm-root")
    );
    c.call("bash", json!({"command": 42})).await;

    // Writes: the confirmation is in both forms.
    let r = c
        .call("write_file", json!({"path": "new.txt", "content": "one\n"}))
        .await;
    assert!(text(&r).starts_with("created new.txt"), "{}", text(&r));
    c.call(
        "write_file",
        json!({"path": "new.txt", "content": "two\n", "append": true}),
    )
    .await;
    c.call(
        "write_file",
        json!({"path": "new.txt", "content": "three\n"}),
    )
    .await;
    let r = c
        .call(
            "edit_file",
            json!({"path": "new.txt", "old_text": "three", "new_text": "four"}),
        )
        .await;
    assert!(text(&r).starts_with("edited new.txt"), "{}", text(&r));
    let r = c
        .call(
            "edit_file",
            json!({"path": "new.txt", "old_text": "absent", "new_text": "x"}),
        )
        .await;
    assert_eq!(r.is_error, Some(true));
    c.call("write_file", json!({"path": ".env", "content": "x"}))
        .await;
    c.call(
        "write_file",
        json!({"path": "../outside.txt", "content": "x"}),
    )
    .await;

    // The read-only tools with structure, and without.
    c.call("wc", json!({"path": "hello.txt"})).await;
    c.call("wc", json!({"path": "missing.txt"})).await;
    c.call("stat", json!({"path": "hello.txt"})).await;
    c.call("stat", json!({"path": "link"})).await;
    c.call("stat", json!({"path": "sub"})).await;
    c.call("stat", json!({"path": "/etc/passwd"})).await;
    c.call("cat", json!({"path": "hello.txt"})).await;
    c.call("cat", json!({"path": "missing.txt"})).await;
    c.call("pwd", json!({})).await;
    c.client.cancel().await.unwrap();

    // A read limit: wc's note is in both forms.
    std::fs::write(
        ws.root.join(".airlock.toml"),
        "[limits]\nmax_read_bytes = 100\n",
    )
    .unwrap();
    let mut c2 = Checker::start(&ws, true).await;
    let r = c2.call("wc", json!({"path": "big.txt"})).await;
    assert_eq!(r.structured_content.unwrap()["truncated"], true);
    c2.client.cancel().await.unwrap();
    std::fs::remove_file(ws.root.join(".airlock.toml")).unwrap();

    // Headless without --approve-all: refusals, in both forms.
    let mut h = Checker::start(&ws, false).await;
    let r = h.call("bash", json!({"command": "echo hi"})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(r.structured_content.unwrap()["error"].is_string());
    h.call("write_file", json!({"path": "denied.txt", "content": "x"}))
        .await;
    h.call(
        "edit_file",
        json!({"path": "hello.txt", "old_text": "hello", "new_text": "bye"}),
    )
    .await;
    h.client.cancel().await.unwrap();

    let all: Vec<_> = c
        .checked
        .iter()
        .chain(&h.checked)
        .chain(&c2.checked)
        .collect();
    for tool in STRUCTURED {
        for outcome in [false, true] {
            assert!(
                all.iter().any(|(t, e)| t == tool && *e == outcome),
                "{tool}: no {} result checked",
                if outcome { "error" } else { "success" }
            );
        }
    }
}
