//! Session grants: "approve for this session" choices made at the prompt.
//! They live until the supervisor exits and can be listed and revoked.

use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::call::{Subject, ToolKind};
use crate::policy::shell::trim_blanks;

/// What a grant covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "scope", content = "value")]
pub enum GrantScope {
    /// Exactly this bash command text (the human saw all of it).
    ExactCommand(String),
    /// bash commands that start with these words (`cargo test` covers
    /// `cargo test --release`), matched part by part like an allow rule.
    Prefix(String),
    /// Writes (`write_file`, `edit_file`) to this file (resolved path).
    File(PathBuf),
}

impl GrantScope {
    /// Whether the grant covers a call of `kind` about `subject`. A grant
    /// is shaped by what the tool says the call is (its kind and subject),
    /// not by the tool's name: command grants cover commands that run
    /// (exec tools), file grants a write to that one file.
    pub fn covers(&self, kind: ToolKind, subject: &Subject) -> bool {
        match (self, subject) {
            (GrantScope::ExactCommand(c), Subject::Command { command }) => {
                kind == ToolKind::Exec && trim_blanks(command) == trim_blanks(c)
            }
            (GrantScope::File(f), Subject::Paths { paths }) => {
                kind == ToolKind::Write && paths.len() == 1 && &paths[0] == f
            }
            // Prefix grants are taken together with the allow rules; a
            // grant of one shape never covers a subject of another.
            _ => false,
        }
    }

