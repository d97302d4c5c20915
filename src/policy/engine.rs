//! Evaluating a call: guardrails, then deny, mode, ask, allow, session
//! grants, known-safe commands, and the mode's defaults — in that order,
//! so deny beats ask beats allow.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use super::grants::{Grant, GrantScope, Grants};
use super::paths::PathPattern;
use super::persist::{self, PersistError, SaveObserver};
use super::reach::{Reach, ReachCheck};
use super::rule::{Action, Rule};
use super::{Mode, guardrails, shell};
use crate::call::{PolicyVerdict, ShellEnv, ShellSite, Subject, ToolKind, Verdict, VerdictSource};
use crate::scope::{Exclusions, Scope};

/// The policy of a supervisor session.
#[derive(Debug)]
pub struct Policy {
    mode: Mode,
    rules: RwLock<Vec<Rule>>,
    grants: Grants,
    workspace: PathBuf,
    project_config: PathBuf,
    auto_approve_read_only: bool,
    /// What known-safe commands may reach.
    reach: Arc<Reach>,
    /// Told about each "always" save (the trust store).
    on_save: Option<Arc<dyn SaveObserver>>,
}

impl Default for Policy {
    fn default() -> Self {
        Self::new()
    }
}

/// How a rule must match a command or a set of paths.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Need {
    /// Every part (allow rules).
    Every,
    /// Any part (ask and deny rules).
    Any,
}

impl Policy {
    /// The built-in defaults: no rules, mode `default`.
    pub fn new() -> Self {
        Self::with_rules(Mode::Default, Vec::new(), Path::new("/"), false)
    }

    /// A policy with `rules` (from config files) for `workspace`.
    pub fn with_rules(
        mode: Mode,
        rules: Vec<Rule>,
        workspace: &Path,
        auto_approve_read_only: bool,
    ) -> Self {
        Self {
            mode,
            rules: RwLock::new(rules),
            grants: Grants::default(),
            workspace: workspace.to_path_buf(),
            project_config: workspace.join(crate::dirs::PROJECT_CONFIG),
            auto_approve_read_only,
            reach: Arc::new(Reach::new(workspace)),
            on_save: None,
        }
    }

    /// Tell `observer` about each "always" save, under the file's lock.
    #[must_use]
    pub fn with_save_observer(mut self, observer: Arc<dyn SaveObserver>) -> Self {
        self.on_save = Some(observer);
        self
    }

    /// Known-safe commands must not name excluded files (`cat .env`); for
    /// a policy without a scope ([`Policy::with_scope`]).
    #[must_use]
    pub fn with_exclusions(mut self, exclusions: Exclusions) -> Self {
        self.reach = Arc::new((*self.reach).clone().with_exclusions(exclusions));
        self
    }

    /// Known-safe commands reach only what `read_file` may read in `scope`
    /// (its roots, exclusions and hard-link rules), as the command sees
    /// the paths.
    #[must_use]
    pub fn with_scope(mut self, scope: Arc<Scope>) -> Self {
        self.reach = Arc::new((*self.reach).clone().with_scope(scope));
        self
    }

