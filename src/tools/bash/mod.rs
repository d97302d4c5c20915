//! `bash`: one long-lived shell per agent, in a pseudo-terminal, that
//! cannot hang (timeouts kill everything the command started), flood
//! (output is capped, head and tail kept) or lie (a random per-command
//! sentinel carries the exit status).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::call::{
    AgentInfo, CallView, EditField, GrantShape, ShellEnv, ShellSite, Subject, ToolKind,
};
use crate::sandbox::{Sandbox, SandboxMode};
use crate::scope::Scope;
use crate::tools::readonly::{args, object_schema};
use crate::tools::{Invocation, RunContext, RunFuture, Tool, ToolError, ToolOutput, ToolSpec};

pub mod capture;
mod config;
pub mod dispatch;
pub mod env;
mod plumbing;
pub mod pool;
pub mod procs;
mod result;
pub mod sentinel;
pub mod session;

pub use config::BashConfig;
pub use env::EnvFilter;
pub use pool::{Pool, PoolOutcome, Request};
pub use session::{Ending, RunOutcome, Shell, ShellConfig, ShellError};

/// Longest summary line shown for a command.
const SUMMARY_CHARS: usize = 120;

/// Most bytes of a command: bash gets the command as arguments of the
/// process that runs it (never through a file a background job could
/// rewrite), and the kernel limits a program's arguments to a quarter of
/// the stack limit (2 MiB with the usual 8 MiB); a longer command is
/// refused with a clear error instead of failing with `E2BIG` there.
pub const MAX_COMMAND_BYTES: usize = 1024 * 1024;

/// Whether `command` closes a `{ }` group it did not open. The runner
/// reads a command inside a `{ … }` group of its own (`dispatch`), so such
/// a `}` would end that group and bash would read the rest as commands of
/// their own, parsed after the group ran. The shell parser says so: the
/// command alone does not parse, inside a group it does.
fn closes_the_runners_group(command: &str) -> bool {
    use crate::policy::shell::parse;
    command.contains('}')
        && parse(command).is_err()
        && parse(&format!("{{ :; {command}\n}}")).is_ok()
}

/// The name agents call it by, and its rules name.
pub const NAME: &str = "bash";

/// What a grant of `command` covers: the command, or the commands that
/// start like it; "always" saves `bash(…)` rules. For an agent's own shell
/// tool too, whose calls bash's rules and grants cover.
pub fn grant(command: &str) -> GrantShape {
    GrantShape::Command {
        command: command.to_string(),
        rule_tools: &[NAME],
    }
}

/// The `bash` tool.
pub struct Bash {
    spec: ToolSpec,
    cfg: BashConfig,
    env: Result<EnvFilter, env::EnvPatternError>,
    pool: Arc<Pool>,
    sandbox: Option<Arc<Sandbox>>,
}

/// The tool's description, without and with the sandbox's sentence.
macro_rules! description {
    ($extra:literal) => {
        concat!(
            "Run a command in bash in the workspace (a pseudo-terminal; one session per agent). Each command gets a fresh bash: the working directory (`cd`) and exported variables carry over to the next command; functions, aliases, shell options and traps do not. The result is the output (capped: head and tail kept) and a final line `exit code: N`. Commands that wait for input get end-of-file; pagers and editors are disabled; secret environment variables are not passed.",
            $extra
        )
    };
}
const DESCRIPTION: &str = description!("");

/// The sandbox's sentence for the description: exactly what is in force.
fn sandbox_sentence(st: &crate::sandbox::SandboxStatus, late_hiding: bool) -> String {
    let ro = st.mode == SandboxMode::ReadOnly;
    let mut parts = vec![if ro {
        "it may write only in /tmp (private to the shell)".to_string()
    } else {
        "it may write only in the workspace and /tmp (private to the shell)".to_string()
    }];
    let has = |m: &str| st.mechanisms.iter().any(|x| x == m);
    if !ro && st.protect_git && has("mountns") {
        parts.push("git repositories' config, hooks and other control files are read-only (git add, commit and checkout work; git config and new repositories do not)".into());
    }
    if has("mountns") {
        parts.push(if late_hiding {
            "credentials and excluded files are hidden, also when they appear later".into()
        } else {
            "credentials and excluded files that exist when the shell starts are hidden".into()
        });
    }
    if !st.allow_network {
        parts.push("there is no network access".into());
    }
    if has("pidns") {
        parts.push("every process it starts ends with the shell".into());
    }
    let kind = if ro {
        "a read-only sandbox"
    } else {
        "a sandbox"
    };
    format!(" The shell runs in {kind}: {}.", parts.join("; "))
}

