//! `airlock init claude|codex|gemini --http` registers the running
//! supervisor's Streamable HTTP URL in each agent's own config file (the
//! keys each pinned agent reads: Claude `type: http` + `url`, Codex `url`,
//! Gemini `httpUrl`), and the URL written there is one the supervisor
//! answers. Without a supervisor serving HTTP, init says how to start one.

mod mcp_http_support;
mod mcp_support;

use std::process::Stdio;
use std::time::Duration;

use mcp_http_support::{Endpoint, Session};
use mcp_support::{Ws, wait_for};

async fn init(ws: &Ws, home: &std::path::Path, agent: &str) -> std::process::Output {
    ws.command()
        .args(["init", agent, "--http", "--workspace"])
        .arg(&ws.root)
        .arg("--data-dir")
        .arg(&ws.data)
        .env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("GEMINI_CLI_HOME")
        .output()
        .await
        .unwrap()
}

#[tokio::test]
async fn init_http_writes_each_agents_http_registration() {
    let ws = Ws::new();
    let home = ws.dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    // No supervisor yet: a clear error, nothing written.
    let out = init(&ws, &home, "claude").await;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("airlock --http"), "{err}");
    assert!(!home.join(".claude.json").exists());

    let mut sup = ws
        .command()
        .arg("--workspace")
        .arg(&ws.root)
        .arg("--data-dir")
        .arg(&ws.data)
        .arg("--http")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for("the supervisor's session file", 30, || {
        std::fs::read_dir(&ws.runtime).is_ok_and(|rd| {
            rd.flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "json"))
        })
    })
    .await;

    let out = init(&ws, &home, "claude").await;
    assert!(out.status.success(), "{out:?}");
    let claude: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(".claude.json")).unwrap()).unwrap();
    let entry = &claude["mcpServers"]["airlock"];
    assert_eq!(entry["type"], "http", "{entry}");
    assert!(entry.get("command").is_none(), "{entry}");
    let url = entry["url"].as_str().unwrap().to_string();

    let out = init(&ws, &home, "codex").await;
    assert!(out.status.success(), "{out:?}");
    let codex: toml::Table = std::fs::read_to_string(home.join(".codex/config.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let entry = &codex["mcp_servers"]["airlock"];
    assert_eq!(entry["url"].as_str(), Some(url.as_str()), "{entry}");
    assert!(entry.get("command").is_none(), "{entry}");

    let out = init(&ws, &home, "gemini").await;
    assert!(out.status.success(), "{out:?}");
    let gemini: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(".gemini/settings.json")).unwrap())
            .unwrap();
    let entry = &gemini["mcpServers"]["airlock"];
    assert_eq!(entry["httpUrl"].as_str(), Some(url.as_str()), "{entry}");
    assert!(entry.get("command").is_none(), "{entry}");

    // `airlock config` tells the URL while the supervisor runs.
    let out = ws
        .command()
        .args(["config", "--workspace"])
        .arg(&ws.root)
        .output()
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&url), "airlock config: {text}");
    // The registered URL is the supervisor's: an agent using it is served.
    let ep = Endpoint::from_url(&url);
    let mut s = Session::open(&ep, "registered-agent").await;
    let r = s.call("pwd", serde_json::json!({})).await;
    assert!(mcp_http_support::result_text(&r).contains("/ws"), "{r}");
    let _ = sup.start_kill();
    let _ = tokio::time::timeout(Duration::from_secs(10), sup.wait()).await;
}
