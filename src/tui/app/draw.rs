//! The whole screen: the panes, the status bar of the mode, the prompt
//! and the overlay, each drawn from its view of the app.

use ratatui::Frame;

use super::{App, Mode, Overlay};
use crate::tui::keymap::{HELP, REVIEW_HELP};
use crate::tui::ui::{audit, calls, detail, grants, help, prompt, review_bar, status};

/// Draw the whole screen.
pub fn draw(f: &mut Frame, app: &App) {
    let p = app.panes(f.area());
    calls::draw(f, &app.calls_pane(p.calls), p.calls);
    detail::draw(f, &app.detail_pane(), p.detail);
    audit::draw(f, &app.audit_pane(p.audit), p.audit);
    if let Some(bar) = app.status_bar() {
        status::draw(f, &bar, p.status);
    }
    if let Some(bar) = app.review_bar() {
        review_bar::draw(f, &bar, p.status);
    }
    if let Some(pane) = app.prompt_pane() {
        prompt::draw(f, &pane);
    }
    match app.overlay {
        Some(Overlay::Help) => match app.mode {
            Mode::Review(_) => help::draw(f, REVIEW_HELP, None),
            Mode::Live(_) => {
                let note = format!(
                    "{}\nAgents connect with `airlock connect` (socket {}).",
                    help::KEY_GUARD_NOTE,
                    app.header.socket.display()
                );
                help::draw(f, HELP, Some(&note));
            }
        },
        Some(Overlay::Grants { selected }) => grants::draw(f, &app.grants_view(selected)),
        Some(Overlay::QuitConfirm) => {
            let (waiting, running) = app.open_calls();
            grants::draw_quit(f, waiting, running);
        }
        None => {}
    }
}
