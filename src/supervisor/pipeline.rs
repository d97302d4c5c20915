//! The supervisor: runs every call through the pipeline, in order.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use super::confirm::{ConfirmRequest, Confirmer};
use crate::audit::{AuditError, AuditEvent, AuditLog, bounded_args, excerpt};
use crate::call::{
    AgentInfo, ApprovedBy, CallId, CallInfo, CallOutcome, CallView, CancelCause, DecidedBy,
    Decision, EditField, Event, EventBus, Outcome, PolicyVerdict, Proposal, Runner, Subject,
    ToolKind, Verdict, VerdictSource,
};
use crate::policy::Policy;
use crate::scope::Scope;
use crate::tools::{Limits, RunContext, ToolError, ToolOutput, ToolRegistry};

/// Called every few seconds while a call waits for a decision, with the
/// seconds waited so far (the MCP layer sends progress notifications).
pub type WaitHook = Arc<dyn Fn(u64) + Send + Sync>;

/// How often the wait hook fires.
const WAIT_TICK: Duration = Duration::from_secs(5);

/// Most bytes of a result kept as the audit excerpt.
const EXCERPT_BYTES: usize = 512;

/// Most bytes of a write's diff kept in the audit trail.
const MAX_AUDIT_DIFF: usize = 64 * 1024;

/// A call that cannot get a tool result at all (JSON-RPC errors).
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// No enabled tool has this name.
    #[error("unknown tool {name:?}; available tools: {available}")]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// The enabled tools.
        available: String,
    },
    /// The decision could not be recorded, so the call was not run.
    #[error("the call was not run because its audit record could not be written: {0}")]
    Audit(#[from] AuditError),
}

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
    scope: Arc<Scope>,
    tools: ToolRegistry,
    policy: Policy,
    confirmer: Arc<dyn Confirmer>,
    audit: Arc<AuditLog>,
    limits: Limits,
    approval_timeout: Option<Duration>,
    events: EventBus,
    next_call: AtomicU64,
    next_agent: AtomicU64,
    shutdown: CancellationToken,
    /// Per connected agent: cancelled when its connection closes, which
    /// cancels every call it has in flight.
    connections: Mutex<HashMap<u64, CancellationToken>>,
}

