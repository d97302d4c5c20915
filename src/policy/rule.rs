//! Rules: `allow`, `ask` and `deny` lists of `tool(specifier)`.

use serde::{Deserialize, Serialize};

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

impl Rule {
    /// Parse `tool` or `tool(specifier)`.
    pub fn parse(action: Action, text: &str, source: &str) -> Result<Self, RuleError> {
        let err = |message: &str| RuleError {
            text: text.to_string(),
            source_name: source.to_string(),
            message: message.to_string(),
        };
        let t = text.trim();
        let (tool, specifier) = match t.find('(') {
            None => (t, None),
            Some(open) => {
                if !t.ends_with(')') {
                    return Err(err("expected tool(specifier) with a closing parenthesis"));
                }
                let spec = t[open + 1..t.len() - 1].trim();
                if spec.is_empty() {
                    return Err(err(
                        "empty specifier; write just the tool name to match every call",
                    ));
                }
                (t[..open].trim(), Some(spec.to_string()))
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
