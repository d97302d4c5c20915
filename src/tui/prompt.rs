//! The approval prompts: the FIFO queue of calls waiting for the human and
//! the state of the one on screen (which step, scroll, when it appeared).

use std::collections::VecDeque;

use chrono::{DateTime, Utc};

use super::diff::{self, DiffLine};
use super::text_input::TextInput;
use crate::call::{CallId, CallInfo, CallView, EditField, GrantShape, PolicyVerdict};
use crate::policy::GrantScope;

/// A call waiting for the human.
#[derive(Debug, Clone)]
pub struct PendingPrompt {
    /// The call.
    pub call: CallInfo,
    /// Why it asks.
    pub verdict: PolicyVerdict,
    /// When the prompt arrived (the approval timeout counts from here).
    pub arrived: DateTime<Utc>,
    /// What "for this session" and "always" can cover.
    pub choices: Vec<ScopeChoice>,
    /// A write's diff, read into numbered lines.
    pub diff: Vec<DiffLine>,
    /// What the diff's text hides (shown visibly and flagged).
    pub diff_flags: crate::tui::reveal::Flags,
    /// The body's rows as last laid out, by (width, shell directory): a
    /// 10,000-line command is made visible and wrapped once, not per frame.
    pub rows_cache: RowsCache,
}

/// Laid-out rows of a prompt's body, keyed by what they depend on.
pub type RowsCache = std::sync::Arc<
    std::sync::Mutex<
        Option<(
            (usize, Option<String>),
            std::sync::Arc<Vec<ratatui::text::Line<'static>>>,
        )>,
    >,
>;

impl PendingPrompt {
    /// A prompt for `call`.
    pub fn new(call: CallInfo, verdict: PolicyVerdict, arrived: DateTime<Utc>) -> Self {
        let choices = choices(&call);
        let diff = call
            .proposal
            .as_ref()
            .and_then(|p| p.diff.as_deref())
            .map(diff::parse)
            .unwrap_or_default();
        let mut diff_flags = crate::tui::reveal::Flags::default();
        for l in &diff {
            let (_, f) = crate::tui::reveal::line(&l.text, ratatui::style::Style::default());
            diff_flags.add(f);
        }
        Self {
            call,
            verdict,
            arrived,
            choices,
            diff,
            diff_flags,
            rows_cache: RowsCache::default(),
        }
    }

    /// The command, when the call's view is one (as its tool or the
    /// agent's hook described it).
    pub fn command(&self) -> Option<&str> {
        match &self.call.view {
            CallView::Command { command, .. } => Some(command),
            _ => None,
        }
    }

    /// The command's description, when the agent gave one.
    pub fn description(&self) -> Option<&str> {
        match &self.call.view {
            CallView::Command { description, .. } => description.as_deref(),
            _ => None,
        }
    }

    /// The arguments the command view shows (the prompt lists the others).
    pub fn shown_args(&self) -> &'static [&'static str] {
        match &self.call.view {
            CallView::Command { shown_args, .. } => shown_args,
            _ => &[],
        }
    }

    /// Where the command runs, when the call says.
    pub fn cwd(&self) -> Option<&str> {
        match &self.call.view {
            CallView::Command { cwd, .. } => cwd.as_deref(),
            _ => None,
        }
    }

    /// The text `e` edits, when this call can be edited before approval.
    pub fn editable(&self) -> Option<&str> {
        match &self.call.edit {
            Some(EditField::Command { text }) => Some(text),
            None => None,
        }
    }
}

/// One thing a grant or an "always" rule can cover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeChoice {
    /// What it covers, for humans.
    pub label: String,
    /// The session grant.
    pub grant: GrantScope,
    /// The tools the grant's rule names (the call's grant shape's
    /// `rule_tools`).
    pub tools: &'static [&'static str],
    /// The allow rules "always" saves.
    pub rules: Vec<String>,
}

/// What "for this session" / "always" can cover for `call`, from what its
/// tool says a grant of it looks like: the exact command and a proposed
/// prefix for a command, the file for a write.
pub fn choices(call: &CallInfo) -> Vec<ScopeChoice> {
    match &call.grant {
        GrantShape::None => Vec::new(),
        GrantShape::Command {
            command,
            rule_tools,
        } => command_choices(command, rule_tools),
        GrantShape::File {
            path,
            shown,
            rule_tools,
        } => vec![ScopeChoice {
            label: format!("writes to {shown}"),
            grant: GrantScope::File(path.clone()),
            tools: rule_tools,
            rules: rules(rule_tools, &crate::policy::paths::exact_specifier(shown)),
        }],
    }
}

