//! What the policy says about a call before anyone is asked.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Allow, ask or deny.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Run it without asking.
    Allow,
    /// Ask the confirmer.
    Ask,
    /// Refuse it without asking.
    Deny,
}

impl Verdict {
    /// The word shown for it (`allow`, `ask`, `deny`).
    pub fn describe(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

/// Where the rule behind a verdict came from.
///
/// Recorded as its words (a rule's `source` in the trail: `built-in`,
/// `mode`, a config file's path …), so trails written before it was typed
/// read back as the same source.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize)]
#[serde(from = "String")]
pub enum VerdictSource {
    /// A grant the human made at the prompt in this session (`session`).
    Session,
    /// A built-in guardrail (`built-in guardrail`).
    Guardrail,
    /// The policy mode (`mode`: read-only, trust-edits).
    Mode,
    /// A built-in default for the tool's kind (`built-in`).
    BuiltIn,
    /// A deny rule that cannot see what a command runs, so it is asked
    /// (`deny-rule tripwire`).
    DenyTripwire,
    /// An ask rule that cannot see what a command runs, so it is asked
    /// (`ask-rule tripwire`).
    AskTripwire,
    /// The known-safe read-only commands
    /// (`bash.auto_approve_read_only`).
    KnownSafe,
    /// A rule in this configuration file.
    File(PathBuf),
    /// Several rules together (bash allow rules and prefix grants), named
    /// in order, joined by `, `.
    Several(Vec<VerdictSource>),
}

const SESSION: &str = "session";
const GUARDRAIL: &str = "built-in guardrail";
const MODE: &str = "mode";
const BUILT_IN: &str = "built-in";
const DENY_TRIPWIRE: &str = "deny-rule tripwire";
const ASK_TRIPWIRE: &str = "ask-rule tripwire";
const KNOWN_SAFE: &str = "bash.auto_approve_read_only";
const SEPARATOR: &str = ", ";

impl VerdictSource {
    /// The words shown for it (and recorded as a rule's `source`).
    pub fn describe(&self) -> String {
        self.describe_in(None)
    }

    /// As [`describe`](Self::describe), with configuration files inside
    /// `workspace` named relative to it (`.airlock.toml`).
    pub fn describe_in(&self, workspace: Option<&Path>) -> String {
        self.words_in(workspace).into_owned()
    }

    /// The words, borrowed when they are fixed.
    fn words_in(&self, workspace: Option<&Path>) -> std::borrow::Cow<'static, str> {
        match self {
            Self::Session => SESSION.into(),
            Self::Guardrail => GUARDRAIL.into(),
            Self::Mode => MODE.into(),
            Self::BuiltIn => BUILT_IN.into(),
            Self::DenyTripwire => DENY_TRIPWIRE.into(),
            Self::AskTripwire => ASK_TRIPWIRE.into(),
            Self::KnownSafe => KNOWN_SAFE.into(),
            Self::File(path) => workspace
                .and_then(|w| path.strip_prefix(w).ok())
                .filter(|rel| !rel.as_os_str().is_empty())
                .unwrap_or(path)
                .display()
                .to_string()
                .into(),
            Self::Several(all) => all
                .iter()
                .map(|s| s.describe_in(workspace))
                .collect::<Vec<_>>()
                .join(SEPARATOR)
                .into(),
        }
    }

    /// Read from its words: a known word, several joined by `, `, or
    /// else a configuration file's path.
    fn parse(s: &str) -> Self {
        if s.contains(SEPARATOR) {
            return Self::Several(s.split(SEPARATOR).map(Self::parse_one).collect());
        }
        Self::parse_one(s)
    }

    fn parse_one(s: &str) -> Self {
        match s {
            SESSION => Self::Session,
            GUARDRAIL => Self::Guardrail,
            MODE => Self::Mode,
            BUILT_IN => Self::BuiltIn,
            DENY_TRIPWIRE => Self::DenyTripwire,
            ASK_TRIPWIRE => Self::AskTripwire,
            KNOWN_SAFE => Self::KnownSafe,
            path => Self::File(PathBuf::from(path)),
        }
    }
}

impl std::fmt::Display for VerdictSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.words_in(None))
    }
}

impl Serialize for VerdictSource {
    /// Its words (what [`VerdictSource::describe`] says), as the trail
    /// keeps them.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.words_in(None))
    }
}

impl From<&str> for VerdictSource {
    /// The source these words name (as a trail records it).
    fn from(s: &str) -> Self {
        Self::parse(s)
    }
}

impl From<String> for VerdictSource {
    fn from(s: String) -> Self {
        Self::parse(&s)
    }
}

impl From<VerdictSource> for String {
    fn from(s: VerdictSource) -> Self {
        s.describe()
    }
}

/// The policy's answer with the rule that produced it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyVerdict {
    /// Allow, ask or deny.
    pub verdict: Verdict,
    /// The rule text (`bash(cargo test *)`, or a description of a default).
    pub rule: String,
    /// Where the rule came from.
    pub source: VerdictSource,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_reads_back_from_its_words() {
        let all = [
            VerdictSource::Session,
            VerdictSource::Guardrail,
            VerdictSource::Mode,
            VerdictSource::BuiltIn,
            VerdictSource::DenyTripwire,
            VerdictSource::AskTripwire,
            VerdictSource::KnownSafe,
            VerdictSource::File("/w/.airlock.toml".into()),
            VerdictSource::Several(vec![
                VerdictSource::File("/w/.airlock.toml".into()),
                VerdictSource::Session,
            ]),
        ];
        for s in all {
            let v = serde_json::to_value(&s).unwrap();
            assert_eq!(v, serde_json::Value::String(s.describe()));
            assert_eq!(serde_json::from_value::<VerdictSource>(v).unwrap(), s);
        }
    }

    #[test]
    fn the_words_trails_hold_are_typed() {
        let read = |w: &str| serde_json::from_value::<VerdictSource>(w.into()).unwrap();
        assert_eq!(read("built-in guardrail"), VerdictSource::Guardrail);
        assert_eq!(read("built-in"), VerdictSource::BuiltIn);
        assert_eq!(read("mode"), VerdictSource::Mode);
        assert_eq!(
            read("/home/u/.config/airlock/config.toml"),
            VerdictSource::File("/home/u/.config/airlock/config.toml".into())
        );
        // A file whose name mentions a guardrail is still a file.
        assert_eq!(
            read("/w/guardrail.toml"),
            VerdictSource::File("/w/guardrail.toml".into())
        );
    }

    #[test]
    fn files_inside_the_workspace_are_named_relative_to_it() {
        let s = VerdictSource::Several(vec![
            VerdictSource::File("/w/.airlock.toml".into()),
            VerdictSource::File("/etc/airlock.toml".into()),
        ]);
        assert_eq!(
            s.describe_in(Some(Path::new("/w"))),
            ".airlock.toml, /etc/airlock.toml"
        );
        assert_eq!(s.describe(), "/w/.airlock.toml, /etc/airlock.toml");
    }
}
