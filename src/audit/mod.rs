//! The audit trail: one append-only, hash-chained JSONL file per supervisor
//! session, with an anchor file beside it.
//!
//! Each line is a JSON object `{"v":1,"seq":N,"ts":…,"type":…, …, "prev":H0,
//! "hash":H1}`. `hash` is the hex sha256 of the line's bytes up to (not
//! including) `,"hash":` followed by `}`; `prev` is the previous line's
//! `hash` (64 zeros for the first line). Editing, deleting or reordering
//! lines breaks the chain, and [`verify_reader`] finds the first line that
//! does not verify. The chain has no key: lines cut off the end, or a
//! trail rewritten with its chain recomputed, still chain. The writer
//! therefore keeps the trail's length and head in an anchor file beside it
//! ([`anchor`]) and ends a session with a `session_end` that counts its
//! records; [`verify_file`] checks both. What this does and does not prove
//! is in README ("What `--verify` proves").
//!
//! Every record is bounded ([`bound`]): what an agent sends is cut before it
//! can make a record large.

mod anchor;
mod bound;
pub mod reader;
mod record;
pub mod timeline;
mod verify;
#[cfg(test)]
mod verify_tests;
mod writer;

pub use bound::{bounded_args, bounded_args_except, bounded_object, excerpt};
pub use reader::{LineProblem, TrailRecord, TrailRef, list_trails, resolve_trail};
pub use record::{AuditEvent, ChangeRecord, FORMAT_VERSION};
pub use timeline::{CallEntry, CallState, Counts, DecisionClass, Timeline};
pub use verify::{AnchorCheck, TrailEnd, VerifyError, VerifyReport, verify_file, verify_reader};
pub use writer::{Appended, AuditError, AuditLog, GENESIS};
