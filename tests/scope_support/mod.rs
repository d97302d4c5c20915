//! Shared by the `scope_*` tests that go through the real pipeline: a
//! session on a temp workspace with a config file, one agent, calls with
//! a time limit, and everything a result says as one text.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use airlock::call::AgentInfo;
use airlock::policy::Mode;
use airlock::session::{self, Session, SessionOptions};
use airlock::supervisor::HeadlessConfirmer;
use airlock::tools::ToolOutput;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub struct Env {
    _dir: tempfile::TempDir,
    pub ws: PathBuf,
    pub session: Session,
    agent: AgentInfo,
}

/// Write `body` to `path`, making its directories.
pub fn write(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, body).unwrap();
}

impl Env {
    /// A session on `dir`/ws (filled by the caller) with `config` as its
    /// config file, the headless confirmer and `policy_mode`; one agent
    /// named `agent`.
    pub fn start(
        dir: tempfile::TempDir,
        config: &str,
        policy_mode: Option<Mode>,
        agent: &str,
    ) -> Self {
        let data = dir.path().join("data");
        Self::start_with_data(dir, config, policy_mode, agent, &data)
    }

    /// [`Env::start`] with `data` as airlock's data directory.
    pub fn start_with_data(
        dir: tempfile::TempDir,
        config: &str,
        policy_mode: Option<Mode>,
        agent: &str,
        data: &Path,
    ) -> Self {
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let file = dir.path().join("airlock.toml");
        std::fs::write(&file, config).unwrap();
        let session = session::start(
            &SessionOptions {
                workspace: ws.clone(),
                data_dir: Some(data.to_path_buf()),
                config_file: Some(file),
                mode: airlock::call::SessionMode::Supervisor,
                policy_mode,
                user_config: false,
            },
            Arc::new(HeadlessConfirmer),
        )
        .unwrap();
        let agent = session.supervisor.agent_connected(Some(agent), None);
        Self {
            _dir: dir,
            ws,
            session,
            agent,
        }
    }

    /// One call through the pipeline (it must answer within 20 s).
    pub async fn call(&self, tool: &str, args: Value) -> ToolOutput {
        let fut = self.session.supervisor.call(
            &self.agent,
            tool,
            args.as_object().cloned(),
            CancellationToken::new(),
            None,
        );
        tokio::time::timeout(Duration::from_secs(20), fut)
            .await
            .expect("no hang")
            .expect("a result")
    }

    /// The session's audit trail as written so far.
    pub fn trail(&self) -> String {
        std::fs::read_to_string(&self.session.audit_path).unwrap()
    }
}

/// A result's text and its structured content, together.
pub fn text(out: &ToolOutput) -> String {
    format!(
        "{} {}",
        out.text,
        out.structured
            .as_ref()
            .map(Value::to_string)
            .unwrap_or_default()
    )
}