impl Supervisor {
    /// Assemble a supervisor. The caller writes the session-start record.
    pub fn new(parts: SupervisorParts) -> Arc<Self> {
        Arc::new(Self {
            scope: Arc::new(parts.scope),
            tools: parts.tools,
            policy: parts.policy,
            confirmer: parts.confirmer,
            audit: parts.audit,
            limits: parts.limits,
            approval_timeout: parts.approval_timeout,
            events: parts.events,
            next_call: AtomicU64::new(1),
            next_agent: AtomicU64::new(1),
            shutdown: CancellationToken::new(),
            connections: Mutex::new(HashMap::new()),
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

    /// "Approve for this session": add a grant (audited).
    pub fn grant(&self, scope: crate::policy::GrantScope) -> crate::policy::Grant {
        let grant = self.policy.grant(scope);
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
        self.record(&AuditEvent::RuleSaved {
            action,
            rule: saved.text(),
            file: saved.source.clone(),
        });
        Ok(saved)
    }

    /// The confirmer's name.
    pub fn confirmer_name(&self) -> &'static str {
        self.confirmer.name()
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
            .map(|n| n.trim())
            .filter(|n| !n.is_empty())
            .map(|n| excerpt(n, 64))
            .unwrap_or_else(|| format!("agent-{id}"));
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

    /// The token cancelled when `agent`'s connection closes.
    fn connection_token(&self, agent: &AgentInfo) -> CancellationToken {
        self.connections_lock().entry(agent.id).or_default().clone()
    }

    fn connections_lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, CancellationToken>> {
        self.connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Why a call whose token fired was cancelled.
    fn cancel_cause(&self, gone: &CancellationToken) -> CancelCause {
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
        self.record(&AuditEvent::AgentDisconnected {
            agent: agent.clone(),
        });
        self.events.emit(Event::AgentDisconnected(agent.clone()));
    }

    /// Run one call through the pipeline. `cancel` is the agent's
    /// cancellation; `on_wait` fires while a decision is pending.
    pub async fn call(
        &self,
        agent: &AgentInfo,
        tool_name: &str,
        args: Option<Map<String, Value>>,
        cancel: CancellationToken,
        on_wait: Option<WaitHook>,
    ) -> Result<ToolOutput, CallError> {
        let started = Instant::now();
        let gone = self.connection_token(agent);
        let id = self.next_call.fetch_add(1, Ordering::Relaxed);
        let args = args.unwrap_or_default();
        let received_at = chrono::Utc::now();
        let mut info = CallInfo {
            id,
            agent: agent.clone(),
            tool: excerpt(tool_name, 128),
            kind: None,
            args: bounded_args(&Value::Object(args.clone())),
            summary: String::new(),
            received_at,
            runner: Runner::Airlock,
            view: CallView::Args,
            edit: None,
            proposal: None,
        };

        // 1. The tool must exist.
        let Some(tool) = self.tools.get(tool_name).cloned() else {
            info.summary = format!("unknown tool {}", info.tool);
            let err = CallError::UnknownTool {
                name: info.tool.clone(),
                available: self.tools.names().collect::<Vec<_>>().join(", "),
            };
            let decision = Decision::deny(DecidedBy::InvalidArguments, Some(err.to_string()));
            self.refuse_early(info, decision, started)?;
            return Err(err);
        };
        let kind = tool.spec().kind;
        info.kind = Some(kind);
        // A call that changes things ends with its agent's connection (the
        // agent's cancellation or the disconnect, whichever comes first); a
        // running read-only call changes nothing and is bounded by the
        // timeout, so it still answers a client that closed its input
        // after its last request.
        let (cancel, _unlink) = if kind == ToolKind::Read {
            (cancel, None)
        } else {
            let (c, guard) = link(cancel, &gone);
            (c, Some(guard))
        };
        if kind == ToolKind::Exec {
            // The human approves the whole command: the prompt and the
            // trail keep it whole (other arguments stay bounded).
            info.args =
                crate::audit::bounded_args_except(&Value::Object(args.clone()), &["command"]);
        }

        // 2. Arguments and path scope: refused outright, never prompted.
        // Preparing a write reads the file and computes its diff, so it runs
        // off the async threads.
        // A command may be edited at the prompt: keep exec tools' arguments.
        let exec_args = (kind == ToolKind::Exec).then(|| args.clone());
        let prepared = if kind == ToolKind::Read {
            // Resolving and opening a path: a few system calls, done here
            // rather than paying a thread hand-off on every read.
            Ok(tool.prepare(&args, &self.scope))
        } else {
            let (tool, scope) = (tool.clone(), self.scope.clone());
            tokio::task::spawn_blocking(move || tool.prepare(&args, &scope)).await
        };
        let prepared = match prepared {
            Ok(p) => p,
            Err(e) => Err(ToolError::InvalidArguments {
                tool: tool_name.to_string(),
                message: format!("internal error while preparing the call: {e}"),
            }),
        };
        let invocation = match prepared {
            Ok(inv) => inv,
            Err(e) => {
                info.summary = format!("{} (refused)", short_call(tool_name, &info.args));
                let by = match e {
                    ToolError::Scope(_) => DecidedBy::Scope,
                    ToolError::InvalidArguments { .. } => DecidedBy::InvalidArguments,
                };
                let text = e.to_string();
                let decision = Decision::deny(by, Some(text.clone()));
                self.refuse_early(info, decision, started)?;
                return Ok(ToolOutput::error(text));
            }
        };
        // One line, whatever the agent put in its arguments.
        info.summary = one_line(&invocation.summary());
        info.proposal = invocation.proposal().map(Arc::new);
        (info.view, info.edit) = view_of(
            kind,
            &invocation.subject(),
            exec_args.as_ref(),
            info.proposal.is_some(),
        );
        self.audit
            .append(&AuditEvent::CallRequested { call: info.clone() })?;
        self.events.emit(Event::CallReceived(info.clone()));

        // 3. Policy, then 4. the confirmer only on "ask".
        let verdict = self.policy.evaluate(tool_name, kind, &invocation.subject());
        let decision = self.decide(&info, verdict, &cancel, &gone, on_wait).await;
        // 4b. The human edited the command: prepare the edited call and
        // judge it again (guardrails and deny rules still hold).
        let (decision, invocation, edit) = match decision.edited_command().map(str::to_string) {
            Some(edited) if decision.is_approved() => {
                let proposed = match invocation.subject() {
                    Subject::Command { command } => command,
                    _ => String::new(),
                };
                match self.prepare_edited(&tool, kind, exec_args, &edited).await {
                    Ok(edited_call) => (decision, edited_call, Some((proposed, edited))),
                    Err(refusal) => (refusal.with_edited_command(edited), invocation, None),
                }
            }
            _ => (decision, invocation, None),
        };

        // 5. The decision is on disk before anything runs.
        self.audit.append(&AuditEvent::CallDecided {
            call_id: id,
            decision: decision.clone(),
        })?;
        if decision.is_approved() && kind != ToolKind::Read {
            // Before anything changes: the decision must survive a crash of
            // the machine, not only of airlock (read-only calls skip this).
            self.audit.sync_data()?;
        }
        self.events.emit(Event::CallDecided {
            id,
            decision: decision.clone(),
        });
        if let Some(refused) = decision.refusal_outcome() {
            let mut text = refusal_message(&decision);
            if let Some(edited) = decision.edited_command() {
                text = format!("the user edited the command to {edited:?}, and {text}");
            }
            let out = ToolOutput::error(text);
            self.finish(id, refused, &out, started, info.proposal.as_deref(), None);
            return Ok(out);
        }

        // 6. Run, bounded by the timeout, the agent's cancellation and shutdown.
        self.events.emit(Event::CallStarted { id });
        let timeout = Duration::from_secs(self.limits.timeout_secs.max(1));
        let run_cancel = cancel.child_token();
        let ctx = RunContext {
            call_id: id,
            agent: agent.clone(),
            scope: self.scope.clone(),
            limits: self.limits.clone(),
            cancel: run_cancel.clone(),
            deadline: Instant::now() + timeout,
            events: self.events.clone(),
        };
        let run_started = Instant::now();
        let run = invocation.run(ctx);
        let (mut out, status) = if kind == ToolKind::Read {
            tokio::select! {
                out = run => { let s = Outcome::of_run(out.is_error); (out, s) }
                _ = tokio::time::sleep(timeout) => {
                    run_cancel.cancel();
                    (ToolOutput::error(format!("timed out after {} s (limits.timeout_secs); nothing was changed", timeout.as_secs())), Outcome::Error)
                }
                _ = cancel.cancelled() => (ToolOutput::error("cancelled by the agent"), Outcome::Cancelled),
                _ = self.shutdown.cancelled() => {
                    run_cancel.cancel();
                    (ToolOutput::error("the airlock supervisor closed while the call ran"), Outcome::Cancelled)
                }
            }
        } else {
            // Write and exec tools own their timeouts and must not be abandoned
            // half-way; they watch the cancellation token themselves.
            let out = run.await;
            let s = if cancel.is_cancelled() || self.shutdown.is_cancelled() {
                Outcome::Cancelled
            } else {
                Outcome::of_run(out.is_error)
            };
            (out, s)
        };
        if let Some((proposed, ran)) = edit {
            say_what_ran(&mut out, &proposed, &ran);
        }
        if kind == ToolKind::Read {
            // A safety net; bash caps its own output (head and tail kept) at
            // bash.max_output_bytes, which is larger.
            cap_output(&mut out, self.limits.max_output_bytes.max(1024));
        }
        let cancelled_by = (status == Outcome::Cancelled).then(|| self.cancel_cause(&gone));
        let timing = (started, Some(run_started));
        self.finish_timed(
            id,
            status,
            &out,
            timing,
            info.proposal.as_deref(),
            cancelled_by,
        );
        Ok(out)
    }

    /// Prepare the command the human edited and approved, and check it
    /// against the policy: `Err` is the refusal to record instead.
    async fn prepare_edited(
        &self,
        tool: &Arc<dyn crate::tools::Tool>,
        kind: ToolKind,
        args: Option<Map<String, Value>>,
        edited: &str,
    ) -> Result<Box<dyn crate::tools::Invocation>, Decision> {
        let Some(mut args) = args else {
            return Err(Decision::deny(
                DecidedBy::InvalidArguments,
                Some("only a command can be edited at the prompt".into()),
            ));
        };
        let name = tool.spec().name;
        args.insert("command".into(), Value::String(edited.to_string()));
        let prepared = if kind == ToolKind::Read {
            // Resolving and opening a path: a few system calls, done here
            // rather than paying a thread hand-off on every read.
            Ok(tool.prepare(&args, &self.scope))
        } else {
            let (tool, scope) = (tool.clone(), self.scope.clone());
            tokio::task::spawn_blocking(move || tool.prepare(&args, &scope)).await
        };
        let invocation = match prepared {
            Ok(Ok(inv)) => inv,
            Ok(Err(e)) => {
                let reason = format!("the edited command is invalid: {e}");
                return Err(Decision::deny(DecidedBy::InvalidArguments, Some(reason)));
            }
            Err(e) => {
                let reason = format!("internal error while preparing the edited command: {e}");
                return Err(Decision::deny(DecidedBy::InvalidArguments, Some(reason)));
            }
        };
        let verdict = self.policy.evaluate(name, kind, &invocation.subject());
        if verdict.verdict == Verdict::Deny {
            let by = DecidedBy::from(approver(&verdict));
            let reason = format!("blocked by rule {} (from {})", verdict.rule, verdict.source);
            return Err(Decision::deny(by, Some(reason)));
        }
        Ok(invocation)
    }

    /// Decide about a call the policy has judged.
    async fn decide(
        &self,
        info: &CallInfo,
        verdict: PolicyVerdict,
        cancel: &CancellationToken,
        gone: &CancellationToken,
        on_wait: Option<WaitHook>,
    ) -> Decision {
        let cancelled = || {
            let by = if gone.is_cancelled() {
                DecidedBy::Disconnected
            } else {
                DecidedBy::Cancelled
            };
            Decision::deny(by, None)
        };
        let by_rule = approver(&verdict);
        match verdict.verdict {
            Verdict::Allow => return Decision::approve(by_rule),
            Verdict::Deny => {
                let reason = format!("blocked by rule {} (from {})", verdict.rule, verdict.source);
                return Decision::deny(by_rule, Some(reason));
            }
            Verdict::Ask => {}
        }
        if cancel.is_cancelled() || gone.is_cancelled() {
            return cancelled();
        }
        let prompt_cancel = cancel.child_token();
        let request = ConfirmRequest {
            call: info.clone(),
            verdict,
            cancel: prompt_cancel.clone(),
        };
        let confirmer = self.confirmer.clone();
        // A panicking confirmer must not take the pipeline down, nor approve.
        let mut answer = tokio::spawn(async move { confirmer.confirm(request).await });
        let deadline = self
            .approval_timeout
            .map(|t| tokio::time::Instant::now() + t);
        let waited_since = Instant::now();
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + WAIT_TICK, WAIT_TICK);
        let decision = loop {
            tokio::select! {
                res = &mut answer => break match res {
                    Ok(d) => d,
                    Err(e) => {
                        tracing::error!("confirmer failed: {e}");
                        Decision::deny(DecidedBy::ConfirmerFailed, None)
                    }
                },
                _ = cancel.cancelled() => break cancelled(),
                _ = gone.cancelled() => break cancelled(),
                _ = self.shutdown.cancelled() => break Decision::deny(DecidedBy::Shutdown, None),
                _ = sleep_until(deadline) => break Decision::deny(DecidedBy::Timeout, None),
                _ = tick.tick() => {
                    if let Some(hook) = &on_wait {
                        hook(waited_since.elapsed().as_secs());
                    }
                }
            }
        };
        prompt_cancel.cancel();
        answer.abort();
        decision
    }

    /// Audit a call refused before it could be shown (unknown tool, bad
    /// arguments, scope).
    fn refuse_early(
        &self,
        info: CallInfo,
        decision: Decision,
        started: Instant,
    ) -> Result<(), CallError> {
        let id = info.id;
        self.audit
            .append(&AuditEvent::CallRequested { call: info.clone() })?;
        self.events.emit(Event::CallReceived(info));
        self.audit.append(&AuditEvent::CallDecided {
            call_id: id,
            decision: decision.clone(),
        })?;
        self.events.emit(Event::CallDecided {
            id,
            decision: decision.clone(),
        });
        let text = decision.reason().unwrap_or_default().to_string();
        self.finish(
            id,
            decision.refusal_outcome().unwrap_or(Outcome::Refused),
            &ToolOutput::error(text),
            started,
            None,
            None,
        );
        Ok(())
    }

    /// Audit and announce how a call ended that never ran.
    fn finish(
        &self,
        id: CallId,
        status: Outcome,
        out: &ToolOutput,
        started: Instant,
        proposal: Option<&Proposal>,
        cancelled_by: Option<CancelCause>,
    ) {
        self.finish_timed(id, status, out, (started, None), proposal, cancelled_by)
    }

    /// Audit and announce how a call ended; `(arrived, ran)` separate the
    /// time it waited (for a decision) from the time it ran.
    fn finish_timed(
        &self,
        id: CallId,
        status: Outcome,
        out: &ToolOutput,
        (started, ran): (Instant, Option<Instant>),
        proposal: Option<&Proposal>,
        cancelled_by: Option<CancelCause>,
    ) {
        let duration_ms = started.elapsed().as_millis() as u64;
        let wait_ms = Some(ran.map_or(duration_ms, |r| (r - started).as_millis() as u64));
        let run_ms = ran.map(|r| r.elapsed().as_millis() as u64);
        let diff = proposal.and_then(|p| p.diff.as_deref());
        self.record(&AuditEvent::CallFinished {
            call_id: id,
            status,
            duration_ms,
            wait_ms,
            run_ms,
            is_error: out.is_error,
            truncated: out.truncated,
            output_bytes: out.text.len(),
            output_sha256: hex::encode(Sha256::digest(out.text.as_bytes())),
            excerpt: excerpt(&out.text, EXCERPT_BYTES),
            change: proposal.map(|p| crate::audit::ChangeRecord {
                path: p.path.clone(),
                action: p.action,
                summary: p.summary(),
                diff: diff.map(|d| excerpt(d, MAX_AUDIT_DIFF)),
                diff_sha256: diff.map(|d| hex::encode(Sha256::digest(d.as_bytes()))),
                diff_truncated: diff.is_some_and(|d| d.len() > MAX_AUDIT_DIFF),
            }),
            cancelled_by,
        });
        self.events.emit(Event::CallFinished {
            id,
            outcome: CallOutcome {
                status,
                duration_ms,
                wait_ms,
                run_ms,
                text: out.text.clone(),
                is_error: out.is_error,
                truncated: out.truncated,
                structured: out.structured.clone(),
            },
        });
    }

    /// Append a record whose failure cannot stop anything any more; log it.
    fn record(&self, event: &AuditEvent) {
        if let Err(e) = self.audit.append(event) {
            tracing::error!("audit write failed: {e}");
        }
    }
}

/// What the prompt shows for a prepared call of one of airlock's own tools,
/// and what the human may edit: a command (editable), a file change, or
/// the arguments.
fn view_of(
    kind: ToolKind,
    subject: &Subject,
    args: Option<&Map<String, Value>>,
    has_proposal: bool,
) -> (CallView, Option<EditField>) {
    match (kind, subject) {
        (ToolKind::Exec, Subject::Command { command }) => {
            let description = args
                .and_then(|a| a.get("description"))
                .and_then(Value::as_str)
                .map(str::to_string);
            let view = CallView::Command {
                command: command.clone(),
                cwd: None,
                description,
            };
            let edit = EditField::Command {
                text: command.clone(),
            };
            (view, Some(edit))
        }
        _ if has_proposal => (CallView::Change, None),
        _ => (CallView::Args, None),
    }
}

/// Who a verdict's rule approves as (or refuses as): a session grant or a
/// configured rule.
fn approver(verdict: &PolicyVerdict) -> ApprovedBy {
    match &verdict.source {
        VerdictSource::Session => ApprovedBy::Grant {
            rule: verdict.rule.clone(),
        },
        VerdictSource::Configured(source) => ApprovedBy::Rule {
            rule: verdict.rule.clone(),
            source: source.clone(),
        },
    }
}

/// A token cancelled when `cancel` or `gone` is, and a guard that ends the
/// link (its task) when the call is over.
fn link(
    cancel: CancellationToken,
    gone: &CancellationToken,
) -> (CancellationToken, tokio_util::sync::DropGuard) {
    let merged = cancel.child_token();
    let done = CancellationToken::new();
    if gone.is_cancelled() {
        merged.cancel();
    } else {
        let (m, d, g) = (merged.clone(), done.clone(), gone.clone());
        tokio::spawn(async move {
            tokio::select! {
                _ = g.cancelled() => m.cancel(),
                _ = d.cancelled() => {}
                _ = m.cancelled() => {}
            }
        });
    }
    (merged, done.drop_guard())
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// Tell the agent that the human edited its command: what it proposed and
/// what ran, in the text and the structured result.
fn say_what_ran(out: &mut ToolOutput, proposed: &str, ran: &str) {
    out.add_notice(&format!(
        "[the user edited the command before approving it]\nproposed: {proposed}\nran: {ran}\n"
    ));
    if let Some(Value::Object(m)) = &mut out.structured {
        m.insert(
            "proposed_command".into(),
            Value::String(proposed.to_string()),
        );
        m.insert("command".into(), Value::String(ran.to_string()));
    }
}

/// Cap a result at `max` bytes (a safety net; tools cap their own output).
fn cap_output(out: &mut ToolOutput, max: usize) {
    if out.text.len() <= max {
        return;
    }
    let mut cut = max;
    while !out.text.is_char_boundary(cut) {
        cut -= 1;
    }
    out.text.truncate(cut);
    out.text.push_str("\n[truncated: output limit reached]");
    out.truncated = true;
}

/// `s` with control characters escaped (`\n`, `\t`, `\x1b` …), so a
/// summary is always one line on screen.
fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// A one-line description of a call that could not be prepared, from its
/// raw arguments: `cat .env`, `bash rm -rf /`, `grep {"pattern":…}`.
fn short_call(tool: &str, args: &Value) -> String {
    let first = ["path", "command", "path_a", "pattern"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str));
    let detail = match first {
        Some(s) => s.lines().next().unwrap_or_default().to_string(),
        None => match args.as_object() {
            Some(o) if o.is_empty() => String::new(),
            _ => args.to_string(),
        },
    };
    excerpt(one_line(format!("{tool} {detail}").trim()).as_str(), 120)
}

/// The message the agent gets for a call that was not run.
pub fn refusal_message(d: &Decision) -> String {
    let reason = d.reason().map(str::trim).filter(|r| !r.is_empty());
    match &d.by() {
        DecidedBy::User => match reason {
            Some(r) => format!("denied by the user: {r}. The call was not run."),
            None => "denied by the user. The call was not run.".into(),
        },
        DecidedBy::Rule { rule, source } => {
            format!("blocked by the policy rule {rule} (from {source}); the call was not run.")
        }
        DecidedBy::Grant { rule } => {
            format!("blocked by the session rule {rule}; the call was not run.")
        }
        DecidedBy::Timeout => {
            "no answer from the user in time (they may be away); the call was not run. \
             It was not denied: you may try again later."
                .into()
        }
        DecidedBy::Cancelled => "the call was cancelled before it ran.".into(),
        DecidedBy::Disconnected => {
            "the agent disconnected while the call waited; it was not run.".into()
        }
        DecidedBy::Shutdown => "the airlock supervisor closed; the call was not run.".into(),
        DecidedBy::ConfirmerFailed => {
            "the approval prompt failed, so the call was not run (treated as denied).".into()
        }
        DecidedBy::Headless
        | DecidedBy::Scope
        | DecidedBy::InvalidArguments
        | DecidedBy::ApproveAll => reason.unwrap_or("the call was not run.").to_string(),
    }
}
