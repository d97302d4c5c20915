//! The supervisor side of a hook event: map it, decide and record it like
//! one of airlock's own calls (scope, policy, grants, prompt, audit), but
//! leave running it to the agent; record its result from the post-tool
//! event, joined by the tool-use id.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::answer::Answer;
use super::event::{HookAgent, HookEvent, Phase};
use super::native::{self, Mapped, NativeCall};
use super::pending::{Pending, PendingCall};
use super::results::result_of;
use super::wire::Request;
use crate::call::{AgentInfo, CallInfo, DecidedBy, Decision, Runner, ToolKind};
use crate::supervisor::{Supervisor, refusal_message};
use crate::tools::{ToolError, ToolOutput};

/// The hook transport's state in one supervisor.
pub struct Hooks {
    supervisor: Arc<Supervisor>,
    /// One agent per agent session (hooks have no connection).
    agents: Mutex<HashMap<(HookAgent, String), AgentInfo>>,
    pending: Pending,
}

impl Hooks {
    /// For `supervisor`.
    pub fn new(supervisor: Arc<Supervisor>) -> Self {
        Self {
            supervisor,
            agents: Mutex::new(HashMap::new()),
            pending: Pending::default(),
        }
    }

    /// A request that could not be read (audited; nothing ran).
    pub fn malformed(&self, raw: &[u8], error: &str) {
        self.supervisor.protocol_error(None, error, raw);
    }

    /// Answer one hook request. `gone` fires when the hook process left.
    pub async fn handle(&self, request: Request, gone: CancellationToken) -> Answer {
        let raw = request.event.to_string();
        let event = match HookEvent::from_value(request.agent, request.event) {
            Ok(e) => e,
            Err(e) => {
                let agent = self.agent_for(request.agent, None);
                self.supervisor
                    .protocol_error(Some(&agent), &e.to_string(), raw.as_bytes());
                return Answer::Refuse {
                    reason: format!(
                        "airlock could not read the hook event ({e}); the call was refused"
                    ),
                };
            }
        };
        match event.phase {
            Phase::Pre => self.before(event, gone).await,
            Phase::Post => {
                self.after(&event);
                Answer::Pass
            }
        }
    }

    /// The agent (one per agent session) a hook event belongs to.
    fn agent_for(&self, agent: HookAgent, session: Option<&str>) -> AgentInfo {
        let key = (agent, session.unwrap_or_default().to_string());
        let mut agents = self.agents.lock().unwrap_or_else(PoisonError::into_inner);
        agents
            .entry(key)
            .or_insert_with(|| {
                self.supervisor
                    .agent_connected(Some(agent.client_name()), None)
            })
            .clone()
    }

    async fn before(&self, event: HookEvent, gone: CancellationToken) -> Answer {
        if native::is_airlocks_own(&event) {
            // airlock's own MCP tools are gated when they reach airlock.
            return Answer::Allow {
                updated_input: None,
            };
        }
        let scope = self.supervisor.scope_arc();
        let (event, mapped) = match tokio::task::spawn_blocking(move || {
            let mapped = native::map(&event, &scope);
            (event, mapped)
        })
        .await
        {
            Ok(done) => done,
            Err(e) => {
                return Answer::Refuse {
                    reason: format!(
                        "airlock failed while preparing the call ({e}); it was not run"
                    ),
                };
            }
        };
        let agent = self.agent_for(event.agent, event.session_id.as_deref());
        match mapped {
            Mapped::Own => Answer::Allow {
                updated_input: None,
            },
            Mapped::Refused { call, error } => {
                let by = match error {
                    ToolError::Scope(_) => DecidedBy::Scope,
                    _ => DecidedBy::InvalidArguments,
                };
                let reason = error.to_string();
                let info = self.call_info(&agent, &event, &call);
                let decision = Decision::deny(by, Some(reason.clone()));
                match self.supervisor.refuse_unprepared(info, decision) {
                    Ok(()) => Answer::Deny { reason },
                    Err(e) => Answer::Deny {
                        reason: e.to_string(),
                    },
                }
            }
            Mapped::Call(call) => self.decide(&agent, &event, call, gone).await,
        }
    }

