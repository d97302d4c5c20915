//! Shared by the real-agent tests: where the agent CLIs are, a home of
//! their own in a temp dir, the scripted model, airlock's TUI in a PTY.
//!
//! The CLIs come from `AIRLOCK_TEST_CLAUDE`, `AIRLOCK_TEST_CODEX` and
//! `AIRLOCK_TEST_GEMINI` (scripts/test.sh installs the pinned versions into
//! .agents/ and sets them). Unset: the tests are skipped with a note, unless
//! `AIRLOCK_REQUIRE_REAL_AGENTS=1`, which makes that a failure.
#![allow(dead_code)]

pub mod anthropic;
pub mod gemini;
pub mod http;
pub mod openai;
pub mod procs;
pub mod pty;
pub mod scenario;
pub mod script;

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use serde_json::Value;

use script::{Scripted, Step};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Agent {
    Claude,
    Codex,
    Gemini,
}

impl Agent {
    /// The argument `airlock init` takes.
    pub fn id(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
        }
    }

    fn var(self) -> &'static str {
        match self {
            Agent::Claude => "AIRLOCK_TEST_CLAUDE",
            Agent::Codex => "AIRLOCK_TEST_CODEX",
            Agent::Gemini => "AIRLOCK_TEST_GEMINI",
        }
    }

    /// The clientInfo name the agent introduces itself with.
    pub fn client_name(self) -> &'static str {
        match self {
            Agent::Claude => "claude-code",
            Agent::Codex => "codex-mcp-client",
            Agent::Gemini => "gemini-cli-mcp-client",
        }
    }

    /// The CLI's path, or `None` (with a note) when it is not configured.
    pub fn cli(self) -> Option<PathBuf> {
        match std::env::var_os(self.var()) {
            Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
            _ => {
                assert!(
                    std::env::var("AIRLOCK_REQUIRE_REAL_AGENTS").as_deref() != Ok("1"),
                    "AIRLOCK_REQUIRE_REAL_AGENTS=1 but {} is unset: run scripts/test.sh",
                    self.var()
                );
                let _ = std::io::stderr().write_all(
                    format!(
                        "\n!!! NOTE: a real-agent test was SKIPPED: {} is unset. Run \
                         scripts/test.sh to include it. !!!\n\n",
                        self.var()
                    )
                    .as_bytes(),
                );
                None
            }
        }
    }
}

/// A workspace, a home (with XDG dirs), a runtime dir and airlock's data
/// dir, all in one temp dir.
#[expect(
    clippy::struct_field_names,
    reason = "`home` is the agents' $HOME, one of the dirs a `Home` holds"
)]
pub struct Home {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub ws: PathBuf,
    pub home: PathBuf,
    pub data: PathBuf,
    pub runtime: PathBuf,
}

impl Home {
    pub fn new() -> Home {
        let tmp = tempfile::Builder::new()
            .prefix("airlock-agents-")
            .tempdir()
            .unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let (ws, home, data, runtime) = (
            root.join("ws"),
            root.join("home"),
            root.join("data"),
            root.join("run"),
        );
        for d in [&ws, &home, &data, &runtime] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
        Home {
            _tmp: tmp,
            root,
            ws,
            home,
            data,
            runtime,
        }
    }

