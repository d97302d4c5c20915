//! `airlock init claude|codex|gemini`: write the agent's own configuration
//! so that it works with airlock as installed — the MCP server registration
//! with what that agent needs, and the agent's own shell/write/edit tools
//! turned off where the agent allows it.
//!
//! Each agent module only *describes* the change ([`FilePlan`]s of
//! [`Change`]s); [`edit`] applies it to the file's text, keeping everything
//! else (comments, key order, indentation, other servers), [`file`] writes it
//! (backup beside the file, atomic replace, permissions kept) and [`record`]
//! remembers what init added so `--remove` takes out exactly that.
//!
//! Hooks ([`hooks`], `airlock hook AGENT`) go into the same plans: Claude
//! Code `hooks.PreToolUse` / `PostToolUse` / `PostToolUseFailure` in its
//! settings file, Gemini `hooks.BeforeTool` / `AfterTool` in settings.json,
//! Codex `[[hooks.PreToolUse]]` / `[[hooks.PostToolUse]]` in config.toml —
//! each airlock's one element of an array of objects (of tables), the
//! [`Change::Append`] kind. With hooks the agent's own tools stay on
//! (airlock supervises them); `--no-hooks` turns them off as before,
//! `--no-mcp` leaves the server out.
//!
//! Later issues add to the same plans rather than beside them:
//! * HTTP (`--http`): the server entry's fields change (`url` / `httpUrl` /
//!   `type = "http"` instead of `command`), nothing else.

pub mod claude;
pub mod codex;
mod doc;
pub mod edit;
pub mod file;
pub mod gemini;
pub mod hooks;
pub mod http;
mod json;
pub mod plan;
pub mod record;
pub mod report;
mod toml;

use std::path::{Path, PathBuf};

pub use doc::Val;
pub use plan::{Change, FilePlan, Format, Plan};
pub use report::{FileOutcome, FileStatus, Report};

/// The agent versions whose configuration formats `init` was written
/// against (and that the tests pin).
pub const CLAUDE_CODE_VERSION: &str = "2.1.197";
/// Codex CLI (`@openai/codex`).
pub const CODEX_VERSION: &str = "0.171.0";
/// Gemini CLI (`@google/gemini-cli`).
pub const GEMINI_VERSION: &str = "0.61.0";

/// How long an agent waits for one airlock tool call before it gives up, as
/// `init` configures it where the agent has such a setting: one hour, long
/// enough for a human to read a prompt (Codex's own default is 300 s).
pub const TOOL_TIMEOUT_SECS: u64 = 3600;

/// The name airlock's MCP server is registered under.
pub const SERVER_NAME: &str = "airlock";

/// Environment variables `airlock connect` uses to find the supervisor;
/// agents that start MCP servers with a reduced environment must pass them.
pub const CONNECT_ENV_VARS: &[&str] = &[
    "XDG_RUNTIME_DIR",
    "AIRLOCK_SOCKET",
    "AIRLOCK_RUNTIME_DIR",
    "AIRLOCK_DATA_DIR",
];

/// The agents `init` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Agent {
    /// Claude Code.
    Claude,
    /// OpenAI Codex CLI.
    Codex,
    /// Google Gemini CLI.
    Gemini,
}

impl Agent {
    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
        }
    }

    /// The product name and the version `init` was written against.
    pub fn product(self) -> String {
        match self {
            Agent::Claude => format!("Claude Code {CLAUDE_CODE_VERSION}"),
            Agent::Codex => format!("Codex CLI {CODEX_VERSION}"),
            Agent::Gemini => format!("Gemini CLI {GEMINI_VERSION}"),
        }
    }
}

/// What to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Add airlock's configuration.
    Install,
    /// Take out what an earlier install added.
    Remove,
}

/// Everything `init` needs to know; nothing is read from the process
/// environment below this point, so tests can point it anywhere.
#[derive(Debug, Clone)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent yes/no command-line flags, each read on its own"
)]
pub struct Options {
    /// The agent to configure.
    pub agent: Agent,
    /// Install or remove.
    pub action: Action,
    /// Write the project-level files instead of the user's.
    pub project: bool,
    /// Also mark the project folder trusted in the agent's own trust list
    /// (Gemini connects no MCP server in an untrusted folder).
    pub trust_folder: bool,
    /// Print the change, write nothing.
    pub dry_run: bool,
    /// Install the agent's hooks (`airlock hook AGENT` on its own tool
    /// calls); off (`--no-hooks`): turn its own shell and edit tools off
    /// instead, as before hooks.
    pub hooks: bool,
    /// Register airlock's MCP server (off: `--no-mcp`).
    pub mcp: bool,
    /// The `airlock` binary the agent launches (absolute).
    pub command: PathBuf,
    /// Where the agent's user-level files live.
    pub homes: AgentHomes,
    /// The project (workspace) directory, absolute.
    pub project_dir: PathBuf,
    /// Where init remembers what it added (`<data-dir>/init`).
    pub record_dir: PathBuf,
    /// `--http`: register this Streamable HTTP URL instead of `airlock
    /// connect` (see [`http`]).
    pub http_url: Option<String>,
}

/// The agents' user-level configuration directories, resolved the way each
/// agent resolves them.
#[derive(Debug, Clone)]
pub struct AgentHomes {
    /// The user's home directory.
    pub home: PathBuf,
    /// `CLAUDE_CONFIG_DIR`, when set.
    pub claude_config_dir: Option<PathBuf>,
    /// `CODEX_HOME`, when set.
    pub codex_home: Option<PathBuf>,
    /// `GEMINI_CLI_HOME`, when set.
    pub gemini_cli_home: Option<PathBuf>,
}

