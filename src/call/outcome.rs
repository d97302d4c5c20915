//! How a call ended.

use serde::{Deserialize, Serialize};

/// How a call ended: it ran (`Ok`, `Error`, or `Cancelled` while running),
/// or it was not run and why. Serialized as the trail's `status` word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// It ran and succeeded.
    Ok,
    /// It ran and failed (or timed out while running).
    Error,
    /// The human refused it (or no human was attached to ask).
    Denied,
    /// A rule or a session grant refused it without asking.
    Blocked,
    /// Nobody answered in time; it did not run.
    Timeout,
    /// The agent cancelled it, disconnected, or the supervisor closed.
    Cancelled,
    /// Refused before the policy: path scope, invalid arguments, unknown
    /// tool.
    Refused,
    /// Approved and run by the agent itself, which never reported the
    /// result (it disconnected, or the result did not come in time).
    Unreported,
}

impl Outcome {
    /// The word shown for it, as recorded (`ok`, `error`, `denied` …).
    pub fn describe(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Error => "error",
            Self::Denied => "denied",
            Self::Blocked => "blocked",
            Self::Timeout => "timeout",
            Self::Cancelled => "cancelled",
            Self::Refused => "refused",
            Self::Unreported => "unreported",
        }
    }

    /// The outcome of a call that ran: `Ok` or `Error`.
    pub fn of_run(is_error: bool) -> Self {
        if is_error { Self::Error } else { Self::Ok }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.describe())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialized_as_the_words_trails_already_hold() {
        for o in [
            Outcome::Ok,
            Outcome::Error,
            Outcome::Denied,
            Outcome::Blocked,
            Outcome::Timeout,
            Outcome::Cancelled,
            Outcome::Refused,
            Outcome::Unreported,
        ] {
            let v = serde_json::to_value(o).unwrap();
            assert_eq!(v, o.describe());
            assert_eq!(serde_json::from_value::<Outcome>(v).unwrap(), o);
        }
    }
}
