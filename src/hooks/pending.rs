//! Calls decided and handed to the agent, waiting for their post-tool
//! event: keyed by the agent's tool-use id, or (Gemini, which has none) by
//! the session, tool and exact input.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::event::HookEvent;
use crate::call::{CallId, Proposal};

/// Most calls kept waiting for a result; the oldest are forgotten first.
const MAX_PENDING: usize = 4096;

/// A decided call the agent runs.
#[derive(Debug, Clone)]
pub struct PendingCall {
    /// airlock's id of the call.
    pub id: CallId,
    /// For writes: the files whose resulting digest goes in the trail.
    pub paths: Vec<std::path::PathBuf>,
    /// The change shown at the prompt.
    pub proposal: Option<Arc<Proposal>>,
    /// When the hook event arrived.
    pub started: Instant,
    /// When it was decided.
    pub decided: Instant,
}

/// The calls waiting for their result.
#[derive(Default)]
pub struct Pending {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    calls: HashMap<String, VecDeque<PendingCall>>,
    order: VecDeque<String>,
}

fn key(event: &HookEvent, input: &Value) -> String {
    match &event.tool_use_id {
        Some(id) => format!("{}:id:{id}", event.agent.as_str()),
        None => {
            let digest = Sha256::digest(input.to_string().as_bytes());
            format!(
                "{}:{}:{}:{}",
                event.agent.as_str(),
                event.session_id.as_deref().unwrap_or_default(),
                event.tool_name,
                hex::encode(&digest[..12])
            )
        }
    }
}

impl Pending {
    /// Remember `call`, which the agent runs with `input`.
    pub fn insert(&self, event: &HookEvent, input: &Value, call: PendingCall) {
        let k = key(event, input);
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.calls.entry(k.clone()).or_default().push_back(call);
        inner.order.push_back(k);
        while inner.order.len() > MAX_PENDING {
            if let Some(old) = inner.order.pop_front()
                && let Some(q) = inner.calls.get_mut(&old)
            {
                q.pop_front();
                if q.is_empty() {
                    inner.calls.remove(&old);
                }
            }
        }
    }

    /// The call a post-tool event reports on (the oldest one with its key).
    pub fn take(&self, event: &HookEvent) -> Option<PendingCall> {
        let k = key(event, &event.tool_input);
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let q = inner.calls.get_mut(&k)?;
        let call = q.pop_front();
        if q.is_empty() {
            inner.calls.remove(&k);
        }
        if let Some(pos) = inner.order.iter().position(|o| o == &k) {
            inner.order.remove(pos);
        }
        call
    }
}
