//! The rmcp `ServerHandler`: `tools/list` and `tools/call` on top of the
//! supervisor, one handler (one agent session) per connection.

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use futures::FutureExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, ErrorCode, Implementation, InitializeRequestParams, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProgressToken,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, Peer, ServerHandler};
use tokio_util::task::TaskTracker;

use super::lane::InlineOnly;
use crate::call::{AgentInfo, ToolKind};
use crate::supervisor::{CallError, Inline, Supervisor, WaitHook, panic_text};
use crate::tools::{ToolOutput, ToolSpec};

/// What the server tells agents about itself.
const INSTRUCTIONS: &str = "airlock supervises this session: read-only tools run at once; \
     calls that change things wait for the user's approval. Paths are relative to the \
     workspace (see `pwd`); files outside it or excluded (secrets such as .env) are refused.";

/// The tool list as agents see it, built once per supervisor.
pub fn tool_list(supervisor: &Supervisor) -> Arc<[Tool]> {
    supervisor
        .tools()
        .iter()
        .map(|t| {
            let tool = to_mcp_tool(t.spec());
            match t.output_schema() {
                Some(schema) => tool.with_raw_output_schema(Arc::new(schema)),
                None => tool,
            }
        })
        .collect()
}

/// One tool's MCP description, annotated from its kind.
pub fn to_mcp_tool(spec: &ToolSpec) -> Tool {
    let annotations = match spec.kind {
        ToolKind::Read => ToolAnnotations::with_title(spec.title).read_only(true),
        ToolKind::Write | ToolKind::Exec | ToolKind::Network | ToolKind::Mcp | ToolKind::Other => {
            ToolAnnotations::with_title(spec.title)
                .read_only(false)
                .destructive(true)
        }
    };
    Tool::new(spec.name, spec.description, spec.input_schema.clone())
        .with_title(spec.title)
        .with_annotations(annotations)
}

/// The agent of one connection, registered with the supervisor once the
/// client identified itself (or made its first call).
#[derive(Default)]
pub struct AgentSlot(Mutex<Option<Arc<AgentInfo>>>);

impl AgentSlot {
    /// The registered agent, registering it now if needed (`client`, the
    /// client's own description, is asked for only then).
    fn get_or_register<'a>(
        &self,
        supervisor: &Supervisor,
        client: impl FnOnce() -> Option<std::borrow::Cow<'a, Implementation>>,
    ) -> Arc<AgentInfo> {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(agent) = slot.as_ref() {
            return agent.clone();
        }
        let client = client();
        let agent = Arc::new(supervisor.agent_connected(
            client.as_deref().map(|c| c.name.as_str()),
            client.as_deref().map(|c| c.version.as_str()),
        ));
        *slot = Some(agent.clone());
        agent
    }

    /// The registered agent, if any (without registering one), shared.
    fn shared(&self) -> Option<Arc<AgentInfo>> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The registered agent, if any (without registering one).
    pub fn current(&self) -> Option<AgentInfo> {
        self.shared().map(Arc::unwrap_or_clone)
    }

    /// Take the agent out (when the connection ends).
    pub fn take(&self) -> Option<AgentInfo> {
        let taken = self.0.lock().unwrap_or_else(PoisonError::into_inner).take();
        taken.map(Arc::unwrap_or_clone)
    }
}

/// The agents of HTTP sessions by session id, so that a DELETE of a
/// session ends its calls at once: rmcp lets a closed session's calls run
/// on for up to 5 s (it waits for their answers) before the handler, and
/// with it the agent, goes.
pub trait SessionAgents: Send + Sync {
    /// `agent` is the agent of the session `id`.
    fn link(&self, id: &str, agent: &AgentInfo);
    /// The session `id`'s handler goes: forget it.
    fn unlink(&self, id: &str);
}

/// The header an HTTP request names its session in (MCP's
/// `Mcp-Session-Id`).
pub(crate) const SESSION_HEADER: &str = "mcp-session-id";

