//! Rules: `allow`, `ask` and `deny` lists of `tool(specifier)`.

use serde::{Deserialize, Serialize};

use crate::policy::shell::trim_blanks;

/// What a rule does when it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Run without asking.
    Allow,
    /// Ask the human.
    Ask,
    /// Refuse.
    Deny,
}

impl Action {
    /// `allow`, `ask` or `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Allow => "allow",
            Action::Ask => "ask",
            Action::Deny => "deny",
        }
    }
}

/// One rule, with where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rule {
    /// Allow, ask or deny.
    pub action: Action,
    /// The tool name (`bash`, `write_file` …) or `*` for every tool.
    pub tool: String,
    /// What the rule says about the call (`cargo test *`, `src/**`); `None`
    /// matches every call of the tool.
    pub specifier: Option<String>,
    /// Where the rule came from: a file path, `session`, `built-in`.
    pub source: String,
}

/// A rule that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid rule {text:?} in {source_name}: {message}")]
pub struct RuleError {
    /// The rule text.
    pub text: String,
    /// Where it came from.
    pub source_name: String,
    /// What is wrong.
    pub message: String,
}

/// How a rule's specifier is matched against its tool's calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecifierReading {
    /// As a command (`cargo test *`): a tool that runs commands.
    Command,
    /// As a path pattern (`src/**`, `=.env`): every other tool.
    Path,
    /// Either (`*(…)`: every tool's calls).
    Either,
}

impl Rule {
    /// Parse `tool` or `tool(specifier)`.
    pub fn parse(action: Action, text: &str, source: &str) -> Result<Self, RuleError> {
        let err = |message: &str| RuleError {
            text: text.to_string(),
            source_name: source.to_string(),
            message: message.to_string(),
        };
        // Shell blanks only: other white space may be part of a name or
        // a word (see `trim_blanks`).
        let t = trim_blanks(text);
        let (tool, specifier) = match t.find('(') {
            None => (t, None),
            Some(open) => {
                if !t.ends_with(')') {
                    return Err(err("expected tool(specifier) with a closing parenthesis"));
                }
                let spec = trim_blanks(&t[open + 1..t.len() - 1]);
                if spec.is_empty() {
                    return Err(err(
                        "empty specifier; write just the tool name to match every call",
                    ));
                }
                (trim_blanks(&t[..open]), Some(spec.to_string()))
            }
        };
        if tool.is_empty() {
            return Err(err("missing tool name"));
        }
        if tool != "*"
            && !tool
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(err("a tool name is letters, digits, _ and -"));
        }
        Ok(Self {
            action,
            tool: tool.to_string(),
            specifier,
            source: source.to_string(),
        })
    }

    /// Check that the specifier means something as the rule is used:
    /// `reads` says how the calls of its tool are matched. A specifier
    /// that cannot be read never matches, so a deny or ask rule would
    /// silently not apply: it is refused when the rule is loaded.
    pub fn check_specifier(&self, reads: SpecifierReading) -> Result<(), RuleError> {
        let Some(spec) = self.specifier.as_deref() else {
            return Ok(());
        };
        let as_command = || crate::policy::shell::Specifier::parse(spec).map(|_| ());
        let as_path = || crate::policy::paths::PathPattern::new(spec).map(|_| ());
        let problem = match reads {
            SpecifierReading::Command => as_command().err().map(|e| e.to_string()),
            SpecifierReading::Path => as_path().err(),
            SpecifierReading::Either => match (as_command(), as_path()) {
                (Err(c), Err(p)) => Some(format!(
                    "it is neither a command ({c}) nor a path pattern ({p})"
                )),
                _ => None,
            },
        };
        match problem {
            None => Ok(()),
            Some(message) => Err(RuleError {
                text: self.text(),
                source_name: self.source.clone(),
                message: format!("{message}; a rule that cannot be read would never match"),
            }),
        }
    }

    /// The rule as written: `bash(cargo test *)`.
    pub fn text(&self) -> String {
        match &self.specifier {
            Some(s) => format!("{}({s})", self.tool),
            None => self.tool.clone(),
        }
    }

    /// Whether the rule is about `tool` at all.
    pub fn applies_to(&self, tool: &str) -> bool {
        self.tool == "*" || self.tool == tool
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bare_and_specified() {
        let r = Rule::parse(Action::Allow, "bash(cargo test *)", "f").unwrap();
        assert_eq!(r.tool, "bash");
        assert_eq!(r.specifier.as_deref(), Some("cargo test *"));
        assert_eq!(r.text(), "bash(cargo test *)");
        let r = Rule::parse(Action::Deny, " write_file ", "f").unwrap();
        assert_eq!(r.specifier, None);
        assert!(r.applies_to("write_file") && !r.applies_to("bash"));
        // A specifier may itself contain parentheses.
        let r = Rule::parse(Action::Ask, "bash(echo (a))", "f").unwrap();
        assert_eq!(r.specifier.as_deref(), Some("echo (a)"));
    }

    #[test]
    fn rejects_malformed() {
        for bad in ["", "bash(", "bash()", "(x)", "ba sh(x)", "bash(x"] {
            assert!(Rule::parse(Action::Allow, bad, "f").is_err(), "{bad:?}");
        }
    }
}
