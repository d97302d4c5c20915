//! Keys and the mouse: what each action does to the app.

use crossterm::event::{KeyEvent, KeyEventKind, MouseEvent, MouseEventKind};
use ratatui::layout::Position;

use super::{App, Focus, KEY_GUARD, Overlay};
use crate::call::{ApprovedBy, DecidedBy, Decision};
use crate::tui::keymap::{self, Action, Context};
use crate::tui::msg::Effect;
use crate::tui::prompt::PromptQueue;
use crate::tui::prompt::Step;
use crate::tui::text_input::TextInput;
use crate::tui::ui::{detail, layout};

/// Rows the mouse wheel scrolls.
const WHEEL: isize = 3;

impl App {
    pub(super) fn key(&mut self, key: KeyEvent, fx: &mut Vec<Effect>) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        let ctx = self.context();
        let Some(action) = keymap::action(ctx, key) else {
            return;
        };
        let in_prompt = matches!(ctx, Context::Choose | Context::Pick | Context::Typing);
        let guarded = self
            .live()
            .is_some_and(|l| self.now < l.prompts.shown_at + KEY_GUARD);
        if in_prompt && guarded {
            return;
        }
        match ctx {
            Context::Help => self.overlay = None,
            Context::Grants => self.grants_action(action, fx),
            Context::QuitConfirm => match action {
                Action::Yes => self.quit(fx),
                _ => self.overlay = None,
            },
            Context::Choose | Context::Pick | Context::Typing => self.prompt_action(action, fx),
            Context::Normal => self.pane_action(action, fx),
            Context::Review => self.review_action(action, fx),
            Context::Filter => self.filter_action(action),
        }
    }

    pub(super) fn mouse(&mut self, m: MouseEvent) {
        let delta = match m.kind {
            MouseEventKind::ScrollUp => -WHEEL,
            MouseEventKind::ScrollDown => WHEEL,
            _ => return,
        };
        if self.overlay.is_some() {
            return;
        }
        if self.prompting() {
            self.scroll_prompt(delta);
            return;
        }
        let at = Position::new(m.column, m.row);
        let p = self.panes(self.size);
        let focus = if p.calls.contains(at) {
            Focus::Calls
        } else if p.detail.contains(at) {
            Focus::Detail
        } else if p.audit.contains(at) {
            Focus::Audit
        } else {
            return;
        };
        self.scroll_pane(focus, delta);
    }

    pub(super) fn quit(&mut self, fx: &mut Vec<Effect>) {
        self.overlay = None;
        self.quit = true;
        fx.push(Effect::Quit);
    }

    fn ask_to_quit(&mut self, fx: &mut Vec<Effect>) {
        let running = self.calls.count(crate::tui::calls::CallStatus::Running);
        if !self.prompting() && running == 0 {
            self.quit(fx);
        } else {
            self.overlay = Some(Overlay::QuitConfirm);
        }
    }

    pub(super) fn pane_action(&mut self, action: Action, fx: &mut Vec<Effect>) {
        let page = isize::try_from(self.page(self.focus)).unwrap_or(isize::MAX);
        match action {
            Action::Up => self.scroll_pane(self.focus, -1),
            Action::Down => self.scroll_pane(self.focus, 1),
            Action::PageUp => self.scroll_pane(self.focus, -page),
            Action::PageDown => self.scroll_pane(self.focus, page),
            Action::Top => match self.focus {
                Focus::Calls => {
                    self.calls_view.top(self.calls_span().0);
                    self.selection_changed();
                }
                Focus::Detail => self.detail_scroll = Some(0),
                Focus::Audit => self.audit_view.top(self.audit_span().0),
            },
            Action::Bottom => match self.focus {
                Focus::Calls => {
                    self.calls_view.bottom();
                    self.selection_changed();
                }
                // The end of the detail (for a running call, it then
                // stays at the newest output as before).
                Focus::Detail => self.scroll_pane(Focus::Detail, isize::MAX / 2),
                Focus::Audit => self.audit_view.bottom(),
            },
            Action::FocusNext => {
                self.focus = match self.focus {
                    Focus::Calls => Focus::Detail,
                    Focus::Detail => Focus::Audit,
                    Focus::Audit => Focus::Calls,
                }
            }
            Action::FocusPrev => {
                self.focus = match self.focus {
                    Focus::Calls => Focus::Audit,
                    Focus::Detail => Focus::Calls,
                    Focus::Audit => Focus::Detail,
                }
            }
            Action::Help => self.overlay = Some(Overlay::Help),
            Action::Grants => self.overlay = Some(Overlay::Grants { selected: 0 }),
            Action::Quit => self.ask_to_quit(fx),
            _ => {}
        }
    }

    /// Rows in a pane's body.
    pub(super) fn page(&self, focus: Focus) -> usize {
        let p = self.panes(self.size);
        let pane = match focus {
            Focus::Calls => p.calls,
            Focus::Detail => p.detail,
            Focus::Audit => p.audit,
        };
        layout::body(pane).height.max(1) as usize
    }

    fn scroll_pane(&mut self, focus: Focus, delta: isize) {
        let height = self.page(focus);
        match focus {
            Focus::Calls => {
                let before = self.selected_call();
                let (first, end) = self.calls_span();
                self.calls_view.move_by(delta, first, end, height);
                if self.selected_call() != before {
                    self.selection_changed();
                }
            }
            Focus::Audit => {
                let (first, end) = self.audit_span();
                self.audit_view.move_by(delta, first, end, height);
            }
            Focus::Detail => {
                let width = self.panes(self.size).detail.width;
                let pane = self.detail_pane();
                let total = detail::lines(&pane, width).len();
                let max = total.saturating_sub(height);
                let top = self
                    .detail_scroll
                    .unwrap_or_else(|| detail::auto_top(&pane, total, height));
                let to = top.saturating_add_signed(delta).min(max);
                self.detail_scroll = Some(to);
            }
        }
    }

    fn scroll_prompt(&mut self, delta: isize) {
        let Some(v) = self.prompt_layout() else {
            return;
        };
        let Some(q) = self.queue_mut() else { return };
        q.scroll = v.top.saturating_add_signed(delta).min(v.max_top());
        if q.scroll >= v.max_top() {
            q.seen_end = true;
        }
    }

    /// True once every row of the prompt has had its turn on screen (its
    /// end has been in view, or it all fits now).
    fn prompt_seen(&mut self) -> bool {
        if self.queue().is_none_or(|q| q.seen_end) {
            return true;
        }
        let at_end = self.prompt_layout().is_none_or(|v| v.at_end());
        if let Some(q) = self.queue_mut() {
            q.seen_end = at_end;
        }
        at_end
    }

    /// An approval key before the end was on screen: say so, approve nothing.
    fn not_seen_yet(&mut self) {
        if let Some(q) = self.queue_mut() {
            q.nudged = true;
        }
        self.notice(
            "part of this call has not been on screen: scroll to its end (G or j/PgDn) first"
                .into(),
        );
    }

    fn grants_action(&mut self, action: Action, fx: &mut Vec<Effect>) {
        let Some(Overlay::Grants { selected }) = self.overlay else {
            return;
        };
        let Some(live) = self.live() else { return };
        let last = live.grants.len().saturating_sub(1);
        let selected = match action {
            Action::Up => selected.saturating_sub(1),
            Action::Down => (selected + 1).min(last),
            Action::Top | Action::PageUp => 0,
            Action::Bottom | Action::PageDown => last,
            Action::Revoke => {
                if let Some(g) = live.grants.get(selected) {
                    fx.push(Effect::Revoke(g.id));
                }
                selected
            }
            _ => {
                self.overlay = None;
                return;
            }
        };
        self.overlay = Some(Overlay::Grants { selected });
    }

    fn prompt_action(&mut self, action: Action, fx: &mut Vec<Effect>) {
        let Some(q) = self.queue() else { return };
        let Some(p) = q.front() else {
            return;
        };
        let step = q.step.clone();
        let id = p.call.id;
        let command = p.editable().map(String::from);
        // What the prompt shows, in the call's own words (a change, the
        // arguments; a command the agent cannot take back edited).
        let shown = p.call.view.describe();
        let n_choices = p.choices.len();
        let page =
            (isize::try_from(layout::prompt(self.size).height).unwrap_or(isize::MAX) - 10).max(1);
        let approving = matches!(
            action,
            Action::Approve | Action::Session | Action::Always | Action::Edit
        );
        if matches!(step, Step::Choose) && approving && !self.prompt_seen() {
            self.not_seen_yet();
            return;
        }
        match (step.clone(), action) {
            (_, Action::DenyNow) => self.respond(id, Decision::deny(DecidedBy::User, None), fx),
            (_, Action::Help) => self.overlay = Some(Overlay::Help),
            (_, Action::Grants) => self.overlay = Some(Overlay::Grants { selected: 0 }),
            (_, Action::Quit) => self.ask_to_quit(fx),
            (Step::Choose, Action::Approve) => {
                self.respond(id, Decision::approve(ApprovedBy::User), fx);
            }
            (Step::Choose, Action::Session | Action::Always) if n_choices == 0 => {
                self.notice("nothing to grant for this call; approve it once with y".into());
            }
            (Step::Choose, Action::Session) => self.set_step(Step::Session { selected: 0 }),
            (Step::Choose, Action::Always) => self.set_step(Step::Always { selected: 0 }),
            (Step::Choose, Action::Edit) => match command {
                Some(c) => self.set_step(Step::Edit(TextInput::new(&c))),
                None => self.notice(format!(
                    "the {shown} cannot be edited before approval; y approves it as shown"
                )),
            },
            (Step::Choose, Action::Deny) => self.set_step(Step::Deny(TextInput::default())),
            (Step::Choose, Action::Up) => self.scroll_prompt(-1),
            (Step::Choose, Action::Down) => self.scroll_prompt(1),
            (Step::Choose, Action::PageUp) => self.scroll_prompt(-page),
            (Step::Choose, Action::PageDown) => self.scroll_prompt(page),
            (Step::Choose, Action::Top) => self.scroll_prompt(isize::MIN / 2),
            (Step::Choose, Action::Bottom) => self.scroll_prompt(isize::MAX / 2),
            (Step::Session { selected } | Step::Always { selected }, a) => {
                let always = matches!(step, Step::Always { .. });
                let last = n_choices.saturating_sub(1);
                let to = match a {
                    Action::Up => selected.saturating_sub(1),
                    Action::Down => (selected + 1).min(last),
                    Action::Top | Action::PageUp => 0,
                    Action::Bottom | Action::PageDown => last,
                    Action::Pick(n) if (1..=n_choices).contains(&n) => n - 1,
                    Action::Confirm => selected,
                    Action::Back => {
                        self.set_step(Step::Choose);
                        return;
                    }
                    _ => return,
                };
                self.set_step(if always {
                    Step::Always { selected: to }
                } else {
                    Step::Session { selected: to }
                });
                if matches!(a, Action::Confirm | Action::Pick(_)) {
                    self.grant_and_approve(fx);
                }
            }
            (Step::Edit(_) | Step::Deny(_), Action::Type(k)) => {
                if let Some(Step::Edit(input) | Step::Deny(input)) =
                    self.queue_mut().map(|q| &mut q.step)
                {
                    input.key(k);
                }
            }
            (Step::Edit(input), Action::Confirm) => {
                let edited = input.text();
                if edited.trim().is_empty() {
                    self.notice("the command is empty; Esc goes back".into());
                } else if Some(&edited) == command.as_ref() {
                    self.respond(id, Decision::approve(ApprovedBy::User), fx);
                } else {
                    self.respond(id, Decision::approve_edited(edited), fx);
                }
            }
            (Step::Deny(input), Action::Confirm) => {
                let reason = input.text().trim().to_string();
                let reason = (!reason.is_empty()).then_some(reason);
                self.respond(id, Decision::deny(DecidedBy::User, reason), fx);
            }
            (Step::Edit(_) | Step::Deny(_), Action::Back) => self.set_step(Step::Choose),
            _ => {}
        }
    }

    /// Answer call `id` and take its prompt off the screen.
    fn respond(&mut self, id: crate::call::CallId, decision: Decision, fx: &mut Vec<Effect>) {
        fx.push(Effect::Respond { id, decision });
        let now = self.now;
        if let Some(q) = self.queue_mut() {
            q.remove(id, now);
        }
    }

    /// Confirm the picked grant ("for this session") or rule ("always"),
    /// then approve the call.
    fn grant_and_approve(&mut self, fx: &mut Vec<Effect>) {
        let Some(q) = self.queue() else { return };
        let Some(p) = q.front() else {
            return;
        };
        let id = p.call.id;
        let (selected, always) = match q.step {
            Step::Session { selected } => (selected, false),
            Step::Always { selected } => (selected, true),
            _ => return,
        };
        let Some(choice) = p.choices.get(selected).cloned() else {
            return;
        };
        if always {
            fx.push(Effect::SaveRules(choice.rules));
        } else {
            fx.push(Effect::Grant {
                scope: choice.grant,
                tools: choice.tools,
            });
        }
        self.respond(id, Decision::approve(ApprovedBy::User), fx);
    }
}

impl App {
    /// The prompts waiting (a live session's).
    fn queue(&self) -> Option<&PromptQueue> {
        self.live().map(|l| &l.prompts)
    }

    fn queue_mut(&mut self) -> Option<&mut PromptQueue> {
        self.live_mut().map(|l| &mut l.prompts)
    }

    fn set_step(&mut self, step: Step) {
        if let Some(q) = self.queue_mut() {
            q.step = step;
        }
    }
}
