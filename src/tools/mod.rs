//! Tools the agent can call: the [`Tool`] trait, the registry, and the
//! read-only tools. Write tools and bash come later.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::call::{
    AgentInfo, CallId, CallView, EditField, GrantShape, ShellSite, Subject, ToolKind,
};
use crate::scope::{Scope, ScopeError};

pub mod bash;
mod entry_rules;
pub mod output;
pub use entry_rules::{EntryRule, EntryRules};
pub use output::{OutputBuf, ToolOutput};

/// `[tools]`: which tools are enabled.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ToolsConfig {
    /// Enabled tool names; `None` means all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<Vec<String>>,
}

/// Per-call limits (`[limits]`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Wall-clock limit for one read-only call, in seconds.
    pub timeout_secs: u64,
    /// Most bytes of text returned to the agent.
    pub max_output_bytes: usize,
    /// Most bytes read from files in one call.
    pub max_read_bytes: u64,
    /// Most directory entries visited in one call.
    pub max_entries: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            timeout_secs: 10,
            max_output_bytes: 32 * 1024,
            max_read_bytes: 8 * 1024 * 1024,
            max_entries: 10_000,
        }
    }
}

/// Why a call could not even be prepared. Shown to the agent as an
/// `isError` result and audited.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The arguments do not fit the tool's schema.
    #[error("invalid arguments for {tool}: {message}")]
    InvalidArguments {
        /// The tool.
        tool: String,
        /// What is wrong, phrased so a model can fix its call.
        message: String,
    },
    /// The path scope refused a path.
    #[error(transparent)]
    Scope(#[from] ScopeError),
}

/// What the pipeline hands a running call.
#[derive(Debug, Clone)]
pub struct RunContext {
    /// The call being run.
    pub call_id: CallId,
    /// The id of the agent that made it (bash keeps one shell per agent).
    pub agent_id: u64,
    /// The path scope (for the race-free open on the checked object).
    pub scope: Arc<Scope>,
    /// The limits in force.
    pub limits: Limits,
    /// Set when the agent cancels or the supervisor stops.
    pub cancel: CancellationToken,
    /// When the call must stop.
    pub deadline: Instant,
    /// Where a running call streams its raw output (bash); the supervisor
    /// turns the chunks into events.
    pub output: OutputSink,
    /// The deny and ask path rules a walk honours entry by entry (set by
    /// the supervisor for read tools).
    pub entry_rules: EntryRules,
    /// For a command the policy allowed as known-safe where its shell was
    /// then: the check a tool that keeps a shell makes with the shell's
    /// real working directory just before the command runs (a `cd` made
    /// since by another call, a link made since). The command does not run
    /// when it fails.
    pub shell_check: Option<ShellCheck>,
}

/// A check of where a shell command runs ([`RunContext::shell_check`]):
/// `Err` says why it must not run there.
#[derive(Clone)]
pub struct ShellCheck(Arc<CheckCwd>);

/// What a [`ShellCheck`] calls with the shell's working directory.
type CheckCwd = dyn Fn(&std::path::Path) -> Result<(), String> + Send + Sync;

impl ShellCheck {
    /// A check made by `f`.
    pub fn new(f: impl Fn(&std::path::Path) -> Result<(), String> + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    /// Whether the command may run in `cwd`.
    pub fn check(&self, cwd: &std::path::Path) -> Result<(), String> {
        (self.0)(cwd)
    }
}

impl std::fmt::Debug for ShellCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ShellCheck")
    }
}

/// Where a running call sends chunks of raw output as they are produced.
#[derive(Clone)]
pub struct OutputSink(Arc<SendChunk>);

/// What an [`OutputSink`] calls with each chunk.
type SendChunk = dyn Fn(&[u8]) + Send + Sync;

impl OutputSink {
    /// A sink that hands each chunk to `f`.
    pub fn new(f: impl Fn(&[u8]) + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    /// A sink that drops every chunk (tests, callers that do not stream).
    pub fn discard() -> Self {
        Self::new(|_| {})
    }

    /// Send one chunk.
    pub fn send(&self, chunk: &[u8]) {
        (self.0)(chunk);
    }
}

impl std::fmt::Debug for OutputSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OutputSink")
    }
}

impl RunContext {
    /// True once the call was cancelled or ran past its deadline; long
    /// loops check this and stop with what they have.
    pub fn should_stop(&self) -> bool {
        self.cancel.is_cancelled() || Instant::now() >= self.deadline
    }

    /// The configured timeout.
    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.limits.timeout_secs)
    }
}

/// A boxed future returned by [`Invocation::run`].
pub type RunFuture = Pin<Box<dyn Future<Output = ToolOutput> + Send + 'static>>;

