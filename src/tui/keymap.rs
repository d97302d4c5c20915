//! Keys → actions, depending on what is on screen. The help overlay is
//! generated from [`HELP`], so it lists every key this file maps.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What is on screen, as far as keys are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// The panes.
    Normal,
    /// An approval prompt, choosing what to do.
    Choose,
    /// An approval prompt, picking what a grant or rule covers.
    Pick,
    /// An approval prompt, typing (an edited command or a reason).
    Typing,
    /// The help overlay.
    Help,
    /// The grants view.
    Grants,
    /// "Quit and cancel the waiting calls?"
    QuitConfirm,
    /// The panes of a reviewed trail (`airlock review`): read-only.
    Review,
    /// Typing a review filter after `/`.
    Filter,
}

/// What a key asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Approve once.
    Approve,
    /// Approve for this session (then pick what it covers).
    Session,
    /// Always allow (then pick the rule).
    Always,
    /// Edit the command, then approve.
    Edit,
    /// Deny (then type an optional reason).
    Deny,
    /// Deny right away, no reason (Ctrl-C in a prompt).
    DenyNow,
    /// Move or scroll up one line.
    Up,
    /// Move or scroll down one line.
    Down,
    /// A page up.
    PageUp,
    /// A page down.
    PageDown,
    /// To the top.
    Top,
    /// To the bottom (and follow new calls).
    Bottom,
    /// Pick choice N (1-based) and confirm it.
    Pick(usize),
    /// Confirm (Enter).
    Confirm,
    /// Close the sub-step or overlay (Esc).
    Back,
    /// Focus the next pane.
    FocusNext,
    /// Focus the previous pane.
    FocusPrev,
    /// Show or hide the help.
    Help,
    /// Show or hide the grants view.
    Grants,
    /// Revoke the selected grant.
    Revoke,
    /// Quit (asks first when calls wait).
    Quit,
    /// Yes (to "quit?").
    Yes,
    /// A key for the text field.
    Type(KeyEvent),
    /// Open the filter field (review).
    Filter,
    /// Select the next denied, blocked, refused, timed-out or failed call.
    NextProblem,
    /// Select the previous one.
    PrevProblem,
}

/// The keys, by context, for the help overlay: (keys, what they do).
pub const HELP: &[(&str, &[(&str, &str)])] = &[
    (
        "Approval prompt",
        &[
            ("y", "approve once"),
            ("s", "approve for this session (command, prefix or file)"),
            (
                "a",
                concat!(
                    "always: save an allow rule to ",
                    crate::dirs::project_config!()
                ),
            ),
            // What a call lets the human edit, in the call vocabulary's
            // words (EditField::describe): any tool's, not one tool's.
            ("e", "edit the command, then approve it"),
            ("n", "deny, then type an optional reason for the agent"),
            ("Ctrl-C", "deny the current call"),
            ("Esc", "close a sub-step"),
            (
                "j k ↑ ↓ PgUp PgDn g G",
                "scroll the call (approve once its end was shown)",
            ),
        ],
    ),
    (
        "Panes",
        &[
            ("Tab Shift-Tab", "focus the next / previous pane"),
            ("j k ↑ ↓", "move in the focused pane"),
            ("PgUp PgDn", "a page up / down"),
            ("g G Home End", "first / last (G follows new calls)"),
            ("mouse wheel", "scroll the pane under the pointer"),
            ("r", "grants view (d revokes the selected grant)"),
            ("?", "this help"),
            ("q Ctrl-C", "quit (asks first when calls wait)"),
        ],
    ),
];

/// The keys of `airlock review`, for its help overlay.
pub const REVIEW_HELP: &[(&str, &[(&str, &str)])] = &[(
    "Review (read-only: nothing is run, approved or written)",
    &[
        ("Tab Shift-Tab", "focus the next / previous pane"),
        ("j k ↑ ↓", "move in the focused pane"),
        ("PgUp PgDn", "a page up / down"),
        ("g G Home End", "first / last"),
        ("mouse wheel", "scroll the pane under the pointer"),
        ("/", "filter calls: text in the tool, summary, arguments,"),
        (
            "",
            "decision, who decided, reason or output (Enter applies)",
        ),
        ("Esc", "clear the filter"),
        (
            "n ]",
            "next denied, blocked, refused, timed-out or failed call",
        ),
        ("N [", "previous one"),
        ("?", "this help"),
        ("q Ctrl-C", "quit"),
    ],
)];

