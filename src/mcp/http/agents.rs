//! Agents of the stateless revision over HTTP. A 2026-07-28 request
//! carries no session, only its client's `clientInfo`: requests from the
//! same client (name and version) are one agent with one shell, which ends
//! once it has been idle (no request, nothing running) for the idle
//! timeout, or when the server stops.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use rmcp::model::Implementation;

use crate::call::AgentInfo;
use crate::mcp::handler::AgentPool;
use crate::supervisor::Supervisor;

type Key = (String, String);

struct Entry {
    agent: AgentInfo,
    busy: usize,
    last_used: Instant,
}

/// The stateless agents of one HTTP server.
#[derive(Default)]
pub struct StatelessAgents {
    entries: Mutex<HashMap<Key, Entry>>,
}

/// Keeps a pooled agent busy (not expirable) while a request runs.
struct Lease {
    pool: Weak<StatelessAgents>,
    key: Key,
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let Some(pool) = self.pool.upgrade() {
            let mut entries = pool.lock();
            if let Some(e) = entries.get_mut(&self.key) {
                e.busy = e.busy.saturating_sub(1);
                e.last_used = Instant::now();
            }
        }
    }
}

impl StatelessAgents {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Entry>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// End the agents idle for longer than `idle`.
    pub fn expire(&self, supervisor: &Supervisor, idle: Duration) {
        let gone: Vec<AgentInfo> = {
            let mut entries = self.lock();
            let now = Instant::now();
            let old: Vec<Key> = entries
                .iter()
                .filter(|(_, e)| e.busy == 0 && now.duration_since(e.last_used) >= idle)
                .map(|(k, _)| k.clone())
                .collect();
            old.into_iter()
                .filter_map(|k| entries.remove(&k))
                .map(|e| e.agent)
                .collect()
        };
        for agent in gone {
            tracing::info!(agent = %agent.name, "stateless HTTP agent idle, ending it");
            supervisor.agent_disconnected(&agent);
        }
    }

    /// End every agent (the server stops).
    pub fn end_all(&self, supervisor: &Supervisor) {
        let all: Vec<Entry> = self.lock().drain().map(|(_, e)| e).collect();
        for e in all {
            supervisor.agent_gone(&e.agent);
            supervisor.agent_disconnected(&e.agent);
        }
    }
}

/// The pool as the handler sees it.
pub struct Pool(pub Arc<StatelessAgents>);

impl AgentPool for Pool {
    fn lease(
        &self,
        supervisor: &Supervisor,
        client: Option<&Implementation>,
    ) -> (AgentInfo, Box<dyn Send>) {
        let key: Key = client
            .map(|c| (c.name.clone(), c.version.clone()))
            .unwrap_or_default();
        let mut entries = self.0.lock();
        let entry = entries.entry(key.clone()).or_insert_with(|| Entry {
            agent: supervisor.agent_connected(
                client.map(|c| c.name.as_str()),
                client.map(|c| c.version.as_str()),
            ),
            busy: 0,
            last_used: Instant::now(),
        });
        entry.busy += 1;
        entry.last_used = Instant::now();
        let agent = entry.agent.clone();
        drop(entries);
        let lease = Lease {
            pool: Arc::downgrade(&self.0),
            key,
        };
        (agent, Box::new(lease))
    }
}
