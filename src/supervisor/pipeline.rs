//! One call of airlock's own tools through every stage, in order: prepare →
//! decide → record the decision → run → record the result.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::core::{Supervisor, WaitHook};
use super::decide::immediate;
use super::error::CallError;
use super::prepare::{NotPrepared, Prepared};
use super::record::CallResult;
use super::words::{cap_output, refusal_message, say_what_ran};
use crate::call::{
    AgentInfo, CallInfo, Decision, EditField, Outcome, RefusedBy, ToolKind, VerdictSource,
};
use crate::tools::{Invocation, ShellCheck, Tool, ToolOutput};

/// How [`Supervisor::call_inline`] dealt with a call.
pub enum Inline {
    /// Served through every stage: the call's result (as from
    /// [`Supervisor::call`]).
    Done(Result<ToolOutput, CallError>),
    /// Not a call that ends at once (not a read-only tool, a verdict that
    /// asks, a read that needs a thread): nothing was recorded or run, and
    /// here are its arguments back, to serve it with [`Supervisor::call`].
    Declined(Option<Map<String, Value>>),
}

/// When a call arrived and the token of its agent's connection.
struct Arrival {
    at: Instant,
    gone: CancellationToken,
}

impl Supervisor {
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
        let arrival = Arrival {
            at: Instant::now(),
            gone: self.connection_token(agent),
        };
        let id = self.next_call_id();
        let args = args.unwrap_or_default();
        let p = match self.prepare(id, agent, tool_name, args).await {
            Ok(p) => p,
            Err(refused) => return self.not_prepared(refused, arrival.at),
        };
        // A call that changes things ends with its agent's connection (the
        // agent's cancellation or the disconnect, whichever comes first); a
        // running read-only call changes nothing and is bounded by the
        // timeout, so it still answers a client that closed its input
        // after its last request.
        let (cancel, _unlink) = if p.info.kind == Some(ToolKind::Read) {
            (cancel, None)
        } else {
            let (c, guard) = link(&cancel, &arrival.gone);
            (c, Some(guard))
        };
        let subject = p.invocation.subject();
        let site = p.invocation.shell_site(agent.id).unwrap_or_default();
        let verdict = self.verdict(&p.info, &subject, &site);
        // A known-safe verdict holds where the shell was: it is checked
        // again where the shell is when the command is sent.
        let shell_check = (verdict.source == VerdictSource::KnownSafe)
            .then(|| self.policy.known_safe_recheck(&subject, &site))
            .flatten()
            .map(|recheck| ShellCheck::new(move |cwd| recheck.check(cwd)));
        // Decided at once: the request and the decision go to the trail
        // together.
        let (decision, p, edit) = if let Some(decision) = immediate(&verdict) {
            let (decision, p) = self.record_immediate(p, decision)?;
            (decision, p, None)
        } else {
            self.record_requested(&p.info)?;
            let decision = self
                .decide_verdict(&p.info, verdict, &cancel, on_wait)
                .await;
            let (decision, p, edit) = self.apply_edit(decision, p).await;
            self.record_decision(&p.info, &decision)?;
            (decision, p, edit)
        };
        Ok(self
            .conclude(p, decision, edit, &arrival, &cancel, shell_check)
            .await)
    }

    /// Serve a call of a read-only tool through every stage here and now,
    /// when it ends without waiting: prepared, decided at once by the policy
    /// (an allow or a refusal, never "ask") and, if allowed, a run that does
    /// not wait ([`crate::tools::Invocation::runs_inline`]). Every other
    /// call is declined before it gets a call id or a trail record, so
    /// [`Supervisor::call`] serves it exactly as it would have.
    pub async fn call_inline(
        &self,
        agent: &AgentInfo,
        tool_name: &str,
        args: Option<Map<String, Value>>,
    ) -> Inline {
        if !self.tools.is_read_only(tool_name) {
            return Inline::Declined(args);
        }
        let arrival = Arrival {
            at: Instant::now(),
            gone: self.connection_token(agent),
        };
        let given = args.is_some();
        // The id is given once the call is served here (0 until then).
        let mut p = match self
            .prepare(0, agent, tool_name, args.unwrap_or_default())
            .await
        {
            Ok(p) => p,
            Err(refused) => {
                let refused = refused.with_id(self.next_call_id());
                return Inline::Done(self.not_prepared(refused, arrival.at));
            }
        };
        let subject = p.invocation.subject();
        let site = p.invocation.shell_site(agent.id).unwrap_or_default();
        let verdict = self.verdict(&p.info, &subject, &site);
        let decision = immediate(&verdict);
        let Some(decision) = decision.filter(|_| p.invocation.runs_inline()) else {
            return Inline::Declined(given.then(|| std::mem::take(&mut p.args)));
        };
        p.info.id = self.next_call_id();
        let (decision, p) = match self.record_immediate(p, decision) {
            Ok(recorded) => recorded,
            Err(e) => return Inline::Done(Err(e)),
        };
        let never = CancellationToken::new();
        Inline::Done(Ok(self
            .conclude(p, decision, None, &arrival, &never, None)
            .await))
    }

    /// Record a call that could not be prepared, and answer it: a
    /// JSON-RPC error for an unknown tool, an error result otherwise.
    fn not_prepared(
        &self,
        refused: NotPrepared,
        arrived: Instant,
    ) -> Result<ToolOutput, CallError> {
        match refused {
            NotPrepared::UnknownTool(info, err) => {
                let decision = Decision::deny(RefusedBy::InvalidArguments, Some(err.to_string()));
                self.refuse_early(&info, &decision, arrived)?;
                Err(err)
            }
            NotPrepared::Refused(info, decision) => {
                self.refuse_early(&info, &decision, arrived)?;
                let text = decision.reason().unwrap_or_default().to_string();
                Ok(ToolOutput::error(text))
            }
        }
    }

    /// Record the request and the decision made at once, together (the
    /// call and the decision are moved into their records and back).
    fn record_immediate(
        &self,
        p: Prepared,
        decision: Decision,
    ) -> Result<(Decision, Prepared), CallError> {
        let Prepared {
            info,
            tool,
            invocation,
            args,
        } = p;
        let (info, decision) = self.record_requested_and_decided(info, decision)?;
        let p = Prepared {
            info,
            tool,
            invocation,
            args,
        };
        Ok((decision, p))
    }

    /// The decided call's end: a refusal recorded as not run, or the run
    /// and its result recorded. `edit` is (proposed, edited) when the human
    /// edited the command.
    async fn conclude(
        &self,
        p: Prepared,
        decision: Decision,
        edit: Option<(String, String)>,
        arrival: &Arrival,
        cancel: &CancellationToken,
        shell_check: Option<ShellCheck>,
    ) -> ToolOutput {
        let info = p.info;
        if let Some(refused) = decision.refusal_outcome() {
            let mut text = refusal_message(&decision);
            if let Some(edited) = decision.edited_command() {
                text = format!("the user edited the command to {edited:?}, and {text}");
            }
            let out = ToolOutput::error(text);
            self.record_not_run(&info, refused, &out, arrival.at);
            return out;
        }
        let (mut out, outcome, ran) = self.run(&info, p.invocation, cancel, shell_check).await;
        if let Some((proposed, ran)) = edit {
            say_what_ran(&mut out, &proposed, &ran);
        }
        if info.kind == Some(ToolKind::Read) {
            // A safety net; bash caps its own output (head and tail kept) at
            // bash.max_output_bytes, which is larger.
            cap_output(&mut out, self.limits.max_output_bytes.max(1024));
        }
        let result = CallResult {
            ran: Some(ran),
            proposal: info.proposal.as_deref(),
            cancelled_by: (outcome == Outcome::Cancelled).then(|| self.cancel_cause(&arrival.gone)),
            ..CallResult::not_run(outcome, &out, arrival.at)
        };
        self.record_result(info.id, result);
        out
    }

    /// The human edited the command and approved it: prepare the edited
    /// call and judge it again. Returns the decision to record, the call to
    /// run and, when the edit stands, (proposed, edited) commands.
    async fn apply_edit(
        &self,
        decision: Decision,
        mut p: Prepared,
    ) -> (Decision, Prepared, Option<(String, String)>) {
        let Some(edited) = decision.edited_command().map(str::to_string) else {
            return (decision, p, None);
        };
        if !decision.is_approved() {
            return (decision, p, None);
        }
        let proposed = match p.invocation.edit() {
            Some(EditField::Command { text }) => text,
            None => String::new(),
        };
        let args = std::mem::take(&mut p.args);
        match self.prepare_edited(&p.tool, &p.info, args, &edited).await {
            Ok((invocation, args)) => {
                let p = Prepared {
                    invocation,
                    args,
                    ..p
                };
                (decision, p, Some((proposed, edited)))
            }
            Err(refusal) => (refusal.with_edited_command(edited), p, None),
        }
    }

    /// Prepare the command the human edited and approved (`args` with the
    /// command replaced), and check it against the policy: `Err` is the
    /// refusal to record instead.
    async fn prepare_edited(
        &self,
        tool: &Arc<dyn Tool>,
        info: &CallInfo,
        args: Map<String, Value>,
        edited: &str,
    ) -> Result<(Box<dyn Invocation>, Map<String, Value>), Decision> {
        let edited_args = info
            .edit
            .as_ref()
            .and_then(|_| crate::tools::with_edit(tool.as_ref(), &args, edited));
        let Some(args) = edited_args else {
            return Err(Decision::deny(
                RefusedBy::InvalidArguments,
                Some("only a command can be edited at the prompt".into()),
            ));
        };
        let (prepared, args) = self.prepare_args(tool, args).await;
        let invocation = prepared.map_err(|e| {
            let reason = format!("the edited command is invalid: {e}");
            Decision::deny(RefusedBy::InvalidArguments, Some(reason))
        })?;
        self.recheck_edited(info, &invocation.subject())?;
        Ok((invocation, args))
    }
}

/// A token cancelled when `cancel` or `gone` is, and a guard that ends the
/// link (its task) when the call is over.
fn link(
    cancel: &CancellationToken,
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
                () = g.cancelled() => m.cancel(),
                () = d.cancelled() => {}
                () = m.cancelled() => {}
            }
        });
    }
    (merged, done.drop_guard())
}