/// One prepared call: arguments parsed, paths resolved and checked.
pub trait Invocation: Send + 'static {
    /// A one-line summary for humans (`grep "TODO" in src`).
    fn summary(&self) -> String;
    /// What the policy matches against.
    fn subject(&self) -> Subject;
    /// For a tool that keeps a shell per agent: where agent `agent_id`'s
    /// command would run now (its shell's real working directory, and
    /// whether excluded files are hidden from it). `None`: not a shell.
    fn shell_site(&self, _agent_id: u64) -> Option<ShellSite> {
        None
    }
    /// For writes: the change, shown to the human before it is approved
    /// (shared, not copied: a diff can be as large as the file).
    fn proposal(&self) -> Option<Arc<crate::call::Proposal>> {
        None
    }
    /// What the approval prompt shows for it (default: the arguments).
    fn view(&self) -> CallView {
        CallView::Args
    }
    /// What the human may edit at the prompt before approving it (default:
    /// nothing; bash: the command). See [`Tool::editable_arg`].
    fn edit(&self) -> Option<EditField> {
        None
    }
    /// What "approve for this session" and "always" can cover for it
    /// (default: only this call; bash: the command; writes: the file).
    fn grant(&self) -> GrantShape {
        GrantShape::None
    }
    /// True when [`Invocation::run`] finishes without waiting: no thread
    /// hand-off, no process, no I/O that can block for long (a small
    /// regular file already open). A transport may then serve the call
    /// where it read it, not on a task of its own (default: false).
    fn runs_inline(&self) -> bool {
        false
    }
    /// Run it. Errors are results with `is_error`; timeouts and
    /// cancellation are handled by the pipeline around this future.
    fn run(self: Box<Self>, ctx: RunContext) -> RunFuture;
}

/// A tool's static description, as listed to agents.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    /// The name agents call it by.
    pub name: &'static str,
    /// A short human title.
    pub title: &'static str,
    /// What it does, for the model.
    pub description: &'static str,
    /// Read, write or exec.
    pub kind: ToolKind,
    /// JSON Schema of the arguments (an object schema).
    pub input_schema: Map<String, Value>,
}

/// A tool the agent can call.
pub trait Tool: Send + Sync + 'static {
    /// Its description.
    fn spec(&self) -> &ToolSpec;
    /// Parse and check arguments, resolve paths against the scope.
    fn prepare(
        &self,
        args: &Map<String, Value>,
        scope: &Scope,
    ) -> Result<Box<dyn Invocation>, ToolError>;

    /// The JSON Schema of the tool's `structuredContent` (an object
    /// schema), for tools whose results have structure. Such a tool returns
    /// structured content with every result (errors as `{"error": …}`).
    fn output_schema(&self) -> Option<Map<String, Value>> {
        None
    }

    /// The arguments that say what a call is about, most telling first
    /// (`path`; bash: `command`; grep: `path`, then `pattern`). The first one
    /// present names a call that could not be prepared: see
    /// [`unprepared_summary`].
    fn subject_args(&self) -> &'static [&'static str] {
        &[]
    }

    /// The argument the human may edit at the prompt before approving it
    /// (bash: `command`), if any. It is kept whole in the prompt and the
    /// trail, and [`with_edit`] puts the edited text in its place.
    fn editable_arg(&self) -> Option<&'static str> {
        None
    }

    /// The shell command a call of this tool runs, read from its arguments
    /// as the trail records them (the trail keeps no prompt view), for the
    /// log and review; `None` for a tool that runs no command (bash:
    /// `command`).
    fn recorded_command<'a>(&self, _args: &'a Value) -> Option<&'a str> {
        None
    }

    /// The words of a summary of this tool's call after the tool's name,
    /// for lists that show the tool beside it (`grep "TODO" in src` →
    /// `"TODO" in src`; `create a.txt` stays). Default: the summary without
    /// the tool's name in front, as [`Invocation::summary`]s of the
    /// read-only tools and [`unprepared_summary`] write it.
    fn summary_words<'a>(&self, summary: &'a str) -> &'a str {
        without_name(self.spec().name, summary)
    }

    /// The arguments whose text a call's change (its diff) shows, so the
    /// detail names them rather than repeating them (`write_file`:
    /// `content`; `edit_file`: `old_text`, `new_text`).
    fn change_args(&self) -> &'static [&'static str] {
        &[]
    }

    /// An agent's connection ended: drop what the tool keeps for it (bash
    /// ends that agent's shell).
    fn agent_disconnected(&self, _agent: &AgentInfo) {}

    /// The supervisor is shutting down: end every process the tool started.
    fn shutdown(&self) {}
}

