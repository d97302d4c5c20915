//! The pipeline for one call, as stages usable apart: prepare (validate,
//! scope) → decide (policy, grants, confirm) → record the decision → run →
//! record the result. Airlock's own tools go through all of them
//! ([`Supervisor::call`]); a call the agent runs itself is decided and
//! recorded here and its reported result recorded later
//! ([`Supervisor::decide_external`], [`Supervisor::finish_external`]).
//! The types it speaks live in [`crate::call`].

mod confirm;
mod contain;
#[cfg(test)]
mod contain_tests;
mod core;
mod decide;
#[cfg(test)]
mod decide_tests;
#[cfg(test)]
mod edit_tests;
mod error;
mod external;
#[cfg(test)]
mod external_tests;
#[cfg(test)]
mod known_safe_tests;
mod open_calls;
mod pipeline;
mod prepare;
#[cfg(test)]
mod prepare_tests;
mod record;
#[cfg(test)]
mod record_tests;
mod run;
#[cfg(test)]
mod run_tests;
#[cfg(test)]
mod stage_support;
#[cfg(test)]
mod tests;
mod words;

pub use confirm::{
    ApproveAllConfirmer, ConfirmRequest, Confirmer, HEADLESS_MESSAGE, HeadlessConfirmer,
};
pub use contain::panic_text;
pub use core::{Supervisor, SupervisorParts, WaitHook};
pub use error::CallError;
pub use external::{EXTERNAL_RESULT_TIMEOUT, ExternalCall, ExternalError, ExternalResult};
pub use pipeline::Inline;
pub use record::CallResult;
pub use words::{one_line, refusal_message};
