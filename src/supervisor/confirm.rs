//! The `Confirmer` seam: how the pipeline asks a human (or a stand-in).

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use crate::call::{ApprovedBy, CallInfo, ConfirmerKind, Decision, PolicyVerdict, RefusedBy};

/// Everything a front end needs to ask about one call.
#[derive(Debug, Clone)]
pub struct ConfirmRequest {
    /// The call waiting for a decision.
    pub call: CallInfo,
    /// The policy verdict that sent it here (always `Ask`), with its rule.
    pub verdict: PolicyVerdict,
    /// Cancelled when the agent cancels the call or disconnects; a front end
    /// should then drop the prompt.
    pub cancel: CancellationToken,
}

/// Answers calls whose policy verdict is "ask".
///
/// Implementations must never return an approval they were not given: the
/// pipeline treats a panic, a dropped future or a closed channel as a denial.
#[async_trait]
pub trait Confirmer: Send + Sync + 'static {
    /// Decide about one call. May wait as long as it needs; the pipeline
    /// handles cancellation and the approval timeout around it.
    async fn confirm(&self, request: ConfirmRequest) -> Decision;

    /// What this confirmer is, for the audit trail (`headless`, `tui` …).
    fn kind(&self) -> ConfirmerKind;
}

/// The confirmer used when no human is attached: denies everything it is
/// asked, saying so.
#[derive(Debug, Default, Clone, Copy)]
pub struct HeadlessConfirmer;

/// The message the agent gets when a call needs a human and none is attached.
pub const HEADLESS_MESSAGE: &str = "no airlock supervisor is attached to approve this call \
     (airlock runs headless); it was not run. Ask the user to run airlock with its TUI, \
     or to allow this tool in the policy.";

#[async_trait]
impl Confirmer for HeadlessConfirmer {
    async fn confirm(&self, _request: ConfirmRequest) -> Decision {
        Decision::deny(RefusedBy::Headless, Some(HEADLESS_MESSAGE.to_string()))
    }

    fn kind(&self) -> ConfirmerKind {
        ConfirmerKind::Headless
    }
}

/// `--approve-all`: approves every call it is asked about (tests, CI).
#[derive(Debug, Default, Clone, Copy)]
pub struct ApproveAllConfirmer;

#[async_trait]
impl Confirmer for ApproveAllConfirmer {
    async fn confirm(&self, _request: ConfirmRequest) -> Decision {
        Decision::approve(ApprovedBy::ApproveAll)
    }

    fn kind(&self) -> ConfirmerKind {
        ConfirmerKind::ApproveAll
    }
}
