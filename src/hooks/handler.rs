//! The supervisor side of a hook event: map it, decide and record it like
//! one of airlock's own calls (scope, policy, grants, prompt, audit) through
//! the supervisor's external-call stages, but leave running it to the
//! agent; record its result from the post-tool event, joined by the
//! tool-use id (Gemini: by session, tool and input).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::answer::Answer;
use super::event::{HookAgent, HookEvent, Phase};
use super::native::{self, Mapped, NativeCall};
use super::results::result_of;
use super::wire::Request;
use crate::call::{AgentInfo, CallId, Decision, RefusedBy, Subject, ToolKind, VerdictSource};
use crate::policy::guardrails::MISREAD_LOCALE;
use crate::supervisor::{ExternalCall, ExternalResult, Supervisor, refusal_message};
use crate::tools::ToolError;

/// Most approved writes whose files are remembered for their result; the
/// oldest are forgotten first (their calls end as `unreported` anyway).
const MAX_WRITES: usize = 4096;

/// The hook transport's state in one supervisor.
pub struct Hooks {
    supervisor: Arc<Supervisor>,
    /// One agent per agent session (hooks have no connection).
    agents: Mutex<HashMap<(HookAgent, String), AgentInfo>>,
    /// Approved native writes: the files whose digest after the write goes
    /// in the call's result.
    writes: Mutex<BTreeMap<CallId, Vec<PathBuf>>>,
}

