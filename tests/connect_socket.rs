//! The supervisor on its Unix socket and `airlock connect`, all real: the
//! binary, the socket, rmcp's client speaking through the relay.

mod mcp_support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use mcp_support::{NamedClient, Ws, args, of_type, read_audit, wait_for};
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Child;

type Client = RunningService<RoleClient, NamedClient>;

/// A running `airlock --workspace …` and what it printed.
struct Sup {
    child: Child,
    banner: Vec<String>,
    socket: PathBuf,
}

impl Sup {
    async fn start(ws: &Ws) -> Sup {
        let mut child = ws
            .command()
            .arg("--workspace")
            .arg(&ws.root)
            .arg("--data-dir")
            .arg(&ws.data)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut banner = Vec::new();
        let socket = loop {
            let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
                .await
                .expect("the supervisor prints where agents connect")
                .unwrap()
                .unwrap_or_else(|| panic!("stdout closed; banner so far: {banner:?}"));
            banner.push(line.clone());
            if let Some(p) = line.trim().strip_prefix("socket:") {
                break PathBuf::from(p.trim());
            }
        };
        // The rest of the banner.
        while banner.len() < 6 {
            match tokio::time::timeout(Duration::from_secs(5), lines.next_line()).await {
                Ok(Ok(Some(l))) => banner.push(l),
                _ => break,
            }
        }
        Sup {
            child,
            banner,
            socket,
        }
    }

    fn pid(&self) -> i32 {
        i32::try_from(self.child.id().unwrap()).expect("a pid fits an i32")
    }

    async fn terminate(mut self) {
        rustix::process::kill_process(
            rustix::process::Pid::from_raw(self.pid()).unwrap(),
            rustix::process::Signal::TERM,
        )
        .unwrap();
        let status = tokio::time::timeout(Duration::from_secs(20), self.child.wait())
            .await
            .expect("the supervisor stops on SIGTERM")
            .unwrap();
        assert!(status.success(), "{status}");
    }
}

/// `airlock connect` (extra args) run from `cwd`, as an MCP client.
async fn connect(ws: &Ws, name: &'static str, cwd: &Path, extra: &[&str]) -> Client {
    let mut cmd = ws.command();
    cmd.arg("connect").args(extra).current_dir(cwd);
    let transport = TokioChildProcess::new(cmd).unwrap();
    tokio::time::timeout(Duration::from_secs(30), NamedClient(name).serve(transport))
        .await
        .expect("the session starts")
        .unwrap()
}

