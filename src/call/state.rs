//! Where a call is: waiting, running, ended — one vocabulary for the
//! timeline, `airlock log` and the TUI.

use super::outcome::Outcome;

/// Where a call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallState {
    /// Not decided yet: waiting for the human.
    Waiting,
    /// Approved; no result yet.
    Running,
    /// It ended (or was refused) this way.
    Ended(Outcome),
    /// A trail read after its session has no result for it (no decision,
    /// or approved and no result): the supervisor stopped first.
    Unfinished,
}

impl CallState {
    /// The words shown for it: `waiting for you`, `running`, the
    /// outcome's word, `no result recorded`.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Waiting => "waiting for you",
            Self::Running => "running",
            Self::Ended(o) => o.describe(),
            Self::Unfinished => "no result recorded",
        }
    }
}

impl std::fmt::Display for CallState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.describe())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_unreported_outcome_is_not_a_missing_result() {
        assert_eq!(
            CallState::Ended(Outcome::Unreported).describe(),
            "unreported"
        );
        assert_eq!(CallState::Unfinished.describe(), "no result recorded");
        assert_ne!(
            CallState::Ended(Outcome::Unreported).describe(),
            CallState::Unfinished.describe()
        );
    }
}
