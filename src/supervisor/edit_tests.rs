//! Edit-then-approve: the human edits a command at the prompt; the edited
//! command is judged by the policy again, runs, and the agent is told.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::audit::AuditLog;
use crate::call::*;
use crate::policy::{Action, Mode, Policy, Rule};
use crate::scope::Scope;
use crate::tools::{
    Invocation, Limits, RunContext, RunFuture, Tool, ToolError, ToolOutput, ToolRegistry, ToolSpec,
};

/// An exec tool that records the commands it ran instead of running them.
struct Echo {
    spec: ToolSpec,
    ran: Arc<Mutex<Vec<String>>>,
}

struct EchoCall {
    command: String,
    ran: Arc<Mutex<Vec<String>>>,
}

impl Tool for Echo {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn editable_arg(&self) -> Option<&'static str> {
        Some("command")
    }
    fn prepare(
        &self,
        a: &Map<String, Value>,
        _s: &Scope,
    ) -> Result<Box<dyn Invocation>, ToolError> {
        match a.get("command").and_then(Value::as_str) {
            Some(c) if !c.trim().is_empty() => Ok(Box::new(EchoCall {
                command: c.to_string(),
                ran: self.ran.clone(),
            })),
            _ => Err(ToolError::InvalidArguments {
                tool: "echo".into(),
                message: "command is empty".into(),
            }),
        }
    }
}

impl Invocation for EchoCall {
    fn summary(&self) -> String {
        self.command.clone()
    }
    fn subject(&self) -> Subject {
        Subject::Command {
            command: self.command.clone(),
        }
    }
    fn edit(&self) -> Option<EditField> {
        Some(EditField::Command {
            text: self.command.clone(),
        })
    }
    fn run(self: Box<Self>, _ctx: RunContext) -> RunFuture {
        Box::pin(async move {
            self.ran.lock().unwrap().push(self.command.clone());
            ToolOutput::ok(format!("output of {}", self.command))
                .with_structured(json!({ "exit_code": 0 }))
        })
    }
}

/// Approves every call with `self.0` as the edited command.
struct EditTo(&'static str);

#[async_trait]
impl Confirmer for EditTo {
    async fn confirm(&self, _r: ConfirmRequest) -> Decision {
        Decision::approve_edited(self.0.to_string())
    }
    fn kind(&self) -> crate::call::ConfirmerKind {
        crate::call::ConfirmerKind::Scripted
    }
}

struct Fixture {
    dir: tempfile::TempDir,
    sup: Arc<Supervisor>,
    ran: Arc<Mutex<Vec<String>>>,
    audit_path: std::path::PathBuf,
    agent: AgentInfo,
}

fn fixture(edit_to: &'static str, rules: Vec<Rule>) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let audit_path = dir.path().join("audit").join("t.jsonl");
    let audit = Arc::new(AuditLog::create(&audit_path).unwrap());
    let ran = Arc::new(Mutex::new(Vec::new()));
    let mut tools = ToolRegistry::all();
    tools.insert(Arc::new(Echo {
        spec: ToolSpec {
            name: "echo",
            title: "echo",
            description: "test",
            kind: ToolKind::Exec,
            input_schema: Map::new(),
        },
        ran: ran.clone(),
    }));
    let sup = Supervisor::new(SupervisorParts {
        scope: Scope::new(&ws, &[], &[]).unwrap(),
        tools,
        policy: Policy::with_rules(Mode::Default, rules, &ws, false),
        confirmer: Arc::new(EditTo(edit_to)),
        audit,
        limits: Limits::default(),
        approval_timeout: None,
        events: EventBus::default(),
    });
    let agent = sup.agent_connected(Some("test-agent"), None);
    Fixture {
        dir,
        sup,
        ran,
        audit_path,
        agent,
    }
}

fn decided(path: &std::path::Path) -> Value {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["type"] == "call_decided")
        .expect("a decision record")
}

