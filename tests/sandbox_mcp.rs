//! The sandbox through the real binary (`airlock serve --stdio
//! --approve-all`, rmcp's client): the environment allowlist, the command
//! line flags, escape attempts, and `required = true` on a kernel that
//! (by the test-only override) lacks a mechanism.

mod mcp_support;
mod sandbox_support;

use mcp_support::{NamedClient, Ws, args, of_type};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt, service::RunningService};
use serde_json::json;

type Client = RunningService<RoleClient, NamedClient>;

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

async fn bash(client: &Client, command: &str) -> CallToolResult {
    client
        .call_tool(
            CallToolRequestParams::new("bash").with_arguments(args(json!({ "command": command }))),
        )
        .await
        .unwrap()
}

async fn start(_ws: &Ws, cmd: tokio::process::Command) -> Client {
    NamedClient("sandbox-e2e")
        .serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap()
}

fn config(ws: &Ws, sandbox: &str) -> std::path::PathBuf {
    let path = ws.dir.path().join("sandbox.toml");
    std::fs::write(&path, format!("[sandbox]\n{sandbox}\n")).unwrap();
    path
}

#[tokio::test]
async fn only_allowed_variables_reach_the_shell() {
    let ws = Ws::new();
    let mut cmd = ws.serve_stdio();
    cmd.arg("--approve-all")
        .env("AIRLOCK_TEST_NOT_ALLOWED", "hidden-value")
        .env("DATABASE_URL", "postgres://secret")
        .env("LC_AIRLOCK_TEST", "allowed-value")
        .env("EXTRA_ALLOWED", "extra-value")
        .arg("--config")
        .arg(config(
            &ws,
            "allow_env = [\"PATH\", \"HOME\", \"LC_*\", \"EXTRA_*\"]",
        ));
    let client = start(&ws, cmd).await;
    let r = bash(&client, "env").await;
    let out = text(&r);
    assert_eq!(r.is_error, Some(false), "{out}");
    for gone in [
        "hidden-value",
        "postgres://secret",
        "AIRLOCK_TEST_NOT_ALLOWED",
    ] {
        assert!(!out.contains(gone), "{gone} leaked:\n{out}");
    }
    assert!(out.contains("LC_AIRLOCK_TEST=allowed-value"), "{out}");
    assert!(out.contains("EXTRA_ALLOWED=extra-value"), "{out}");
    // airlock's own settings still apply.
    assert!(
        out.contains("PAGER=cat") && out.contains("TMPDIR=/tmp"),
        "{out}"
    );
    let r = bash(&client, "echo \"[${AIRLOCK_TEST_NOT_ALLOWED-unset}]\"").await;
    assert!(text(&r).starts_with("[unset]"), "{}", text(&r));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn sandbox_off_from_the_command_line_passes_the_environment() {
    let ws = Ws::new();
    let mut cmd = ws.serve_stdio();
    cmd.args(["--approve-all", "--sandbox", "off"])
        .env("AIRLOCK_TEST_PLAIN", "plain-value");
    let client = start(&ws, cmd).await;
    let r = bash(&client, "echo \"[$AIRLOCK_TEST_PLAIN]\"").await;
    assert!(text(&r).starts_with("[plain-value]"), "{}", text(&r));
    client.cancel().await.unwrap();
    let audit = ws.audit();
    let start = of_type(&audit, "session_start");
    assert_eq!(start[0]["sandbox"]["state"], "off");
    assert_eq!(start[0]["sandbox"]["summary"], "sandbox: off — mode = off");
}

#[tokio::test]
async fn escape_attempts_fail() {
    let ws = Ws::new();
    let secret = ws.root.join(".env");
    std::fs::write(&secret, "SECRET=escape-check").unwrap();
    let mut cmd = ws.serve_stdio();
    cmd.arg("--approve-all");
    let client = start(&ws, cmd).await;
    // Any call starts the shell; the trail names the supervisor's pid.
    assert_eq!(bash(&client, "true").await.is_error, Some(false));
    let audit = ws.audit();
    let supervisor = of_type(&audit, "session_start")[0]["pid"].as_u64().unwrap();
    let attempts = [
        // Through another process's view of the filesystem.
        format!("cat /proc/{supervisor}/root{}", secret.display()),
        // (pid 1 is the shell itself in its PID namespace: its root hides
        // the secret like the shell's own view.)
        format!("cat /proc/1/root{}", secret.display()),
        // Signals to the supervisor.
        format!("kill -0 {supervisor}"),
        // The host's network namespace.
        // (pid 1 is the shell itself; no host process is visible at all.)
        format!("nsenter -t {supervisor} -n -m true"),
        // Mounting anything, even in a fresh namespace.
        "unshare -m sh -c 'umount -l .env && cat .env'".to_string(),
        "mount -t tmpfs none /mnt".to_string(),
        // Writing the supervisor's settings.
        format!("echo 0 > /proc/{supervisor}/oom_score_adj"),
    ];
    for a in &attempts {
        let r = bash(&client, a).await;
        let out = text(&r);
        assert_eq!(r.is_error, Some(true), "{a} succeeded: {out}");
        assert!(!out.contains("escape-check"), "{a}: {out}");
    }
    client.cancel().await.unwrap();
}

/// The attempts above that a same-user process can make work without the
/// sandbox (so the test above fails if the sandbox stops holding).
#[tokio::test]
async fn the_same_attempts_work_without_the_sandbox() {
    let ws = Ws::new();
    let secret = ws.root.join(".env");
    std::fs::write(&secret, "SECRET=escape-check").unwrap();
    let mut cmd = ws.serve_stdio();
    cmd.args(["--approve-all", "--sandbox", "off"]);
    let client = start(&ws, cmd).await;
    assert_eq!(bash(&client, "true").await.is_error, Some(false));
    let audit = ws.audit();
    let supervisor = of_type(&audit, "session_start")[0]["pid"].as_u64().unwrap();
    let r = bash(
        &client,
        &format!("cat /proc/{supervisor}/root{}", secret.display()),
    )
    .await;
    assert!(text(&r).contains("escape-check"), "{}", text(&r));
    let r = bash(&client, &format!("kill -0 {supervisor}")).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn required_sandbox_on_a_kernel_without_it_refuses_the_shell() {
    let ws = Ws::new();
    let mut cmd = ws.serve_stdio();
    cmd.arg("--approve-all")
        .env("AIRLOCK_SANDBOX_FORCE_UNAVAILABLE", "1")
        .arg("--config")
        .arg(config(&ws, "required = true"));
    let client = start(&ws, cmd).await;
    let r = bash(&client, "echo ran > ran.txt").await;
    let out = text(&r);
    assert_eq!(r.is_error, Some(true), "{out}");
    assert!(out.contains("the sandbox is required but"), "{out}");
    assert!(out.contains("AIRLOCK_SANDBOX_FORCE_UNAVAILABLE"), "{out}");
    assert!(out.contains("did not run"), "{out}");
    assert!(!ws.root.join("ran.txt").exists());
    client.cancel().await.unwrap();
    let audit = ws.audit();
    let start = of_type(&audit, "session_start");
    assert_eq!(start[0]["sandbox"]["state"], "refused");
    assert_eq!(start[0]["sandbox"]["required"], true);
}

#[tokio::test]
async fn one_missing_mechanism_with_required_refuses_too() {
    let ws = Ws::new();
    let mut cmd = ws.serve_stdio();
    cmd.arg("--approve-all")
        .env("AIRLOCK_SANDBOX_FORCE_UNAVAILABLE", "netns")
        .arg("--config")
        .arg(config(&ws, "required = true"));
    let client = start(&ws, cmd).await;
    let r = bash(&client, "true").await;
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).contains("network"), "{}", text(&r));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn unavailable_and_not_required_runs_and_says_so() {
    let ws = Ws::new();
    let mut cmd = ws.serve_stdio();
    cmd.arg("--approve-all")
        .env("AIRLOCK_SANDBOX_FORCE_UNAVAILABLE", "all")
        .env("AIRLOCK_TEST_PLAIN", "plain-value");
    let client = start(&ws, cmd).await;
    let r = bash(
        &client,
        "echo ran > ran.txt; echo \"[${AIRLOCK_TEST_PLAIN-unset}]\"",
    )
    .await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    // Still the environment allowlist: it needs no kernel support.
    assert!(text(&r).starts_with("[unset]"), "{}", text(&r));
    assert!(ws.root.join("ran.txt").exists());
    client.cancel().await.unwrap();
    let audit = ws.audit();
    let start = of_type(&audit, "session_start");
    let sb = &start[0]["sandbox"];
    assert_eq!(sb["state"], "off");
    let summary = sb["summary"].as_str().unwrap();
    assert!(summary.starts_with("sandbox: off — "), "{summary}");
    assert!(
        summary.contains("AIRLOCK_SANDBOX_FORCE_UNAVAILABLE"),
        "{summary}"
    );
    assert!(!sb["missing"].as_array().unwrap().is_empty());
}

/// A Unix socket reached by path is not cut by the network namespace: with
/// the network off, the sockets of the runtime directories are hidden.
#[tokio::test]
async fn unix_sockets_in_runtime_directories_are_hidden_with_the_network_off() {
    // Not under /tmp: the shell's /tmp is private whatever the network.
    let runtime = sandbox_support::target_tempdir();
    let sock = std::fs::canonicalize(runtime.path())
        .unwrap()
        .join("svc.sock");
    let listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    std::thread::spawn(move || {
        use std::io::Write;
        for s in listener.incoming().flatten() {
            let mut s = s;
            let _ = s.write_all(b"hello");
        }
    });
    let connect = format!(
        "python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"{}\"); print(s.recv(5).decode())'",
        sock.display()
    );
    for (flags, reachable) in [
        (&["--approve-all"][..], false),
        (&["--approve-all", "--allow-network"][..], true),
    ] {
        let ws = Ws::new();
        let mut cmd = ws.serve_stdio();
        cmd.args(flags).env("XDG_RUNTIME_DIR", runtime.path());
        let client = start(&ws, cmd).await;
        let r = bash(&client, &connect).await;
        let out = text(&r);
        if reachable {
            assert!(out.starts_with("hello"), "{out}");
        } else {
            assert_eq!(r.is_error, Some(true), "{out}");
            assert!(out.contains("FileNotFoundError"), "{out}");
        }
        client.cancel().await.unwrap();
    }
}