/// Where requests that belong to no session find their agent (the
/// stateless 2026-07-28 revision over HTTP, where every request gets its
/// own handler): one agent per client, kept while it is busy or recent.
pub trait AgentPool: Send + Sync {
    /// The agent for a request from `client`; it counts as busy until the
    /// returned lease is dropped.
    fn lease(
        &self,
        supervisor: &Supervisor,
        client: Option<&Implementation>,
    ) -> (AgentInfo, Box<dyn Send>);
}

/// The MCP server for one connection.
pub struct AirlockHandler {
    supervisor: Arc<Supervisor>,
    tools: Arc<[Tool]>,
    agent: Arc<AgentSlot>,
    calls: TaskTracker,
    pool: Option<Arc<dyn AgentPool>>,
    /// Record the agent's disconnect when the handler goes (an HTTP
    /// session: the handler lives exactly as long as the session).
    disconnect_on_drop: bool,
    /// Where calls that are not read-only run, when not on the runtime
    /// serving the connection (see [`AirlockHandler::offload_to`]).
    offload: Option<tokio::runtime::Handle>,
    /// The connection's peer, known once rmcp handed over a request (the
    /// session runs); an inline lane serves calls only then.
    peer: Arc<OnceLock<Peer<RoleServer>>>,
    /// An HTTP session's registry of agents, and the session's id once a
    /// request named it.
    sessions: Option<(Arc<dyn SessionAgents>, OnceLock<String>)>,
}

impl AirlockHandler {
    /// A handler for a new connection.
    pub fn new(supervisor: Arc<Supervisor>, tools: Arc<[Tool]>) -> Self {
        Self {
            supervisor,
            tools,
            agent: Arc::new(AgentSlot::default()),
            calls: TaskTracker::new(),
            pool: None,
            disconnect_on_drop: false,
            offload: None,
            peer: Arc::new(OnceLock::new()),
            sessions: None,
        }
    }

    /// A second handler of the same connection (same agent, same calls),
    /// for the transport to serve calls with where it reads them (see
    /// [`super::inline::InlineLane`]). It records no disconnect.
    pub(super) fn same_connection(&self) -> Self {
        Self {
            supervisor: self.supervisor.clone(),
            tools: self.tools.clone(),
            agent: self.agent.clone(),
            calls: self.calls.clone(),
            pool: None,
            disconnect_on_drop: false,
            offload: self.offload.clone(),
            peer: self.peer.clone(),
            sessions: None,
        }
    }

    /// The connection's peer, once the session runs.
    pub(super) fn peer(&self) -> Option<&Peer<RoleServer>> {
        self.peer.get()
    }

    /// The supervisor calls go to.
    pub(super) fn supervisor(&self) -> &Supervisor {
        &self.supervisor
    }

    /// The registered agent, if any (without registering one).
    pub(super) fn registered_agent(&self) -> Option<Arc<AgentInfo>> {
        self.agent.shared()
    }

    fn know_peer(&self, context: &RequestContext<RoleServer>) {
        if self.peer.get().is_none() {
            let _ = self.peer.set(context.peer.clone());
        }
        self.know_session(context);
    }