/// The action for `key` in `ctx`, if any.
pub fn action(ctx: Context, key: KeyEvent) -> Option<Action> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let ctrl_c = ctrl && key.code == KeyCode::Char('c');
    if let Some(a) = movement(key)
        && !matches!(
            ctx,
            Context::Typing | Context::QuitConfirm | Context::Filter
        )
    {
        return Some(a);
    }
    match ctx {
        Context::Normal => match key.code {
            _ if ctrl_c => Some(Action::Quit),
            KeyCode::Tab => Some(Action::FocusNext),
            KeyCode::BackTab => Some(Action::FocusPrev),
            KeyCode::Char('?') => Some(Action::Help),
            KeyCode::Char('r') => Some(Action::Grants),
            KeyCode::Char('q') => Some(Action::Quit),
            _ => None,
        },
        Context::Choose => match key.code {
            _ if ctrl_c => Some(Action::DenyNow),
            _ if ctrl => None,
            KeyCode::Char('y') => Some(Action::Approve),
            KeyCode::Char('s') => Some(Action::Session),
            KeyCode::Char('a') => Some(Action::Always),
            KeyCode::Char('e') => Some(Action::Edit),
            KeyCode::Char('n') => Some(Action::Deny),
            KeyCode::Char('?') => Some(Action::Help),
            KeyCode::Char('r') => Some(Action::Grants),
            KeyCode::Char('q') => Some(Action::Quit),
            _ => None,
        },
        Context::Pick => match key.code {
            _ if ctrl_c => Some(Action::DenyNow),
            KeyCode::Enter => Some(Action::Confirm),
            KeyCode::Esc => Some(Action::Back),
            KeyCode::Char(c @ '1'..='9') => Some(Action::Pick(c as usize - '0' as usize)),
            _ => None,
        },
        Context::Typing => match key.code {
            _ if ctrl_c => Some(Action::DenyNow),
            KeyCode::Enter => Some(Action::Confirm),
            KeyCode::Esc => Some(Action::Back),
            _ => Some(Action::Type(key)),
        },
        Context::Help => match key.code {
            KeyCode::Esc | KeyCode::Char('?' | 'q') | KeyCode::Enter => Some(Action::Back),
            _ if ctrl_c => Some(Action::Back),
            _ => None,
        },
        Context::Grants => match key.code {
            KeyCode::Esc | KeyCode::Char('r' | 'q') => Some(Action::Back),
            KeyCode::Char('d' | 'x') | KeyCode::Delete => Some(Action::Revoke),
            _ if ctrl_c => Some(Action::Back),
            _ => None,
        },
        Context::QuitConfirm => match key.code {
            KeyCode::Char('y' | 'q') => Some(Action::Yes),
            KeyCode::Char('n') | KeyCode::Esc => Some(Action::Back),
            _ if ctrl_c => Some(Action::Back),
            _ => None,
        },
        Context::Review => match key.code {
            _ if ctrl_c => Some(Action::Quit),
            _ if ctrl => None,
            KeyCode::Tab => Some(Action::FocusNext),
            KeyCode::BackTab => Some(Action::FocusPrev),
            KeyCode::Char('?') => Some(Action::Help),
            KeyCode::Char('q') => Some(Action::Quit),
            KeyCode::Char('/') => Some(Action::Filter),
            KeyCode::Char('n' | ']') => Some(Action::NextProblem),
            KeyCode::Char('N' | '[') => Some(Action::PrevProblem),
            KeyCode::Esc => Some(Action::Back),
            _ => None,
        },
        Context::Filter => match key.code {
            _ if ctrl_c => Some(Action::Back),
            KeyCode::Enter => Some(Action::Confirm),
            KeyCode::Esc => Some(Action::Back),
            _ => Some(Action::Type(key)),
        },
    }
}

fn movement(key: KeyEvent) -> Option<Action> {
    if key
        .modifiers
        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
    {
        return None;
    }
    Some(match key.code {
        KeyCode::Char('k') | KeyCode::Up => Action::Up,
        KeyCode::Char('j') | KeyCode::Down => Action::Down,
        KeyCode::PageUp => Action::PageUp,
        KeyCode::PageDown => Action::PageDown,
        KeyCode::Char('g') | KeyCode::Home => Action::Top,
        KeyCode::Char('G') | KeyCode::End => Action::Bottom,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
    }

    #[test]
    fn the_help_says_what_e_edits_in_the_calls_words_not_a_tools_name() {
        let (_, keys) = HELP[0];
        let e = keys.iter().find(|(k, _)| *k == "e").map(|(_, what)| *what);
        let field = crate::call::EditField::Command {
            text: String::new(),
        };
        assert_eq!(
            e,
            Some(format!("edit {}, then approve it", field.describe()).as_str())
        );
    }

    #[test]
    fn the_same_key_means_different_things_in_different_places() {
        assert_eq!(action(Context::Choose, key('y')), Some(Action::Approve));
        assert_eq!(action(Context::Normal, key('y')), None);
        assert!(matches!(
            action(Context::Typing, key('y')),
            Some(Action::Type(_))
        ));
        assert!(matches!(
            action(Context::Typing, key('j')),
            Some(Action::Type(_))
        ));
        assert_eq!(action(Context::Choose, key('j')), Some(Action::Down));
        assert_eq!(action(Context::QuitConfirm, key('y')), Some(Action::Yes));
        assert_eq!(action(Context::Pick, key('2')), Some(Action::Pick(2)));
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action(Context::Choose, ctrl_c), Some(Action::DenyNow));
        assert_eq!(action(Context::Typing, ctrl_c), Some(Action::DenyNow));
        assert_eq!(action(Context::Normal, ctrl_c), Some(Action::Quit));
    }

    #[test]
    fn review_keys_jump_filter_and_never_answer() {
        let shift_n = KeyEvent::new(KeyCode::Char('N'), KeyModifiers::SHIFT);
        assert_eq!(action(Context::Review, key('n')), Some(Action::NextProblem));
        assert_eq!(action(Context::Review, key(']')), Some(Action::NextProblem));
        assert_eq!(action(Context::Review, shift_n), Some(Action::PrevProblem));
        assert_eq!(action(Context::Review, key('[')), Some(Action::PrevProblem));
        assert_eq!(action(Context::Review, key('/')), Some(Action::Filter));
        assert_eq!(action(Context::Review, key('j')), Some(Action::Down));
        for k in ['y', 's', 'a', 'e', 'r'] {
            assert_eq!(action(Context::Review, key(k)), None, "{k}");
        }
        assert!(matches!(
            action(Context::Filter, key('j')),
            Some(Action::Type(_))
        ));
        assert_eq!(
            action(
                Context::Filter,
                KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)
            ),
            Some(Action::Back)
        );
    }
}
