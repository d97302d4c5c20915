//! What the policy's deny and ask rules about paths say of the entries a
//! walk would show (`grep`, `find`, `ls`). The policy judges a call by its
//! subject, and a walk's subject is only where it starts; so the
//! supervisor hands a read tool's call the rules that apply to it, and the
//! walk asks them about every entry, as if the tool were called on it.
//! Tools never read the policy themselves.

use std::path::Path;
use std::sync::Arc;

/// A rule that covers a walked entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryRule {
    /// A deny rule, by its text: the entry is hidden, as an excluded one is.
    Deny(String),
    /// An ask rule, by its text: the entry is neither shown nor searched
    /// (a walk does not ask about each entry; a call naming it is asked).
    Ask(String),
}

/// What [`EntryRules`] asks about each entry.
type Judge = dyn Fn(&Path) -> Option<EntryRule> + Send + Sync;

/// The path rules a walk honours, entry by entry; none by default.
#[derive(Clone, Default)]
pub struct EntryRules(Option<Arc<Judge>>);

impl EntryRules {
    /// No rules: every entry the scope allows is shown.
    pub fn none() -> Self {
        Self(None)
    }

    /// Rules that `judge` applies to an entry's canonical path.
    pub fn new(judge: impl Fn(&Path) -> Option<EntryRule> + Send + Sync + 'static) -> Self {
        Self(Some(Arc::new(judge)))
    }

    /// The rule covering the entry at `path` (canonical), if any.
    pub fn judge(&self, path: &Path) -> Option<EntryRule> {
        self.0.as_ref().and_then(|judge| judge(path))
    }
}

impl std::fmt::Debug for EntryRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "EntryRules(some)"
        } else {
            "EntryRules(none)"
        })
    }
}