impl AgentHomes {
    /// Read from the process environment (HOME and the agents' overrides).
    pub fn from_env() -> Result<Self, InitError> {
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let home = var("HOME")
            .or_else(|| directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf()))
            .ok_or(InitError::NoHome)?;
        Ok(AgentHomes {
            home,
            claude_config_dir: var("CLAUDE_CONFIG_DIR"),
            codex_home: var("CODEX_HOME"),
            gemini_cli_home: var("GEMINI_CLI_HOME"),
        })
    }
}

impl Options {
    /// Whether the plan holds the hooks (remove takes out everything init
    /// may have added, whatever the flags).
    pub fn with_hooks(&self) -> bool {
        self.hooks || self.action == Action::Remove
    }

    /// Whether the plan holds the MCP server registration.
    pub fn with_mcp(&self) -> bool {
        self.mcp || self.action == Action::Remove
    }

    /// Whether the plan turns the agent's own shell and edit tools off
    /// (without hooks nothing else would supervise them).
    pub fn turns_off_native(&self) -> bool {
        !self.hooks || self.action == Action::Remove
    }
}

/// Why init could not do its job.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// A configuration file does not parse: init refuses to touch it.
    #[error("{path} does not parse, so airlock left it alone: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message (with line and column).
        message: String,
    },
    /// A value in the way has the wrong type (e.g. `permissions` is a string).
    #[error("{path}: {message}; airlock left the file alone")]
    Shape {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The record of what init added is unreadable.
    #[error("{path}: unreadable record of what airlock init added: {message}")]
    Record {
        /// The record file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// No home directory to find the agent's files in.
    #[error("cannot find the home directory (HOME is not set)")]
    NoHome,
    /// The agent has no such file.
    #[error("{0}")]
    Unsupported(String),
}

/// Run init: plan the agent's changes, apply or undo them, and say what
/// happened. With `dry_run` nothing is written.
pub fn run(opts: &Options) -> Result<Report, InitError> {
    if !opts.with_hooks() && !opts.with_mcp() {
        return Err(InitError::Unsupported(
            "--no-hooks and --no-mcp together leave nothing to install".into(),
        ));
    }
    let plan = plan(opts)?;
    // Every file is edited in memory first, so a file that does not parse
    // stops init before anything is written.
    let mut edits = Vec::new();
    for fp in &plan.files {
        let record = record::Record::load(&opts.record_dir, &fp.path)?;
        let edited = match opts.action {
            Action::Install => edit::install(fp, &record)?,
            Action::Remove => edit::remove(fp, &record)?,
        };
        edits.push((fp, record, edited));
    }
    let mut files = Vec::new();
    for (fp, mut record, edited) in edits {
        let delete = opts.action == Action::Remove && record.created_file && edited.is_empty_doc();
        let status = if !edited.changed() {
            FileStatus::Unchanged
        } else if opts.dry_run {
            FileStatus::WouldChange
        } else {
            let status = if delete {
                std::fs::remove_file(&fp.path).map_err(|source| InitError::Io {
                    path: fp.path.clone(),
                    source,
                })?;
                FileStatus::Deleted
            } else {
                let backup = file::write(&fp.path, &edited.after, true)?;
                FileStatus::Changed { backup }
            };
            if edited.before.is_none() && record.is_empty() {
                record.created_file = true;
            }
            record.update(&edited.applied, &edited.undone);
            record.save(&opts.record_dir)?;
            status
        };
        files.push(FileOutcome {
            path: fp.path.clone(),
            status,
            lines: edited.lines.clone(),
            diff: edited.diff(),
        });
    }
    Ok(Report {
        agent: opts.agent,
        action: opts.action,
        dry_run: opts.dry_run,
        command: opts.command.clone(),
        hooks: opts.hooks,
        mcp: opts.mcp,
        files,
        plan,
    })
}

/// The agent's plan for these options.
pub fn plan(opts: &Options) -> Result<Plan, InitError> {
    match opts.agent {
        Agent::Claude => claude::plan(opts),
        Agent::Codex => codex::plan(opts),
        Agent::Gemini => gemini::plan(opts),
    }
}

/// The absolute path of the running airlock binary: what init writes as the
/// command, so the agent finds it whatever PATH it passes its servers.
pub fn current_command() -> Result<PathBuf, InitError> {
    let exe = std::env::current_exe().map_err(|source| InitError::Io {
        path: PathBuf::from("/proc/self/exe"),
        source,
    })?;
    Ok(std::fs::canonicalize(&exe).unwrap_or(exe))
}

/// `["a", "b"]` → `a.b` (keys with dots or spaces quoted).
pub fn dotted(path: &[String]) -> String {
    path.iter()
        .map(|k| {
            if !k.is_empty()
                && k.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                k.clone()
            } else {
                serde_json::Value::from(k.as_str()).to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

pub(crate) fn keys(path: &[&str]) -> Vec<String> {
    path.iter().map(std::string::ToString::to_string).collect()
}

/// The command's arguments: `connect`.
pub(crate) fn connect_args() -> Val {
    Val::List(vec![Val::from("connect")])
}

/// `path` as a string for a config file.
pub(crate) fn path_str(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}
