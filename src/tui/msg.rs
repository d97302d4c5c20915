//! The app's two message types: [`Msg`] flows into the app (keys, core
//! events, prompts, time), [`Effect`] flows out of it (answers, grants,
//! notifications) and is carried out by the event loop. The app itself
//! does no I/O.

use crossterm::event::{KeyEvent, MouseEvent};

use super::records::AuditLine;
use crate::call::{CallId, CallInfo, Decision, Event, PolicyVerdict};
use crate::policy::{Grant, GrantScope};

/// Everything the app reacts to.
#[derive(Debug, Clone)]
pub enum Msg {
    /// A key was pressed.
    Key(KeyEvent),
    /// The mouse did something (the wheel scrolls the pane under it).
    Mouse(MouseEvent),
    /// Text was pasted (into the edit or reason field, if one is open).
    Paste(String),
    /// The terminal has a new size (columns, rows).
    Resize(u16, u16),
    /// Something happened in the core.
    Core(Event),
    /// The app fell behind the event bus and missed this many events.
    Lagged(u64),
    /// A call waits for the human's decision.
    Prompt {
        /// The call.
        call: CallInfo,
        /// The verdict that sent it to the human.
        verdict: PolicyVerdict,
    },
    /// A call no longer waits for a decision: drop its prompt.
    PromptWithdrawn(CallId),
    /// New audit records were read from the trail.
    Audit(Vec<AuditLine>),
    /// The session's grants as they are now.
    Grants(Vec<Grant>),
    /// A short message for the status bar (an effect's result).
    Notice(String),
    /// Time passed: the spinner and the countdown move on.
    Tick,
}

/// What the app asks the event loop to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Answer a waiting call.
    Respond {
        /// The call.
        id: CallId,
        /// The answer.
        decision: Decision,
    },
    /// Add a session grant (before the call's approval goes out).
    Grant {
        /// What it covers.
        scope: GrantScope,
        /// The tools its rule names, as the call's tool said.
        tools: &'static [&'static str],
    },
    /// Save allow rules to the project's `.airlock.toml` ("always").
    SaveRules(Vec<String>),
    /// Revoke a session grant.
    Revoke(u64),
    /// Ring the bell and send a desktop notification (OSC 9).
    Notify(String),
    /// Leave: deny every waiting call ("supervisor closed") and stop.
    Quit,
}
