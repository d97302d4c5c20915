//! Stages 3 and 5, record: the request and the decision are on disk (and
//! announced) before anything runs; the result is recorded when it ends.

use std::time::Instant;

use sha2::{Digest, Sha256};

use super::core::Supervisor;
use crate::audit::{AuditError, AuditEvent, ChangeRecord, excerpt};
use crate::call::{CallId, CallInfo, CallOutcome, CancelCause, Decision, Event, Outcome, Proposal};
use crate::tools::ToolOutput;

/// Most bytes of a result kept as the audit excerpt.
const EXCERPT_BYTES: usize = 512;

/// Most bytes of a write's diff kept in the audit trail.
const MAX_AUDIT_DIFF: usize = 64 * 1024;

/// How a call ended, for [`Supervisor::record_result`].
#[derive(Debug)]
pub struct CallResult<'a> {
    /// How it ended.
    pub outcome: Outcome,
    /// What the agent got back (or, for a call the agent ran, what it
    /// reported).
    pub out: &'a ToolOutput,
    /// When the call arrived.
    pub arrived: Instant,
    /// When it started running; `None` when it never ran.
    pub ran: Option<Instant>,
    /// For writes: the change that was proposed.
    pub proposal: Option<&'a Proposal>,
    /// For a call cancelled while it ran: why.
    pub cancelled_by: Option<CancelCause>,
    /// For a command the agent ran: the exit code it reported, or
    /// unknown.
    pub exit_code: Option<crate::call::ExitCode>,
    /// For a write the agent ran: the file's sha256 afterwards.
    pub file_sha256: Option<String>,
}

impl<'a> CallResult<'a> {
    /// A call that ended `outcome` with `out`, without running.
    pub fn not_run(outcome: Outcome, out: &'a ToolOutput, arrived: Instant) -> Self {
        Self {
            outcome,
            out,
            arrived,
            ran: None,
            proposal: None,
            cancelled_by: None,
            exit_code: None,
            file_sha256: None,
        }
    }
}

impl Supervisor {
    /// Record that `info` arrived (`call_requested`) and announce it.
    pub fn record_requested(&self, info: &CallInfo) -> Result<(), AuditError> {
        self.audit.append(&requested(info))?;
        self.events.emit_with(|| Event::CallReceived(info.clone()));
        Ok(())
    }

    /// Record the decision about `info` (`call_decided`) and announce it.
    /// An approval of anything but a read is synced to disk first: it must
    /// survive a crash of the machine before anything changes. `Err`: the
    /// call must not run.
    pub fn record_decision(&self, info: &CallInfo, decision: &Decision) -> Result<(), AuditError> {
        self.audit.append(&decided(info, decision))?;
        self.decision_recorded(info, decision)
    }

    /// [`Supervisor::record_requested`] and [`Supervisor::record_decision`]
    /// for a call decided at once (a rule or a grant): both records are
    /// written with one `write`, then both are announced, in order. The
    /// call and the decision go into the records as they are and come back
    /// (nothing is copied for the trail).
    pub fn record_requested_and_decided(
        &self,
        info: CallInfo,
        decision: Decision,
    ) -> Result<(CallInfo, Decision), AuditError> {
        let call_id = info.id;
        let records = [
            AuditEvent::CallRequested { call: info },
            AuditEvent::CallDecided { call_id, decision },
        ];
        let written = self.audit.append_all(&[&records[0], &records[1]]);
        let [
            AuditEvent::CallRequested { call: info },
            AuditEvent::CallDecided { decision, .. },
        ] = records
        else {
            unreachable!("the two records are built just above");
        };
        written?;
        self.events.emit_with(|| Event::CallReceived(info.clone()));
        self.decision_recorded(&info, &decision)?;
        Ok((info, decision))
    }

    /// After the decision is written: sync an approval of anything but a
    /// read, then announce the decision.
    fn decision_recorded(&self, info: &CallInfo, decision: &Decision) -> Result<(), AuditError> {
        if decision.is_approved() && info.kind != Some(crate::call::ToolKind::Read) {
            self.audit.sync_data()?;
        }
        self.events.emit_with(|| Event::CallDecided {
            id: info.id,
            decision: decision.clone(),
        });
        Ok(())
    }

