//! The app's state and how messages change it. No I/O here: what must
//! happen outside (answer a call, add a grant, ring the bell) comes back as
//! [`Effect`]s for the event loop, and drawing reads this state only.
//!
//! One [`App`] shows calls either live or from a recorded trail: what both
//! have (the calls, the selection, the focus, overlays, notices) is here;
//! what only one has is in its [`Mode`] — [`Live`] (prompts, agents,
//! grants, the audit records as written) or [`Review`] (the trail, its
//! verification, the filter).

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, FixedOffset, Utc};
use ratatui::layout::Rect;

use super::calls::CallStore;
use super::keymap::Context;
use super::list_view::ListView;
use super::msg::{Effect, Msg};
use super::prompt::Step;
use super::records::AuditLine;
use super::review::Review;
use super::ui::layout::{self, Panes};

mod draw;
mod keys;
mod live;
mod review_keys;
#[cfg(test)]
mod status_tests;
mod view;

pub use super::header::Header;
pub use draw::draw;
pub use live::Live;

/// Keys pressed this soon after a prompt appears are ignored.
pub const KEY_GUARD: Duration = Duration::from_millis(300);

/// How long a notice stays in the status bar.
const NOTICE_FOR: Duration = Duration::from_secs(6);

/// The pane keys go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Focus {
    /// The list of calls.
    #[default]
    Calls,
    /// The selected call's detail.
    Detail,
    /// The audit records.
    Audit,
}

/// A window over the panes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlay {
    /// Every key.
    Help,
    /// The session's grants.
    Grants {
        /// The highlighted grant.
        selected: usize,
    },
    /// "Quit and cancel the waiting calls?"
    QuitConfirm,
}

/// What the app shows, with the state only that program has.
#[derive(Debug)]
pub enum Mode {
    /// A running session: calls arrive, prompts wait, records are written.
    Live(Box<Live>),
    /// A recorded trail (`airlock review`): no prompts, nothing live,
    /// nothing written.
    Review(Box<Review>),
}

/// Everything on screen.
#[derive(Debug)]
pub struct App {
    /// The session.
    pub header: Header,
    /// The Streamable HTTP endpoint: its URL, and whether only this
    /// machine can reach it (`None`: HTTP is off).
    pub http: Option<(String, bool)>,
    /// The time as of the last message (drawing never reads the clock).
    pub now: DateTime<Utc>,
    /// Times are shown at this offset from UTC.
    pub tz: FixedOffset,
    /// The terminal's area.
    pub size: Rect,
    /// Every call seen.
    pub calls: CallStore,
    /// The calls pane's selection.
    pub calls_view: ListView,
    /// The detail pane's scroll (lines from the top); `None` shows the top,
    /// or the newest output of a running call.
    pub detail_scroll: Option<usize>,
    /// The audit pane's selection.
    pub audit_view: ListView,
    /// The focused pane.
    pub focus: Focus,
    /// The overlay on screen.
    pub overlay: Option<Overlay>,
    /// A message for the status bar, and when it was posted.
    pub notice: Option<(String, DateTime<Utc>)>,
    /// Set once the human chose to quit.
    pub quit: bool,
    /// Live or review, and what only that has.
    pub mode: Mode,
}

impl App {
    /// A fresh app for a live session.
    pub fn new(header: Header, now: DateTime<Utc>, tz: FixedOffset, size: Rect) -> Self {
        Self::with_mode(header, now, tz, size, Mode::Live(Box::default()))
    }

    fn with_mode(
        header: Header,
        now: DateTime<Utc>,
        tz: FixedOffset,
        size: Rect,
        mode: Mode,
    ) -> Self {
        Self {
            header,
            http: None,
            now,
            tz,
            size,
            calls: CallStore::default(),
            calls_view: ListView::default(),
            detail_scroll: None,
            audit_view: ListView::default(),
            focus: Focus::Calls,
            overlay: None,
            notice: None,
            quit: false,
            mode,
        }
    }

    /// An app showing `review`, the first call selected.
    pub fn reviewing(review: Review, now: DateTime<Utc>, tz: FixedOffset, size: Rect) -> Self {
        let header = Header {
            workspace: PathBuf::from(review.workspace().unwrap_or("")),
            socket: PathBuf::new(),
            audit: review.trail.clone(),
            label: Some("review".into()),
            sandbox: None,
            config: None,
        };
        let mut calls = CallStore::default();
        for row in review.call_rows() {
            calls.push(row);
        }
        let mut app = Self::with_mode(header, now, tz, size, Mode::Review(Box::new(review)));
        app.calls = calls;
        app.calls_view.top(0);
        app.selection_changed();
        app
    }

    /// Read the trail at `path` into an app showing it.
    pub fn open_review(
        path: &Path,
        now: DateTime<Utc>,
        tz: FixedOffset,
        size: Rect,
    ) -> std::io::Result<Self> {
        Ok(Self::reviewing(Review::load(path)?, now, tz, size))
    }

    /// The live session's state (None in a review).
    pub fn live(&self) -> Option<&Live> {
        match &self.mode {
            Mode::Live(l) => Some(l),
            Mode::Review(_) => None,
        }
    }

    /// The live session's state, to change (None in a review).
    pub fn live_mut(&mut self) -> Option<&mut Live> {
        match &mut self.mode {
            Mode::Live(l) => Some(l),
            Mode::Review(_) => None,
        }
    }

    /// The trail under review (None live).
    pub fn review(&self) -> Option<&Review> {
        match &self.mode {
            Mode::Review(r) => Some(r),
            Mode::Live(_) => None,
        }
    }

