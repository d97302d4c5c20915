//! Stage 1, prepare (airlock's own tools): the tool exists, its arguments
//! parse and its paths are inside the scope; the call as the human will see
//! it. A call that fails here is refused outright, never prompted.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::core::Supervisor;
use super::error::CallError;
use super::words::{one_line_owned, short_call};
use crate::audit::{bounded_object, excerpt};
use crate::call::{
    AgentInfo, CallId, CallInfo, CallView, Decision, GrantShape, RefusedBy, Runner, ToolKind,
};
use crate::tools::{Invocation, Tool, ToolError};

/// A call ready to be decided.
pub struct Prepared {
    /// The call as shown and recorded.
    pub info: CallInfo,
    /// Its tool.
    pub tool: Arc<dyn Tool>,
    /// The prepared invocation.
    pub invocation: Box<dyn Invocation>,
    /// The arguments as the agent sent them (the only copy: an edit at the
    /// prompt is prepared from them).
    pub args: Map<String, Value>,
}

/// Why a call could not be prepared.
pub enum NotPrepared {
    /// No such tool: the agent gets a JSON-RPC error.
    UnknownTool(CallInfo, CallError),
    /// Invalid arguments or outside the scope: the agent gets an error
    /// result.
    Refused(CallInfo, Decision),
}

impl NotPrepared {
    /// The same refusal, of call `id`.
    pub(super) fn with_id(mut self, id: CallId) -> Self {
        match &mut self {
            Self::UnknownTool(info, _) | Self::Refused(info, _) => info.id = id,
        }
        self
    }
}

impl Supervisor {
    /// Prepare call `id` of `tool_name` by `agent` with `args`.
    pub(super) async fn prepare(
        &self,
        id: CallId,
        agent: &AgentInfo,
        tool_name: &str,
        args: Map<String, Value>,
    ) -> Result<Prepared, NotPrepared> {
        let mut info = CallInfo {
            id,
            agent: agent.clone(),
            tool: excerpt(tool_name, 128),
            kind: None,
            args: Value::Null,
            summary: String::new(),
            received_at: chrono::Utc::now(),
            runner: Runner::Airlock,
            view: CallView::Args,
            edit: None,
            grant: GrantShape::None,
            proposal: None,
        };
        let Some(tool) = self.tools.get(tool_name).cloned() else {
            info.args = bounded_object(&args, &[]);
            info.summary = format!("unknown tool {}", info.tool);
            let err = CallError::UnknownTool {
                name: info.tool.clone(),
                available: self.tools.names().collect::<Vec<_>>().join(", "),
            };
            return Err(NotPrepared::UnknownTool(info, err));
        };
        let kind = tool.spec().kind;
        info.kind = Some(kind);
        // The human approves the whole command: the prompt and the trail
        // keep it whole (other arguments stay bounded).
        let keep = tool.editable_arg();
        info.args = bounded_object(&args, keep.as_slice());
        let (prepared, args) = self.prepare_args(&tool, args).await;
        let invocation = match prepared {
            Ok(inv) => inv,
            Err(e) => {
                info.summary = format!("{} (refused)", short_call(tool.as_ref(), &info.args));
                let by = match e {
                    ToolError::Scope(_) => RefusedBy::Scope,
                    ToolError::InvalidArguments { .. } => RefusedBy::InvalidArguments,
                };
                return Err(NotPrepared::Refused(
                    info,
                    Decision::deny(by, Some(e.to_string())),
                ));
            }
        };
        // One line, whatever the agent put in its arguments.
        info.summary = one_line_owned(invocation.summary());
        info.proposal = invocation.proposal();
        // What the prompt shows and what may be edited: the tool says.
        info.view = invocation.view();
        info.edit = invocation.edit();
        info.grant = invocation.grant();
        Ok(Prepared {
            info,
            tool,
            invocation,
            args,
        })
    }

    /// Let `tool` parse `args` and check them against the scope; the
    /// arguments come back unchanged (moved, not copied). Preparing a write
    /// reads the file and computes its diff, so it runs off the async
    /// threads; a read resolves and opens a path, a few system calls, done
    /// here rather than paying a thread hand-off on every read.
    pub(super) async fn prepare_args(
        &self,
        tool: &Arc<dyn Tool>,
        args: Map<String, Value>,
    ) -> (Result<Box<dyn Invocation>, ToolError>, Map<String, Value>) {
        if tool.spec().kind == ToolKind::Read {
            return (
                super::contain::prepare(tool.as_ref(), &args, &self.scope),
                args,
            );
        }
        let (tool, scope) = (tool.clone(), self.scope.clone());
        let name = tool.spec().name;
        let work = tokio::task::spawn_blocking(move || {
            let r = super::contain::prepare(tool.as_ref(), &args, &scope);
            (r, args)
        });
        match work.await {
            Ok(done) => done,
            Err(e) => (
                Err(ToolError::InvalidArguments {
                    tool: name.to_string(),
                    message: format!("internal error while preparing the call: {e}"),
                }),
                // The arguments were lost with the failed task.
                Map::new(),
            ),
        }
    }
}
