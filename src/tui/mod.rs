//! The terminal UI: watch calls live, approve, edit or deny them with the
//! command or the diff on screen, read the audit trail as it is written.
//!
//! It meets the core at two seams only: [`TuiConfirmer`] (the pipeline's
//! "ask" goes to the app's prompt queue) and the event bus (what happened).
//! The app ([`App`]) is plain state changed by [`Msg`]s; it returns
//! [`Effect`]s that the event loop carries out, and [`ui::draw`] renders
//! it without I/O, so every pane can be tested on ratatui's `TestBackend`.

pub mod app;
pub mod audit_tail;
pub mod calls;
mod confirmer;
pub mod diff;
mod event_loop;
pub mod keymap;
pub mod list_view;
pub mod msg;
pub mod prompt;
pub mod reveal;
pub mod review;
mod terminal;
pub mod text_input;
pub mod ui;

pub use app::{App, Focus, Header, Overlay};
pub use confirmer::{ConfirmMsg, TuiConfirmer, channel};
pub use event_loop::{Ended, OnReady, Options, TuiError, run};
pub use msg::{Effect, Msg};
