//! The event bus: what happens in the core, broadcast to front ends.
//!
//! The bus is lossy for slow subscribers (a lagging TUI skips events); the
//! audit trail does not depend on it, the pipeline writes it directly.

use serde::Serialize;
use tokio::sync::broadcast;

use super::agent::AgentInfo;
use super::decision::Decision;
use super::info::{CallId, CallInfo};
use super::outcome::Outcome;

/// How a call ended, as shown to the human and recorded in the audit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallOutcome {
    /// How it ended.
    pub status: Outcome,
    /// Milliseconds from arrival to the result.
    pub duration_ms: u64,
    /// Of those, milliseconds waiting for a decision (until it ran or was
    /// refused), when known.
    pub wait_ms: Option<u64>,
    /// Of those, milliseconds it ran; `None` when it never ran.
    pub run_ms: Option<u64>,
    /// The text returned to the agent.
    pub text: String,
    /// Whether the result was marked as an error for the agent.
    pub is_error: bool,
    /// Whether output was cut at a limit.
    pub truncated: bool,
    /// The result's `structuredContent` (bash: exit code, cwd …).
    pub structured: Option<serde_json::Value>,
    /// For a tool that keeps a shell (bash): the shell's working directory
    /// afterwards, as the tool reports it. Not serialized (the structured
    /// content has it).
    #[serde(skip)]
    pub shell_cwd: Option<String>,
}

/// One thing that happened in the core.
#[expect(
    clippy::large_enum_variant,
    reason = "CallReceived carries the whole call (its view and edit field); events are rare next to the work each stands for, so no box"
)]
#[derive(Debug, Clone)]
pub enum Event {
    /// An agent connected (an MCP session was initialised).
    AgentConnected(AgentInfo),
    /// An agent's connection ended.
    AgentDisconnected(AgentInfo),
    /// A call arrived and was understood well enough to show.
    CallReceived(CallInfo),
    /// A decision was made (and already written to the audit trail).
    CallDecided {
        /// The call.
        id: CallId,
        /// The decision.
        decision: Decision,
    },
    /// An approved call started running.
    CallStarted {
        /// The call.
        id: CallId,
    },
    /// A chunk of raw output from a running call (bash streams these).
    CallOutput {
        /// The call.
        id: CallId,
        /// Raw bytes as produced.
        chunk: Vec<u8>,
    },
    /// The call ended and its result went back to the agent.
    CallFinished {
        /// The call.
        id: CallId,
        /// How it ended.
        outcome: CallOutcome,
    },
}

/// A cheap-to-clone handle to the broadcast channel.
#[derive(Debug, Clone)]
pub struct EventBus {
    sender: broadcast::Sender<Event>,
}

impl Default for EventBus {
    fn default() -> Self {
        Self::new(4096)
    }
}

impl EventBus {
    /// A bus that buffers `capacity` events per subscriber.
    pub fn new(capacity: usize) -> Self {
        let (sender, _) = broadcast::channel(capacity);
        Self { sender }
    }

    /// Send an event to every current subscriber (none is fine).
    pub fn emit(&self, event: Event) {
        let _ = self.sender.send(event);
    }

    /// Like [`EventBus::emit`], building the event only when someone
    /// listens (an event that copies a call's output costs nothing when
    /// no front end is attached).
    pub fn emit_with(&self, event: impl FnOnce() -> Event) {
        if self.sender.receiver_count() > 0 {
            self.emit(event());
        }
    }

    /// A new subscriber that sees events from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.sender.subscribe()
    }
}