/// The description, with the sentence of the sandbox when one is active.
fn description(sandbox: Option<&Sandbox>) -> &'static str {
    let Some(sandbox) = sandbox.filter(|s| s.status().is_active()) else {
        return DESCRIPTION;
    };
    let text = format!(
        "{DESCRIPTION}{}",
        sandbox_sentence(sandbox.status(), sandbox.hides_late())
    );
    // Once per session: the spec holds a static description.
    Box::leak(text.into_boxed_str())
}

impl Bash {
    /// Build it from the `[bash]` config, every shell run in `sandbox` (a
    /// session's; see [`crate::sandbox`]; none: unsandboxed). An invalid env
    /// pattern makes every call fail with a message naming it (never a leak
    /// of the secrets).
    pub fn new(cfg: &BashConfig, sandbox: Option<Arc<Sandbox>>) -> Self {
        let props = json!({
            "command": {
                "type": "string",
                "description": "The bash command to run, exactly as written (multi-line scripts and heredocs are fine). The working directory (cd) and exported variables carry over to the next call; functions, aliases and shell options do not. stdin is empty: a command that reads it gets end-of-file. Required unless restart is true."
            },
            "description": {
                "type": "string",
                "description": "Why you run it, in a few words; shown to the human who approves the command."
            },
            "restart": {
                "type": "boolean",
                "default": false,
                "description": "Start a fresh shell first (working directory and exported variables reset). With no command, only restart."
            },
            "timeout_secs": {
                "type": "integer",
                "minimum": 1,
                "description": format!(
                    "Timeout in seconds (default {}, at most {}). On timeout every process the command started is killed and the shell is restarted.",
                    cfg.timeout_secs, cfg.max_timeout_secs
                )
            }
        });
        Self {
            spec: ToolSpec {
                name: NAME,
                title: "Run a bash command",
                description: description(sandbox.as_deref()),
                kind: ToolKind::Exec,
                input_schema: object_schema(props, &[]),
            },
            cfg: cfg.clone(),
            env: EnvFilter::new(cfg),
            pool: Arc::new(Pool::new()),
            sandbox,
        }
    }

    /// The shells (for tests and diagnostics).
    pub fn pool(&self) -> &Arc<Pool> {
        &self.pool
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BashArgs {
    command: Option<String>,
    /// Shown to the human at the prompt.
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    restart: bool,
    timeout_secs: Option<u64>,
}

impl Tool for Bash {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn subject_args(&self) -> &'static [&'static str] {
        &["command"]
    }

    fn editable_arg(&self) -> Option<&'static str> {
        Some("command")
    }

    fn recorded_command<'a>(&self, args: &'a Value) -> Option<&'a str> {
        args.get("command")?.as_str()
    }

    fn output_schema(&self) -> Option<Map<String, Value>> {
        Some(result::output_schema())
    }

    fn prepare(
        &self,
        a: &Map<String, Value>,
        scope: &Scope,
    ) -> Result<Box<dyn Invocation>, ToolError> {
        let name = self.spec.name;
        let parsed: BashArgs = args::parse(name, a)?;
        let command = match parsed.command {
            Some(c) if c.contains('\0') => {
                return Err(args::invalid(
                    name,
                    "command must not contain NUL characters",
                ));
            }
            Some(c) if c.len() > MAX_COMMAND_BYTES => {
                return Err(args::invalid(
                    name,
                    format!(
                        "command is {} bytes, more than the {MAX_COMMAND_BYTES} bytes bash is \
                         given a command in (the kernel limits a program's arguments); write \
                         the script to a file with write_file and run that",
                        c.len()
                    ),
                ));
            }
            Some(c) if closes_the_runners_group(&c) => {
                return Err(args::invalid(
                    name,
                    "command closes a `{ … }` group it did not open (a `}` with no `{` \
                     before it): airlock's bash reads a command inside a group of its own, \
                     which the `}` would end, so the rest would run apart from what was shown",
                ));
            }
            Some(c) if c.trim().is_empty() && !parsed.restart => {
                return Err(args::invalid(name, "command is empty"));
            }
            Some(c) if c.trim().is_empty() => None,
            Some(c) => Some(c),
            None if parsed.restart => None,
            None => {
                return Err(args::invalid(
                    name,
                    "missing field `command` (it may be left out only with restart: true)",
                ));
            }
        };
        if parsed.timeout_secs == Some(0) {
            return Err(args::invalid(name, "timeout_secs must be at least 1"));
        }
        let timeout_secs = parsed
            .timeout_secs
            .unwrap_or(self.cfg.timeout_secs)
            .min(self.cfg.max_timeout_secs)
            .max(1);
        Ok(Box::new(BashCall {
            command,
            description: parsed.description,
            restart: parsed.restart,
            timeout_secs,
            max_output: self.cfg.max_output_bytes,
            workspace: scope.workspace().to_path_buf(),
            env: self.env.clone(),
            pool: self.pool.clone(),
            sandbox: self.sandbox.clone(),
        }))
    }

    fn agent_disconnected(&self, agent: &AgentInfo) {
        self.pool.close(agent.id);
    }

    fn shutdown(&self) {
        self.pool.close_all();
    }
}

