//! Calls the agent runs itself (its native tools, reported through its
//! hooks): airlock checks the scope, decides and records exactly as for its
//! own tools, the agent runs the call, and its result is recorded when the
//! agent reports it — or, when no report comes, the call is closed as
//! `unreported`.

use std::path::PathBuf;
use std::sync::{Arc, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use super::core::{Supervisor, WaitHook};
use super::error::CallError;
use super::open_calls::{OpenCall, OpenCalls};
use super::record::CallResult;
use super::words::one_line;
use crate::audit::{bounded_object, excerpt};
use crate::call::{
    AgentInfo, CallId, CallInfo, CallView, Decision, EditField, Event, GrantShape, Outcome,
    Proposal, RefusedBy, Runner, Subject, ToolKind,
};
use crate::scope::ScopeError;
use crate::tools::ToolOutput;

/// How long an approved call the agent runs may go without its result
/// before it is closed as `unreported` (checked whenever an external call
/// is decided or finished; see [`Supervisor::close_stale_external`]).
pub const EXTERNAL_RESULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// A call the agent will run itself, mapped onto airlock's vocabulary by
/// the transport (the hook listener).
#[derive(Debug, Clone)]
pub struct ExternalCall {
    /// The vocabulary name the policy matches (`bash`, `write_file`,
    /// `edit_file`, `read_file` …, or the native name when nothing fits).
    pub tool: String,
    /// What it does.
    pub kind: ToolKind,
    /// What the policy matches. `Paths` are as the agent gave them
    /// (relative to the workspace or absolute): they are resolved and
    /// checked against the scope here, and a path outside it refuses the
    /// call outright.
    pub subject: Subject,
    /// The agent's tool input as it sent it (kept bounded in the trail).
    pub args: Map<String, Value>,
    /// A one-line summary for people.
    pub summary: String,
    /// What the prompt shows.
    pub view: CallView,
    /// What the human may edit (only when the agent accepts a rewritten
    /// input).
    pub edit: Option<EditField>,
    /// What a grant of it can cover (as airlock's matching tool says).
    pub grant: GrantShape,
    /// For writes: the change, computed by the transport.
    pub proposal: Option<Proposal>,
    /// The agent's own tool name (`Bash`, `apply_patch`, `run_shell_command` …).
    pub native_tool: String,
    /// The agent's id for this tool use, which its result report carries.
    pub tool_use_id: Option<String>,
    /// The agent's session id.
    pub session_id: Option<String>,
}

/// What the agent reported after running a call.
#[derive(Debug, Clone, Default)]
pub struct ExternalResult {
    /// The tool failed (or the command exited non-zero).
    pub is_error: bool,
    /// For a command: its exit code as the agent's payload reports it in
    /// a field, or unknown. None for other tools.
    pub exit_code: Option<crate::call::ExitCode>,
    /// The result text the agent's tool produced (its output).
    pub output: String,
    /// The agent cut the output it reported.
    pub truncated: bool,
    /// For writes: hex sha256 of the file after the write.
    pub file_sha256: Option<String>,
}

/// A result that cannot be recorded.
#[derive(Debug, thiserror::Error)]
pub enum ExternalError {
    /// No approved external call is open under this id (never decided,
    /// refused, already finished or closed as unreported).
    #[error("no open call {0} waits for a result")]
    NotOpen(CallId),
}

impl Supervisor {
    /// Decide about a call the agent will run itself, and record it as
    /// airlock's own calls are (`call_requested`, `call_decided`; for a
    /// refusal also `call_finished`). The call's runner is
    /// [`Runner::Agent`]. Paths are checked against the scope first (a
    /// path outside it is refused, never prompted). An approval stays open
    /// until [`Supervisor::finish_external`]; an edited command is judged
    /// again like an edit of airlock's own. `cancel` ends a pending prompt
    /// (the hook process went away). `Err`: the decision could not be
    /// recorded, so the agent must be told not to run the call.
    pub async fn decide_external(
        &self,
        agent: &AgentInfo,
        call: ExternalCall,
        cancel: CancellationToken,
        on_wait: Option<WaitHook>,
    ) -> Result<(CallId, Decision), CallError> {
        self.close_stale_external(EXTERNAL_RESULT_TIMEOUT);
        let arrived = Instant::now();
        let id = self.next_call_id();
        let key = call
            .tool_use_id
            .clone()
            .map(|t| (call.session_id.clone(), t));
        let (session_id, native_tool) = (call.session_id.clone(), call.native_tool.clone());
        let input_sha256 = input_digest(&call.args);
        let (mut info, subject) = external_info(id, agent, call);
        let subject = match self.check_scope(info.kind, subject) {
            Ok(s) => s,
            Err(e) => {
                let decision = Decision::deny(RefusedBy::Scope, Some(e.to_string()));
                info.summary = format!("{} (refused)", info.summary);
                self.refuse_early(&info, &decision, arrived)?;
                return Ok((id, decision));
            }
        };
        self.record_requested(&info)?;
        let mut decision = self.decide(&info, &subject, &cancel, on_wait).await;
        if let (true, Some(edited)) = (decision.is_approved(), decision.edited_command()) {
            let edited = edited.to_string();
            let recheck = match &info.edit {
                Some(EditField::Command { .. }) => self.recheck_edited(
                    &info,
                    &Subject::Command {
                        command: edited.clone(),
                    },
                ),
                None => Err(Decision::deny(
                    RefusedBy::InvalidArguments,
                    Some("this call cannot be edited at the prompt".into()),
                )),
            };
            if let Err(refusal) = recheck {
                decision = refusal.with_edited_command(edited);
            }
        }
        self.record_decision(&info, &decision)?;
        if let Some(refused) = decision.refusal_outcome() {
            let out = ToolOutput::error(super::words::refusal_message(&decision));
            self.record_not_run(&info, refused, &out, arrived);
        } else {
            self.events.emit(Event::CallStarted { id });
            let open = OpenCall {
                agent: agent.id,
                key,
                session_id,
                native_tool,
                input_sha256,
                arrived,
                approved_at: Instant::now(),
                proposal: info.proposal.take(),
            };
            self.open_calls().by_id.insert(id, open);
        }
        Ok((id, decision))
    }

    /// The open (approved, not yet finished) external call that the agent
    /// session `session_id` knows as `tool_use_id`.
    pub fn external_call(&self, session_id: Option<&str>, tool_use_id: &str) -> Option<CallId> {
        let open = self.open_calls();
        open.by_id
            .iter()
            .find(|(_, c)| {
                c.key
                    .as_ref()
                    .is_some_and(|(s, t)| s.as_deref() == session_id && t == tool_use_id)
            })
            .map(|(id, _)| *id)
    }

    /// Record an external call the transport refused before anyone was
    /// asked (its input says too little to judge it, a patch that does not
    /// apply, a path the scope refuses while the transport reads the file
    /// to diff it): requested, decided and finished, like airlock's own
    /// calls refused early. `Err`: it could not be recorded.
    pub fn refuse_external(
        &self,
        agent: &AgentInfo,
        call: ExternalCall,
        decision: &Decision,
    ) -> Result<CallId, CallError> {
        let id = self.next_call_id();
        let (info, _) = external_info(id, agent, call);
        self.refuse_early(&info, decision, Instant::now())?;
        Ok(id)
    }

    /// The agent runs the open call `id` with `input` instead of the input
    /// it asked with (the command was edited at the prompt): its report,
    /// which repeats the input it ran, is matched against this one by
    /// [`Supervisor::external_call_matching`].
    pub fn external_input_ran(&self, id: CallId, input: &Map<String, Value>) {
        if let Some(open) = self.open_calls().by_id.get_mut(&id) {
            open.input_sha256 = input_digest(input);
        }
    }

    /// For agents whose reports carry no tool-use id (Gemini CLI): the
    /// oldest open external call of agent session `session_id` for
    /// `native_tool` whose input was exactly `input`.
    pub fn external_call_matching(
        &self,
        session_id: Option<&str>,
        native_tool: &str,
        input: &Map<String, Value>,
    ) -> Option<CallId> {
        let digest = input_digest(input);
        let open = self.open_calls();
        open.by_id
            .iter()
            .filter(|(_, c)| {
                c.session_id.as_deref() == session_id
                    && c.native_tool == native_tool
                    && c.input_sha256 == digest
            })
            .min_by_key(|(id, _)| **id)
            .map(|(id, _)| *id)
    }

    /// Record the result the agent reported for the open external call
    /// `id` (`call_finished`, as for airlock's own calls, with the exit code
    /// and, for writes, the file's digest) and close it.
    pub fn finish_external(&self, id: CallId, result: ExternalResult) -> Result<(), ExternalError> {
        let open = self
            .open_calls()
            .by_id
            .remove(&id)
            .ok_or(ExternalError::NotOpen(id))?;
        let out = ToolOutput {
            is_error: result.is_error,
            truncated: result.truncated,
            ..ToolOutput::ok(result.output)
        };
        self.record_result(
            id,
            CallResult {
                ran: Some(open.approved_at),
                proposal: open.proposal.as_deref(),
                exit_code: result.exit_code,
                file_sha256: result.file_sha256,
                ..CallResult::not_run(Outcome::of_run(result.is_error), &out, open.arrived)
            },
        );
        self.close_stale_external(EXTERNAL_RESULT_TIMEOUT);
        Ok(())
    }

    /// Close every open external call approved more than `older_than` ago
    /// as `unreported`; how many were closed.
    pub fn close_stale_external(&self, older_than: Duration) -> usize {
        self.close_unreported(
            |open| open.approved_at.elapsed() >= older_than,
            "no result was reported in time",
        )
    }

    /// Close the open external calls `which` selects as `unreported`
    /// (`why` says what happened). The agent may have run them: the record
    /// says the result is unknown, not that they failed.
    pub(super) fn close_unreported(&self, which: impl Fn(&OpenCall) -> bool, why: &str) -> usize {
        let closed: Vec<(CallId, OpenCall)> = {
            let mut open = self.open_calls();
            let ids: Vec<CallId> = open
                .by_id
                .iter()
                .filter(|(_, c)| which(c))
                .map(|(id, _)| *id)
                .collect();
            ids.into_iter()
                .filter_map(|id| open.by_id.remove(&id).map(|c| (id, c)))
                .collect()
        };
        let text = format!("{why}; the agent ran this call itself, its result is unknown");
        let out = ToolOutput::error(text);
        for (id, c) in &closed {
            self.record_result(
                *id,
                CallResult {
                    ran: Some(c.approved_at),
                    proposal: c.proposal.as_deref(),
                    ..CallResult::not_run(Outcome::Unreported, &out, c.arrived)
                },
            );
        }
        closed.len()
    }

    fn open_calls(&self) -> MutexGuard<'_, OpenCalls> {
        self.external.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Resolve and check an external call's paths against the scope.
    fn check_scope(&self, kind: Option<ToolKind>, subject: Subject) -> Result<Subject, ScopeError> {
        let Subject::Paths { paths } = subject else {
            return Ok(subject);
        };
        let resolved = paths
            .iter()
            .map(|p| {
                let shown = p.to_string_lossy();
                match kind {
                    Some(ToolKind::Write) => crate::tools::write::resolve_with(
                        &self.scope,
                        self.tools.write_protection(),
                        &shown,
                    )
                    .map(|t| t.path()),
                    _ => self.scope.resolve(&shown),
                }
            })
            .collect::<Result<Vec<PathBuf>, ScopeError>>()?;
        Ok(Subject::Paths { paths: resolved })
    }
}

/// sha256 of `input` as JSON, hashed as it is written (no copy of the
/// input).
fn input_digest(input: &Map<String, Value>) -> [u8; 32] {
    struct Hasher(Sha256);
    impl std::io::Write for Hasher {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.update(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut h = Hasher(Sha256::new());
    // Writing into a hasher cannot fail; a map of JSON values always
    // serializes.
    let _ = serde_json::to_writer(&mut h, input);
    h.0.finalize().into()
}

/// The call as recorded, and its subject.
fn external_info(id: CallId, agent: &AgentInfo, call: ExternalCall) -> (CallInfo, Subject) {
    let keep: &[&str] = if call.kind == ToolKind::Exec {
        // Codex's exec_command names it `cmd`.
        &["command", "cmd"]
    } else {
        &[]
    };
    let info = CallInfo {
        id,
        agent: agent.clone(),
        tool: excerpt(&call.tool, 128),
        kind: Some(call.kind),
        args: bounded_object(&call.args, keep),
        summary: excerpt(&one_line(&call.summary), 512),
        received_at: chrono::Utc::now(),
        runner: Runner::Agent {
            native_tool: excerpt(&call.native_tool, 128),
            tool_use_id: call.tool_use_id.map(|t| excerpt(&t, 128)),
            session_id: call.session_id.map(|s| excerpt(&s, 128)),
        },
        view: call.view,
        edit: call.edit,
        grant: call.grant,
        proposal: call.proposal.map(Arc::new),
    };
    (info, call.subject)
}
