//! The app's state and how messages change it. No I/O here: what must
//! happen outside (answer a call, add a grant, ring the bell) comes back as
//! [`Effect`]s for the event loop, and drawing reads this state only.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::Duration;

use chrono::{DateTime, FixedOffset, Utc};
use ratatui::layout::Rect;

use super::audit_tail::AuditLine;
use super::calls::CallStore;
use super::keymap::Context;
use super::list_view::ListView;
use super::msg::{Effect, Msg};
use super::prompt::{PendingPrompt, PromptQueue, Step};
use super::review::Review;
use super::ui::layout::{self, Panes};
use crate::call::{AgentInfo, Event};
use crate::policy::Grant;

mod keys;
mod review_keys;

/// Keys pressed this soon after a prompt appears are ignored.
pub const KEY_GUARD: Duration = Duration::from_millis(300);

/// How long a notice stays in the status bar.
const NOTICE_FOR: Duration = Duration::from_secs(6);

/// Most audit records kept in the pane.
const MAX_AUDIT_LINES: usize = 50_000;

/// What the status bar says about the session.
#[derive(Debug, Clone, Default)]
pub struct Header {
    /// The canonical workspace.
    pub workspace: PathBuf,
    /// The socket agents connect to.
    pub socket: PathBuf,
    /// The audit trail.
    pub audit: PathBuf,
    /// A label such as `demo`.
    pub label: Option<String>,
    /// The bash sandbox in force: its status line and state.
    pub sandbox: Option<(String, crate::sandbox::SandboxState)>,
}

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

/// Everything on screen.
#[derive(Debug)]
pub struct App {
    /// The session.
    pub header: Header,
    /// The time as of the last message (drawing never reads the clock).
    pub now: DateTime<Utc>,
    /// Times are shown at this offset from UTC.
    pub tz: FixedOffset,
    /// The terminal's area.
    pub size: Rect,
    /// How long a call waits for an answer, if limited.
    pub approval_timeout: Option<Duration>,
    /// How long known agents wait for a call, from their config (display
    /// name → seconds); else the client's default, where known.
    pub agent_timeouts: Vec<(String, u64)>,
    /// Every call seen.
    pub calls: CallStore,
    /// The calls pane's selection.
    pub calls_view: ListView,
    /// The detail pane's scroll (lines from the top); `None` shows the top,
    /// or the newest output of a running call.
    pub detail_scroll: Option<usize>,
    /// Audit records, oldest first.
    pub audit: VecDeque<AuditLine>,
    /// Absolute position of `audit[0]`.
    pub audit_first: usize,
    /// The audit pane's selection.
    pub audit_view: ListView,
    /// Connected agents.
    pub agents: Vec<AgentInfo>,
    /// Calls waiting for the human.
    pub prompts: PromptQueue,
    /// The session's grants.
    pub grants: Vec<Grant>,
    /// The session has had a grant (so an empty list means all revoked).
    pub had_grants: bool,
    /// The focused pane.
    pub focus: Focus,
    /// The overlay on screen.
    pub overlay: Option<Overlay>,
    /// A message for the status bar, and when it was posted.
    pub notice: Option<(String, DateTime<Utc>)>,
    /// A message that stays in the status bar (the demo is over).
    pub banner: Option<String>,
    /// Events missed because the app fell behind.
    pub missed_events: u64,
    /// Set once the human chose to quit.
    pub quit: bool,
    /// Each agent's shell directory after its last bash command (agent id
    /// → cwd), shown in the bash prompt.
    pub shell_cwd: std::collections::HashMap<u64, String>,
    /// Set when the app shows a recorded trail (`airlock review`): no
    /// prompts, nothing live, nothing written.
    pub review: Option<Box<Review>>,
}

impl App {
    /// A fresh app for a session.
    pub fn new(header: Header, now: DateTime<Utc>, tz: FixedOffset, size: Rect) -> Self {
        Self {
            header,
            now,
            tz,
            size,
            approval_timeout: None,
            agent_timeouts: Vec::new(),
            calls: CallStore::default(),
            calls_view: ListView::default(),
            detail_scroll: None,
            audit: VecDeque::new(),
            audit_first: 0,
            audit_view: ListView::default(),
            agents: Vec::new(),
            prompts: PromptQueue::default(),
            grants: Vec::new(),
            had_grants: false,
            focus: Focus::Calls,
            overlay: None,
            notice: None,
            banner: None,
            missed_events: 0,
            quit: false,
            shell_cwd: std::collections::HashMap::new(),
            review: None,
        }
    }

