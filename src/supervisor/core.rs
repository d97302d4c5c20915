//! The supervisor's state shared by every agent connection: its parts,
//! the connected agents, grants and saved rules, and shutdown. The call
//! pipeline's stages are in the sibling modules.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::confirm::Confirmer;
use super::open_calls::OpenCalls;
use crate::audit::{AuditEvent, AuditLog, excerpt};
use crate::call::{AgentInfo, CallId, CancelCause, Event, EventBus};
use crate::policy::{PathRules, Policy};
use crate::scope::Scope;
use crate::tools::{Limits, ToolRegistry};

/// Called every few seconds while a call waits for a decision, with the
/// seconds waited so far (the MCP layer sends progress notifications).
pub type WaitHook = Arc<dyn Fn(u64) + Send + Sync>;

/// What a supervisor is built from.
pub struct SupervisorParts {
    /// The path scope.
    pub scope: Scope,
    /// The enabled tools.
    pub tools: ToolRegistry,
    /// The policy.
    pub policy: Policy,
    /// Who answers "ask".
    pub confirmer: Arc<dyn Confirmer>,
    /// The open audit trail.
    pub audit: Arc<AuditLog>,
    /// Per-call limits.
    pub limits: Limits,
    /// How long a call may wait for a decision (`None`: forever).
    pub approval_timeout: Option<Duration>,
    /// The event bus to broadcast on.
    pub events: EventBus,
}

/// The core of a supervisor session, shared by every agent connection.
pub struct Supervisor {
    pub(super) scope: Arc<Scope>,
    pub(super) tools: ToolRegistry,
    pub(super) policy: Policy,
    /// The policy's deny and ask rules about paths, compiled (for read
    /// tools' walks and `read_file` rules: see `decide.rs`); built again
    /// whenever a rule is saved.
    path_rules: RwLock<Arc<PathRules>>,
    pub(super) confirmer: Arc<dyn Confirmer>,
    pub(super) audit: Arc<AuditLog>,
    pub(super) limits: Limits,
    pub(super) approval_timeout: Option<Duration>,
    pub(super) events: EventBus,
    next_call: AtomicU64,
    next_agent: AtomicU64,
    pub(super) shutdown: CancellationToken,
    /// Per connected agent: cancelled when its connection closes, which
    /// cancels every call it has in flight.
    connections: Mutex<HashMap<u64, CancellationToken>>,
    /// Calls the agent runs itself, decided and waiting for their result.
    pub(super) external: Mutex<OpenCalls>,
}

impl Supervisor {
    /// Assemble a supervisor. The caller writes the session-start record.
    pub fn new(parts: SupervisorParts) -> Arc<Self> {
        let path_rules = PathRules::new(&parts.policy.rules(), parts.scope.workspace());
        let scope = Arc::new(parts.scope);
        Arc::new(Self {
            // Known-safe commands are held to the session's scope.
            policy: parts.policy.with_scope(scope.clone()),
            scope,
            tools: parts.tools,
            path_rules: RwLock::new(Arc::new(path_rules)),
            confirmer: parts.confirmer,
            audit: parts.audit,
            limits: parts.limits,
            approval_timeout: parts.approval_timeout,
            events: parts.events,
            next_call: AtomicU64::new(1),
            next_agent: AtomicU64::new(1),
            shutdown: CancellationToken::new(),
            connections: Mutex::new(HashMap::new()),
            external: Mutex::new(OpenCalls::default()),
        })
    }

    /// The enabled tools.
    pub fn tools(&self) -> &ToolRegistry {
        &self.tools
    }

    /// The path scope.
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// The event bus.
    pub fn events(&self) -> &EventBus {
        &self.events
    }

    /// The audit trail.
    pub fn audit(&self) -> &AuditLog {
        &self.audit
    }

