//! Tools the agent can call: the [`Tool`] trait, the registry, and the
//! read-only tools. Write tools and bash come later.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::call::{AgentInfo, CallId, EventBus, Subject, ToolKind};
use crate::scope::{Scope, ScopeError};

pub mod bash;
pub mod output;
pub use output::{OutputBuf, ToolOutput};

/// Per-call limits (configurable).
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
    /// The agent that made it (bash keeps one shell per agent).
    pub agent: AgentInfo,
    /// The path scope (for the race-free open on the checked object).
    pub scope: Arc<Scope>,
    /// The limits in force.
    pub limits: Limits,
    /// Set when the agent cancels or the supervisor stops.
    pub cancel: CancellationToken,
    /// When the call must stop.
    pub deadline: Instant,
    /// For streaming output (bash).
    pub events: EventBus,
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
    /// For writes: the change, shown to the human before it is approved.
    fn proposal(&self) -> Option<crate::call::Proposal> {
        None
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

    /// An agent's connection ended: drop what the tool keeps for it (bash
    /// ends that agent's shell).
    fn agent_disconnected(&self, _agent: &AgentInfo) {}

    /// The supervisor is shutting down: end every process the tool started.
    fn shutdown(&self) {}
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

/// The tools enabled in this supervisor, by name.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: BTreeMap<&'static str, Arc<dyn Tool>>,
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

    /// Every built-in tool configured from `cfg`, restricted to
    /// `tools.enabled` (absent: all of them). An unknown name is an error;
    /// an empty list disables every tool.
    pub fn from_config(cfg: &crate::config::Config) -> Result<Self, UnknownToolError> {
        let mut all = Self::all();
        all.insert(Arc::new(bash::Bash::new(&cfg.bash)));
        all.restrict(cfg.tools.enabled.as_deref())
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
        let mut reg = Self::default();
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
