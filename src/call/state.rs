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

    /// Where the call stands in a trail read after its session: a call
    /// still waiting or running there never got its result
    /// ([`Unfinished`](Self::Unfinished)); an ended one stays as it is.
    #[must_use]
    pub fn settled(self) -> Self {
        match self {
            Self::Waiting | Self::Running => Self::Unfinished,
            other => other,
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

    #[test]
    fn settled_turns_only_calls_without_a_result_into_unfinished() {
        assert_eq!(CallState::Waiting.settled(), CallState::Unfinished);
        assert_eq!(CallState::Running.settled(), CallState::Unfinished);
        assert_eq!(CallState::Unfinished.settled(), CallState::Unfinished);
        for o in [Outcome::Ok, Outcome::Refused, Outcome::Unreported] {
            assert_eq!(CallState::Ended(o).settled(), CallState::Ended(o));
        }
    }
}
