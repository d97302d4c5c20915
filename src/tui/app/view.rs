//! What each pane draws, taken from the app: small views the panes render
//! without knowing the app (or whether it is live or a review).

use ratatui::layout::Rect;

use super::{App, Focus, Mode};
use crate::tui::ui::audit::{AuditPane, AuditRow};
use crate::tui::ui::calls::CallsPane;
use crate::tui::ui::detail::DetailPane;
use crate::tui::ui::grants::GrantsView;
use crate::tui::ui::prompt::{PromptPane, View};
use crate::tui::ui::review_bar::ReviewBar;
use crate::tui::ui::status::StatusBar;
use crate::tui::ui::{layout, wrap::fit};

impl App {
    fn focused(&self, pane: Focus) -> bool {
        self.focus == pane && !self.prompting()
    }

    /// The calls pane for `area` (title line included).
    pub fn calls_pane(&self, area: Rect) -> CallsPane<'_> {
        let (first, end) = self.calls_span();
        let selected = self.calls_view.selection(first, end);
        let height = layout::body(area).height as usize;
        let (start, stop) = self.calls_view.window(first, end, height);
        let rows = (start..stop)
            .filter_map(|v| Some((self.calls.get(self.call_pos(v)?)?, Some(v) == selected)))
            .collect();
        let (title, state) = self.calls_titles(first, end, selected);
        let empty = match &self.mode {
            Mode::Review(r) => match &r.filter {
                Some(flt) => format!("No call matches {:?}. Esc clears the filter.", flt.text),
                None => "This trail has no calls.".into(),
            },
            Mode::Live(_) => {
                "No calls yet. Agents connect with `airlock connect` (see the status bar).".into()
            }
        };
        CallsPane {
            title,
            state,
            focused: self.focused(Focus::Calls),
            rows,
            empty,
            now: self.now,
            tz: self.tz,
        }
    }

    /// The title and what the right end of the title line says: following
    /// or not in a live session; in a review, where the selection is (and
    /// the filter).
    fn calls_titles(&self, first: usize, end: usize, selected: Option<usize>) -> (String, String) {
        let Mode::Review(r) = &self.mode else {
            let state = if self.calls_view.follow {
                "following"
            } else {
                "scrolled · G follows"
            };
            return (format!("Calls ({})", self.calls.len()), state.into());
        };
        let at = selected.map_or(0, |s| s + 1 - first);
        match &r.filter {
            Some(flt) => (
                format!("Calls ({} of {})", end - first, self.calls.len()),
                format!("/{} · {at} of {}", fit(&flt.text, 24), end - first),
            ),
            None => (
                format!("Calls ({})", self.calls.len()),
                format!("{at} of {}", end - first),
            ),
        }
    }

    /// The detail pane: the selected call.
    pub fn detail_pane(&self) -> DetailPane<'_> {
        DetailPane {
            row: self.selected_call().and_then(|p| self.calls.get(p)),
            focused: self.focused(Focus::Detail),
            scroll: self.detail_scroll,
            now: self.now,
            tz: self.tz,
        }
    }

    /// The audit pane for `area` (title line included).
    pub fn audit_pane(&self, area: Rect) -> AuditPane<'_> {
        let (first, end) = self.audit_span();
        let selected = self.audit_view.selection(first, end);
        let height = layout::body(area).height as usize;
        let (start, stop) = self.audit_view.window(first, end, height);
        let bad_line = self
            .review()
            .and_then(super::super::review::Review::bad_line);
        let focused = self.focused(Focus::Audit);
        let rows = (start..stop)
            .filter_map(|pos| Some((pos, self.audit_line(pos)?)))
            .map(|(pos, line)| AuditRow {
                // Live and in a review: the trail's line number, as `log
                // --verify` says it (a record's seq counts from 0 on line 1).
                number: match self.mode {
                    Mode::Review(_) => pos as u64 + 1,
                    Mode::Live(_) => line.seq + 1,
                },
                broken: bad_line == Some(pos + 1),
                selected: focused && Some(pos) == selected,
                line,
            })
            .collect();
        let file = self
            .header
            .audit
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        AuditPane {
            file,
            focused,
            rows,
        }
    }

    /// The live status bar (None in a review).
    pub fn status_bar(&self) -> Option<StatusBar<'_>> {
        let live = self.live()?;
        Some(StatusBar {
            header: &self.header,
            agents: &live.agents,
            waiting: live.prompts.len(),
            calls: &self.calls,
            now: self.now,
            message: self.current_notice().or(live.banner.as_deref()),
            context: self.context(),
            http: self.http.as_ref(),
        })
    }

    /// The review's status bar (None live).
    pub fn review_bar(&self) -> Option<ReviewBar<'_>> {
        Some(ReviewBar {
            review: self.review()?,
            tz: self.tz,
            notice: self.current_notice(),
            context: self.context(),
        })
    }

    /// The approval prompt for the oldest waiting call, if one waits.
    pub fn prompt_pane(&self) -> Option<PromptPane<'_>> {
        let live = self.live()?;
        let p = live.prompts.front()?;
        Some(PromptPane {
            queue: &live.prompts,
            prompt: p,
            shell_cwd: live.shell_cwd.get(&p.call.agent.id).map(String::as_str),
            workspace: &self.header.workspace,
            now: self.now,
            seconds_left: self.seconds_left(),
            gives_up_after: live.agent_gives_up_after(&p.call.agent),
        })
    }

    /// The prompt laid out on the screen, if one waits.
    pub(super) fn prompt_layout(&self) -> Option<View> {
        crate::tui::ui::prompt::view(&self.prompt_pane()?, self.size)
    }

    /// The grants overlay with `selected` highlighted.
    pub fn grants_view(&self, selected: usize) -> GrantsView<'_> {
        let (grants, had_grants) = match self.live() {
            Some(l) => (l.grants.as_slice(), l.had_grants),
            None => (&[][..], false),
        };
        GrantsView {
            grants,
            had_grants,
            tz: self.tz,
            selected,
        }
    }

    /// Calls waiting for an answer and calls running (the quit question).
    pub fn open_calls(&self) -> (usize, usize) {
        let waiting = self.live().map_or(0, |l| l.prompts.len());
        let running = self.calls.count(crate::tui::calls::CallStatus::Running);
        (waiting, running)
    }
}
