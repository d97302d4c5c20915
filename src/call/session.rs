//! How a session runs and who answers its "ask" verdicts, as the
//! `session_start` record says them.

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
    /// `airlock config`: reads the configuration, records nothing (`config`).
    Config,
}

impl SessionMode {
    /// The word people read, the same as the trail's.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Supervisor => "supervisor",
            Self::ServeStdio => "serve-stdio",
            Self::ServeHttp => "serve-http",
            Self::Demo => "demo",
            Self::Config => "config",
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
}

impl ConfirmerKind {
    /// The word people read, the same as the trail's.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Tui => "tui",
            Self::Headless => "headless",
            Self::ApproveAll => "approve-all",
            Self::Scripted => "scripted",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ConfirmerKind, SessionMode};

    #[test]
    fn the_trail_words_are_the_words_people_read() {
        for m in [
            SessionMode::Supervisor,
            SessionMode::ServeStdio,
            SessionMode::ServeHttp,
            SessionMode::Demo,
            SessionMode::Config,
        ] {
            let word = serde_json::to_value(m).unwrap();
            assert_eq!(word, m.describe());
            assert_eq!(serde_json::from_value::<SessionMode>(word).unwrap(), m);
        }
        for c in [
            ConfirmerKind::Tui,
            ConfirmerKind::Headless,
            ConfirmerKind::ApproveAll,
            ConfirmerKind::Scripted,
        ] {
            let word = serde_json::to_value(c).unwrap();
            assert_eq!(word, c.describe());
            assert_eq!(serde_json::from_value::<ConfirmerKind>(word).unwrap(), c);
        }
    }
}
