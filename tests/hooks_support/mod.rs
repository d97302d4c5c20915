//! Shared by the hook tests: a workspace like the one the fixtures were
//! recorded in, a real supervisor (in process, with a scripted confirmer)
//! serving its MCP and hook sockets, and the real `airlock hook` binary.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use airlock::call::{ApprovedBy, CallInfo, Decision, RefusedBy};
use airlock::session::{self, SessionOptions};
use airlock::supervisor::{ConfirmRequest, Confirmer};
use serde_json::Value;

/// The agents' recorded events (tests/fixtures/hooks, recorded by G).
pub const CLAUDE: &str = "claude-2.1.197";
pub const CODEX: &str = "codex-0.171.0";
pub const GEMINI: &str = "gemini-0.61.0";

/// What the scripted human answers, in order.
#[derive(Debug, Clone)]
pub enum Say {
    Yes,
    No(&'static str),
    Edit(&'static str),
    /// Never answer (the pipeline's cancellation or timeout decides).
    Hang,
}

/// A confirmer that answers from a script and keeps what it was shown.
#[derive(Default)]
pub struct Script {
    answers: Mutex<VecDeque<Say>>,
    pub asked: Mutex<Vec<CallInfo>>,
}

#[async_trait::async_trait]
impl Confirmer for Script {
    async fn confirm(&self, request: ConfirmRequest) -> Decision {
        self.asked.lock().unwrap().push(request.call.clone());
        let next = self.answers.lock().unwrap().pop_front();
        match next {
            Some(Say::Yes) => Decision::approve(ApprovedBy::User),
            Some(Say::No(reason)) => Decision::deny(RefusedBy::User, Some(reason.into())),
            Some(Say::Edit(cmd)) => Decision::approve_edited(cmd.into()),
            Some(Say::Hang) => std::future::pending().await,
            None => Decision::deny(RefusedBy::Headless, Some("no scripted answer".into())),
        }
    }

    fn kind(&self) -> airlock::call::ConfirmerKind {
        airlock::call::ConfirmerKind::Scripted
    }
}

/// The fixtures' workspace, a data and a runtime dir, and a supervisor.
pub struct Env {
    pub dir: tempfile::TempDir,
    pub root: PathBuf,
    pub ws: PathBuf,
    pub runtime: PathBuf,
    pub data: PathBuf,
    pub script: Arc<Script>,
    pub session: Option<session::Session>,
    serving: Vec<tokio::task::JoinHandle<()>>,
}

/// The workspace the fixtures were recorded in (tests/fixtures/hooks/README.md).
fn write_workspace(ws: &Path) {
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("notes.txt"), "read-marker quartz-falcon-17\n").unwrap();
    std::fs::write(ws.join("todo.txt"), "title: ship it\nstatus: draft\n").unwrap();
    std::fs::write(ws.join("src/app.txt"), "grep-needle one\ngrep-needle two\n").unwrap();
    std::fs::write(ws.join(".env"), "SECRET_TOKEN=do-not-read\n").unwrap();
    std::fs::write(ws.join("gone.txt"), "to be deleted\n").unwrap();
    std::fs::write(ws.join("old.txt"), "old name\n").unwrap();
    std::fs::write(
        ws.join("nb.ipynb"),
        "{\"cells\": [], \"nbformat\": 4, \"nbformat_minor\": 5, \"metadata\": {}}\n",
    )
    .unwrap();
}

impl Env {
    /// A workspace with `project_config` as its `.airlock.toml` (if any),
    /// trusted as `airlock trust` records it (the test wrote it), no
    /// supervisor yet.
    pub fn new(project_config: Option<&str>) -> Self {
        let env = Self::untrusted(project_config);
        if let Some(cfg) = project_config {
            let file = std::fs::canonicalize(env.ws.join(".airlock.toml")).unwrap();
            airlock::config::TrustStore::new(&env.data)
                .trust(&file, cfg)
                .unwrap();
        }
        env
    }

    /// [`Env::new`] with the project file left untrusted (as a cloned
    /// repository's is).
    pub fn untrusted(project_config: Option<&str>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let ws = root.join("ws");
        write_workspace(&ws);
        if let Some(cfg) = project_config {
            std::fs::write(ws.join(".airlock.toml"), cfg).unwrap();
        }
        let runtime = root.join("rt");
        airlock::dirs::ensure_private_dir(&runtime).unwrap();
        Self {
            data: root.join("data"),
            runtime,
            root,
            ws,
            dir,
            script: Arc::new(Script::default()),
            session: None,
            serving: Vec::new(),
        }
    }