/// The exact command and, when the shell model proposes one, a prefix.
/// "Always" saves the exact command in the exact form (`bash(=rm -f *)`),
/// which matches that command line only: written as a plain rule, a
/// command ending in ` *` would be a prefix rule.
fn command_choices(cmd: &str, rule_tools: &'static [&'static str]) -> Vec<ScopeChoice> {
    let mut out = vec![ScopeChoice {
        label: "this exact command".into(),
        grant: GrantScope::ExactCommand(cmd.to_string()),
        tools: rule_tools,
        rules: rules(rule_tools, &crate::policy::shell::exact_specifier(cmd)),
    }];
    if let Ok(parsed) = crate::policy::shell::parse(cmd)
        && let Some(prefix) = crate::policy::shell::propose_prefix(&parsed)
    {
        let words = prefix.trim_end_matches('*').trim_end().to_string();
        out.push(ScopeChoice {
            label: format!("commands starting with `{words}`"),
            grant: GrantScope::Prefix(words),
            tools: rule_tools,
            rules: rules(rule_tools, &prefix),
        });
    }
    out
}

/// `tool(specifier)` for each tool.
fn rules(tools: &[&str], specifier: &str) -> Vec<String> {
    tools.iter().map(|t| format!("{t}({specifier})")).collect()
}

/// Where the human is in the prompt on screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Choosing: y, s, a, e, n.
    Choose,
    /// Choosing what "approve for this session" covers.
    Session {
        /// The highlighted choice.
        selected: usize,
    },
    /// Choosing the rule "always" saves.
    Always {
        /// The highlighted choice.
        selected: usize,
    },
    /// Editing the command before approving it.
    Edit(TextInput),
    /// Typing an optional reason for the denial.
    Deny(TextInput),
}

/// Calls waiting for the human, oldest first, and the state of the front
/// one's prompt.
#[derive(Debug, Clone)]
pub struct PromptQueue {
    items: VecDeque<PendingPrompt>,
    /// The front prompt's step.
    pub step: Step,
    /// When the front prompt appeared (keys right after are ignored).
    pub shown_at: DateTime<Utc>,
    /// The front prompt's scroll (rows of its body from the top).
    pub scroll: usize,
    /// The end of the front prompt's body has been on screen.
    pub seen_end: bool,
    /// An approval key was pressed before the end was on screen.
    pub nudged: bool,
}

impl Default for PromptQueue {
    fn default() -> Self {
        Self {
            items: VecDeque::new(),
            step: Step::Choose,
            shown_at: DateTime::UNIX_EPOCH,
            scroll: 0,
            seen_end: false,
            nudged: false,
        }
    }
}

impl PromptQueue {
    /// Number of waiting calls.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when nothing waits.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The prompt on screen.
    pub fn front(&self) -> Option<&PendingPrompt> {
        self.items.front()
    }

