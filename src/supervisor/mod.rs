//! The pipeline for one call — scope check → policy → confirm → audit the
//! decision → run → audit the result — and the types it speaks.

mod call;
mod confirm;
mod decision;
#[cfg(test)]
mod edit_tests;
mod events;
mod pipeline;
#[cfg(test)]
mod tests;

pub use call::{AgentInfo, CallId, CallInfo, Proposal, Subject, ToolKind, WriteAction};
pub use confirm::{
    ApproveAllConfirmer, ConfirmRequest, Confirmer, HEADLESS_MESSAGE, HeadlessConfirmer,
};
pub use decision::{CancelCause, DecidedBy, Decision, PolicyVerdict, Verdict};
pub use events::{CallOutcome, Event, EventBus};
pub use pipeline::{CallError, Supervisor, SupervisorParts, WaitHook, refusal_message};