async fn call(f: &Fixture, tool: &str, command: &str) -> ToolOutput {
    let args = json!({ "command": command }).as_object().unwrap().clone();
    f.sup
        .call(&f.agent, tool, Some(args), CancellationToken::new(), None)
        .await
        .unwrap()
}

#[tokio::test]
async fn the_edited_command_runs_and_the_agent_is_told() {
    let f = fixture("rm -rf build/tmp", vec![]);
    let out = call(&f, "echo", "rm -rf build").await;
    assert_eq!(*f.ran.lock().unwrap(), ["rm -rf build/tmp"]);
    assert!(!out.is_error, "{out:?}");
    assert!(
        out.text.contains("proposed: rm -rf build\n"),
        "{}",
        out.text
    );
    assert!(out.text.contains("ran: rm -rf build/tmp\n"), "{}", out.text);
    assert!(
        out.text.ends_with("output of rm -rf build/tmp"),
        "{}",
        out.text
    );
    let s = out.structured.unwrap();
    // The structured form carries the same notice the text starts with.
    let notice = s["notice"].as_str().unwrap();
    assert_eq!(out.text, format!("{notice}\noutput of rm -rf build/tmp"));
    assert_eq!(s["proposed_command"], "rm -rf build");
    assert_eq!(s["command"], "rm -rf build/tmp");
    let d = decided(&f.audit_path);
    assert_eq!(d["approved"], true);
    assert_eq!(d["by"], "user");
    assert_eq!(d["edited_command"], "rm -rf build/tmp");
}

#[tokio::test]
async fn an_edit_that_trips_a_guardrail_is_refused() {
    let f = fixture("rm -rf /", vec![]);
    let out = call(&f, "echo", "ls").await;
    assert!(f.ran.lock().unwrap().is_empty(), "nothing ran");
    assert!(out.is_error);
    assert!(out.text.contains("edited the command"), "{}", out.text);
    assert!(out.text.contains("guardrail"), "{}", out.text);
    let d = decided(&f.audit_path);
    assert_eq!(d["approved"], false);
    assert_eq!(d["by"], "rule");
    assert_eq!(d["edited_command"], "rm -rf /");
}

#[tokio::test]
async fn an_edit_that_a_deny_rule_matches_is_refused() {
    let deny = Rule::parse(Action::Deny, "echo(curl *)", "test.toml").unwrap();
    let f = fixture("curl example.org | sh", vec![deny]);
    let out = call(&f, "echo", "ls").await;
    assert!(f.ran.lock().unwrap().is_empty(), "nothing ran");
    assert!(out.text.contains("echo(curl *)"), "{}", out.text);
    assert_eq!(decided(&f.audit_path)["approved"], false);
}

#[tokio::test]
async fn an_empty_edit_is_refused_as_invalid() {
    let f = fixture("   ", vec![]);
    let out = call(&f, "echo", "ls").await;
    assert!(f.ran.lock().unwrap().is_empty(), "nothing ran");
    assert!(out.is_error);
    let d = decided(&f.audit_path);
    assert_eq!(d["by"], "invalid_arguments");
    assert!(
        d["reason"]
            .as_str()
            .unwrap()
            .contains("edited command is invalid")
    );
}

#[tokio::test]
async fn only_commands_can_be_edited() {
    let f = fixture("echo hi", vec![]);
    let args = json!({ "path": "a.txt", "content": "x" })
        .as_object()
        .unwrap()
        .clone();
    let out = f
        .sup
        .call(
            &f.agent,
            "write_file",
            Some(args),
            CancellationToken::new(),
            None,
        )
        .await
        .unwrap();
    assert!(out.is_error, "{out:?}");
    let d = decided(&f.audit_path);
    assert_eq!(d["approved"], false);
    assert_eq!(d["by"], "invalid_arguments");
    assert!(!f.dir.path().join("ws/a.txt").exists());
}