struct BashCall {
    command: Option<String>,
    description: Option<String>,
    restart: bool,
    timeout_secs: u64,
    max_output: usize,
    workspace: PathBuf,
    env: Result<EnvFilter, env::EnvPatternError>,
    pool: Arc<Pool>,
    sandbox: Option<Arc<Sandbox>>,
}

/// The sandbox guard's notes at the top of the result's text, and in its
/// structured form as `sandbox_notes`.
fn with_notes(mut out: ToolOutput, notes: &[String]) -> ToolOutput {
    if notes.is_empty() {
        return out;
    }
    let mut text = String::new();
    for n in notes {
        text.push_str("[sandbox: ");
        text.push_str(n);
        text.push_str("]\n");
    }
    text.push_str(&out.text);
    out.text = text;
    if let Some(Value::Object(m)) = &mut out.structured {
        m.insert("sandbox_notes".into(), json!(notes));
    }
    out
}

/// The first line of `command`, cut to a readable length.
pub fn summarize(command: &str) -> String {
    let mut lines = command.trim().lines();
    let first = lines.next().unwrap_or("");
    let mut s: String = first.chars().take(SUMMARY_CHARS).collect();
    if first.chars().count() > SUMMARY_CHARS || lines.next().is_some() {
        s.push_str(" …");
    }
    s
}

impl Invocation for BashCall {
    fn summary(&self) -> String {
        match (&self.command, self.restart) {
            (None, _) => "restart the shell".into(),
            (Some(c), true) => format!("(restart) {}", summarize(c)),
            (Some(c), false) => summarize(c),
        }
    }

    fn subject(&self) -> Subject {
        match &self.command {
            Some(command) => Subject::Command {
                command: command.clone(),
            },
            None => Subject::None,
        }
    }

    fn shell_site(&self, agent_id: u64) -> Option<ShellSite> {
        // A restart starts the command in a fresh shell, in the workspace.
        let cwd = if self.restart {
            Some(self.workspace.clone())
        } else {
            self.pool.cwd(agent_id, &self.workspace)
        };
        let hides_excluded = self
            .sandbox
            .as_ref()
            .is_some_and(|s| s.status().is_active() && s.hides_late());
        // Its environment is the supervisor's less `bash.env_deny`, with
        // or without the sandbox.
        Some(ShellSite {
            cwd,
            hides_excluded,
            env: ShellEnv::Filtered,
        })
    }

    fn view(&self) -> CallView {
        match &self.command {
            Some(command) => CallView::Command {
                command: command.clone(),
                cwd: None,
                description: self.description.clone(),
                shown_args: &["command", "description"],
            },
            None => CallView::Args,
        }
    }

    fn edit(&self) -> Option<EditField> {
        self.command
            .as_ref()
            .map(|c| EditField::Command { text: c.clone() })
    }

    fn grant(&self) -> GrantShape {
        self.command.as_deref().map_or(GrantShape::None, grant)
    }

    fn run(self: Box<Self>, ctx: RunContext) -> RunFuture {
        Box::pin(async move {
            let filter = match &self.env {
                Ok(f) => f,
                Err(e) => return ToolOutput::error(format!("the bash tool is misconfigured: {e}")),
            };
            let inherited: Vec<_> = match &self.sandbox {
                Some(sb) => match sb.filter_env(std::env::vars_os()) {
                    Ok(vars) => vars,
                    Err(e) => return ToolOutput::error(format!("{e}; the command did not run")),
                },
                None => std::env::vars_os().collect(),
            };
            let cfg = ShellConfig {
                workspace: self.workspace.clone(),
                env: filter.apply(inherited),
                max_output_bytes: self.max_output,
                sandbox: self.sandbox.clone(),
            };
            let req = Request {
                command: self.command.clone(),
                restart: self.restart,
                timeout: Duration::from_secs(self.timeout_secs),
                check: ctx.shell_check.clone(),
            };
            let output = ctx.output.clone();
            let mut stream = move |chunk: &[u8]| output.send(chunk);
            match self
                .pool
                .run(ctx.agent_id, &cfg, &req, &ctx.cancel, &mut stream)
                .await
            {
                Ok(outcome) => {
                    let notes = match &outcome {
                        PoolOutcome::Ran { outcome, .. } => outcome.sandbox_notes.clone(),
                        _ => Vec::new(),
                    };
                    with_notes(
                        result::render(outcome, self.timeout_secs, &self.workspace),
                        &notes,
                    )
                }
                Err(e) => ToolOutput::error(format!("{e}; the command did not run")),
            }
        })
    }
}