    /// Record how call `id` ended (`call_finished`) and announce it. A
    /// failure to write is logged: nothing can be stopped any more.
    pub fn record_result(&self, id: CallId, r: CallResult<'_>) {
        let duration_ms = u64::try_from(r.arrived.elapsed().as_millis()).unwrap_or(u64::MAX);
        let wait_ms = Some(r.ran.map_or(duration_ms, |t| {
            u64::try_from((t - r.arrived).as_millis()).unwrap_or(u64::MAX)
        }));
        let run_ms = r
            .ran
            .map(|t| u64::try_from(t.elapsed().as_millis()).unwrap_or(u64::MAX));
        let out = r.out;
        let diff = r.proposal.and_then(|p| p.diff.as_deref());
        self.record(&AuditEvent::CallFinished {
            call_id: id,
            status: r.outcome,
            duration_ms,
            wait_ms,
            run_ms,
            is_error: out.is_error,
            truncated: out.truncated,
            output_bytes: out.text.len(),
            output_sha256: sha256_hex(out.text.as_bytes()),
            excerpt: excerpt(&out.text, EXCERPT_BYTES),
            change: r.proposal.map(|p| ChangeRecord {
                path: p.path.clone(),
                action: p.action,
                summary: p.summary(),
                diff: diff.map(|d| excerpt(d, MAX_AUDIT_DIFF)),
                diff_sha256: diff.map(|d| sha256_hex(d.as_bytes())),
                diff_truncated: diff.is_some_and(|d| d.len() > MAX_AUDIT_DIFF),
            }),
            cancelled_by: r.cancelled_by,
            exit_code: r.exit_code,
            file_sha256: r.file_sha256,
        });
        self.events.emit_with(|| Event::CallFinished {
            id,
            outcome: CallOutcome {
                status: r.outcome,
                duration_ms,
                wait_ms,
                run_ms,
                text: out.text.clone(),
                is_error: out.is_error,
                truncated: out.truncated,
                structured: out.structured.clone(),
                shell_cwd: out.shell_cwd.clone(),
            },
        });
    }

    /// Record a call refused before it could be shown or judged (unknown
    /// tool, bad arguments, scope): requested, decided and finished.
    pub fn refuse_early(
        &self,
        info: &CallInfo,
        decision: &Decision,
        arrived: Instant,
    ) -> Result<(), AuditError> {
        self.record_requested(info)?;
        self.record_decision(info, decision)?;
        let out = ToolOutput::error(decision.reason().unwrap_or_default());
        let outcome = decision.refusal_outcome().unwrap_or(Outcome::Refused);
        self.record_not_run(info, outcome, &out, arrived);
        Ok(())
    }

    /// Record that `info`, refused, ended `outcome` without running; `out`
    /// is what the agent got. The change it proposed is kept.
    pub(super) fn record_not_run(
        &self,
        info: &CallInfo,
        outcome: Outcome,
        out: &ToolOutput,
        arrived: Instant,
    ) {
        let mut result = CallResult::not_run(outcome, out, arrived);
        result.proposal = info.proposal.as_deref();
        self.record_result(info.id, result);
    }
}

/// The `call_requested` record of `info`.
fn requested(info: &CallInfo) -> AuditEvent {
    AuditEvent::CallRequested { call: info.clone() }
}

/// The `call_decided` record of `decision` about `info`.
fn decided(info: &CallInfo, decision: &Decision) -> AuditEvent {
    AuditEvent::CallDecided {
        call_id: info.id,
        decision: decision.clone(),
    }
}

/// The SHA-256 of `bytes` in lowercase hex (what `hex::encode` gives,
/// without its character-by-character collect).
fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = [0u8; 64];
    // 32 bytes always fill the 64 digits, all ASCII.
    match hex::encode_to_slice(digest, &mut hex).map(|()| std::str::from_utf8(&hex)) {
        Ok(Ok(text)) => text.to_owned(),
        _ => hex::encode(digest),
    }
}
