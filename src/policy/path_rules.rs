//! The deny and ask rules about paths, compiled once, for judging the
//! entries a walk would show (`grep`, `find`, `ls`) as the policy judges a
//! call about one path: a deny rule before an ask rule, and an ask rule
//! whatever allow rules and grants say (as in [`super::Policy::evaluate`]).
//! Allow rules are not needed: a read tool's entry that no deny or ask rule
//! covers is allowed by default.

use std::path::{Path, PathBuf};

use super::paths::PathPattern;
use super::rule::{Action, Rule};

/// Deny and ask rules with a path specifier.
#[derive(Debug, Default)]
pub struct PathRules {
    /// Deny rules first, then ask rules, each in the configured order;
    /// rules whose specifier does not compile are left out (they match no
    /// path in the policy either).
    rules: Vec<(Rule, PathPattern)>,
    workspace: PathBuf,
}

impl PathRules {
    /// The deny and ask rules of `rules` that have a specifier, for
    /// paths relative to `workspace`.
    pub fn new(rules: &[Rule], workspace: &Path) -> Self {
        let of = |action: Action| {
            rules
                .iter()
                .filter(move |r| r.action == action)
                .filter_map(|r| {
                    let pattern = PathPattern::new(r.specifier.as_deref()?).ok()?;
                    Some((r.clone(), pattern))
                })
        };
        Self {
            rules: of(Action::Deny).chain(of(Action::Ask)).collect(),
            workspace: workspace.to_path_buf(),
        }
    }

    /// Whether any of the rules is about one of `tools`.
    pub fn any_for(&self, tools: &[&str]) -> bool {
        self.rules
            .iter()
            .any(|(r, _)| tools.iter().any(|t| r.applies_to(t)))
    }

    /// The first rule about one of `tools` that matches one of `paths`
    /// (absolute, resolved): a deny rule if one matches, else an ask rule.
    pub fn judge<P: AsRef<Path>>(&self, tools: &[&str], paths: &[P]) -> Option<&Rule> {
        self.rules
            .iter()
            .find(|(r, pattern)| {
                tools.iter().any(|t| r.applies_to(t))
                    && paths
                        .iter()
                        .any(|p| pattern.matches(p.as_ref(), &self.workspace))
            })
            .map(|(r, _)| r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(action: Action, text: &str) -> Rule {
        Rule::parse(action, text, "test").unwrap()
    }

    #[test]
    fn deny_before_ask_and_only_for_their_tools() {
        let rules = PathRules::new(
            &[
                rule(Action::Ask, "*(docs/**)"),
                rule(Action::Allow, "grep(**)"),
                rule(Action::Deny, "read_file(**/secrets/**)"),
                rule(Action::Deny, "find(docs/private/**)"),
                rule(Action::Deny, "bash(cat *)"),
            ],
            Path::new("/ws"),
        );
        let hit = |tools: &[&str], p: &str| rules.judge(tools, &[Path::new(p)]).map(Rule::text);
        assert_eq!(
            hit(&["grep", "read_file"], "/ws/config/secrets/db.txt").as_deref(),
            Some("read_file(**/secrets/**)")
        );
        assert_eq!(hit(&["grep"], "/ws/config/secrets/db.txt"), None);
        assert_eq!(
            hit(&["find"], "/ws/docs/private/a").as_deref(),
            Some("find(docs/private/**)")
        );
        assert_eq!(
            hit(&["grep"], "/ws/docs/private/a").as_deref(),
            Some("*(docs/**)")
        );
        assert_eq!(hit(&["grep", "read_file"], "/ws/src/main.rs"), None);
        assert!(rules.any_for(&["ls"]));
        let only_find = PathRules::new(&[rule(Action::Deny, "find(x)")], Path::new("/ws"));
        assert!(only_find.any_for(&["find"]) && !only_find.any_for(&["grep", "read_file"]));
    }
}
