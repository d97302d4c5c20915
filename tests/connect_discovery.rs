//! `airlock connect` as agents really start it: with a reduced environment
//! (Codex passes only HOME, LANG, PATH, PWD, TERM, TMPDIR, USER), with no
//! supervisor running (the agent gets a JSON-RPC error it can show), and
//! with `--wait` when the agent goes away first (no relay left behind, no
//! phantom connection later). All real: the binary, the socket, the pipes.

mod mcp_support;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use mcp_support::{NamedClient, Ws, of_type, read_audit, wait_for};
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"NAME","version":"1"}}}"#;

fn init_line(name: &str) -> String {
    format!("{}\n", INIT.replace("NAME", name))
}

/// Private runtime, temp and home directories, as a desktop session has.
struct Env {
    xdg: PathBuf,
    tmp: PathBuf,
    home: PathBuf,
}

impl Env {
    fn new(ws: &Ws) -> Self {
        let base = ws.dir.path();
        let env = Self {
            xdg: base.join("xdg"),
            tmp: base.join("tmp"),
            home: base.join("home"),
        };
        for d in [&env.xdg, &env.tmp, &env.home] {
            std::fs::create_dir_all(d).unwrap();
            std::fs::set_permissions(d, std::os::unix::fs::PermissionsExt::from_mode(0o700))
                .unwrap();
        }
        env
    }

    /// The binary with the full environment: `XDG_RUNTIME_DIR` set, no
    /// `AIRLOCK_RUNTIME_DIR` (so the default locations are used).
    fn full(&self, ws: &Ws) -> Command {
        let mut c = ws.command();
        c.env_remove("AIRLOCK_RUNTIME_DIR")
            .env("XDG_RUNTIME_DIR", &self.xdg)
            .env("TMPDIR", &self.tmp)
            .env("HOME", &self.home);
        c
    }

    /// The binary with only HOME, PATH, USER and TMPDIR.
    fn reduced(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_airlock"));
        c.env_clear()
            .env("HOME", &self.home)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("USER", std::env::var_os("USER").unwrap_or("tester".into()))
            .env("TMPDIR", &self.tmp)
            .kill_on_drop(true);
        c
    }
}

/// Start a headless supervisor from `cmd`; returns it and its socket.
async fn start_supervisor(mut cmd: Command, ws: &Ws) -> (Child, PathBuf) {
    let mut child = cmd
        .arg("--workspace")
        .arg(&ws.root)
        .arg("--data-dir")
        .arg(&ws.data)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let socket = loop {
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("the supervisor prints where agents connect")
            .unwrap()
            .expect("banner");
        if let Some(p) = line.trim().strip_prefix("socket:") {
            break PathBuf::from(p.trim());
        }
    };
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, socket)
}

async fn stop(mut child: Child) {
    let _ = rustix::process::kill_process(
        rustix::process::Pid::from_raw(
            i32::try_from(child.id().unwrap()).expect("a pid fits an i32"),
        )
        .unwrap(),
        rustix::process::Signal::TERM,
    );
    tokio::time::timeout(Duration::from_secs(20), child.wait())
        .await
        .expect("the supervisor stops")
        .unwrap();
}

async fn pwd_through(mut cmd: Command, cwd: &Path, name: &'static str) -> String {
    cmd.arg("connect").current_dir(cwd);
    let client = tokio::time::timeout(
        Duration::from_secs(30),
        NamedClient(name).serve(TokioChildProcess::new(cmd).unwrap()),
    )
    .await
    .expect("the session starts")
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let r = client
        .call_tool(rmcp::model::CallToolRequestParams::new("pwd"))
        .await
        .unwrap();
    client.cancel().await.unwrap();
    r.content[0].as_text().unwrap().text.clone()
}

#[tokio::test]
async fn connect_finds_the_supervisor_with_a_reduced_and_a_full_environment() {
    let ws = Ws::new();
    let env = Env::new(&ws);
    let (sup, socket) = start_supervisor(env.full(&ws), &ws).await;
    assert!(socket.starts_with(&env.xdg), "{}", socket.display());

    let root = ws.root.display().to_string();
    let sub = ws.root.join("sub/deeper");
    assert_eq!(pwd_through(env.reduced(), &sub, "reduced-env").await, root);
    assert_eq!(pwd_through(env.full(&ws), &sub, "full-env").await, root);

    // The second registration is private and goes when the supervisor does.
    let uid = airlock::dirs::uid();
    let also = airlock::dirs::session_info_path(&env.tmp.join(format!("airlock-{uid}")), &ws.root);
    let mode = |p: &Path| {
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(p).unwrap().permissions())
            & 0o777
    };
    assert_eq!(mode(&also), 0o600);
    assert_eq!(mode(also.parent().unwrap()), 0o700);
    stop(sup).await;
    assert!(!also.exists(), "the second registration is removed");
}

