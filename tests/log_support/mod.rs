//! Shared by the `log_*` and `sessions_*` tests: a real session with every
//! kind of outcome, and running the real binary.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::time::Duration;

use airlock::call::{ApprovedBy, Decision, RefusedBy};
use airlock::policy::GrantScope;
use airlock::session::{self, SessionOptions};
use airlock::supervisor::{ConfirmRequest, Confirmer, HeadlessConfirmer};
use async_trait::async_trait;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// Answers by what the call says, like a person reading the prompt:
/// `approve-me` and writes are approved, `deny-me` is denied with a
/// reason, `headless-please` goes to the real headless confirmer, and
/// anything else gets no answer at all.
pub struct Scripted;

#[async_trait]
impl Confirmer for Scripted {
    async fn confirm(&self, r: ConfirmRequest) -> Decision {
        let text = format!("{} {}", r.call.summary, r.call.args);
        if text.contains("approve-me") || r.call.tool == "write_file" || r.call.tool == "edit_file"
        {
            Decision::approve(ApprovedBy::User)
        } else if text.contains("deny-me") {
            Decision::deny(RefusedBy::User, Some("not today".into()))
        } else if text.contains("headless-please") {
            HeadlessConfirmer.confirm(r).await
        } else {
            std::future::pending().await
        }
    }

    fn kind(&self) -> airlock::call::ConfirmerKind {
        airlock::call::ConfirmerKind::Scripted
    }
}

/// A finished session with every outcome.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub ws: PathBuf,
    pub data: PathBuf,
    pub trail: PathBuf,
    pub id: String,
}

pub const PROJECT_CONFIG: &str = "approval_timeout_secs = 1\n\
allow = [\"bash(echo auto-run)\"]\n\
deny = [\"bash(rm *)\"]\n";

/// The calls made, in order (call id = index + 1), and what each should
/// be classed as.
pub const EXPECTED: &[(&str, &str)] = &[
    ("read_file notes.txt", "auto"),
    ("bash echo auto-run", "auto"),
    ("bash echo approve-me", "user"),
    ("bash echo deny-me", "denied"),
    ("bash echo headless-please", "denied"),
    ("bash rm -f notes.txt", "blocked"),
    ("bash mkfs.ext4 /dev/sda", "blocked"),
    ("read_file ../outside.txt", "refused"),
    ("bash echo silent", "timeout"),
    ("bash echo cancel-me", "cancelled"),
    ("bash false # approve-me", "user"),
    ("write_file new.txt", "user"),
    ("edit_file notes.txt", "user"),
    ("bash echo granted", "auto"),
];

async fn call(s: &session::Session, agent: &airlock::call::AgentInfo, tool: &str, args: Value) {
    s.supervisor
        .call(
            agent,
            tool,
            args.as_object().cloned(),
            CancellationToken::new(),
            None,
        )
        .await
        .unwrap();
}

/// Run a session through the real pipeline: two agents, every outcome.
pub async fn every_outcome() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let ws = std::fs::canonicalize(ws).unwrap();
    std::fs::write(ws.join(".airlock.toml"), PROJECT_CONFIG).unwrap();
    std::fs::write(ws.join("notes.txt"), "alpha\nbeta\n").unwrap();
    std::fs::write(dir.path().join("outside.txt"), "secret").unwrap();
    let data = dir.path().join("data");
    // The project file is the test's own: trusted, as `airlock trust` does.
    airlock::config::TrustStore::new(&data)
        .trust(&ws.join(".airlock.toml"), PROJECT_CONFIG)
        .unwrap();
    let s = session::start(
        &SessionOptions {
            workspace: ws.clone(),
            data_dir: Some(data.clone()),
            config_file: None,
            mode: airlock::call::SessionMode::Supervisor,
            policy_mode: None,
            user_config: false,
        },
        Arc::new(Scripted),
    )
    .unwrap();
    let a = s.supervisor.agent_connected(Some("agent-a"), Some("1.0"));
    let b = s.supervisor.agent_connected(Some("agent-b"), None);
    let bash = |c: &str| json!({ "command": c });
    call(&s, &a, "read_file", json!({"path": "notes.txt"})).await;
    call(&s, &a, "bash", bash("echo auto-run")).await;
    call(&s, &a, "bash", bash("echo approve-me")).await;
    call(&s, &a, "bash", bash("echo deny-me")).await;
    call(&s, &b, "bash", bash("echo headless-please")).await;
    call(&s, &b, "bash", bash("rm -f notes.txt")).await;
    call(&s, &b, "bash", bash("mkfs.ext4 /dev/sda")).await;
    call(&s, &b, "read_file", json!({"path": "../outside.txt"})).await;
    call(&s, &a, "bash", bash("echo silent")).await;
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        c2.cancel();
    });
    s.supervisor
        .call(
            &a,
            "bash",
            bash("echo cancel-me").as_object().cloned(),
            cancel,
            None,
        )
        .await
        .unwrap();
    call(&s, &a, "bash", bash("false # approve-me")).await;
    call(
        &s,
        &a,
        "write_file",
        json!({"path": "new.txt", "content": "fresh line\n"}),
    )
    .await;
    call(
        &s,
        &a,
        "edit_file",
        json!({"path": "notes.txt", "old_text": "beta", "new_text": "gamma"}),
    )
    .await;
    s.supervisor
        .grant(GrantScope::ExactCommand("echo granted".into()), &["bash"]);
    call(&s, &b, "bash", bash("echo granted")).await;
    s.supervisor.agent_disconnected(&b);
    s.supervisor.shutdown("test done");
    Fixture {
        trail: s.audit_path.clone(),
        id: s.id.clone(),
        dir,
        ws,
        data,
    }
}

/// The real binary with a clean environment.
pub fn airlock(data: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_airlock"))
        .env("AIRLOCK_NO_USER_CONFIG", "1")
        .env("TZ", "UTC")
        .env_remove("NO_COLOR")
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .output()
        .unwrap()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// The trail's lines parsed.
pub fn records(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