    /// The mode in force.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The rules in force (config files and "always" choices).
    pub fn rules(&self) -> Vec<Rule> {
        self.rules
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The session's grants.
    pub fn grants(&self) -> &Grants {
        &self.grants
    }

    /// Grant `scope` for the rest of the session, for calls of `tools` (the
    /// granted call's grant shape's `rule_tools`, which its rule names).
    pub fn grant(&self, scope: GrantScope, tools: &[&str]) -> Grant {
        self.grants.add(scope, tools, &self.workspace)
    }

    /// "Always": append `rule` to the project's `.airlock.toml` (keeping its
    /// comments) and apply it from now on.
    pub fn always(&self, action: Action, rule_text: &str) -> Result<Rule, PersistError> {
        let source = self.project_config.display().to_string();
        let rule = Rule::parse(action, rule_text, &source).map_err(|e| PersistError::Invalid {
            path: source.clone(),
            message: e.to_string(),
        })?;
        persist::append_rule_with(
            &self.project_config,
            action,
            &rule.text(),
            self.on_save.as_deref(),
        )?;
        let mut rules = self
            .rules
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !rules.contains(&rule) {
            rules.push(rule.clone());
        }
        Ok(rule)
    }

    /// [`Policy::evaluate_at`] for a command in airlock's own sandboxed
    /// shell (excluded files hidden), in the workspace.
    pub fn evaluate(&self, tool: &str, kind: ToolKind, subject: &Subject) -> PolicyVerdict {
        let site = ShellSite {
            cwd: Some(self.workspace.clone()),
            hides_excluded: true,
            env: ShellEnv::Filtered,
        };
        self.evaluate_at(tool, kind, subject, &site)
    }

    /// The verdict for a call of `tool` (of `kind`) about `subject`; a
    /// command would run at `site` (which only the known-safe check
    /// reads). The agent cannot influence it beyond what it asks to do.
    pub fn evaluate_at(
        &self,
        tool: &str,
        kind: ToolKind,
        subject: &Subject,
        site: &ShellSite,
    ) -> PolicyVerdict {
        let parsed = match subject {
            Subject::Command { command } => Some(shell::parse(command)),
            _ => None,
        };
        if let (Subject::Command { command }, Some(p)) = (subject, &parsed)
            && let Some(g) = guardrails::check_parsed(command, p)
        {
            return verdict(
                Verdict::Deny,
                format!("guardrail: {g}"),
                VerdictSource::Guardrail,
            );
        }
        let rules = self
            .rules
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let applicable = |action: Action| {
            rules
                .iter()
                .filter(move |r| r.action == action && r.applies_to(tool))
        };
        if let Some(r) =
            applicable(Action::Deny).find(|r| self.matches(r, subject, parsed.as_ref(), Need::Any))
        {
            return verdict(Verdict::Deny, r.text(), file(r));
        }
        if self.mode == Mode::ReadOnly && kind != ToolKind::Read {
            return verdict(
                Verdict::Deny,
                "mode read-only: writes and commands are refused".into(),
                VerdictSource::Mode,
            );
        }
        if let Some(r) =
            applicable(Action::Ask).find(|r| self.matches(r, subject, parsed.as_ref(), Need::Any))
        {
            return verdict(Verdict::Ask, r.text(), file(r));
        }
        if let (Subject::Command { .. }, Some(parsed)) = (subject, &parsed)
            && let Some(why) = not_static(parsed)
            && let Some((rule, source)) = tripwire(
                applicable(Action::Deny).next(),
                applicable(Action::Ask).next(),
            )
        {
            // Deny and ask rules are tripwires on the words they can see; a
            // command that hides what it runs matches no allow rule, grant
            // or known-safe check: the human decides.
            return verdict(
                Verdict::Ask,
                format!(
                    "asked: {why}, so {} rules such as {} cannot see what it runs",
                    rule.action.as_str(),
                    rule.text()
                ),
                source,
            );
        }
        if let Some(v) = self.allow_verdict(&rules, tool, subject, parsed.as_ref()) {
            return v;
        }
        drop(rules);
        if let Some(g) = self.grants.find(|g| g.scope.covers(kind, subject)) {
            return PolicyVerdict {
                verdict: Verdict::Allow,
                rule: g.rule,
                source: VerdictSource::Session,
            };
        }
        self.known_safe_or_default(kind, subject, parsed.as_ref(), site)
    }

    /// After the rules and grants: a known-safe command where it runs
    /// (`bash.auto_approve_read_only`), else the mode's default for `kind`.
    fn known_safe_or_default(
        &self,
        kind: ToolKind,
        subject: &Subject,
        parsed: Option<&Result<shell::ParsedCommand, shell::ParseError>>,
        site: &ShellSite,
    ) -> PolicyVerdict {
        let mut not_here = None;
        if kind == ToolKind::Exec
            && self.auto_approve_read_only
            && let Some(Ok(p)) = parsed
            && let Some(check) = shell::known_safe(p)
        {
            match self.reach.check(p, site) {
                Ok(()) => {
                    return verdict(
                        Verdict::Allow,
                        format!("known-safe read-only command ({check})"),
                        VerdictSource::KnownSafe,
                    );
                }
                Err(why) => not_here = Some(why),
            }
        }
        match kind {
            ToolKind::Read => verdict(
                Verdict::Allow,
                "default: read-only tools run without asking".into(),
                VerdictSource::BuiltIn,
            ),
            ToolKind::Write if self.mode == Mode::TrustEdits && self.inside_workspace(subject) => {
                verdict(
                    Verdict::Allow,
                    "mode trust-edits: writes inside the workspace run without asking".into(),
                    VerdictSource::Mode,
                )
            }
            ToolKind::Write | ToolKind::Exec | ToolKind::Network | ToolKind::Mcp => verdict(
                Verdict::Ask,
                match not_here {
                    Some(why) => format!(
                        "default: {} tools ask (read-only, but not known-safe here: {why})",
                        kind.describe()
                    ),
                    None => format!("default: {} tools ask", kind.describe()),
                },
                VerdictSource::BuiltIn,
            ),
            // A tool airlock knows nothing about is never allowed by default.
            ToolKind::Other => verdict(
                Verdict::Ask,
                "default: tools of unknown kind ask".into(),
                VerdictSource::BuiltIn,
            ),
        }
    }

    /// For a known-safe verdict about `subject` at `site`: its scope check,
    /// to be made again where and when the command really runs (see
    /// [`ReachCheck`]). `None` for anything but a command that parses.
    pub fn known_safe_recheck(&self, subject: &Subject, site: &ShellSite) -> Option<ReachCheck> {
        let Subject::Command { command } = subject else {
            return None;
        };
        let parsed = shell::parse(command).ok()?;
        Some(ReachCheck::new(self.reach.clone(), parsed, site))
    }

    /// The allow rules' verdict. For bash, the rules are taken together:
    /// `ls && git status` is allowed by `bash(ls *)` and `bash(git status)`
    /// when every part matches one of them and nothing is a hazard.
    fn allow_verdict(
        &self,
        rules: &[Rule],
        tool: &str,
        subject: &Subject,
        parsed: Option<&Result<shell::ParsedCommand, shell::ParseError>>,
    ) -> Option<PolicyVerdict> {
        let allow: Vec<&Rule> = rules
            .iter()
            .filter(|r| r.action == Action::Allow && r.applies_to(tool))
            .collect();
        if let Some(r) = allow.iter().find(|r| r.specifier.is_none()) {
            return Some(verdict(Verdict::Allow, r.text(), file(r)));
        }
        if let (Subject::Command { .. }, Some(Ok(p))) = (subject, parsed) {
            // Allow rules and prefix grants, taken together.
            let mut specs: Vec<String> = Vec::new();
            let mut labels: Vec<(String, VerdictSource)> = Vec::new();
            for r in allow.iter().filter(|r| r.specifier.is_some()) {
                specs.push(r.specifier.clone().unwrap_or_default());
                labels.push((r.text(), file(r)));
            }
            for g in self.grants.list() {
                if let GrantScope::Prefix(prefix) = &g.scope {
                    specs.push(format!("{prefix} *"));
                    labels.push((g.rule.clone(), VerdictSource::Session));
                }
            }
            let refs: Vec<&str> = specs.iter().map(String::as_str).collect();
            let used = shell::allowed_by(&refs, p)?;
            let texts: Vec<&str> = used.iter().map(|&i| labels[i].0.as_str()).collect();
            let mut sources: Vec<&VerdictSource> = used.iter().map(|&i| &labels[i].1).collect();
            sources.dedup();
            // Grants alone are the session's; with a configured rule, the
            // rules' sources are named together.
            let source = match sources.as_slice() {
                [only] => (*only).clone(),
                many => VerdictSource::Several(many.iter().map(|&s| s.clone()).collect()),
            };
            return Some(PolicyVerdict {
                verdict: Verdict::Allow,
                rule: texts.join(" + "),
                source,
            });
        }
        allow
            .iter()
            .find(|r| self.matches(r, subject, parsed, Need::Every))
            .map(|r| verdict(Verdict::Allow, r.text(), file(r)))
    }

    fn inside_workspace(&self, subject: &Subject) -> bool {
        match subject {
            Subject::Paths { paths } => {
                !paths.is_empty() && paths.iter().all(|p| p.starts_with(&self.workspace))
            }
            _ => false,
        }
    }

    fn matches(
        &self,
        rule: &Rule,
        subject: &Subject,
        parsed: Option<&Result<shell::ParsedCommand, shell::ParseError>>,
        need: Need,
    ) -> bool {
        let Some(spec) = rule.specifier.as_deref() else {
            return true;
        };
        match subject {
            Subject::Command { .. } => match parsed {
                Some(Ok(p)) => match need {
                    Need::Every => shell::specifier_matches(spec, p),
                    Need::Any => shell::specifier_matches_any(spec, p),
                },
                // Unparseable: never allowed by a rule; it is asked.
                _ => false,
            },
            Subject::Paths { paths } => {
                let Ok(pattern) = PathPattern::new(spec) else {
                    return false;
                };
                let hit = |p: &PathBuf| pattern.matches(p, &self.workspace);
                match need {
                    Need::Every => !paths.is_empty() && paths.iter().all(hit),
                    Need::Any => paths.iter().any(hit),
                }
            }
            Subject::None => false,
        }
    }
}

/// The rule whose tripwire asks about a command that hides what it runs,
/// and the verdict's source: a deny rule first, else an ask rule.
fn tripwire<'r>(
    deny: Option<&'r Rule>,
    ask: Option<&'r Rule>,
) -> Option<(&'r Rule, VerdictSource)> {
    match (deny, ask) {
        (Some(r), _) => Some((r, VerdictSource::DenyTripwire)),
        (None, Some(r)) => Some((r, VerdictSource::AskTripwire)),
        (None, None) => None,
    }
}

/// Why a bash command's programs are not known statically, if they are
/// not (a parse error counts).
fn not_static(parsed: &Result<shell::ParsedCommand, shell::ParseError>) -> Option<String> {
    match parsed {
        Err(e) => Some(e.to_string()),
        Ok(p) if p.dynamic.is_empty() => None,
        Ok(p) => Some(p.dynamic.join("; ")),
    }
}

fn verdict(verdict: Verdict, rule: String, source: VerdictSource) -> PolicyVerdict {
    PolicyVerdict {
        verdict,
        rule,
        source,
    }
}

/// The source of a configured rule: its file.
fn file(rule: &Rule) -> VerdictSource {
    VerdictSource::File(PathBuf::from(&rule.source))
}