    /// The grant written as a rule for each of `tools`, the tools whose
    /// calls it stands for as the call's tool said (its grant shape's
    /// `rule_tools`): `bash(cargo test *)`; `bash(=rm -f *)`;
    /// `write_file(=a.rs), edit_file(=a.rs)`. The exact command and the
    /// file are written in the exact form (`=…`), which no rule parser
    /// reads as a pattern: the rule means what the grant does. With no
    /// tools, the specifier alone.
    pub fn rule_text(&self, tools: &[&str], workspace: &Path) -> String {
        let specifier = match self {
            GrantScope::ExactCommand(c) => super::shell::exact_specifier(c),
            GrantScope::Prefix(p) => format!("{p} *"),
            GrantScope::File(f) => super::paths::exact_specifier(
                &f.strip_prefix(workspace)
                    .unwrap_or(f.as_path())
                    .display()
                    .to_string(),
            ),
        };
        if tools.is_empty() {
            return specifier;
        }
        tools
            .iter()
            .map(|t| format!("{t}({specifier})"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One grant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    /// Unique within the session, from 1.
    pub id: u64,
    /// What it covers.
    #[serde(flatten)]
    pub scope: GrantScope,
    /// The tools whose calls its rule names, as the granted call's tool
    /// said (`bash`; `write_file`, `edit_file`). Records written before the
    /// grant kept them have none (their `rule` says it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// The grant as a rule, for display and the audit.
    pub rule: String,
    /// When it was made.
    pub created: chrono::DateTime<chrono::Utc>,
}

/// The session's grants.
#[derive(Debug, Default)]
pub struct Grants {
    next: AtomicU64,
    list: RwLock<Vec<Grant>>,
}

impl Grants {
    /// Add a grant for calls of `tools` (the granted call's grant shape's
    /// `rule_tools`); returns it.
    pub fn add(&self, scope: GrantScope, tools: &[&str], workspace: &Path) -> Grant {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let grant = Grant {
            id,
            rule: scope.rule_text(tools, workspace),
            tools: tools.iter().map(|t| (*t).to_string()).collect(),
            scope,
            created: chrono::Utc::now(),
        };
        self.write().push(grant.clone());
        grant
    }

    /// Revoke a grant by id; returns it if it existed.
    pub fn revoke(&self, id: u64) -> Option<Grant> {
        let mut list = self.write();
        let i = list.iter().position(|g| g.id == id)?;
        Some(list.remove(i))
    }

    /// The current grants, oldest first.
    pub fn list(&self) -> Vec<Grant> {
        self.list
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The first grant for which `f` is true.
    pub fn find(&self, f: impl Fn(&Grant) -> bool) -> Option<Grant> {
        self.list
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .find(|g| f(g))
            .cloned()
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Vec<Grant>> {
        self.list
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_list_revoke() {
        let g = Grants::default();
        let ws = Path::new("/ws");
        let a = g.add(GrantScope::Prefix("cargo test".into()), &["bash"], ws);
        let b = g.add(
            GrantScope::File(PathBuf::from("/ws/src/main.rs")),
            &["write_file", "edit_file"],
            ws,
        );
        assert_eq!(a.rule, "bash(cargo test *)");
        assert_eq!(b.rule, "write_file(=src/main.rs), edit_file(=src/main.rs)");
        assert_eq!(b.tools, ["write_file", "edit_file"]);
        assert_eq!(g.list().len(), 2);
        assert_eq!(g.revoke(a.id).map(|x| x.id), Some(a.id));
        assert!(g.revoke(a.id).is_none());
        assert_eq!(g.list(), vec![b]);
    }

    #[test]
    fn the_rule_names_the_tools_the_call_said_not_a_name_in_policy() {
        let ws = Path::new("/ws");
        let exact = GrantScope::ExactCommand("make test".into());
        assert_eq!(exact.rule_text(&["run"], ws), "run(=make test)");
        let prefix = GrantScope::Prefix("cargo test".into());
        assert_eq!(prefix.rule_text(&["sh"], ws), "sh(cargo test *)");
        let file = GrantScope::File(PathBuf::from("/ws/a.rs"));
        assert_eq!(
            file.rule_text(&["save", "patch"], ws),
            "save(=a.rs), patch(=a.rs)"
        );
        assert_eq!(
            GrantScope::File(PathBuf::from("/elsewhere/a.rs")).rule_text(&["save"], ws),
            "save(=/elsewhere/a.rs)"
        );
        assert_eq!(prefix.rule_text(&[], ws), "cargo test *");
    }

    #[test]
    fn a_grant_recorded_before_it_kept_its_tools_still_reads() {
        // A `grant_added` record's grant as earlier versions wrote it.
        let old = r#"{"id":3,"scope":"prefix","value":"cargo test","rule":"bash(cargo test *)","created":"2026-11-30T10:00:00Z"}"#;
        let g: Grant = serde_json::from_str(old).expect("an old grant reads");
        assert_eq!(g.scope, GrantScope::Prefix("cargo test".into()));
        assert_eq!(g.rule, "bash(cargo test *)");
        assert!(g.tools.is_empty());
        // And a new one round-trips with its tools.
        let new = Grants::default().add(g.scope.clone(), &["bash"], Path::new("/ws"));
        let back: Grant =
            serde_json::from_str(&serde_json::to_string(&new).expect("writes")).expect("reads");
        assert_eq!(back, new);
    }

    #[test]
    fn a_grant_covers_calls_of_its_shape_not_of_a_tool_name() {
        let cmd = |c: &str| Subject::Command { command: c.into() };
        let file = |p: &str| Subject::Paths {
            paths: vec![PathBuf::from(p)],
        };
        let exact = GrantScope::ExactCommand("make test".into());
        assert!(exact.covers(ToolKind::Exec, &cmd(" make test ")));
        assert!(!exact.covers(ToolKind::Exec, &cmd("make test; rm x")));
        let f = GrantScope::File(PathBuf::from("/ws/a.rs"));
        assert!(f.covers(ToolKind::Write, &file("/ws/a.rs")));
        // Controls: the same subject from a call of another kind, another
        // file, or more than one file is not covered.
        assert!(!exact.covers(ToolKind::Read, &cmd("make test")));
        assert!(!f.covers(ToolKind::Read, &file("/ws/a.rs")));
        assert!(!f.covers(ToolKind::Write, &file("/ws/b.rs")));
        let two = Subject::Paths {
            paths: vec![PathBuf::from("/ws/a.rs"), PathBuf::from("/ws/b.rs")],
        };
        assert!(!f.covers(ToolKind::Write, &two));
        assert!(!GrantScope::Prefix("make".into()).covers(ToolKind::Exec, &cmd("make")));
    }
}
