//! The agents of HTTP sessions by session id. A DELETE ends its session's
//! calls at once: rmcp closes the session but waits up to 5 s for the
//! answers of calls still running before the session's handler (and with
//! it the agent) goes, so a command the agent had given up on ran on for
//! those 5 s and its agent was recorded as gone only then.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use crate::call::AgentInfo;
use crate::mcp::handler::SessionAgents;
use crate::supervisor::Supervisor;

/// Session id → its agent, while the session's handler lives.
#[derive(Default)]
pub struct Sessions {
    agents: Mutex<HashMap<String, AgentInfo>>,
}

impl Sessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, AgentInfo>> {
        self.agents.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The session `id` was deleted: cancel its agent's calls now (they
    /// are recorded as cancelled by the disconnect). The disconnect itself
    /// is recorded when the session's handler goes, as before.
    pub fn ended(&self, id: &str, supervisor: &Supervisor) {
        let agent = self.lock().remove(id);
        if let Some(agent) = agent {
            tracing::debug!(agent = %agent.name, "HTTP session deleted: cancelling its calls");
            supervisor.agent_gone(&agent);
        }
    }
}

impl SessionAgents for Sessions {
    fn link(&self, id: &str, agent: &AgentInfo) {
        self.lock().insert(id.to_string(), agent.clone());
    }

    fn unlink(&self, id: &str) {
        self.lock().remove(id);
    }
}
