//! Policy: allow, ask or deny a prepared call.
//!
//! This is the built-in default policy (read-only tools run, everything
//! else asks); configured rules, modes and session grants refine it.

use crate::supervisor::{PolicyVerdict, Subject, ToolKind, Verdict};

/// The policy of a supervisor session.
#[derive(Debug, Clone, Default)]
pub struct Policy {}

impl Policy {
    /// The built-in defaults.
    pub fn new() -> Self {
        Self {}
    }

    /// The verdict for a call of `tool` (of `kind`) about `subject`. The
    /// agent cannot influence this beyond what it asks to do.
    pub fn evaluate(&self, tool: &str, kind: ToolKind, _subject: &Subject) -> PolicyVerdict {
        let _ = tool;
        match kind {
            ToolKind::Read => PolicyVerdict {
                verdict: Verdict::Allow,
                rule: "default: read-only tools run without asking".into(),
                source: "built-in".into(),
            },
            ToolKind::Write | ToolKind::Exec => PolicyVerdict {
                verdict: Verdict::Ask,
                rule: format!("default: {} tools ask", kind.as_str()),
                source: "built-in".into(),
            },
        }
    }
}