    /// Apply one message; returns what the event loop must do.
    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        let mut fx = Vec::new();
        match msg {
            Msg::Key(key) => self.key(key, &mut fx),
            Msg::Mouse(m) => self.mouse(m),
            Msg::Paste(text) => match &mut self.mode {
                Mode::Review(r) => {
                    if let Some(input) = r.typing.as_mut() {
                        input.insert(&text);
                    }
                }
                Mode::Live(l) => {
                    if let Step::Edit(input) | Step::Deny(input) = &mut l.prompts.step {
                        input.insert(&text);
                    }
                }
            },
            Msg::Resize(w, h) => self.size = Rect::new(0, 0, w, h),
            Msg::Notice(text) => self.notice(text),
            Msg::Tick => {}
            live => self.live_update(live, &mut fx),
        }
        fx
    }

    /// How soon the screen must be redrawn without any event: a spinner
    /// while a call runs, a countdown while a prompt waits, a notice to
    /// expire. `None`: nothing moves, wait for events.
    pub fn tick_interval(&self) -> Option<Duration> {
        if self.calls.count(super::calls::CallStatus::Running) > 0 {
            return Some(Duration::from_millis(100));
        }
        if self.live().is_some_and(|l| !l.prompts.is_empty()) {
            // The countdown and the time waited move.
            return Some(Duration::from_millis(500));
        }
        self.notice.is_some().then_some(Duration::from_secs(1))
    }

    /// What keys mean right now.
    pub fn context(&self) -> Context {
        match self.overlay {
            Some(Overlay::Help) => return Context::Help,
            Some(Overlay::Grants { .. }) => return Context::Grants,
            Some(Overlay::QuitConfirm) => return Context::QuitConfirm,
            None => {}
        }
        match &self.mode {
            Mode::Review(r) => match r.typing {
                Some(_) => Context::Filter,
                None => Context::Review,
            },
            Mode::Live(l) if l.prompts.is_empty() => Context::Normal,
            Mode::Live(l) => match l.prompts.step {
                Step::Choose => Context::Choose,
                Step::Session { .. } | Step::Always { .. } => Context::Pick,
                Step::Edit(_) | Step::Deny(_) => Context::Typing,
            },
        }
    }

    /// True while an approval prompt is on screen (the panes lose focus).
    pub fn prompting(&self) -> bool {
        self.live().is_some_and(|l| !l.prompts.is_empty())
    }

    /// The notice to show, if it has not expired.
    pub fn current_notice(&self) -> Option<&str> {
        let (text, at) = self.notice.as_ref()?;
        (self.now < *at + NOTICE_FOR).then_some(text.as_str())
    }

    /// Seconds left to answer the prompt on screen, if a timeout is set.
    pub fn seconds_left(&self) -> Option<u64> {
        let l = self.live()?;
        let timeout = l.approval_timeout?;
        let p = l.prompts.front()?;
        let left = (p.arrived + timeout) - self.now;
        Some((left.num_milliseconds().max(0).cast_unsigned()).div_ceil(1000))
    }

    /// The absolute position of the selected call.
    pub fn selected_call(&self) -> Option<usize> {
        let (first, end) = self.calls_span();
        let v = self.calls_view.selection(first, end)?;
        self.call_pos(v)
    }

    /// The calls pane's list positions, `first..end`: the call store's
    /// positions, or, under a review filter, `0..` the matches.
    pub fn calls_span(&self) -> (usize, usize) {
        match self.filtered() {
            Some(rows) => (0, rows.len()),
            None => (self.calls.first(), self.calls.end()),
        }
    }

    /// The call store position of list position `v`.
    pub fn call_pos(&self, v: usize) -> Option<usize> {
        match self.filtered() {
            Some(rows) => rows.get(v).copied(),
            None => Some(v),
        }
    }

    fn filtered(&self) -> Option<&[usize]> {
        self.review()?.filtered()
    }

    /// The audit pane's positions, `first..end`: records kept as they
    /// were written, or a reviewed trail's lines (0-based).
    pub fn audit_span(&self) -> (usize, usize) {
        match &self.mode {
            Mode::Review(r) => (0, r.lines.len()),
            Mode::Live(l) => (l.audit_first, l.audit_first + l.audit.len()),
        }
    }

    /// The audit record at position `pos` (a reviewed trail's lines are
    /// described as they come into view).
    pub fn audit_line(&self, pos: usize) -> Option<Cow<'_, AuditLine>> {
        match &self.mode {
            Mode::Review(r) => r.lines.describe(pos, self.tz).map(Cow::Owned),
            Mode::Live(l) => l
                .audit
                .get(pos.checked_sub(l.audit_first)?)
                .map(Cow::Borrowed),
        }
    }

    /// Where the panes go in `area` (a review's status bar is taller).
    pub fn panes(&self, area: Rect) -> Panes {
        match self.mode {
            Mode::Review(_) => layout::panes_with_status(area, super::review::STATUS_ROWS),
            Mode::Live(_) => layout::panes(area),
        }
    }

    /// The selected call changed: show its detail from the top and, in a
    /// review, its records in the audit pane.
    pub(crate) fn selection_changed(&mut self) {
        self.detail_scroll = None;
        if self.review().is_none() {
            return;
        }
        let Some(line) = self.selected_call().and_then(|pos| {
            let r = self.calls.get(pos)?.recorded.as_ref()?;
            Some(r.requested.0)
        }) else {
            return;
        };
        let at = line.saturating_sub(1);
        self.audit_view = ListView {
            selected: at,
            offset: at,
            follow: false,
        };
    }

    pub(crate) fn notice(&mut self, text: String) {
        self.notice = Some((text, self.now));
    }
}
