//! The external calls the agent was allowed to run and has not reported
//! yet: what airlock keeps of each until its result comes (see
//! `external.rs`, which opens, matches and closes them).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use crate::call::{CallId, Proposal};

/// An approved call the agent runs, until its result comes.
#[derive(Debug)]
pub(super) struct OpenCall {
    /// The agent connection that asked.
    pub(super) agent: u64,
    /// (agent session id, tool-use id), when the agent gave a tool-use id.
    pub(super) key: Option<(Option<String>, String)>,
    /// The agent's session id.
    pub(super) session_id: Option<String>,
    /// The agent's tool name.
    pub(super) native_tool: String,
    /// sha256 of the tool input as sent (for agents without tool-use ids,
    /// whose result report repeats the input).
    pub(super) input_sha256: [u8; 32],
    /// When the call arrived.
    pub(super) arrived: Instant,
    /// When it was approved (the agent runs it from then on).
    pub(super) approved_at: Instant,
    /// For writes: the change that was shown.
    pub(super) proposal: Option<Arc<Proposal>>,
}

/// The open external calls.
#[derive(Debug, Default)]
pub(super) struct OpenCalls {
    /// Each open call under its id.
    pub(super) by_id: HashMap<CallId, OpenCall>,
}
