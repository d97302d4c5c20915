//! The terminal UI: watch calls live, approve, edit or deny them with the
//! command or the diff on screen, read the audit trail as it is written.
//!
//! It meets the core at two seams only: [`TuiConfirmer`] (the pipeline's
//! "ask" goes to the app's prompt queue) and the event bus (what happened).
//! The app ([`App`]) is plain state changed by [`Msg`]s, live or showing a
//! recorded trail ([`Mode`]); it returns [`Effect`]s that the one event
//! loop carries out, and [`draw`] renders it without I/O — each pane from
//! a small view of what it shows — so every pane can be tested on
//! ratatui's `TestBackend`. The TUI does not serve agents: the session's
//! socket server does, and the TUI consumes its events and answers its
//! [`TuiConfirmer`].

pub mod app;
pub mod calls;
mod confirmer;
pub mod diff;
mod event_loop;
pub mod format;
mod header;
pub mod keymap;
pub mod list_view;
pub mod msg;
pub mod prompt;
pub mod records;
pub mod reveal;
pub mod review;
mod run_review;
mod terminal;
pub mod text_input;
pub mod ui;

pub use app::{App, Focus, Header, Live, Mode, Overlay, draw};
pub use confirmer::{ConfirmMsg, TuiConfirmer, channel};
pub use event_loop::{Attached, Ended, Options};
pub use msg::{Effect, Msg};
pub use run_review::{run_review, run_review_command};