/// A one-line description of a call of `tool` that could not be prepared,
/// from its raw arguments: the tool's name and the first line of the first
/// of its [`Tool::subject_args`] present (`cat .env`, `bash rm -rf /`), else
/// the arguments as JSON (`grep {"patern":…}`). Not cut to length.
pub fn unprepared_summary(tool: &dyn Tool, args: &Value) -> String {
    let first = tool
        .subject_args()
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str));
    let detail = match first {
        Some(s) => s.lines().next().unwrap_or_default().to_string(),
        None => match args.as_object() {
            Some(o) if o.is_empty() => String::new(),
            _ => args.to_string(),
        },
    };
    format!("{} {detail}", tool.spec().name).trim().to_string()
}

/// `args` with the tool's [`Tool::editable_arg`] replaced by `edited`, the
/// arguments of the call the human approved; `None` when the tool has
/// nothing to edit.
pub fn with_edit(
    tool: &dyn Tool,
    args: &Map<String, Value>,
    edited: &str,
) -> Option<Map<String, Value>> {
    let key = tool.editable_arg()?;
    let mut args = args.clone();
    args.insert(key.into(), Value::String(edited.to_string()));
    Some(args)
}

/// The command a recorded call of the built-in tool named `tool` ran, as
/// that tool reads its arguments (see [`Tool::recorded_command`]); `None`
/// when no built-in tool has that name or it runs no command.
pub fn recorded_command<'a>(tool: &str, args: &'a Value) -> Option<&'a str> {
    ToolRegistry::builtin().get(tool)?.recorded_command(args)
}

/// The words of a recorded summary of a call of `tool` after the tool's
/// name, as that tool reads its summaries (see [`Tool::summary_words`]).
/// A tool airlock has none of (an agent's own tool through its hooks, whose
/// summaries name it first too) reads the same way as the default.
pub fn summary_words<'a>(tool: &str, summary: &'a str) -> &'a str {
    match ToolRegistry::builtin().get(tool) {
        Some(t) => t.summary_words(summary),
        None => without_name(tool, summary),
    }
}

/// `summary` without `name` and a space in front, if it starts so.
fn without_name<'a>(name: &str, summary: &'a str) -> &'a str {
    summary
        .strip_prefix(name)
        .and_then(|rest| rest.strip_prefix(' '))
        .unwrap_or(summary)
}

/// The arguments the change of a call of the built-in tool named `tool`
/// shows (see [`Tool::change_args`]); none when no built-in tool has that
/// name.
pub fn change_args(tool: &str) -> &'static [&'static str] {
    ToolRegistry::builtin()
        .get(tool)
        .map_or(&[], |t| t.change_args())
}

/// Run blocking work (file system access) off the async runtime.
pub fn run_blocking<F>(ctx: RunContext, work: F) -> RunFuture
where
    F: FnOnce(&RunContext) -> ToolOutput + Send + 'static,
{
    Box::pin(async move {
        match tokio::task::spawn_blocking(move || work(&ctx)).await {
            Ok(out) => out,
            Err(e) => ToolOutput::error(format!("internal error: the tool failed ({e})")),
        }
    })
}

/// The tools enabled in this supervisor, by name, and what the write
/// tools protect (which the checks of an agent's own writes use too).
#[derive(Clone)]
pub struct ToolRegistry {
    tools: BTreeMap<&'static str, Arc<dyn Tool>>,
    write_protection: Arc<write::Protection>,
}

impl Default for ToolRegistry {
    fn default() -> Self {
        Self {
            tools: BTreeMap::new(),
            write_protection: write::Protection::builtin(),
        }
    }
}

/// An unknown name in `tools.enabled`.
#[derive(Debug, thiserror::Error)]
#[error("unknown tool {name:?} in tools.enabled (known tools: {known})")]
pub struct UnknownToolError {
    /// The name that matched no tool.
    pub name: String,
    /// The known names, comma-separated.
    pub known: String,
}

impl ToolRegistry {
    /// Every built-in tool.
    pub fn all() -> Self {
        let mut reg = Self::default();
        for tool in readonly::all().into_iter().chain(write::all()) {
            reg.tools.insert(tool.spec().name, tool);
        }
        reg
    }

