//! Shared by the MCP integration tests: a workspace in a temp dir, the real
//! binary, rmcp's client, and the audit trail the run left behind; an
//! in-process supervisor whose confirmer is scripted ([`waiting`]).
#![allow(dead_code)]

pub mod waiting;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rmcp::ClientHandler;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use serde_json::Value;

/// The eleven read-only tools (DESIGN §3).
pub const READ_ONLY_TOOLS: [&str; 11] = [
    "cat",
    "diff",
    "find",
    "grep",
    "head",
    "ls",
    "pwd",
    "read_file",
    "stat",
    "tail",
    "wc",
];

/// Tools that change things (they must be annotated destructive).
pub const CHANGING_TOOLS: [&str; 3] = ["bash", "edit_file", "write_file"];

/// A workspace, a data dir and a runtime dir in one temp dir.
pub struct Ws {
    pub dir: tempfile::TempDir,
    /// Canonical workspace path.
    pub root: PathBuf,
    pub data: PathBuf,
    pub runtime: PathBuf,
}

impl Ws {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir_all(root.join("sub/deeper")).unwrap();
        std::fs::write(root.join("hello.txt"), "hello\nworld\n").unwrap();
        let root = std::fs::canonicalize(&root).unwrap();
        let data = dir.path().join("data");
        let runtime = dir.path().join("rt");
        Self {
            dir,
            root,
            data,
            runtime,
        }
    }

    /// `airlock` with the user's config and environment kept out.
    pub fn command(&self) -> tokio::process::Command {
        let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_airlock"));
        c.env("AIRLOCK_NO_USER_CONFIG", "1")
            .env("AIRLOCK_RUNTIME_DIR", &self.runtime)
            .env_remove("AIRLOCK_SOCKET")
            .env_remove("AIRLOCK_DATA_DIR")
            .kill_on_drop(true);
        c
    }

    /// `airlock serve --stdio` on this workspace.
    pub fn serve_stdio(&self) -> tokio::process::Command {
        let mut c = self.command();
        c.arg("serve")
            .arg("--stdio")
            .arg("--workspace")
            .arg(&self.root)
            .arg("--data-dir")
            .arg(&self.data);
        c
    }

    /// The audit trails written so far.
    pub fn audit_files(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(self.data.join("audit"))
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        v.retain(|p| p.extension().is_some_and(|x| x == "jsonl"));
        v.sort();
        v
    }

    /// The records of the only audit trail.
    pub fn audit(&self) -> Vec<Value> {
        let files = self.audit_files();
        assert_eq!(files.len(), 1, "one audit trail: {files:?}");
        read_audit(&files[0])
    }
}

pub fn read_audit(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Records of one type.
pub fn of_type<'a>(records: &'a [Value], ty: &str) -> Vec<&'a Value> {
    records.iter().filter(|r| r["type"] == ty).collect()
}

/// An MCP client that introduces itself by name.
#[derive(Clone)]
pub struct NamedClient(pub &'static str);

impl ClientHandler for NamedClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new(self.0, "1.2.3"),
        )
    }
}

/// Wait until `f` is true, or panic after `secs`.
pub async fn wait_for(what: &str, secs: u64, mut f: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    while !f() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Arguments object from JSON.
pub fn args(v: Value) -> serde_json::Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("arguments must be an object: {other}"),
    }
}
