//! The pipeline for one call — scope check → policy → confirm → audit the
//! decision → run → audit the result. The types it speaks live in
//! [`crate::call`].

mod confirm;
#[cfg(test)]
mod edit_tests;
mod pipeline;
#[cfg(test)]
mod tests;

pub use confirm::{
    ApproveAllConfirmer, ConfirmRequest, Confirmer, HEADLESS_MESSAGE, HeadlessConfirmer,
};
pub use pipeline::{CallError, Supervisor, SupervisorParts, WaitHook, refusal_message};