    /// Link an HTTP session's id (from the first request that names it)
    /// to its registered agent.
    fn know_session(&self, context: &RequestContext<RoleServer>) {
        let Some((links, id)) = &self.sessions else {
            return;
        };
        if id.get().is_some() {
            return;
        }
        let Some(agent) = self.agent.shared() else {
            return;
        };
        let named = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|p| p.headers.get(SESSION_HEADER))
            .and_then(|v| v.to_str().ok());
        if let Some(named) = named
            && id.set(named.to_string()).is_ok()
        {
            links.link(named, &agent);
        }
    }

    /// Run every call that is not read-only (bash, writes, and any call
    /// of a tool the supervisor does not know) on `runtime` instead of the
    /// runtime serving the connection. `serve --stdio` answers the protocol
    /// and the reads on one thread (no thread hand-off per request) and
    /// gives a running command its own threads, so a stream of reads
    /// cannot starve it.
    #[must_use]
    pub fn offload_to(mut self, runtime: tokio::runtime::Handle) -> Self {
        self.offload = Some(runtime);
        self
    }

    /// A handler for an HTTP request: a session's (`initialize`) agent is
    /// its own and disconnects when the session ends; a stateless request
    /// takes its agent from `pool`.
    pub fn for_http(
        supervisor: Arc<Supervisor>,
        tools: Arc<[Tool]>,
        pool: Arc<dyn AgentPool>,
        sessions: Arc<dyn SessionAgents>,
    ) -> Self {
        let mut handler = Self::new(supervisor, tools);
        handler.pool = Some(pool);
        handler.disconnect_on_drop = true;
        handler.sessions = Some((sessions, OnceLock::new()));
        handler
    }

    /// The connection's agent slot (to report the disconnect).
    pub fn agent_slot(&self) -> Arc<AgentSlot> {
        self.agent.clone()
    }

    /// Tracks the calls in flight (to let them finish before the
    /// disconnect is recorded).
    pub fn calls(&self) -> TaskTracker {
        self.calls.clone()
    }

    /// The runtime a call of `tool` runs on when it is not this one: every
    /// call but a read-only tool's, once [`AirlockHandler::offload_to`] set
    /// one.
    fn offload_for(&self, tool: &str) -> Option<&tokio::runtime::Handle> {
        let runtime = self.offload.as_ref()?;
        (!self.supervisor.tools().is_read_only(tool)).then_some(runtime)
    }

    /// The request's agent, and what keeps a pooled one busy meanwhile.
    /// A registered agent is shared as it is; the client's description is
    /// looked at only while none is.
    fn agent(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> (Arc<AgentInfo>, Option<Box<dyn Send>>) {
        if let Some(agent) = self.agent.shared() {
            return (agent, None);
        }
        let client = context.client_info();
        if let Some(pool) = &self.pool
            && context.meta.protocol_version().is_some()
        {
            let (agent, lease) = pool.lease(&self.supervisor, client.as_ref());
            return (Arc::new(agent), Some(lease));
        }
        let agent = self
            .agent
            .get_or_register(&self.supervisor, || client.map(std::borrow::Cow::Owned));
        (agent, None)
    }
}

impl Drop for AirlockHandler {
    fn drop(&mut self) {
        if let Some((links, id)) = &self.sessions
            && let Some(id) = id.get()
        {
            links.unlink(id);
        }
        if !self.disconnect_on_drop {
            return;
        }
        if let Some(agent) = self.agent.take() {
            self.supervisor.agent_gone(&agent);
            self.supervisor.agent_disconnected(&agent);
        }
    }
}

impl ServerHandler for AirlockHandler {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("airlock", crate::VERSION))
            .with_instructions(INSTRUCTIONS)
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        self.know_peer(&context);
        let result = self.negotiate_initialize(&request)?;
        self.agent.get_or_register(&self.supervisor, || {
            Some(std::borrow::Cow::Borrowed(&request.client_info))
        });
        Ok(result)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.know_peer(&context);
        let _ = self.agent(&context);
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(inline) = context.extensions.get::<InlineOnly>().cloned() {
            return self.call_inline(request, context, inline).await;
        }
        self.know_peer(&context);
        let (agent, _lease) = self.agent(&context);
        let on_wait = context
            .meta
            .get_progress_token()
            .map(|token| progress_hook(context.peer.clone(), token));
        let structured = self.structured(&request.name);
        let offload = self.offload_for(&request.name);
        let supervisor = self.supervisor.clone();
        let (ct, name, args) = (context.ct.clone(), request.name, request.arguments);
        // Boxed: rmcp copies each request's whole future into its task, and
        // the pipeline's state is most of it.
        let call = Box::pin(async move { supervisor.call(&agent, &name, args, ct, on_wait).await });
        // A panic in the pipeline still answers the request (rmcp would
        // drop it and leave its id in flight); a tool's own panic is an
        // error result, recorded, inside the pipeline.
        let result = match offload {
            Some(runtime) => {
                let running = runtime.spawn(call);
                match self.calls.track_future(running).await {
                    Ok(result) => result,
                    Err(e) => return Err(call_failed(&e.to_string())),
                }
            }
            None => match self
                .calls
                .track_future(AssertUnwindSafe(call).catch_unwind())
                .await
            {
                Ok(result) => result,
                Err(p) => return Err(call_panicked(p.as_ref())),
            },
        };
        answer(result, structured)
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        // rmcp hands over a standard request whose params did not parse
        // (e.g. `arguments` that is not an object) as a custom request.
        let CustomRequest { method, params, .. } = request;
        let error = match super::transport::params_error(&method, params.as_ref()) {
            Some(message) => ErrorData::invalid_params(message, None),
            None => ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("method not found: {method}"),
                None,
            ),
        };
        let raw = serde_json::json!({"method": method, "params": params}).to_string();
        self.supervisor.protocol_error(
            self.agent.current().as_ref(),
            &error.message,
            raw.as_bytes(),
        );
        Err(error)
    }
}