    /// Apply one message; returns what the event loop must do.
    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        let mut fx = Vec::new();
        match msg {
            Msg::Key(key) => self.key(key, &mut fx),
            Msg::Mouse(m) => self.mouse(m),
            Msg::Paste(text) => {
                if let Some(input) = self.review.as_mut().and_then(|r| r.typing.as_mut()) {
                    input.insert(&text);
                } else if let Step::Edit(input) | Step::Deny(input) = &mut self.prompts.step {
                    input.insert(&text);
                }
            }
            Msg::Resize(w, h) => self.size = Rect::new(0, 0, w, h),
            Msg::Core(event) => self.core(event),
            Msg::Lagged(n) => {
                self.missed_events += n;
                self.notice(format!("the display fell behind and skipped {n} events"));
            }
            Msg::Prompt { call, verdict } => {
                let id = call.id;
                let line = format!(
                    "{} wants to run {}: {}",
                    call.agent.display_name(),
                    call.tool,
                    super::ui::wrap::fit(&super::reveal::one_line(&call.summary), 120)
                );
                self.calls.received(call.clone());
                self.calls.waiting(id);
                let p = PendingPrompt::new(call, verdict, self.now, &self.header.workspace);
                self.prompts.push(p, self.now);
                fx.push(Effect::Notify(line));
            }
            Msg::PromptWithdrawn(id) => {
                self.prompts.remove(id, self.now);
            }
            Msg::Audit(lines) => self.push_audit(lines),
            Msg::Grants(grants) => {
                self.had_grants |= !grants.is_empty();
                self.grants = grants;
                if let Some(Overlay::Grants { selected }) = &mut self.overlay {
                    *selected = (*selected).min(self.grants.len().saturating_sub(1));
                }
            }
            Msg::Notice(text) => self.notice(text),
            Msg::Tick => {}
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
        if !self.prompts.is_empty() {
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
        if let Some(r) = &self.review {
            return match r.typing {
                Some(_) => Context::Filter,
                None => Context::Review,
            };
        }
        if self.prompts.is_empty() {
            return Context::Normal;
        }
        match self.prompts.step {
            Step::Choose => Context::Choose,
            Step::Session { .. } | Step::Always { .. } => Context::Pick,
            Step::Edit(_) | Step::Deny(_) => Context::Typing,
        }
    }

    /// The notice to show, if it has not expired.
    pub fn current_notice(&self) -> Option<&str> {
        let (text, at) = self.notice.as_ref()?;
        (self.now < *at + NOTICE_FOR).then_some(text.as_str())
    }

    /// Seconds after which `agent` gives up waiting for a call: its own
    /// config where airlock read it, else the client's known default.
    pub fn agent_gives_up_after(&self, agent: &AgentInfo) -> Option<u64> {
        let name = agent.display_name();
        self.agent_timeouts
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| *s)
            .or_else(|| agent.gives_up_after())
    }

    /// Seconds left to answer the prompt on screen, if a timeout is set.
    pub fn seconds_left(&self) -> Option<u64> {
        let timeout = self.approval_timeout?;
        let p = self.prompts.front()?;
        let left = (p.arrived + timeout) - self.now;
        Some((left.num_milliseconds().max(0) as u64).div_ceil(1000))
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
        let f = self.review.as_ref()?.filter.as_ref()?;
        Some(&f.rows)
    }

    /// The audit pane's positions, `first..end`: records kept as they
    /// were written, or a reviewed trail's lines (0-based).
    pub fn audit_span(&self) -> (usize, usize) {
        match &self.review {
            Some(r) => (0, r.lines.len()),
            None => (self.audit_first, self.audit_first + self.audit.len()),
        }
    }

    /// The audit record at position `pos` (a reviewed trail's lines are
    /// described as they come into view).
    pub fn audit_line(&self, pos: usize) -> Option<Cow<'_, AuditLine>> {
        match &self.review {
            Some(r) => r.lines.describe(pos, self.tz).map(Cow::Owned),
            None => self
                .audit
                .get(pos.checked_sub(self.audit_first)?)
                .map(Cow::Borrowed),
        }
    }

    /// Where the panes go in `area` (a review's status bar is taller).
    pub fn panes(&self, area: Rect) -> Panes {
        match self.review {
            Some(_) => layout::panes_with_status(area, super::review::STATUS_ROWS),
            None => layout::panes(area),
        }
    }

    /// The selected call changed: show its detail from the top and, in a
    /// review, its records in the audit pane.
    pub(crate) fn selection_changed(&mut self) {
        self.detail_scroll = None;
        let Some(line) = self.selected_call().and_then(|pos| {
            let r = self.calls.get(pos)?.recorded.as_ref()?;
            Some(r.requested.0)
        }) else {
            return;
        };
        if self.review.is_some() {
            let at = line.saturating_sub(1);
            self.audit_view = ListView {
                selected: at,
                offset: at,
                follow: false,
            };
        }
    }

    pub(crate) fn notice(&mut self, text: String) {
        self.notice = Some((text, self.now));
    }

    fn core(&mut self, event: Event) {
        match event {
            Event::AgentConnected(a) => {
                if !self.agents.iter().any(|x| x.id == a.id) {
                    self.agents.push(a);
                }
            }
            Event::AgentDisconnected(a) => {
                self.agents.retain(|x| x.id != a.id);
                if self.header.label.as_deref() == Some("demo") && self.agents.is_empty() {
                    self.banner = Some(
                        "The demo is over. q quits; then `airlock review --last` replays its trail"
                            .into(),
                    );
                }
            }
            Event::CallReceived(info) => self.calls.received(info),
            Event::CallDecided { id, decision } => {
                self.prompts.remove(id, self.now);
                self.calls.decided(id, decision);
            }
            Event::CallStarted { id } => self.calls.started(id, self.now),
            Event::CallOutput { id, chunk } => self.calls.output(id, &chunk),
            Event::CallFinished { id, outcome } => {
                let cwd = outcome
                    .structured
                    .as_ref()
                    .and_then(|s| s.get("cwd"))
                    .and_then(|c| c.as_str());
                if let (Some(cwd), Some(row)) = (cwd, self.calls.by_id(id))
                    && row.info.tool == "bash"
                {
                    self.shell_cwd.insert(row.info.agent.id, cwd.to_string());
                }
                self.calls.finished(id, outcome)
            }
        }
    }

    fn push_audit(&mut self, lines: Vec<AuditLine>) {
        self.audit.extend(lines);
        while self.audit.len() > MAX_AUDIT_LINES {
            self.audit.pop_front();
            self.audit_first += 1;
        }
    }
}
