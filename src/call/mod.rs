//! The call vocabulary: who calls, what a call is about, what the policy and
//! the human decided, and how the call ended.
//!
//! This is the leaf of the crate: it imports nothing from it, and every
//! other layer (tools, policy, audit, the pipeline, transports, the TUI,
//! reports) speaks these types. Each enum has one `describe()`, the words
//! people see for it; the serialized forms are what the audit trail keeps.

mod agent;
mod decision;
mod events;
mod exit;
mod grant;
mod info;
mod outcome;
mod proposal;
mod session;
mod stamp;
mod state;
mod verdict;

pub use agent::AgentInfo;
pub use decision::{ApprovedBy, CancelCause, DecidedBy, Decision, RefusedBy};
pub use events::{CallOutcome, Event, EventBus};
pub use exit::ExitCode;
pub use grant::GrantShape;
pub use info::{
    CallId, CallInfo, CallView, EditField, Runner, ShellEnv, ShellSite, Subject, ToolKind,
};
pub use outcome::Outcome;
pub use proposal::{Proposal, WriteAction};
pub use session::{ConfirmerKind, PolicyMode, SessionMode};
pub use stamp::{Fraction, Stamp};
pub use state::CallState;
pub use verdict::{PolicyVerdict, Verdict, VerdictSource};
