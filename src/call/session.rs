//! How a session runs, who answers its "ask" verdicts and how strict its
//! policy is, as the `session_start` record says them.

use serde::{Deserialize, Serialize};

/// How a supervisor session runs (the `session_start` record's `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SessionMode {
    /// `airlock` with its TUI (`supervisor`).
    Supervisor,
    /// `airlock serve --stdio` (`serve-stdio`).
    ServeStdio,
    /// `airlock serve` over Streamable HTTP (`serve-http`).
    ServeHttp,
    /// `airlock demo` (`demo`).
    Demo,
    /// A word this airlock does not know, read from a trail a newer one
    /// wrote (never written by this one; `unknown`).
    #[serde(other)]
    Unknown,
}

impl SessionMode {
    /// The word people read, the same as the trail's.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Supervisor => "supervisor",
            Self::ServeStdio => "serve-stdio",
            Self::ServeHttp => "serve-http",
            Self::Demo => "demo",
            Self::Unknown => "unknown",
        }
    }
}

/// Who answers "ask" verdicts (the `session_start` record's `confirmer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConfirmerKind {
    /// The human at the TUI (`tui`).
    Tui,
    /// Nobody: every "ask" is refused (`headless`).
    Headless,
    /// `--approve-all`: every "ask" is approved (`approve-all`).
    ApproveAll,
    /// A program's own scripted answers (tests, embedders; `scripted`).
    Scripted,
    /// A word this airlock does not know, read from a trail a newer one
    /// wrote (never written by this one; `unknown`).
    #[serde(other)]
    Unknown,
}

impl ConfirmerKind {
    /// The word people read, the same as the trail's.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Tui => "tui",
            Self::Headless => "headless",
            Self::ApproveAll => "approve-all",
            Self::Scripted => "scripted",
            Self::Unknown => "unknown",
        }
    }
}

/// The policy mode a session ran with (the `session_start` record's
/// `policy_mode`): the config's `policy::Mode` as it was written, read
/// back without refusing a word a newer airlock wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyMode {
    /// `default`.
    Default,
    /// `read-only`.
    ReadOnly,
    /// `trust-edits`.
    TrustEdits,
    /// A word this airlock does not know, read from a trail a newer one
    /// wrote (never written by this one; `unknown`).
    #[serde(other)]
    Unknown,
}

impl PolicyMode {
    /// The word people read, the same as the trail's.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::ReadOnly => "read-only",
            Self::TrustEdits => "trust-edits",
            Self::Unknown => "unknown",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ConfirmerKind, PolicyMode, SessionMode};

    /// Each value is written as its `describe` word and read back as itself.
    fn words_round_trip<T>(values: &[T], describe: fn(T) -> &'static str)
    where
        T: Copy + PartialEq + std::fmt::Debug + serde::Serialize + serde::de::DeserializeOwned,
    {
        for &v in values {
            let word = serde_json::to_value(v).unwrap();
            assert_eq!(word, describe(v));
            assert_eq!(serde_json::from_value::<T>(word).unwrap(), v);
        }
    }

    #[test]
    fn the_trail_words_are_the_words_people_read() {
        words_round_trip(
            &[
                SessionMode::Supervisor,
                SessionMode::ServeStdio,
                SessionMode::ServeHttp,
                SessionMode::Demo,
                SessionMode::Unknown,
            ],
            SessionMode::describe,
        );
        words_round_trip(
            &[
                ConfirmerKind::Tui,
                ConfirmerKind::Headless,
                ConfirmerKind::ApproveAll,
                ConfirmerKind::Scripted,
                ConfirmerKind::Unknown,
            ],
            ConfirmerKind::describe,
        );
        words_round_trip(
            &[
                PolicyMode::Default,
                PolicyMode::ReadOnly,
                PolicyMode::TrustEdits,
                PolicyMode::Unknown,
            ],
            PolicyMode::describe,
        );
    }

    #[test]
    fn a_word_this_airlock_does_not_know_reads_as_unknown() {
        let mode: SessionMode = serde_json::from_str(r#""serve-unix""#).unwrap();
        assert_eq!((mode, mode.describe()), (SessionMode::Unknown, "unknown"));
        // `airlock config` never started a session: "config" is no mode.
        let mode: SessionMode = serde_json::from_str(r#""config""#).unwrap();
        assert_eq!(mode, SessionMode::Unknown);
        let c: ConfirmerKind = serde_json::from_str(r#""slack""#).unwrap();
        assert_eq!((c, c.describe()), (ConfirmerKind::Unknown, "unknown"));
        let p: PolicyMode = serde_json::from_str(r#""yolo""#).unwrap();
        assert_eq!((p, p.describe()), (PolicyMode::Unknown, "unknown"));
        // Not a word at all is still refused.
        assert!(serde_json::from_str::<SessionMode>("7").is_err());
    }
}
