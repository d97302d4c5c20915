//! A native call in airlock's terms, as the mapping ([`super::native`] for
//! reads and shells, `change` for writes) produces it, and the helpers both
//! share: airlock's own tools whose checks they reuse, one-line summaries.

use crate::call::{CallView, EditField, GrantShape, Proposal, Subject, ToolKind};
use crate::tools::ToolError;

/// What a native call is, once mapped.
#[derive(Debug)]
pub enum Mapped {
    /// One of airlock's own MCP tools: airlock already gates it.
    Own,
    /// A call to decide.
    Call(NativeCall),
    /// Refused before anyone is asked (scope, unreadable arguments).
    Refused {
        /// The call as far as it was understood.
        call: NativeCall,
        /// Why.
        error: ToolError,
    },
}

/// A native call in airlock's terms.
#[derive(Debug, Clone)]
pub struct NativeCall {
    /// What it does.
    pub kind: ToolKind,
    /// The airlock tool whose rules and grants apply (`bash`, `write_file`,
    /// `read_file` …), or the native name for tools airlock has no
    /// counterpart of (`WebFetch`, `mcp__github__create_issue`).
    pub policy_tool: String,
    /// What the policy matches.
    pub subject: Subject,
    /// One line for lists and the trail.
    pub summary: String,
    /// What the prompt shows.
    pub view: CallView,
    /// The file change, for writes.
    pub proposal: Option<Proposal>,
    /// What the human may edit before approving (when the agent accepts a
    /// rewritten input).
    pub edit: Option<EditField>,
    /// What a grant of it can cover (as airlock's matching tool says).
    pub grant: GrantShape,
    /// The command the agent is told to run instead when the call is
    /// approved (the answer's rewrite): a Codex shell patch pinned to the
    /// directory its diff was computed in. None: the call as sent.
    pub run_as: Option<String>,
}

impl NativeCall {
    pub(super) fn new(kind: ToolKind, policy_tool: &str, summary: String) -> Self {
        Self {
            kind,
            policy_tool: policy_tool.to_string(),
            subject: Subject::None,
            summary,
            view: CallView::Args,
            proposal: None,
            edit: None,
            grant: GrantShape::None,
            run_as: None,
        }
    }
}

/// A call whose arguments say too little to be judged.
pub(super) fn unreadable(kind: ToolKind, tool: &str, native: &str, what: &str) -> Mapped {
    Mapped::Refused {
        call: NativeCall::new(kind, tool, one_line(native)),
        error: ToolError::InvalidArguments {
            tool: native.to_string(),
            message: format!(
                "{what}; airlock cannot tell what the call would do, so it was not run"
            ),
        },
    }
}

/// One of airlock's built-in tools, whose checks a native call reuses
/// (whether or not it is enabled for agents).
pub(super) fn airlock_tool(name: &str) -> std::sync::Arc<dyn crate::tools::Tool> {
    match airlock_tools().get(name) {
        Some(t) => t.clone(),
        None => unreachable!("{name} is a built-in tool"),
    }
}

/// airlock's built-in tools (bash unconfigured: asked, never run).
pub(super) fn airlock_tools() -> &'static crate::tools::ToolRegistry {
    crate::tools::ToolRegistry::builtin()
}

/// `s` on one line (control characters escaped, as the pipeline's own
/// summaries), at most 200 bytes.
pub(super) fn one_line(s: &str) -> String {
    crate::audit::excerpt(&crate::supervisor::one_line(s.trim()), 200)
}