impl Hooks {
    /// For `supervisor`.
    pub fn new(supervisor: Arc<Supervisor>) -> Self {
        Self {
            supervisor,
            agents: Mutex::new(HashMap::new()),
            writes: Mutex::new(BTreeMap::new()),
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
            Phase::Pre => {
                self.before(event, request.misread_locale.as_deref(), gone)
                    .await
            }
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

    /// A pre-tool event: decide it. `misread_locale`: the agent's shell
    /// reads some commands otherwise than airlock under its locale
    /// ([`super::locale`]), so its shell commands are refused.
    async fn before(
        &self,
        event: HookEvent,
        misread_locale: Option<&str>,
        gone: CancellationToken,
    ) -> Answer {
        if native::is_airlocks_own(&event) {
            // airlock's own MCP tools are gated when they reach airlock.
            return Answer::Allow {
                updated_input: None,
            };
        }
        let supervisor = self.supervisor.clone();
        let (event, mapped) = match tokio::task::spawn_blocking(move || {
            let rules = supervisor.path_rules();
            let mapped = native::map_with(&event, supervisor.scope(), &rules);
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
                    ToolError::Scope(_) => RefusedBy::Scope,
                    ToolError::InvalidArguments { .. } => RefusedBy::InvalidArguments,
                };
                self.refuse(&agent, &event, call, by, error.to_string())
            }
            Mapped::Call(call) if call.kind == ToolKind::Exec && misread_locale.is_some() => {
                let locale = misread_locale.unwrap_or_default();
                let by = RefusedBy::Rule {
                    rule: format!("guardrail: {MISREAD_LOCALE} ({locale})"),
                    source: VerdictSource::Guardrail,
                };
                let reason = format!(
                    "airlock refused the command: the agent's shell runs under {locale}, in \
                     which it would read some bytes of a character and a following backslash \
                     or quote as one character, so it could run otherwise than airlock read and \
                     showed it; start the agent with a UTF-8 locale (LANG=C.UTF-8)"
                );
                self.refuse(&agent, &event, call, by, reason)
            }
            Mapped::Call(call) => self.decide(&agent, &event, call, gone).await,
        }
    }

    /// Record `call` as refused `by`, before anyone is asked, and tell the
    /// agent `reason`.
    fn refuse(
        &self,
        agent: &AgentInfo,
        event: &HookEvent,
        call: NativeCall,
        by: RefusedBy,
        reason: String,
    ) -> Answer {
        let decision = Decision::deny(by, Some(reason.clone()));
        let call = external_call(event, call);
        match self.supervisor.refuse_external(agent, call, &decision) {
            Ok(_) => Answer::Deny { reason },
            Err(e) => Answer::Deny {
                reason: e.to_string(),
            },
        }
    }

    async fn decide(
        &self,
        agent: &AgentInfo,
        event: &HookEvent,
        call: NativeCall,
        gone: CancellationToken,
    ) -> Answer {
        let written = match &call.subject {
            Subject::Paths { paths } if call.kind == ToolKind::Write => paths.clone(),
            _ => Vec::new(),
        };
        // A rewrite the call needs (a shell patch pinned to its directory),
        // sent with any approval unless the human's edit replaces it.
        let run_as = call.run_as.clone();
        let call = external_call(event, call);
        let (id, decision) = match self
            .supervisor
            .decide_external(agent, call, gone, None)
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
            .or(run_as.as_deref())
            .map(|command| native::with_command(event, command));
        if let Some(input) = &updated_input {
            // What the agent runs, and repeats in its report.
            self.supervisor.external_input_ran(id, input);
        }
        if !written.is_empty() {
            let mut writes = self.writes.lock().unwrap_or_else(PoisonError::into_inner);
            writes.insert(id, written);
            while writes.len() > MAX_WRITES {
                writes.pop_first();
            }
        }
        Answer::Allow { updated_input }
    }

    /// A post-tool event: the result of a call decided earlier.
    fn after(&self, event: &HookEvent) {
        let sup = &self.supervisor;
        let session = event.session_id.as_deref();
        let id = match &event.tool_use_id {
            Some(tool_use) => sup.external_call(session, tool_use),
            None => sup.external_call_matching(session, &event.tool_name, &input_of(event)),
        };
        let Some(id) = id else {
            tracing::debug!(tool = %event.tool_name, "a post-tool event without a decided call");
            return;
        };
        let written = self
            .writes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id)
            .unwrap_or_default();
        let native = result_of(event, native::is_shell_tool(event));
        let mut result = ExternalResult {
            is_error: native.is_error,
            exit_code: native.exit_code,
            output: native.text,
            truncated: false,
            file_sha256: None,
        };
        match written.as_slice() {
            [one] => result.file_sha256 = file_sha256(one),
            // One digest field, several files: each is named in the text.
            many => {
                for path in many {
                    let _ = write!(result.output, "\n[airlock] {}", file_digest(path));
                }
            }
        }
        if let Err(e) = sup.finish_external(id, result) {
            tracing::debug!("a post-tool event for a closed call: {e}");
        }
    }
}

/// A native call as the supervisor's external-call stage takes it.
fn external_call(event: &HookEvent, call: NativeCall) -> ExternalCall {
    let args = native::recorded_input(event, &call.subject, input_of(event));
    ExternalCall {
        tool: call.policy_tool,
        kind: call.kind,
        subject: call.subject,
        args,
        summary: call.summary,
        view: call.view,
        edit: call.edit,
        grant: call.grant,
        proposal: call.proposal,
        native_tool: event.tool_name.clone(),
        tool_use_id: event.tool_use_id.clone(),
        session_id: event.session_id.clone(),
    }
}

/// The agent's tool input as an object (a bare value is `{"input": …}`).
fn input_of(event: &HookEvent) -> Map<String, Value> {
    match &event.tool_input {
        Value::Object(o) => o.clone(),
        Value::Null => Map::new(),
        other => Map::from_iter([("input".to_string(), other.clone())]),
    }
}

/// hex sha256 of the file at `path` as it is now (None when it is gone or
/// unreadable).
fn file_sha256(path: &std::path::Path) -> Option<String> {
    use sha2::{Digest, Sha256};
    std::fs::read(path)
        .ok()
        .map(|bytes| hex::encode(Sha256::digest(&bytes)))
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
