//! A tool that panics: its call ends as an error that the agent and the
//! audit trail both see, never as a request left unanswered (rmcp drops a
//! request whose task panicked, and its id would stay in flight) nor as a
//! decision with no result in the trail.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use futures::FutureExt;
use serde_json::{Map, Value};

use crate::scope::Scope;
use crate::tools::{Invocation, RunContext, Tool, ToolError, ToolOutput};

/// The words of a panic's payload (`panic!("…")` carries a `&str` or a
/// `String`; anything else is named as such).
pub fn panic_text(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with no message".to_string()
    }
}

/// `tool.prepare`, with a panic turned into a refusal of the call (nothing
/// has run yet).
pub(super) fn prepare(
    tool: &dyn Tool,
    args: &Map<String, Value>,
    scope: &Scope,
) -> Result<Box<dyn Invocation>, ToolError> {
    catch_unwind(AssertUnwindSafe(|| tool.prepare(args, scope))).unwrap_or_else(|p| {
        let text = panic_text(p.as_ref());
        tracing::error!(
            tool = tool.spec().name,
            "preparing the call panicked: {text}"
        );
        Err(ToolError::InvalidArguments {
            tool: tool.spec().name.to_string(),
            message: format!("internal error while preparing the call ({text}); it was not run"),
        })
    })
}

/// Run `invocation`, with a panic (while its future is made or polled)
/// turned into an error result. What it did before it panicked is not
/// known, and the result says so.
pub(super) async fn run(invocation: Box<dyn Invocation>, ctx: RunContext) -> ToolOutput {
    let run = AssertUnwindSafe(async move { invocation.run(ctx).await });
    match run.catch_unwind().await {
        Ok(out) => out,
        Err(p) => {
            let text = panic_text(p.as_ref());
            tracing::error!("a tool panicked while it ran: {text}");
            ToolOutput::error(format!(
                "internal error: the tool stopped while it ran ({text}); \
                 what it did before it stopped is not known"
            ))
        }
    }
}