    /// The policy (rules, mode, session grants).
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The policy's deny and ask rules about paths, as they are now.
    pub fn path_rules(&self) -> Arc<PathRules> {
        self.path_rules
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// "Approve for this session": add a grant for calls of `tools` (the
    /// call's grant shape's `rule_tools`), audited.
    pub fn grant(&self, scope: crate::policy::GrantScope, tools: &[&str]) -> crate::policy::Grant {
        let grant = self.policy.grant(scope, tools);
        self.record(&AuditEvent::GrantAdded {
            grant: grant.clone(),
        });
        grant
    }

    /// Revoke a session grant (audited); false if there was none.
    pub fn revoke_grant(&self, id: u64) -> bool {
        match self.policy.grants().revoke(id) {
            Some(grant) => {
                self.record(&AuditEvent::GrantRevoked { grant });
                true
            }
            None => false,
        }
    }

    /// "Always": save a rule to the project's `.airlock.toml` and apply it
    /// from now on (audited).
    pub fn save_rule(
        &self,
        action: crate::policy::Action,
        rule: &str,
    ) -> Result<crate::policy::Rule, crate::policy::persist::PersistError> {
        let saved = self.policy.always(action, rule)?;
        let rebuilt = PathRules::new(&self.policy.rules(), self.scope.workspace());
        *self
            .path_rules
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Arc::new(rebuilt);
        self.record(&AuditEvent::RuleSaved {
            action,
            rule: saved.text(),
            file: saved.source.clone(),
        });
        Ok(saved)
    }

    /// Who answers this supervisor's "ask" verdicts.
    pub fn confirmer_kind(&self) -> crate::call::ConfirmerKind {
        self.confirmer.kind()
    }

    /// Cancelled when the supervisor shuts down.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }

    /// Stop: pending and running calls end as cancelled ("supervisor
    /// closed"), and the session-end record is written.
    pub fn shutdown(&self, reason: &str) {
        if self.shutdown.is_cancelled() {
            return;
        }
        self.shutdown.cancel();
        self.close_unreported(|_| true, "the airlock supervisor closed");
        for tool in self.tools.iter() {
            tool.shutdown();
        }
        self.record(&AuditEvent::SessionEnd {
            reason: reason.to_string(),
        });
        if let Err(e) = self.audit.sync() {
            tracing::error!("audit sync failed: {e}");
        }
    }

    /// Register a new agent connection, named from its `clientInfo`.
    pub fn agent_connected(&self, name: Option<&str>, version: Option<&str>) -> AgentInfo {
        let id = self.next_agent.fetch_add(1, Ordering::Relaxed);
        let name = name
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map_or_else(|| format!("agent-{id}"), |n| excerpt(n, 64));
        let agent = AgentInfo {
            id,
            name,
            version: version.map(|v| excerpt(v, 64)),
        };
        self.connections_lock()
            .insert(agent.id, CancellationToken::new());
        self.record(&AuditEvent::AgentConnected {
            agent: agent.clone(),
        });
        self.events.emit(Event::AgentConnected(agent.clone()));
        agent
    }

    /// A message from an agent was rejected before it reached a tool
    /// (audited; nothing ran).
    pub fn protocol_error(&self, agent: Option<&AgentInfo>, error: &str, raw: &[u8]) {
        self.record(&AuditEvent::ProtocolError {
            agent: agent.cloned(),
            error: excerpt(error, 512),
            excerpt: excerpt(&String::from_utf8_lossy(&raw[..raw.len().min(1024)]), 256),
        });
    }

    /// An agent's connection closed (its stdin or socket ended): every call
    /// it has in flight is cancelled now — prompts closed, commands killed —
    /// and audited as cancelled by the disconnect. Calls it makes after this
    /// are cancelled at once.
    pub fn agent_gone(&self, agent: &AgentInfo) {
        if let Some(token) = self.connections_lock().get(&agent.id) {
            token.cancel();
        }
    }

    /// A new call id.
    pub(super) fn next_call_id(&self) -> CallId {
        self.next_call.fetch_add(1, Ordering::Relaxed)
    }

    /// The token cancelled when `agent`'s connection closes.
    pub(super) fn connection_token(&self, agent: &AgentInfo) -> CancellationToken {
        self.connections_lock().entry(agent.id).or_default().clone()
    }

    fn connections_lock(&self) -> MutexGuard<'_, HashMap<u64, CancellationToken>> {
        self.connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Why a call whose token fired was cancelled.
    pub(super) fn cancel_cause(&self, gone: &CancellationToken) -> CancelCause {
        if gone.is_cancelled() {
            CancelCause::Disconnect
        } else if self.shutdown.is_cancelled() {
            CancelCause::Shutdown
        } else {
            CancelCause::Agent
        }
    }

    /// An agent connection ended.
    pub fn agent_disconnected(&self, agent: &AgentInfo) {
        if let Some(token) = self.connections_lock().remove(&agent.id) {
            token.cancel();
        }
        for tool in self.tools.iter() {
            tool.agent_disconnected(agent);
        }
        let gone = agent.id;
        self.close_unreported(
            |open| open.agent == gone,
            "the agent disconnected before it reported the result",
        );
        self.record(&AuditEvent::AgentDisconnected {
            agent: agent.clone(),
        });
        self.events.emit(Event::AgentDisconnected(agent.clone()));
    }

    /// Append a record whose failure cannot stop anything any more; log it.
    pub(super) fn record(&self, event: &AuditEvent) {
        if let Err(e) = self.audit.append(event) {
            tracing::error!("audit write failed: {e}");
        }
    }
}
