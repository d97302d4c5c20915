//! A session started like the binary starts one, with a `[sandbox]` config,
//! bash calls approved by the approve-all confirmer, and a directory
//! outside the workspace (not under /tmp, which is private to the shell).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use airlock::call::AgentInfo;
use airlock::sandbox::SandboxOverrides;
use airlock::session::{self, Session, SessionOptions};
use airlock::supervisor::ApproveAllConfirmer;
use airlock::tools::ToolOutput;
use serde_json::json;
use tokio_util::sync::CancellationToken;

pub struct Fixture {
    _dir: tempfile::TempDir,
    _outside: tempfile::TempDir,
    /// The canonical workspace.
    pub ws: PathBuf,
    /// A canonical directory outside the workspace, not under /tmp.
    pub outside: PathBuf,
    pub session: Session,
    agent: AgentInfo,
}

/// A temp dir outside /tmp (the sandbox gives the shell a private /tmp, so
/// host paths under /tmp are not what these tests are about): under cargo's
/// target directory, or under /var/tmp when the target directory itself is
/// under /tmp (a checkout or `CARGO_TARGET_DIR` there).
pub fn target_tempdir() -> tempfile::TempDir {
    let target = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let real = std::fs::canonicalize(target).unwrap_or_else(|_| target.to_path_buf());
    let tmp = std::fs::canonicalize(std::env::temp_dir()).unwrap_or_else(|_| "/tmp".into());
    if real.starts_with(&tmp) || real.starts_with("/tmp") {
        let base = std::path::Path::new("/var/tmp/airlock-sandbox-tests");
        std::fs::create_dir_all(base).unwrap();
        return tempfile::tempdir_in(base).unwrap();
    }
    tempfile::tempdir_in(target).unwrap()
}

/// `[sandbox]` settings (TOML lines) for a workspace under cargo's target
/// directory; `{outside}` in them is replaced by the outside directory.
pub fn fixture(sandbox: &str) -> Fixture {
    fixture_in(target_tempdir(), sandbox, SandboxOverrides::default())
}

/// The same with the workspace in `dir`.
pub fn fixture_in(dir: tempfile::TempDir, sandbox: &str, o: SandboxOverrides) -> Fixture {
    fixture_placed(dir, sandbox, o, Placement::default())
}