    /// The environment every process here gets: nothing of the real home.
    pub fn env(&self) -> Vec<(String, String)> {
        let bin = Path::new(env!("CARGO_BIN_EXE_airlock")).parent().unwrap();
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into())
        );
        let h = |rel: &str| self.home.join(rel).display().to_string();
        let mut env = vec![
            ("HOME".to_string(), self.home.display().to_string()),
            ("PATH".into(), path),
            ("LANG".into(), "C.UTF-8".into()),
            ("XDG_CONFIG_HOME".into(), h(".config")),
            ("XDG_DATA_HOME".into(), h(".local/share")),
            ("XDG_CACHE_HOME".into(), h(".cache")),
            ("XDG_STATE_HOME".into(), h(".local/state")),
            ("XDG_RUNTIME_DIR".into(), self.runtime.display().to_string()),
        ];
        for k in ["USER", "LOGNAME", "TMPDIR"] {
            if let Ok(v) = std::env::var(k) {
                env.push((k.into(), v));
            }
        }
        env
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// `airlock ARGS` with this environment, in the workspace.
    pub fn airlock(&self, args: &[&str]) -> Output {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_airlock"))
            .args(args)
            .env_clear()
            .envs(self.env())
            .current_dir(&self.ws)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "airlock {args:?}: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// The records `airlock log --json` prints for the newest trail.
    pub fn log_json(&self) -> Vec<Value> {
        let data = self.data.display().to_string();
        let out = self.airlock(&["log", "--json", "--data-dir", &data]);
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

/// Everything the scripted model needs for one agent.
pub fn model(agent: Agent, steps: Vec<Step>) -> Box<dyn http::Api> {
    match agent {
        Agent::Claude => Box::new(Scripted {
            wire: anthropic::Anthropic,
            steps,
        }),
        Agent::Codex => Box::new(Scripted {
            wire: openai::OpenAi,
            steps,
        }),
        Agent::Gemini => Box::new(Scripted {
            wire: gemini::Gemini,
            steps,
        }),
    }
}

impl http::Api for Box<dyn http::Api> {
    fn answer(&self, req: &http::Request) -> http::Response {
        (**self).answer(req)
    }
}

/// The agent's own settings a user would have before airlock: its model
/// endpoint pointed at `url`, telemetry and update checks off. airlock's
/// part of the configuration comes from `airlock init` alone.
pub fn user_settings(h: &Home, agent: Agent, url: &str) {
    match agent {
        Agent::Claude => {}
        Agent::Codex => h.write(
            "home/.codex/config.toml",
            &format!(
                "# the user's own settings\nmodel = \"scripted-model\"\nmodel_provider = \"scripted\"\n\
                 check_for_update_on_startup = false\n\n[analytics]\nenabled = false\n\n\
                 [model_providers.scripted]\nname = \"scripted\"\nbase_url = \"{url}/v1\"\n\
                 wire_api = \"responses\"\nenv_key = \"SCRIPTED_API_KEY\"\n"
            ),
        ),
        Agent::Gemini => h.write(
            "home/.gemini/settings.json",
            "{\n  \"general\": { \"disableAutoUpdate\": true, \"disableUpdateNag\": true },\n  \
             \"privacy\": { \"usageStatisticsEnabled\": false },\n  \
             \"telemetry\": { \"enabled\": false },\n  \
             \"security\": { \"auth\": { \"selectedType\": \"gemini-api-key\" } }\n}\n",
        ),
    }
}

/// airlock's MCP configuration for `agent`, by `airlock init AGENT
/// --no-hooks` alone, run in the workspace (for Gemini with
/// `--trust-folder`: Gemini starts MCP servers only in a folder the user
/// trusted).
pub fn init(h: &Home, agent: Agent) -> String {
    init_with(h, agent, &["--no-hooks"])
}

/// `airlock init AGENT` with `extra` arguments (and `--trust-folder` for
/// Gemini).
pub fn init_with(h: &Home, agent: Agent, extra: &[&str]) -> String {
    let mut args = vec!["init", agent.id()];
    args.extend(extra);
    if agent == Agent::Gemini {
        args.push("--trust-folder");
    }
    let out = h.airlock(&args);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The agent's headless command line and environment for `prompt`.
pub fn agent_command(
    h: &Home,
    agent: Agent,
    cli: &Path,
    url: &str,
    prompt: &str,
) -> tokio::process::Command {
    agent_command_with(h, agent, cli, url, prompt, &[])
}

/// [`agent_command`] with `extra` arguments before the prompt (Codex:
/// after `exec`).
pub fn agent_command_with(
    h: &Home,
    agent: Agent,
    cli: &Path,
    url: &str,
    prompt: &str,
    extra: &[&str],
) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(cli);
    c.env_clear()
        .envs(h.env())
        .env("TERM", "dumb")
        .env("NO_COLOR", "1")
        .current_dir(&h.ws)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    match agent {
        Agent::Claude => {
            c.args(extra)
                .args(["-p", prompt])
                .env("ANTHROPIC_BASE_URL", url)
                .env("ANTHROPIC_API_KEY", "sk-ant-scripted")
                .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                .env("DISABLE_TELEMETRY", "1")
                .env("DISABLE_AUTOUPDATER", "1")
                .env("DISABLE_ERROR_REPORTING", "1");
        }
        Agent::Codex => {
            c.args(["exec", "--skip-git-repo-check"])
                .args(extra)
                .arg(prompt)
                .env("SCRIPTED_API_KEY", "scripted")
                .env("CODEX_HOME", h.home.join(".codex"));
        }
        Agent::Gemini => {
            c.args(extra)
                .args(["-p", prompt])
                .env("GOOGLE_GEMINI_BASE_URL", url)
                .env("GEMINI_API_KEY", "scripted");
        }
    }
    c
}

/// Run `cmd` to its end (at most `secs`), output captured.
pub async fn run(mut cmd: tokio::process::Command, secs: u64) -> Result<Output, String> {
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().map_err(|e| format!("cannot start: {e}"))?;
    match tokio::time::timeout(Duration::from_secs(secs), child.wait_with_output()).await {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(_) => Err(format!("did not finish within {secs} s")),
    }
}

/// The tool results a conversation turn of `agent` carries.
pub fn results(agent: Agent, body: &Value) -> Vec<Value> {
    use script::Wire;
    match agent {
        Agent::Claude => anthropic::Anthropic.results(body),
        Agent::Codex => openai::OpenAi.results(body),
        Agent::Gemini => gemini::Gemini.results(body),
    }
}

/// The tools a conversation turn of `agent` offers its model.
pub fn offered(agent: Agent, body: &Value) -> Vec<script::ToolRef> {
    use script::Wire;
    match agent {
        Agent::Claude => anthropic::Anthropic.offered(body),
        Agent::Codex => openai::OpenAi.offered(body),
        Agent::Gemini => gemini::Gemini.offered(body),
    }
}