    /// Every built-in tool, bash unconfigured and unsandboxed, made once:
    /// for asking the tools about calls (what a recorded call ran, the
    /// checks an agent's own tool reuses), never for running bash. Its
    /// write tools check no `protect` list: the supervisor checks an
    /// agent's own writes with the session's
    /// ([`ToolRegistry::write_protection`]) before anything is decided.
    pub fn builtin() -> &'static Self {
        static TOOLS: std::sync::OnceLock<ToolRegistry> = std::sync::OnceLock::new();
        TOOLS.get_or_init(|| {
            let mut all = Self::all().with_write_protection(Arc::new(write::Protection::default()));
            all.insert(Arc::new(bash::Bash::new(
                &bash::BashConfig::default(),
                None,
            )));
            all
        })
    }

    /// Every built-in tool, bash built from `bash` and run in `sandbox`
    /// (none: unsandboxed), restricted to `tools.enabled` (absent: all of
    /// them). An unknown name is an error; an empty list disables every
    /// tool.
    pub fn configured(
        tools: &ToolsConfig,
        bash: &bash::BashConfig,
        sandbox: Option<Arc<crate::sandbox::Sandbox>>,
    ) -> Result<Self, UnknownToolError> {
        let mut all = Self::all();
        all.insert(Arc::new(bash::Bash::new(bash, sandbox)));
        all.restrict(tools.enabled.as_deref())
    }

    /// The registry with its write tools (those enabled) refusing what
    /// `protection` protects: the session's, built from the sandbox's
    /// `protect` list. Agents' own writes are checked with it too
    /// ([`ToolRegistry::write_protection`]).
    #[must_use]
    pub fn with_write_protection(mut self, protection: Arc<write::Protection>) -> Self {
        for tool in write::protected(&protection) {
            if self.tools.contains_key(tool.spec().name) {
                self.insert(tool);
            }
        }
        self.write_protection = protection;
        self
    }

    /// What the write tools protect (the built-in protection unless
    /// [`ToolRegistry::with_write_protection`] set the session's).
    pub fn write_protection(&self) -> &write::Protection {
        &self.write_protection
    }

    /// The built-in tools restricted to `enabled` (None: all of them). An
    /// unknown name is an error; an empty list disables every tool.
    pub fn with_enabled(enabled: Option<&[String]>) -> Result<Self, UnknownToolError> {
        Self::all().restrict(enabled)
    }

    fn restrict(self, enabled: Option<&[String]>) -> Result<Self, UnknownToolError> {
        let all = self;
        let Some(enabled) = enabled else {
            return Ok(all);
        };
        let mut reg = Self {
            tools: BTreeMap::new(),
            write_protection: all.write_protection.clone(),
        };
        for name in enabled {
            match all.tools.get_key_value(name.as_str()) {
                Some((k, t)) => {
                    reg.tools.insert(k, t.clone());
                }
                None => {
                    return Err(UnknownToolError {
                        name: name.clone(),
                        known: all.names().collect::<Vec<_>>().join(", "),
                    });
                }
            }
        }
        Ok(reg)
    }

    /// Add (or replace) a tool; embedders and tests register their own.
    pub fn insert(&mut self, tool: Arc<dyn Tool>) {
        self.tools.insert(tool.spec().name, tool);
    }

    /// Look a tool up by name.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name)
    }

    /// True when `name` is an enabled read-only tool.
    pub fn is_read_only(&self, name: &str) -> bool {
        self.get(name)
            .is_some_and(|t| t.spec().kind == ToolKind::Read)
    }

    /// All enabled tools, by name.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools.values()
    }

    /// The enabled tool names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.tools.keys().copied()
    }
}

