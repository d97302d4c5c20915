//! The audit trail: one append-only, hash-chained JSONL file per supervisor
//! session.
//!
//! Each line is a JSON object `{"v":1,"seq":N,"ts":…,"type":…, …, "prev":H0,
//! "hash":H1}`. `hash` is the hex sha256 of the line's bytes up to (not
//! including) `,"hash":` followed by `}`; `prev` is the previous line's
//! `hash` (64 zeros for the first line). Editing, deleting, reordering or
//! truncating lines breaks the chain, and [`verify`] finds the first line
//! that does not verify.

pub mod reader;
mod record;
pub mod timeline;
mod verify;
mod writer;

pub use reader::{LineProblem, TrailRecord, TrailRef, list_trails, resolve_trail};
pub use record::{
    AuditEvent, ChangeRecord, FORMAT_VERSION, bounded_args, bounded_args_except, bounded_object,
    excerpt,
};
pub use timeline::{CallEntry, CallState, Counts, DecisionClass, Timeline};
pub use verify::{VerifyError, VerifyReport, verify_file, verify_reader};
pub use writer::{AuditError, AuditLog, GENESIS};