/// Where a fixture's `--config` file or data directory is.
#[derive(Debug, Clone, Copy, Default)]
pub enum At {
    /// Beside the workspace (in the fixture's directory, outside it).
    #[default]
    Beside,
    /// This path relative to the workspace (`""`: the workspace itself).
    Workspace(&'static str),
    /// This path relative to the outside directory.
    Outside(&'static str),
}

/// Where a fixture's `--config` file and data directory are.
#[derive(Debug, Clone, Copy, Default)]
pub struct Placement {
    /// The config file.
    pub config: At,
    /// The data directory.
    pub data: At,
}

/// A fixture with its config file and data directory placed so.
pub fn fixture_placed(
    dir: tempfile::TempDir,
    sandbox: &str,
    o: SandboxOverrides,
    at: Placement,
) -> Fixture {
    let ws = dir.path().join("ws");
    // An existing one too: a second session on the workspace of an ended one.
    std::fs::create_dir_all(&ws).unwrap();
    let ws = std::fs::canonicalize(ws).unwrap();
    let outside = target_tempdir();
    let out = std::fs::canonicalize(outside.path()).unwrap();
    let place = |a: At, beside: &str| match a {
        At::Beside => dir.path().join(beside),
        At::Workspace("") => ws.clone(),
        At::Workspace(rel) => ws.join(rel),
        At::Outside(rel) => out.join(rel),
    };
    let cfg = place(at.config, "config.toml");
    if let Some(parent) = cfg.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    let text = format!(
        "[sandbox]\n{}\n",
        sandbox.replace("{outside}", &out.display().to_string())
    );
    std::fs::write(&cfg, text).unwrap();
    let data = place(at.data, "data");
    let session = session::start_with(
        &SessionOptions {
            workspace: ws.clone(),
            data_dir: Some(data),
            config_file: Some(cfg),
            mode: airlock::call::SessionMode::Supervisor,
            policy_mode: None,
            user_config: false,
        },
        &o,
        Arc::new(ApproveAllConfirmer),
    )
    .unwrap();
    let agent = session
        .supervisor
        .agent_connected(Some("sandbox-test"), None);
    Fixture {
        _dir: dir,
        _outside: outside,
        ws,
        outside: out,
        session,
        agent,
    }
}

impl Fixture {
    /// Run `command` on the agent's shell.
    pub async fn bash(&self, command: &str) -> ToolOutput {
        self.bash_args(json!({ "command": command })).await
    }

    /// Start a fresh shell (the sandbox is set up when a shell starts).
    pub async fn restart(&self) {
        let out = self.bash_args(json!({ "restart": true })).await;
        assert!(!out.is_error, "restart: {}", out.text);
    }

    /// Run `command`; it must succeed; its output without the exit line.
    pub async fn ok(&self, command: &str) -> String {
        let out = self.bash(command).await;
        assert!(!out.is_error, "{command}: {}", out.text);
        strip(&out.text)
    }

    /// Run `command`; it must fail; its output.
    pub async fn fails(&self, command: &str) -> String {
        let out = self.bash(command).await;
        assert!(out.is_error, "{command} should fail: {}", out.text);
        out.text
    }

    /// The audit trail's session-start record.
    pub fn session_start(&self) -> serde_json::Value {
        let text = std::fs::read_to_string(&self.session.audit_path).unwrap();
        let first = text.lines().next().unwrap();
        serde_json::from_str(first).unwrap()
    }
}

/// Output without the final `exit code: N` line.
pub fn strip(text: &str) -> String {
    match text.rfind("\nexit code: ") {
        Some(i) => text[..i].to_string(),
        None => text.trim_end_matches("exit code: 0").to_string(),
    }
}

/// Quote for bash.
pub fn q(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

impl Fixture {
    /// Run a bash call with these arguments (`timeout_secs`, `restart` …).
    pub async fn bash_args(&self, args: serde_json::Value) -> ToolOutput {
        self.session
            .supervisor
            .call(
                &self.agent,
                "bash",
                Some(args.as_object().unwrap().clone()),
                CancellationToken::new(),
                None,
            )
            .await
            .unwrap()
    }

    /// A call from another agent of the same session (after `disconnect`).
    pub async fn call_as_another(&self, tool: &str, args: serde_json::Value) -> ToolOutput {
        let agent = self
            .session
            .supervisor
            .agent_connected(Some("another"), None);
        self.session
            .supervisor
            .call(
                &agent,
                tool,
                Some(args.as_object().unwrap().clone()),
                CancellationToken::new(),
                None,
            )
            .await
            .unwrap()
    }

    /// End the session (the agent goes away, the session is dropped: its
    /// placeholders are removed), keeping the directories.
    pub fn end(self) -> (tempfile::TempDir, tempfile::TempDir) {
        self.disconnect();
        let Self {
            _dir: dir,
            _outside: outside,
            session,
            ..
        } = self;
        drop(session);
        (dir, outside)
    }

    /// The agent goes away (its shell is closed).
    pub fn disconnect(&self) {
        self.session.supervisor.agent_disconnected(&self.agent);
    }
}

/// The probe's test override (`airlock::sandbox::FORCE_UNAVAILABLE_ENV`).
const FORCE: &str = "AIRLOCK_SANDBOX_FORCE_UNAVAILABLE";

/// Run the test `name` of this binary again in a child process with the
/// mechanisms `forced` reported unavailable (the probe reads the variable
/// when a session starts; a child process keeps it from the other tests
/// running in this one). True here in the parent once the child passed:
/// the test returns. False in the child: the test runs its body.
pub fn rerun_forcing(name: &str, forced: &str) -> bool {
    if std::env::var_os(FORCE).is_some() {
        return false;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(FORCE, forced)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{name} with {FORCE}={forced}:\n{stdout}\n{stderr}"
    );
    true
}