async fn pwd(client: &Client) -> String {
    let r = client
        .call_tool(CallToolRequestParams::new("pwd").with_arguments(args(json!({}))))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    r.content[0].as_text().unwrap().text.clone()
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

fn audit_path(ws: &Ws) -> PathBuf {
    let files = ws.audit_files();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

fn agents(records: &[Value], ty: &str) -> Vec<String> {
    of_type(records, ty)
        .iter()
        .map(|r| r["agent"]["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn agents_connect_by_discovery_and_by_socket_at_once() {
    let ws = Ws::new();
    let sup = Sup::start(&ws).await;
    let banner = sup.banner.join("\n");
    assert!(banner.contains(&ws.root.display().to_string()), "{banner}");
    assert!(banner.contains("airlock connect"), "{banner}");
    assert!(banner.contains("\"mcpServers\""), "{banner}");

    // Private runtime dir, private socket, a session file to discover it by.
    assert_eq!(
        sup.socket,
        airlock::dirs::socket_path(&ws.runtime, &ws.root)
    );
    assert_eq!(mode(&ws.runtime), 0o700);
    assert_eq!(mode(&sup.socket), 0o600);
    let info_path = airlock::dirs::session_info_path(&ws.runtime, &ws.root);
    assert_eq!(mode(&info_path), 0o600);
    let info: Value = serde_json::from_slice(&std::fs::read(&info_path).unwrap()).unwrap();
    assert_eq!(info["workspace"], ws.root.display().to_string());
    assert_eq!(info["socket"], sup.socket.display().to_string());
    assert_eq!(info["pid"], sup.pid());
    assert_eq!(info["audit"], audit_path(&ws).display().to_string());

    // One agent finds it from a subdirectory, the other is given the socket.
    let a = connect(&ws, "agent-a", &ws.root.join("sub/deeper"), &[]).await;
    let socket = sup.socket.to_str().unwrap().to_string();
    let b = connect(&ws, "agent-b", Path::new("/"), &["--socket", &socket]).await;
    let root = ws.root.display().to_string();
    let (pa, pb, ta, tb) = tokio::join!(pwd(&a), pwd(&b), a.list_all_tools(), b.list_all_tools());
    assert_eq!((pa.as_str(), pb.as_str()), (root.as_str(), root.as_str()));
    assert_eq!(ta.unwrap().len(), tb.unwrap().len());

    let trail = audit_path(&ws);
    let records = read_audit(&trail);
    let mut connected = agents(&records, "agent_connected");
    connected.sort();
    assert_eq!(connected, ["agent-a", "agent-b"]);
    let ids: Vec<_> = of_type(&records, "agent_connected")
        .iter()
        .map(|r| r["agent"]["id"].clone())
        .collect();
    assert_ne!(ids[0], ids[1], "each connection is its own agent");

    // A leaves: its disconnect is recorded while the supervisor runs on.
    a.cancel().await.unwrap();
    wait_for("agent-a's disconnect", 20, || {
        agents(&read_audit(&trail), "agent_disconnected") == ["agent-a"]
    })
    .await;
    assert_eq!(pwd(&b).await, root);

    // SIGTERM: B is disconnected, the trail ends cleanly, the files go.
    let socket_path = sup.socket.clone();
    sup.terminate().await;
    let records = read_audit(&trail);
    assert_eq!(
        agents(&records, "agent_disconnected"),
        ["agent-a", "agent-b"]
    );
    let last = records.last().unwrap();
    assert_eq!(last["type"], "session_end");
    assert!(
        last["reason"].as_str().unwrap().contains("SIGTERM"),
        "{last}"
    );
    assert!(!socket_path.exists(), "socket removed");
    assert!(!info_path.exists(), "session file removed");
    // B's relay notices and exits; its client sees the end of the session.
    tokio::time::timeout(Duration::from_secs(20), b.waiting())
        .await
        .expect("the relay ends when the supervisor goes")
        .unwrap();
}

#[tokio::test]
async fn connect_without_a_supervisor_says_how_to_start_one() {
    let ws = Ws::new();
    let out = ws
        .command()
        .arg("connect")
        .current_dir(ws.root.join("sub"))
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "exactly one line: {err:?}");
    let sub = ws.root.join("sub").display().to_string();
    assert!(
        err.starts_with("airlock connect: no airlock supervisor is running for"),
        "{err}"
    );
    assert!(
        err.contains(&format!("`airlock --workspace {sub}`")),
        "{err}"
    );

    let out = ws
        .command()
        .args(["connect", "--socket"])
        .arg(ws.runtime.join("nothing.sock"))
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(
        err.contains("nothing.sock") && err.contains("start one with `airlock`"),
        "{err}"
    );

    // AIRLOCK_SOCKET is --socket's default.
    let out = ws
        .command()
        .arg("connect")
        .env("AIRLOCK_SOCKET", ws.runtime.join("env.sock"))
        .current_dir(&ws.root)
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("env.sock"));
}

#[tokio::test]
async fn connect_wait_waits_for_the_supervisor() {
    let ws = Ws::new();
    let waiting = {
        let ws_root = ws.root.clone();
        let mut cmd = ws.command();
        cmd.args(["connect", "--wait"]).current_dir(&ws_root);
        let transport = TokioChildProcess::new(cmd).unwrap();
        tokio::spawn(async move { NamedClient("patient").serve(transport).await })
    };
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert!(!waiting.is_finished(), "nothing to connect to yet");
    let sup = Sup::start(&ws).await;
    let client = tokio::time::timeout(Duration::from_secs(30), waiting)
        .await
        .expect("connects once the supervisor is up")
        .unwrap()
        .unwrap();
    assert_eq!(pwd(&client).await, ws.root.display().to_string());
    client.cancel().await.unwrap();
    sup.terminate().await;
}

#[tokio::test]
async fn stale_socket_is_replaced_and_a_live_one_is_refused() {
    let ws = Ws::new();
    airlock::dirs::ensure_private_dir(&ws.runtime).unwrap();
    let path = airlock::dirs::socket_path(&ws.runtime, &ws.root);
    drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
    assert!(path.exists(), "a stale socket is left behind");

    let sup = Sup::start(&ws).await;
    assert_eq!(sup.socket, path);
    let client = connect(&ws, "after-stale", &ws.root, &[]).await;
    assert_eq!(pwd(&client).await, ws.root.display().to_string());

    // A second supervisor for the same workspace refuses to start.
    let out = ws
        .command()
        .arg("--workspace")
        .arg(&ws.root)
        .arg("--data-dir")
        .arg(ws.dir.path().join("data2"))
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("already running"), "{err}");
    assert!(
        out.stdout.is_empty(),
        "no banner: {}",
        String::from_utf8_lossy(&out.stdout)
    );

    // The first one is untouched.
    assert!(path.exists());
    assert_eq!(pwd(&client).await, ws.root.display().to_string());
    client.cancel().await.unwrap();
    sup.terminate().await;
}

#[tokio::test]
async fn other_users_are_refused_by_peer_uid() {
    if !rustix::process::getuid().is_root() {
        eprintln!("skipped: needs root to connect as another user");
        return;
    }
    let ws = Ws::new();
    let sup = Sup::start(&ws).await;
    // Open the way (directory and socket) so that only the UID check stands.
    std::fs::set_permissions(&ws.runtime, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&sup.socket, std::fs::Permissions::from_mode(0o777)).unwrap();
    let mut cmd = ws.command();
    cmd.arg("connect")
        .arg("--socket")
        .arg(&sup.socket)
        .current_dir("/")
        .uid(65534)
        .gid(65534);
    let (transport, stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let res = tokio::time::timeout(
        Duration::from_secs(20),
        NamedClient("intruder").serve(transport),
    )
    .await
    .expect("the connection is closed at once");
    assert!(res.is_err(), "a session for another user must not start");
    // Both ends check: the relay will not talk to another user's supervisor…
    let mut err = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut stderr.unwrap(), &mut err)
        .await
        .unwrap();
    assert!(err.contains("runs as another user (uid 0)"), "{err}");
    // …and the supervisor drops a peer that is not its user (the log is
    // written by a background thread: give it a moment).
    let log = ws.data.join("logs/airlock.log");
    wait_for("the refusal in the supervisor's log", 10, || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("refused a connection from another user")
    })
    .await;
    let records = read_audit(&audit_path(&ws));
    assert!(of_type(&records, "agent_connected").is_empty());
    sup.terminate().await;
}

#[tokio::test]
async fn sigint_right_after_start_ends_the_session_cleanly() {
    let ws = Ws::new();
    let mut sup = Sup::start(&ws).await;
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(sup.pid()).unwrap(),
        rustix::process::Signal::INT,
    )
    .unwrap();
    let status = tokio::time::timeout(Duration::from_secs(20), sup.child.wait())
        .await
        .expect("the supervisor stops on SIGINT")
        .unwrap();
    assert!(status.success(), "{status}");
    let records = read_audit(&audit_path(&ws));
    let last = records.last().unwrap();
    assert_eq!(last["type"], "session_end");
    assert!(
        last["reason"].as_str().unwrap().contains("SIGINT"),
        "{last}"
    );
    assert!(!sup.socket.exists());
    assert!(!airlock::dirs::session_info_path(&ws.runtime, &ws.root).exists());
}