    /// Start the supervisor (MCP socket and hook socket), answering asks
    /// with `answers`. Must run inside a Tokio runtime.
    pub fn start(&mut self, answers: &[Say]) {
        self.script
            .answers
            .lock()
            .unwrap()
            .extend(answers.iter().cloned());
        let opts = SessionOptions {
            workspace: self.ws.clone(),
            data_dir: Some(self.data.clone()),
            config_file: None,
            mode: airlock::call::SessionMode::Supervisor,
            policy_mode: None,
            user_config: false,
        };
        let session = session::start(&opts, self.script.clone()).unwrap();
        let server = airlock::mcp::SocketServer::bind(&self.runtime, &session).unwrap();
        let socket = server.listening().socket.clone();
        let sup = session.supervisor.clone();
        self.serving.push(tokio::spawn(async move {
            let _ = server.serve(sup).await;
        }));
        let hooks = airlock::hooks::HookListener::bind(&socket).unwrap();
        self.serving
            .push(tokio::spawn(hooks.serve(session.supervisor.clone())));
        self.session = Some(session);
    }

    /// A recorded event with the recording's root replaced by ours.
    pub fn fixture(&self, agent: &str, name: &str) -> Value {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/hooks")
            .join(agent)
            .join(format!("{name}.json"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        serde_json::from_str(&text.replace("@ROOT@", self.root.to_str().unwrap())).unwrap()
    }

    /// Run `airlock hook AGENT` with `stdin`: (stdout, stderr, exit code).
    pub async fn hook(&self, agent: &str, stdin: &[u8]) -> (String, String, i32) {
        self.hook_with(agent, stdin, &[]).await
    }

    /// [`Env::hook`] with extra arguments.
    pub async fn hook_with(
        &self,
        agent: &str,
        stdin: &[u8],
        extra: &[&str],
    ) -> (String, String, i32) {
        self.hook_in(agent, stdin, extra, &[]).await
    }

    /// [`Env::hook_with`] with environment variables set. Without
    /// `XDG_CONFIG_HOME` among them, the user's own config is kept out.
    pub async fn hook_in(
        &self,
        agent: &str,
        stdin: &[u8],
        extra: &[&str],
        vars: &[(&str, &Path)],
    ) -> (String, String, i32) {
        use tokio::io::AsyncWriteExt;
        let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_airlock"));
        c.arg("hook").arg(agent).args(extra);
        c.env("AIRLOCK_RUNTIME_DIR", &self.runtime)
            .env("AIRLOCK_DATA_DIR", &self.data)
            .env_remove("AIRLOCK_SOCKET")
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("GEMINI_PROJECT_DIR")
            .current_dir(&self.ws)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        if vars.iter().any(|(k, _)| *k == "XDG_CONFIG_HOME") {
            c.env_remove("AIRLOCK_NO_USER_CONFIG");
        } else {
            c.env("AIRLOCK_NO_USER_CONFIG", "1");
        }
        for (k, v) in vars {
            c.env(k, v);
        }
        let mut child = c.spawn().unwrap();
        let mut input = child.stdin.take().unwrap();
        input.write_all(stdin).await.unwrap();
        drop(input);
        let out =
            tokio::time::timeout(std::time::Duration::from_secs(60), child.wait_with_output())
                .await
                .expect("the hook answers")
                .unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.code().unwrap_or(-1),
        )
    }

    /// Send an event (JSON) to the hook and parse its stdout (Null if empty).
    pub async fn send(&self, agent: &str, event: &Value) -> (Value, i32) {
        let (out, err, code) = self.hook(agent, event.to_string().as_bytes()).await;
        let v = if out.trim().is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&out)
                .unwrap_or_else(|e| panic!("stdout is JSON ({e}): {out:?} {err}"))
        };
        (v, code)
    }

    /// The audit records so far.
    pub fn audit(&self) -> Vec<Value> {
        let dir = self.data.join("audit");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.retain(|p| p.extension().is_some_and(|x| x == "jsonl"));
        assert_eq!(files.len(), 1, "one trail: {files:?}");
        std::fs::read_to_string(&files[0])
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// How many calls the human was asked about.
    pub fn asked(&self) -> usize {
        self.script.asked.lock().unwrap().len()
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        if let Some(s) = &self.session {
            s.supervisor.shutdown("test over");
        }
        for t in &self.serving {
            t.abort();
        }
    }
}

/// Records of one type.
pub fn of_type<'a>(records: &'a [Value], ty: &str) -> Vec<&'a Value> {
    records.iter().filter(|r| r["type"] == ty).collect()
}

/// Claude's / Codex's permission decision in a hook answer.
pub fn decision(v: &Value) -> &str {
    v["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .unwrap_or("")
}

/// The reason of a Claude / Codex answer.
pub fn reason(v: &Value) -> &str {
    v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or("")
}
