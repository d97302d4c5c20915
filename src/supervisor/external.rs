//! Calls airlock decides and records but does not run (the agents' own
//! tools, reported through their hooks): the decide and record stages of
//! the pipeline, used apart, and the result reported later.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use super::{CallError, Supervisor};
use crate::audit::AuditEvent;
use crate::call::{
    CallId, CallInfo, DecidedBy, Decision, Event, Outcome, Proposal, Subject, ToolKind, Verdict,
};
use crate::scope::Scope;
use crate::tools::ToolOutput;

impl Supervisor {
    /// A fresh call id, for a call a transport prepares itself.
    pub fn next_call_id(&self) -> CallId {
        self.next_call.fetch_add(1, Ordering::Relaxed)
    }

    /// The path scope, to check a call off the async threads.
    pub fn scope_arc(&self) -> Arc<Scope> {
        self.scope.clone()
    }

    /// Record a call the transport refused before anyone was asked (scope,
    /// unreadable arguments): requested, decided, finished.
    pub fn refuse_unprepared(&self, info: CallInfo, decision: Decision) -> Result<(), CallError> {
        self.refuse_early(info, decision, Instant::now())
    }

    /// Decide a call airlock does not run: record it, judge `subject` by the
    /// rules of `policy_tool`, ask the confirmer on "ask", judge an edited
    /// command again, and record the decision (on disk before the answer
    /// goes out). `cancel` fires when the caller gives up waiting. A refusal
    /// is also recorded as the call's end.
    pub async fn decide_external(
        &self,
        info: &CallInfo,
        policy_tool: &str,
        subject: &Subject,
        cancel: CancellationToken,
    ) -> Result<Decision, CallError> {
        let started = Instant::now();
        let kind = info.kind.unwrap_or(ToolKind::Other);
        let gone = self.connection_token(&info.agent);
        self.audit
            .append(&AuditEvent::CallRequested { call: info.clone() })?;
        self.events.emit(Event::CallReceived(info.clone()));
        let verdict = self.policy.evaluate(policy_tool, kind, subject);
        let mut decision = self.decide(info, verdict, &cancel, &gone, None).await;
        if let Some(edited) = decision.edited_command().map(str::to_string)
            && decision.is_approved()
        {
            let again = self.policy.evaluate(
                policy_tool,
                kind,
                &Subject::Command {
                    command: edited.clone(),
                },
            );
            if again.verdict == Verdict::Deny {
                let by = DecidedBy::from(super::approver(&again));
                let reason = format!("blocked by rule {} (from {})", again.rule, again.source);
                decision = Decision::deny(by, Some(reason)).with_edited_command(edited);
            }
        }
        self.audit.append(&AuditEvent::CallDecided {
            call_id: info.id,
            decision: decision.clone(),
        })?;
        if decision.is_approved() && kind != ToolKind::Read {
            self.audit.sync_data()?;
        }
        self.events.emit(Event::CallDecided {
            id: info.id,
            decision: decision.clone(),
        });
        if !decision.is_approved() {
            let text = super::refusal_message(&decision);
            let outcome = decision.refusal_outcome().unwrap_or(Outcome::Refused);
            self.finish(
                info.id,
                outcome,
                &ToolOutput::error(text),
                started,
                None,
                None,
            );
        }
        Ok(decision)
    }

    /// Record the result of an approved call the agent ran: `arrived` is
    /// when the call came in, `decided` when the agent was told to run it.
    pub fn record_external_result(
        &self,
        id: CallId,
        out: &ToolOutput,
        proposal: Option<&Proposal>,
        (arrived, decided): (Instant, Instant),
    ) {
        let outcome = Outcome::of_run(out.is_error);
        self.finish_timed(id, outcome, out, (arrived, Some(decided)), proposal, None);
    }
}
