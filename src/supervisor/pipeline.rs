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
        let arrived = Instant::now();
        let gone = self.connection_token(agent);
        let id = self.next_call_id();
        let args = args.unwrap_or_default();
        let p = match self.prepare(id, agent, tool_name, args).await {
            Ok(p) => p,
            Err(NotPrepared::UnknownTool(info, err)) => {
                let decision = Decision::deny(RefusedBy::InvalidArguments, Some(err.to_string()));
                self.refuse_early(&info, &decision, arrived)?;
                return Err(err);
            }
            Err(NotPrepared::Refused(info, decision)) => {
                self.refuse_early(&info, &decision, arrived)?;
                let text = decision.reason().unwrap_or_default().to_string();
                return Ok(ToolOutput::error(text));
            }
        };
        // A call that changes things ends with its agent's connection (the
        // agent's cancellation or the disconnect, whichever comes first); a
        // running read-only call changes nothing and is bounded by the
        // timeout, so it still answers a client that closed its input
        // after its last request.
        let (cancel, _unlink) = if p.info.kind == Some(ToolKind::Read) {
            (cancel, None)
        } else {
            let (c, guard) = link(&cancel, &gone);
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
        let info = p.info;
        if let Some(refused) = decision.refusal_outcome() {
            let mut text = refusal_message(&decision);
            if let Some(edited) = decision.edited_command() {
                text = format!("the user edited the command to {edited:?}, and {text}");
            }
            let out = ToolOutput::error(text);
            self.record_not_run(&info, refused, &out, arrived);
            return Ok(out);
        }
        let (mut out, outcome, ran) = self.run(&info, p.invocation, &cancel, shell_check).await;
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
            cancelled_by: (outcome == Outcome::Cancelled).then(|| self.cancel_cause(&gone)),
            ..CallResult::not_run(outcome, &out, arrived)
        };
        self.record_result(info.id, result);
        Ok(out)
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