#[tokio::test]
async fn a_supervisor_started_without_xdg_is_found_by_a_full_environment() {
    let ws = Ws::new();
    let env = Env::new(&ws);
    let mut cmd = env.reduced();
    cmd.env("AIRLOCK_NO_USER_CONFIG", "1");
    let (sup, socket) = start_supervisor(cmd, &ws).await;
    assert!(socket.starts_with(&env.tmp), "{}", socket.display());
    let root = ws.root.display().to_string();
    assert_eq!(pwd_through(env.full(&ws), &ws.root, "full-env").await, root);
    stop(sup).await;
}

#[tokio::test]
async fn no_supervisor_is_an_error_on_stderr_and_a_jsonrpc_error_reply() {
    let ws = Ws::new();
    let env = Env::new(&ws);
    let mut cmd = env.reduced();
    let mut child = cmd
        .arg("connect")
        .current_dir(ws.root.join("sub"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(init_line("lonely").as_bytes())
        .await
        .unwrap();
    let out = tokio::time::timeout(Duration::from_secs(20), child.wait_with_output())
        .await
        .expect("connect gives up")
        .unwrap();
    drop(stdin);
    assert_eq!(out.status.code(), Some(1));
    let sub = ws.root.join("sub").display().to_string();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.contains(&format!("running for {sub}")), "{err}");
    assert!(
        err.contains(&format!("`airlock --workspace {sub}`")),
        "{err}"
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let reply: Value =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout:?}"));
    assert_eq!(reply["jsonrpc"], "2.0");
    assert_eq!(reply["id"], 1);
    assert_eq!(reply["error"]["code"], -32000);
    let message = reply["error"]["message"].as_str().unwrap();
    assert_eq!(format!("airlock connect: {message}"), err.trim_end());
}

/// Process ids of running `airlock connect` processes whose working
/// directory is `dir`.
fn connects_in(dir: &Path) -> Vec<u32> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let is_connect = cmdline.split(|b| *b == 0).any(|a| a == b"connect");
        let cwd = std::fs::read_link(e.path().join("cwd")).ok();
        if is_connect && cwd.as_deref() == Some(dir) {
            found.push(pid);
        }
    }
    found
}

#[tokio::test]
async fn connect_wait_ends_with_its_agent_and_leaves_no_phantom() {
    let ws = Ws::new();
    let env = Env::new(&ws);
    let gone_dir = ws.root.join("sub");
    let live_dir = ws.root.join("sub/deeper");

    // An agent that sends initialize and exits at once: its relay is
    // orphaned (reparented to init) and must end with its stdin.
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "printf '%s' '{}' | {} connect --wait 2>{}/wait.err &",
            init_line("gone-agent").trim_end(),
            env!("CARGO_BIN_EXE_airlock"),
            ws.dir.path().display()
        ))
        .env_clear()
        .env("HOME", &env.home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("TMPDIR", &env.tmp)
        .current_dir(&gone_dir)
        .status()
        .await
        .unwrap();
    assert!(status.success());

    // A control that keeps its stdin open connects once a supervisor is up.
    let mut control = env.reduced();
    let mut control = control
        .args(["connect", "--wait"])
        .current_dir(&live_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut control_in = control.stdin.take().unwrap();
    control_in
        .write_all(init_line("live-agent").as_bytes())
        .await
        .unwrap();
    let mut control_err = BufReader::new(control.stderr.take().unwrap()).lines();
    let waiting = tokio::time::timeout(Duration::from_secs(10), control_err.next_line())
        .await
        .expect("a message while waiting")
        .unwrap()
        .unwrap();
    assert!(
        waiting.starts_with("airlock connect: waiting for a supervisor"),
        "{waiting}"
    );
    assert!(waiting.contains("stdin closes"), "{waiting}");

    wait_for("the orphaned relay to exit", 10, || {
        connects_in(&gone_dir).is_empty()
    })
    .await;
    let err = std::fs::read_to_string(ws.dir.path().join("wait.err")).unwrap();
    assert!(
        err.contains("closed stdin before a supervisor appeared"),
        "{err}"
    );
    assert_eq!(connects_in(&live_dir).len(), 1, "the control still waits");

    let (sup, _) = start_supervisor(env.full(&ws), &ws).await;
    let mut control_out = BufReader::new(control.stdout.take().unwrap()).lines();
    let reply = tokio::time::timeout(Duration::from_secs(20), control_out.next_line())
        .await
        .expect("the control is served")
        .unwrap()
        .unwrap();
    let reply: Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(reply["result"]["serverInfo"]["name"], "airlock");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let files = ws.audit_files();
    let records = read_audit(&files[0]);
    let names: Vec<_> = of_type(&records, "agent_connected")
        .iter()
        .map(|r| r["agent"]["name"].clone())
        .collect();
    assert_eq!(names, [json!("live-agent")], "no phantom connection");
    drop(control_in);
    tokio::time::timeout(Duration::from_secs(10), control.wait())
        .await
        .expect("the control's relay ends with its stdin")
        .unwrap();
    stop(sup).await;
}