    async fn decide(
        &self,
        agent: &AgentInfo,
        event: &HookEvent,
        call: NativeCall,
        gone: CancellationToken,
    ) -> Answer {
        let info = self.call_info(agent, event, &call);
        let id = info.id;
        let started = std::time::Instant::now();
        let decision = match self
            .supervisor
            .decide_external(&info, &call.policy_tool, &call.subject, gone)
            .await
        {
            Ok(d) => d,
            // The decision could not be recorded: nothing may run.
            Err(e) => {
                return Answer::Deny {
                    reason: e.to_string(),
                };
            }
        };
        if !decision.is_approved() {
            return Answer::Deny {
                reason: refusal_message(&decision),
            };
        }
        let updated_input = decision
            .edited_command()
            .map(|edited| with_command(&event.tool_input, edited));
        let ran_input = updated_input
            .clone()
            .map(Value::Object)
            .unwrap_or_else(|| event.tool_input.clone());
        self.pending.insert(
            event,
            &ran_input,
            PendingCall {
                id,
                paths: match &call.subject {
                    crate::call::Subject::Paths { paths } if call.kind == ToolKind::Write => {
                        paths.clone()
                    }
                    _ => Vec::new(),
                },
                proposal: call.proposal.map(Arc::new),
                started,
                decided: std::time::Instant::now(),
            },
        );
        Answer::Allow { updated_input }
    }

    /// The call as airlock records and shows it.
    fn call_info(&self, agent: &AgentInfo, event: &HookEvent, call: &NativeCall) -> CallInfo {
        // The human approves the whole command: the trail keeps it whole.
        let args = if call.kind == ToolKind::Exec {
            crate::audit::bounded_args_except(&event.tool_input, &["command", "cmd"])
        } else {
            crate::audit::bounded_args(&event.tool_input)
        };
        CallInfo {
            id: self.supervisor.next_call_id(),
            agent: agent.clone(),
            tool: crate::audit::excerpt(&event.tool_name, 128),
            kind: Some(call.kind),
            args,
            summary: call.summary.clone(),
            received_at: chrono::Utc::now(),
            runner: Runner::Agent {
                native_tool: crate::audit::excerpt(&event.tool_name, 128),
                tool_use_id: event
                    .tool_use_id
                    .as_deref()
                    .map(|t| crate::audit::excerpt(t, 128)),
                session_id: event
                    .session_id
                    .as_deref()
                    .map(|t| crate::audit::excerpt(t, 128)),
            },
            view: call.view.clone(),
            edit: call.edit.clone(),
            proposal: call.proposal.clone().map(Arc::new),
        }
    }

    /// A post-tool event: the result of a call decided earlier.
    fn after(&self, event: &HookEvent) {
        let Some(pending) = self.pending.take(event) else {
            tracing::debug!(tool = %event.tool_name, "a post-tool event without a decided call");
            return;
        };
        let result = result_of(event);
        let mut text = result.text;
        for path in &pending.paths {
            text.push_str(&format!("\n[airlock] {}", file_digest(path)));
        }
        if let Some(code) = result.exit_code {
            text = format!("[exit code {code}]\n{text}");
        }
        let out = if result.is_error {
            ToolOutput::error(text)
        } else {
            ToolOutput::ok(text)
        };
        self.supervisor.record_external_result(
            pending.id,
            &out,
            pending.proposal.as_deref(),
            (pending.started, pending.decided),
        );
    }
}

/// The agent's input with its command replaced by what the human approved.
fn with_command(input: &Value, command: &str) -> Map<String, Value> {
    let mut out = input.as_object().cloned().unwrap_or_default();
    let key = if out.contains_key("cmd") && !out.contains_key("command") {
        "cmd"
    } else {
        "command"
    };
    out.insert(key.into(), Value::String(command.to_string()));
    out
}

/// `path: sha256 …, N bytes` of a file as it is now, or that it is gone.
fn file_digest(path: &std::path::Path) -> String {
    use sha2::{Digest, Sha256};
    match std::fs::read(path) {
        Ok(bytes) => format!(
            "{} sha256 {} ({} bytes)",
            path.display(),
            hex::encode(Sha256::digest(&bytes)),
            bytes.len()
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => format!("{} is gone", path.display()),
        Err(e) => format!("{} unreadable: {e}", path.display()),
    }
}
