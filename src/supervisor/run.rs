//! Stage 4, run (airlock's own tools): bounded by the timeout, the agent's
//! cancellation and shutdown.

use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::core::Supervisor;
use crate::call::{CallId, CallInfo, Event, EventBus, Outcome, ToolKind};
use crate::policy::Action;
use crate::tools::readonly::READ_FILE;
use crate::tools::{
    EntryRule, EntryRules, Invocation, OutputSink, RunContext, ShellCheck, ToolOutput,
};

/// A sink that broadcasts a running call's output as
/// [`Event::CallOutput`].
fn output_events(events: &EventBus, id: CallId) -> OutputSink {
    let events = events.clone();
    OutputSink::new(move |chunk| {
        events.emit(Event::CallOutput {
            id,
            chunk: chunk.to_vec(),
        });
    })
}

impl Supervisor {
    /// The path rules a read tool's walk honours entry by entry: the deny
    /// and ask rules about the call's tool or about `read_file` (see
    /// [`Supervisor::verdict`]); none for other kinds or without such rules.
    fn entry_rules(&self, info: &CallInfo) -> EntryRules {
        if info.kind != Some(ToolKind::Read) {
            return EntryRules::none();
        }
        let rules = self.path_rules();
        if !rules.any_for(&[&info.tool, READ_FILE]) {
            return EntryRules::none();
        }
        let tool = info.tool.clone();
        EntryRules::new(move |path| {
            let r = rules.judge(&[&tool, READ_FILE], &[path])?;
            Some(match r.action {
                Action::Deny => EntryRule::Deny(r.text()),
                _ => EntryRule::Ask(r.text()),
            })
        })
    }

    /// Run an approved call; its output, how it ended and when it started.
    /// `shell_check` is a known-safe verdict's check of where its shell is
    /// ([`RunContext::shell_check`]).
    pub(super) async fn run(
        &self,
        info: &CallInfo,
        invocation: Box<dyn Invocation>,
        cancel: &CancellationToken,
        shell_check: Option<ShellCheck>,
    ) -> (ToolOutput, Outcome, Instant) {
        self.events.emit(Event::CallStarted { id: info.id });
        let timeout = Duration::from_secs(self.limits.timeout_secs.max(1));
        let run_cancel = cancel.child_token();
        let ctx = RunContext {
            call_id: info.id,
            agent_id: info.agent.id,
            scope: self.scope.clone(),
            limits: self.limits.clone(),
            cancel: run_cancel.clone(),
            deadline: Instant::now() + timeout,
            output: output_events(&self.events, info.id),
            entry_rules: self.entry_rules(info),
            shell_check,
        };
        let started = Instant::now();
        let run = super::contain::run(invocation, ctx);
        if info.kind != Some(ToolKind::Read) {
            // Write and exec tools own their timeouts and must not be
            // abandoned half-way; they watch the cancellation token. One
            // that says the cancellation stopped it, or failed once it
            // arrived (a shell killed at shutdown), ended cancelled; one
            // that finished all the same (a write) is recorded as done.
            let out = run.await;
            let stopping = cancel.is_cancelled() || self.shutdown.is_cancelled();
            let outcome = if out.cancelled || (stopping && out.is_error) {
                Outcome::Cancelled
            } else {
                Outcome::of_run(out.is_error)
            };
            return (out, outcome, started);
        }
        // The call first: a read that is done at once never sets up the
        // timer or the cancellation waits.
        let (out, outcome) = tokio::select! {
            biased;
            out = run => { let o = Outcome::of_run(out.is_error); (out, o) }
            () = tokio::time::sleep(timeout) => {
                run_cancel.cancel();
                let text = format!(
                    "timed out after {} s (limits.timeout_secs); nothing was changed",
                    timeout.as_secs()
                );
                (ToolOutput::error(text), Outcome::Error)
            }
            () = cancel.cancelled() => (ToolOutput::error("cancelled by the agent"), Outcome::Cancelled),
            () = self.shutdown.cancelled() => {
                run_cancel.cancel();
                let text = "the airlock supervisor closed while the call ran";
                (ToolOutput::error(text), Outcome::Cancelled)
            }
        };
        (out, outcome, started)
    }
}