impl AirlockHandler {
    /// True when tool `name` has an output schema.
    fn structured(&self, name: &str) -> bool {
        self.tools
            .iter()
            .any(|t| t.name == name && t.output_schema.is_some())
    }

    /// `tools/call` from an inline lane: served here when it ends at once
    /// ([`Supervisor::call_inline`]), else handed back through `inline`
    /// whole (its arguments, `_meta` and extensions), to be served the
    /// usual way; the error returned then is never sent.
    async fn call_inline(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        inline: InlineOnly,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(agent) = self.agent.shared() else {
            inline.decline(request, context);
            return Err(InlineOnly::declined());
        };
        let args = request.arguments.take();
        let call = self.supervisor.call_inline(&agent, &request.name, args);
        let done = self
            .calls
            .track_future(AssertUnwindSafe(call).catch_unwind())
            .await;
        match done {
            Ok(Inline::Done(result)) => answer(result, self.structured(&request.name)),
            Ok(Inline::Declined(args)) => {
                request.arguments = args;
                inline.decline(request, context);
                Err(InlineOnly::declined())
            }
            Err(p) => Err(call_panicked(p.as_ref())),
        }
    }
}

/// The JSON-RPC error for a call whose pipeline failed (`e` says how), so
/// the request is answered all the same.
fn call_failed(e: &str) -> ErrorData {
    tracing::error!("call failed: {e}");
    ErrorData::internal_error(format!("the call failed: {e}"), None)
}

/// [`call_failed`] for a panic with `payload`.
pub(super) fn call_panicked(payload: &(dyn std::any::Any + Send)) -> ErrorData {
    call_failed(&format!("panic: {}", panic_text(payload)))
}

/// The answer to a `tools/call`: its result, or the JSON-RPC error for an
/// unknown tool or a call that could not be recorded. `structured`: the
/// tool has an output schema.
fn answer(
    result: Result<ToolOutput, CallError>,
    structured: bool,
) -> Result<CallToolResponse, ErrorData> {
    match result {
        Ok(mut out) => {
            if structured {
                // A client that reads only `structuredContent` must see an
                // error's message too.
                out.ensure_structured();
            }
            Ok(to_call_result(out).into())
        }
        Err(e @ CallError::UnknownTool { .. }) => {
            Err(ErrorData::invalid_params(e.to_string(), None))
        }
        Err(e @ CallError::Audit(_)) => {
            tracing::error!("call not run: {e}");
            Err(ErrorData::internal_error(e.to_string(), None))
        }
    }
}

/// A tool result as MCP sends it.
pub fn to_call_result(out: ToolOutput) -> CallToolResult {
    let content = vec![ContentBlock::text(out.text)];
    let mut result = if out.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = out.structured;
    result
}

/// The progress text sent while a call waits for the user.
pub fn waiting_message(secs: u64) -> String {
    format!("waiting for approval in airlock ({secs}s)")
}

/// A wait hook that sends `notifications/progress` for `token` to `peer`
/// (so the agent's request timeout does not fire while the user decides).
pub fn progress_hook(peer: Peer<RoleServer>, token: ProgressToken) -> WaitHook {
    Arc::new(move |secs: u64| {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = peer.clone();
        let param = ProgressNotificationParam::new(token.clone(), secs as f64)
            .with_message(waiting_message(secs));
        rt.spawn(async move {
            if let Err(e) = peer.notify_progress(param).await {
                tracing::debug!("progress notification not sent: {e}");
            }
        });
    })
}
