//! A live session's own state, and the messages only a live session gets:
//! the core's events, prompts, audit records, grants.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use super::{App, Mode, Overlay};
use crate::call::{AgentInfo, Event};
use crate::policy::Grant;
use crate::tui::msg::{Effect, Msg};
use crate::tui::prompt::{PendingPrompt, PromptQueue};
use crate::tui::records::AuditLine;

/// Most audit records kept in the pane.
const MAX_AUDIT_LINES: usize = 50_000;

/// What only a live session has.
#[derive(Debug, Default)]
pub struct Live {
    /// How long a call waits for an answer, if limited.
    pub approval_timeout: Option<Duration>,
    /// How long known agents wait for a call, from their config (display
    /// name → seconds); else the client's default, where known.
    pub agent_timeouts: Vec<(String, u64)>,
    /// Audit records, oldest first.
    pub audit: VecDeque<AuditLine>,
    /// Absolute position of `audit[0]`.
    pub audit_first: usize,
    /// Connected agents.
    pub agents: Vec<AgentInfo>,
    /// Calls waiting for the human.
    pub prompts: PromptQueue,
    /// The session's grants.
    pub grants: Vec<Grant>,
    /// The session has had a grant (so an empty list means all revoked).
    pub had_grants: bool,
    /// A message that stays in the status bar (the demo is over).
    pub banner: Option<String>,
    /// Events missed because the app fell behind.
    pub missed_events: u64,
    /// Each agent's shell directory after its last bash command (agent id
    /// → cwd), shown in the bash prompt.
    pub shell_cwd: HashMap<u64, String>,
}

impl Live {
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

    fn push_audit(&mut self, lines: Vec<AuditLine>) {
        self.audit.extend(lines);
        while self.audit.len() > MAX_AUDIT_LINES {
            self.audit.pop_front();
            self.audit_first += 1;
        }
    }
}

impl App {
    /// A message only a live session acts on (a review ignores it).
    pub(super) fn live_update(&mut self, msg: Msg, fx: &mut Vec<Effect>) {
        let now = self.now;
        let demo = self.header.label.as_deref() == Some("demo");
        let Mode::Live(live) = &mut self.mode else {
            return;
        };
        match msg {
            Msg::Core(event) => self.core(event, demo),
            Msg::Lagged(n) => {
                live.missed_events += n;
                self.notice(format!("the display fell behind and skipped {n} events"));
            }
            Msg::Prompt { call, verdict } => {
                let id = call.id;
                let line = format!(
                    "{} wants to run {}: {}",
                    call.agent.display_name(),
                    call.tool,
                    crate::tui::ui::wrap::fit(&crate::tui::reveal::one_line(&call.summary), 120)
                );
                let p = PendingPrompt::new(call.clone(), verdict, now);
                live.prompts.push(p, now);
                self.calls.received(call);
                self.calls.waiting(id);
                fx.push(Effect::Notify(line));
            }
            Msg::PromptWithdrawn(id) => {
                live.prompts.remove(id, now);
            }
            Msg::Audit(lines) => live.push_audit(lines),
            Msg::Grants(grants) => {
                live.had_grants |= !grants.is_empty();
                let last = grants.len().saturating_sub(1);
                live.grants = grants;
                if let Some(Overlay::Grants { selected }) = &mut self.overlay {
                    *selected = (*selected).min(last);
                }
            }
            Msg::Key(_)
            | Msg::Mouse(_)
            | Msg::Paste(_)
            | Msg::Resize(..)
            | Msg::Notice(_)
            | Msg::Tick => {}
        }
    }

    fn core(&mut self, event: Event, demo: bool) {
        let now = self.now;
        let Mode::Live(live) = &mut self.mode else {
            return;
        };
        match event {
            Event::AgentConnected(a) => {
                if !live.agents.iter().any(|x| x.id == a.id) {
                    live.agents.push(a);
                }
            }
            Event::AgentDisconnected(a) => {
                live.agents.retain(|x| x.id != a.id);
                if demo && live.agents.is_empty() {
                    live.banner = Some(
                        "The demo is over. q quits; then `airlock review --last` replays its trail"
                            .into(),
                    );
                }
            }
            Event::CallReceived(info) => self.calls.received(info),
            Event::CallDecided { id, decision } => {
                live.prompts.remove(id, now);
                self.calls.decided(id, decision);
            }
            Event::CallStarted { id } => self.calls.started(id, now),
            Event::CallOutput { id, chunk } => self.calls.output(id, &chunk),
            Event::CallFinished { id, outcome } => {
                // The tool says where its shell is now.
                if let (Some(cwd), Some(row)) = (&outcome.shell_cwd, self.calls.by_id(id)) {
                    live.shell_cwd.insert(row.info.agent.id, cwd.clone());
                }
                self.calls.finished(id, outcome);
            }
        }
    }
}
