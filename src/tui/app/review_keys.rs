//! Keys in a review: the filter field and the jumps to the next denied
//! or failed call. Everything else moves, as in a live session.

use super::{App, Focus, Mode};
use crate::tui::keymap::Action;
use crate::tui::msg::Effect;
use crate::tui::review::Review;
use crate::tui::review::{AppliedFilter, filter};
use crate::tui::text_input::TextInput;

/// What the jumps stop at, for notices.
const PROBLEMS: &str = "denied, blocked, refused, timed-out or failed call";

impl App {
    pub(super) fn review_action(&mut self, action: Action, fx: &mut Vec<Effect>) {
        match action {
            Action::Filter => {
                if let Some(r) = self.review_mut() {
                    let text = r.filter.as_ref().map_or("", |f| f.text.as_str());
                    r.typing = Some(TextInput::new(text));
                }
            }
            Action::NextProblem => self.jump(true),
            Action::PrevProblem => self.jump(false),
            Action::Back => {
                if self.review().is_some_and(|r| r.filter.is_some()) {
                    self.set_filter("");
                }
            }
            other => self.pane_action(other, fx),
        }
    }

    pub(super) fn filter_action(&mut self, action: Action) {
        let Some(input) = self.review_mut().and_then(|r| r.typing.as_mut()) else {
            return;
        };
        match action {
            Action::Type(k) => {
                input.key(k);
            }
            Action::Confirm => {
                let text = input.text();
                self.set_filter(&text);
            }
            Action::Back => self.set_filter(""),
            _ => {}
        }
    }

    /// Show only the calls matching `text` (all of them when it is blank),
    /// keeping the selected call when it still shows, else the next match.
    pub fn set_filter(&mut self, text: &str) {
        let before = self.selected_call();
        let Some(r) = self.review_mut() else {
            return;
        };
        r.typing = None;
        let text = text.trim();
        let total = r.timeline.calls.len();
        let notice = if text.is_empty() {
            r.filter = None;
            None
        } else {
            let rows = filter::apply(&r.timeline, text);
            let n = rows.len();
            r.filter = Some(AppliedFilter {
                text: text.to_string(),
                rows,
            });
            Some(match n {
                0 => format!("no call matches {text:?}; Esc clears the filter"),
                _ => format!("{n} of {total} calls match {text:?}"),
            })
        };
        let to = match (before, self.filtered()) {
            (Some(pos), Some(rows)) => rows
                .iter()
                .position(|&p| p >= pos)
                .unwrap_or(rows.len().saturating_sub(1)),
            (Some(pos), None) => pos,
            (None, _) => 0,
        };
        self.select(to);
        if let Some(n) = notice {
            self.notice(n);
        }
    }

    /// Select list position `v` and bring it into view, a third down.
    fn select(&mut self, v: usize) {
        let height = self.page(Focus::Calls);
        self.calls_view.selected = v;
        self.calls_view.offset = v.saturating_sub(height / 3);
        self.calls_view.follow = false;
        self.selection_changed();
    }

    /// Select the next (or previous) denied, blocked, refused, timed-out
    /// or failed call in the list, wrapping around.
    fn jump(&mut self, forward: bool) {
        let (first, end) = self.calls_span();
        let Some(at) = self.calls_view.selection(first, end) else {
            self.notice(format!("no {PROBLEMS} here"));
            return;
        };
        let n = end - first;
        let is_problem = |v: usize| {
            self.call_pos(v)
                .and_then(|p| self.calls.get(p))
                .is_some_and(|r| r.status.is_problem())
        };
        let found = (1..=n)
            .map(|step| {
                let i = at - first;
                let i = if forward {
                    (i + step) % n
                } else {
                    (i + n - step % n) % n
                };
                first + i
            })
            .find(|&v| is_problem(v));
        match found {
            Some(v) => {
                let wrapped = if forward { v <= at } else { v >= at };
                self.select(v);
                if v == at {
                    self.notice(format!("this is the only {PROBLEMS}"));
                } else if wrapped {
                    let from = if forward { "top" } else { "bottom" };
                    self.notice(format!("wrapped around to the {from}"));
                }
            }
            None => self.notice(format!("no {PROBLEMS} here")),
        }
    }
}

impl App {
    fn review_mut(&mut self) -> Option<&mut Review> {
        match &mut self.mode {
            Mode::Review(r) => Some(r),
            Mode::Live(_) => None,
        }
    }
}