    /// Every waiting call, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &PendingPrompt> {
        self.items.iter()
    }

    /// Queue a prompt; true when it is the one now on screen.
    pub fn push(&mut self, p: PendingPrompt, now: DateTime<Utc>) -> bool {
        if self.items.iter().any(|q| q.call.id == p.call.id) {
            return false;
        }
        self.items.push_back(p);
        if self.items.len() == 1 {
            self.reset(now);
            return true;
        }
        false
    }

    /// Drop the prompt for `id`; true if there was one.
    pub fn remove(&mut self, id: CallId, now: DateTime<Utc>) -> bool {
        let Some(i) = self.items.iter().position(|p| p.call.id == id) else {
            return false;
        };
        self.items.remove(i);
        if i == 0 {
            self.reset(now);
        }
        true
    }

    fn reset(&mut self, now: DateTime<Utc>) {
        self.step = Step::Choose;
        self.shown_at = now;
        self.scroll = 0;
        self.seen_end = false;
        self.nudged = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::{AgentInfo, Verdict};

    fn call(id: CallId, cmd: &str) -> CallInfo {
        CallInfo {
            id,
            agent: AgentInfo {
                id: 1,
                name: "a".into(),
                version: None,
            },
            tool: "bash".into(),
            kind: None,
            args: serde_json::json!({ "command": cmd }),
            summary: cmd.into(),
            received_at: DateTime::UNIX_EPOCH,
            runner: crate::call::Runner::default(),
            view: crate::call::CallView::default(),
            edit: None,
            grant: crate::tools::bash::grant(cmd),
            proposal: None,
        }
    }

    fn verdict() -> PolicyVerdict {
        PolicyVerdict {
            verdict: Verdict::Ask,
            rule: "r".into(),
            source: "s".into(),
        }
    }

    #[test]
    fn bash_offers_the_exact_command_and_a_prefix() {
        let c = choices(&call(1, "cargo test --release foo"));
        assert_eq!(c.len(), 2);
        assert_eq!(
            c[0].grant,
            GrantScope::ExactCommand("cargo test --release foo".into())
        );
        assert_eq!(c[1].grant, GrantScope::Prefix("cargo test".into()));
        assert_eq!(c[1].rules, ["bash(cargo test *)"]);
        let c = choices(&call(1, "echo $(id)"));
        assert_eq!(c.len(), 1, "no prefix for a command with a hazard");
    }

    #[test]
    fn always_saves_the_exact_command_as_a_rule_matching_it_only() {
        use crate::policy::shell::{parse, specifier_matches};
        use crate::policy::{Action, Rule};
        for (cmd, other) in [
            ("rm -f *", "rm -f ../../anything"),
            ("rm -rf build # *", "rm -rf build /home/u/project"),
            ("git add *", "git add ../x"),
        ] {
            let c = choices(&call(1, cmd));
            assert_eq!(c[0].rules, [format!("bash(={cmd})")], "shown and saved");
            let rule = Rule::parse(Action::Allow, &c[0].rules[0], "f").unwrap();
            assert_eq!(rule.text(), c[0].rules[0]);
            let spec = rule.specifier.unwrap();
            assert!(specifier_matches(&spec, &parse(cmd).unwrap()), "{cmd}");
            assert!(!specifier_matches(&spec, &parse(other).unwrap()), "{other}");
            // CONTROL: the command as a plain rule covers the other one.
            assert!(specifier_matches(cmd, &parse(other).unwrap()), "{other}");
        }
        // A file: its exact path, never a pattern.
        let mut file = call(2, "x");
        file.grant = GrantShape::File {
            path: "/ws/*".into(),
            shown: "*".into(),
            rule_tools: &["write_file"],
        };
        assert_eq!(choices(&file)[0].rules, ["write_file(=*)"]);
    }

    #[test]
    fn the_choices_come_from_the_grant_shape_not_the_tool_name() {
        // Another name, the same shape: the same choices, its own rules.
        let mut run = call(1, "cargo test --release foo");
        run.tool = "run".into();
        run.grant = GrantShape::Command {
            command: "cargo test --release foo".into(),
            rule_tools: &["run"],
        };
        let c = choices(&run);
        let bash = choices(&call(1, "cargo test --release foo"));
        let grants = |c: &[ScopeChoice]| c.iter().map(|c| c.grant.clone()).collect::<Vec<_>>();
        assert_eq!(grants(&c), grants(&bash));
        assert_eq!(c[0].rules, ["run(=cargo test --release foo)"]);
        assert_eq!(c[1].rules, ["run(cargo test *)"]);
        assert_eq!((c[0].tools, c[1].tools), (&["run"][..], &["run"][..]));
        // Named bash, with a command argument, but no grant shape: nothing.
        let mut none = call(2, "make");
        none.grant = GrantShape::None;
        assert!(choices(&none).is_empty());
        // A file shape on a tool of any name: the file, a rule per tool.
        let mut file = call(3, "x");
        file.tool = "save".into();
        file.grant = GrantShape::File {
            path: "/ws/src/a.rs".into(),
            shown: "src/a.rs".into(),
            rule_tools: &["save", "patch"],
        };
        assert_eq!(
            choices(&file),
            [ScopeChoice {
                label: "writes to src/a.rs".into(),
                grant: GrantScope::File("/ws/src/a.rs".into()),
                tools: &["save", "patch"],
                rules: vec!["save(=src/a.rs)".into(), "patch(=src/a.rs)".into()],
            }]
        );
    }

    #[test]
    fn fifo_and_the_front_resets_when_it_changes() {
        let mut q = PromptQueue::default();
        let t = |ms| DateTime::UNIX_EPOCH + chrono::Duration::milliseconds(ms);
        let p = |id| PendingPrompt::new(call(id, "ls"), verdict(), t(0));
        assert!(q.push(p(1), t(10)));
        assert!(!q.push(p(2), t(20)));
        assert!(!q.push(p(1), t(30)), "no duplicates");
        q.step = Step::Deny(TextInput::new("x"));
        assert!(q.remove(2, t(40)));
        assert_eq!(
            q.step,
            Step::Deny(TextInput::new("x")),
            "the front is untouched"
        );
        assert!(q.remove(1, t(50)));
        assert_eq!(q.step, Step::Choose);
        assert_eq!(q.shown_at, t(50));
        assert!(q.is_empty());
    }
}