pub mod readonly;
pub mod write;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str) -> Arc<dyn Tool> {
        let reg =
            ToolRegistry::configured(&ToolsConfig::default(), &bash::BashConfig::default(), None)
                .expect("built-in tools");
        reg.get(name).expect("a built-in tool").clone()
    }

    #[test]
    fn a_call_that_could_not_be_prepared_is_named_by_its_tools_subject_argument() {
        let s = |name: &str, args: Value| unprepared_summary(tool(name).as_ref(), &args);
        assert_eq!(s("cat", json!({"path": ".env"})), "cat .env");
        assert_eq!(
            s("bash", json!({"command": "rm -rf /\necho"})),
            "bash rm -rf /"
        );
        assert_eq!(s("diff", json!({"path_a": "a", "path_b": "b"})), "diff a");
        assert_eq!(s("grep", json!({"pattern": "TODO"})), "grep TODO");
        assert_eq!(
            s("grep", json!({"pattern": "TODO", "path": "src"})),
            "grep src"
        );
        assert_eq!(s("pwd", json!({})), "pwd");
        // No subject argument: the arguments as sent.
        assert_eq!(s("grep", json!({"patern": 1})), r#"grep {"patern":1}"#);
        assert_eq!(s("bash", json!({"path": "x"})), r#"bash {"path":"x"}"#);
    }

    #[test]
    fn only_a_tool_with_an_editable_argument_can_be_edited() {
        let args = json!({"command": "rm -rf build", "description": "clean"});
        let args = args.as_object().unwrap();
        let edited = with_edit(tool("bash").as_ref(), args, "rm -rf build/tmp").unwrap();
        assert_eq!(edited["command"], "rm -rf build/tmp");
        assert_eq!(edited["description"], "clean");
        for name in ["write_file", "edit_file", "read_file", "grep"] {
            assert!(
                with_edit(tool(name).as_ref(), args, "x").is_none(),
                "{name}"
            );
        }
    }

    #[test]
    fn the_tool_says_what_the_prompt_shows_and_what_may_be_edited() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "old\n").unwrap();
        let scope = Scope::new(dir.path(), &[], &[]).unwrap();
        let prep = |name: &str, args: Value| {
            let args = args.as_object().cloned().unwrap_or_default();
            tool(name).prepare(&args, &scope).expect("prepared")
        };
        let bash = prep(
            "bash",
            json!({"command": "make test", "description": "run the tests"}),
        );
        assert_eq!(
            bash.view(),
            CallView::Command {
                command: "make test".into(),
                cwd: None,
                description: Some("run the tests".into()),
                shown_args: &["command", "description"],
            }
        );
        assert_eq!(
            bash.edit(),
            Some(EditField::Command {
                text: "make test".into()
            })
        );
        // Only a restart: no command to show or edit.
        let restart = prep("bash", json!({"restart": true}));
        assert_eq!((restart.view(), restart.edit()), (CallView::Args, None));
        let write = prep("write_file", json!({"path": "a.txt", "content": "new\n"}));
        assert_eq!((write.view(), write.edit()), (CallView::Change, None));
        let read = prep("read_file", json!({"path": "a.txt"}));
        assert_eq!((read.view(), read.edit()), (CallView::Args, None));
        // And what a grant of it covers.
        assert_eq!(bash.grant(), bash::grant("make test"));
        assert_eq!(restart.grant(), GrantShape::None);
        let real = std::fs::canonicalize(dir.path()).unwrap().join("a.txt");
        assert_eq!(
            write.grant(),
            GrantShape::File {
                path: real.clone(),
                shown: "a.txt".into(),
                rule_tools: &["write_file", "edit_file"],
            }
        );
        let edit = prep(
            "edit_file",
            json!({"path": "a.txt", "old_text": "old", "new_text": "new"}),
        );
        assert_eq!(edit.grant(), write::grant(real, "a.txt"));
        assert_eq!(read.grant(), GrantShape::None);
    }

    #[test]
    fn a_summarys_words_after_the_tools_name_are_its_tools_answer() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "old\n").unwrap();
        let scope = Scope::new(dir.path(), &[], &[]).unwrap();
        let summary = |name: &str, args: Value| {
            let args = args.as_object().cloned().unwrap_or_default();
            tool(name)
                .prepare(&args, &scope)
                .expect("prepared")
                .summary()
        };
        // The tools' own summaries, as prepared.
        let grep = summary("grep", json!({"pattern": "TODO", "path": "."}));
        assert_eq!(summary_words("grep", &grep), r#""TODO" in ."#);
        let write = summary("write_file", json!({"path": "b.txt", "content": "x"}));
        assert_eq!(
            summary_words("write_file", &write),
            write,
            "no name to drop"
        );
        let unprepared = unprepared_summary(tool("cat").as_ref(), &json!({"path": ".env"}));
        assert_eq!(summary_words("cat", &unprepared), ".env");
        // A tool airlock has none of: its name in front, dropped; a name
        // that only starts the same is kept.
        assert_eq!(summary_words("WebFetch", "WebFetch https://x"), "https://x");
        assert_eq!(
            summary_words("Web", "WebFetch https://x"),
            "WebFetch https://x"
        );
    }

    #[test]
    fn a_recorded_call_is_read_by_its_tool() {
        let args = json!({"command": "make test", "path": "a"});
        assert_eq!(recorded_command("bash", &args), Some("make test"));
        for name in ["read_file", "write_file", "no_such_tool"] {
            assert_eq!(recorded_command(name, &args), None, "{name}");
        }
        assert_eq!(recorded_command("bash", &json!({"command": 1})), None);
        // Which arguments a change stands for: the write tools say.
        assert_eq!(change_args("write_file"), ["content"]);
        assert_eq!(change_args("edit_file"), ["old_text", "new_text"]);
        assert!(change_args("bash").is_empty() && change_args("no_such_tool").is_empty());
    }
}
