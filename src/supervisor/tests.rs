//! Pipeline tests with scripted confirmers and a test tool that asks.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::audit::AuditLog;
use crate::call::*;
use crate::policy::Policy;
use crate::scope::Scope;
use crate::tools::{
    Invocation, Limits, RunContext, RunFuture, Tool, ToolError, ToolOutput, ToolRegistry, ToolSpec,
};

/// A write tool that records that it ran and checks the decision was on
/// disk before it did.
struct Touch {
    spec: ToolSpec,
    ran: Arc<AtomicBool>,
    audit_path: std::path::PathBuf,
}

struct TouchCall {
    ran: Arc<AtomicBool>,
    audit_path: std::path::PathBuf,
}

impl Tool for Touch {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn prepare(
        &self,
        _a: &Map<String, Value>,
        _s: &Scope,
    ) -> Result<Box<dyn Invocation>, ToolError> {
        Ok(Box::new(TouchCall {
            ran: self.ran.clone(),
            audit_path: self.audit_path.clone(),
        }))
    }
}

impl Invocation for TouchCall {
    fn summary(&self) -> String {
        "touch".into()
    }
    fn subject(&self) -> Subject {
        Subject::None
    }
    fn run(self: Box<Self>, ctx: RunContext) -> RunFuture {
        Box::pin(async move {
            let trail = std::fs::read_to_string(&self.audit_path).unwrap_or_default();
            let decided = trail.lines().any(|l| {
                l.contains("\"type\":\"call_decided\"")
                    && l.contains(&format!("\"call_id\":{}", ctx.call_id))
            });
            self.ran.store(true, Ordering::SeqCst);
            if decided {
                ToolOutput::ok("touched")
            } else {
                ToolOutput::error("decision not on disk before run")
            }
        })
    }
}

enum Script {
    Approve,
    DenyWith(&'static str),
    Panic,
    Never,
}

struct Scripted(Script);

#[async_trait]
impl Confirmer for Scripted {
    async fn confirm(&self, _r: ConfirmRequest) -> Decision {
        match &self.0 {
            Script::Approve => Decision::approve(ApprovedBy::User),
            Script::DenyWith(r) => Decision::deny(RefusedBy::User, Some(r.to_string())),
            Script::Panic => panic!("confirmer exploded"),
            Script::Never => std::future::pending().await,
        }
    }
    fn kind(&self) -> crate::call::ConfirmerKind {
        crate::call::ConfirmerKind::Scripted
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    sup: Arc<Supervisor>,
    ran: Arc<AtomicBool>,
    audit_path: std::path::PathBuf,
    agent: AgentInfo,
}

fn fixture(script: Script, approval_timeout: Option<Duration>) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let audit_path = dir.path().join("audit").join("t.jsonl");
    let audit = Arc::new(AuditLog::create(&audit_path).unwrap());
    let ran = Arc::new(AtomicBool::new(false));
    let mut tools = ToolRegistry::all();
    tools.insert(Arc::new(Touch {
        spec: ToolSpec {
            name: "touch",
            title: "touch",
            description: "test",
            kind: ToolKind::Write,
            input_schema: Map::new(),
        },
        ran: ran.clone(),
        audit_path: audit_path.clone(),
    }));
    let sup = Supervisor::new(SupervisorParts {
        scope: Scope::new(&ws, &[], &[]).unwrap(),
        tools,
        policy: Policy::new(),
        confirmer: Arc::new(Scripted(script)),
        audit,
        limits: Limits::default(),
        approval_timeout,
        events: EventBus::default(),
    });
    let agent = sup.agent_connected(Some("test-agent"), Some("1.0"));
    Fixture {
        _dir: dir,
        sup,
        ran,
        audit_path,
        agent,
    }
}

fn records(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn decided(path: &std::path::Path) -> Value {
    records(path)
        .into_iter()
        .find(|r| r["type"] == "call_decided")
        .expect("a decision record")
}

#[tokio::test]
async fn approved_call_runs_after_its_decision_is_on_disk() {
    let f = fixture(Script::Approve, None);
    let out = f
        .sup
        .call(&f.agent, "touch", None, CancellationToken::new(), None)
        .await
        .unwrap();
    assert_eq!(out.text, "touched", "{out:?}");
    assert!(f.ran.load(Ordering::SeqCst));
    let d = decided(&f.audit_path);
    assert_eq!(d["approved"], true);
    assert_eq!(d["by"], "user");
    let kinds: Vec<String> = records(&f.audit_path)
        .iter()
        .map(|r| r["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        kinds,
        [
            "agent_connected",
            "call_requested",
            "call_decided",
            "call_finished"
        ]
    );
    assert!(crate::audit::verify_file(&f.audit_path).unwrap().is_ok());
}

#[tokio::test]
async fn denial_reason_reaches_the_agent_and_nothing_runs() {
    let f = fixture(Script::DenyWith("use the staging bucket"), None);
    let out = f
        .sup
        .call(&f.agent, "touch", None, CancellationToken::new(), None)
        .await
        .unwrap();
    assert!(out.is_error);
    assert!(
        out.text
            .contains("denied by the user: use the staging bucket"),
        "{}",
        out.text
    );
    assert!(!f.ran.load(Ordering::SeqCst));
    let finished = records(&f.audit_path)
        .into_iter()
        .find(|r| r["type"] == "call_finished")
        .unwrap();
    assert_eq!(finished["status"], "denied");
}

#[tokio::test]
async fn panicking_confirmer_never_approves() {
    let f = fixture(Script::Panic, None);
    let out = f
        .sup
        .call(&f.agent, "touch", None, CancellationToken::new(), None)
        .await
        .unwrap();
    assert!(out.is_error);
    assert!(!f.ran.load(Ordering::SeqCst));
    assert_eq!(decided(&f.audit_path)["by"], "confirmer_failed");
}

#[tokio::test]
async fn cancellation_while_waiting_is_cancelled_not_run() {
    let f = fixture(Script::Never, None);
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        c2.cancel();
    });
    let out = f
        .sup
        .call(&f.agent, "touch", None, cancel, None)
        .await
        .unwrap();
    assert!(out.is_error);
    assert!(out.text.contains("cancelled"), "{}", out.text);
    assert!(!f.ran.load(Ordering::SeqCst));
    assert_eq!(decided(&f.audit_path)["by"], "cancelled");
}

#[tokio::test]
async fn approval_timeout_says_user_absent_not_denied() {
    let f = fixture(Script::Never, Some(Duration::from_millis(100)));
    let out = f
        .sup
        .call(&f.agent, "touch", None, CancellationToken::new(), None)
        .await
        .unwrap();
    assert!(out.is_error);
    assert!(
        out.text.contains("no answer from the user in time"),
        "{}",
        out.text
    );
    assert!(!out.text.contains("denied by"), "{}", out.text);
    assert!(!f.ran.load(Ordering::SeqCst));
    assert_eq!(decided(&f.audit_path)["by"], "timeout");
}

#[tokio::test]
async fn shutdown_while_waiting_closes_the_call() {
    let f = fixture(Script::Never, None);
    let sup = f.sup.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        sup.shutdown("test");
    });
    let out = f
        .sup
        .call(&f.agent, "touch", None, CancellationToken::new(), None)
        .await
        .unwrap();
    assert!(out.text.contains("supervisor closed"), "{}", out.text);
    assert!(!f.ran.load(Ordering::SeqCst));
}

#[tokio::test(start_paused = true)]
async fn wait_hook_fires_while_pending() {
    let f = fixture(Script::Never, Some(Duration::from_secs(12)));
    let ticks = Arc::new(std::sync::Mutex::new(Vec::new()));
    let t2 = ticks.clone();
    let hook: WaitHook = Arc::new(move |s| t2.lock().unwrap().push(s));
    let _ = f
        .sup
        .call(
            &f.agent,
            "touch",
            None,
            CancellationToken::new(),
            Some(hook),
        )
        .await
        .unwrap();
    assert_eq!(
        ticks.lock().unwrap().len(),
        2,
        "ticks at 5 s and 10 s before the 12 s timeout"
    );
}

#[tokio::test]
async fn unknown_tool_is_an_error_and_audited() {
    let f = fixture(Script::Approve, None);
    let err = f
        .sup
        .call(
            &f.agent,
            "nope",
            Some(json!({"a": 1}).as_object().unwrap().clone()),
            CancellationToken::new(),
            None,
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("unknown tool \"nope\""), "{err}");
    assert!(
        err.to_string().contains("touch"),
        "lists available tools: {err}"
    );
    let d = decided(&f.audit_path);
    assert_eq!(d["approved"], false);
    assert_eq!(d["by"], "invalid_arguments");
}

#[tokio::test]
async fn read_tools_run_without_asking() {
    // The scripted confirmer would panic; a read tool must never reach it.
    let f = fixture(Script::Panic, None);
    let out = f
        .sup
        .call(&f.agent, "pwd", None, CancellationToken::new(), None)
        .await
        .unwrap();
    assert!(!out.is_error, "{out:?}");
    let d = decided(&f.audit_path);
    assert_eq!(d["by"], "rule");
    assert_eq!(d["source"], "built-in");
}

#[tokio::test]
async fn summaries_are_one_line_whatever_the_arguments() {
    let f = fixture(Script::Approve, None);
    let ws = f.sup.scope().workspace().to_path_buf();
    std::fs::create_dir(ws.join("a\nb")).unwrap();
    let args = |p: &str| json!({ "path": p }).as_object().cloned();
    let out = f
        .sup
        .call(&f.agent, "ls", args("a\nb"), CancellationToken::new(), None)
        .await
        .unwrap();
    assert!(!out.is_error, "{}", out.text);
    let _ = f
        .sup
        .call(
            &f.agent,
            "cat",
            args("nope\n\x1b[2J"),
            CancellationToken::new(),
            None,
        )
        .await
        .unwrap();
    let summaries: Vec<String> = records(&f.audit_path)
        .into_iter()
        .filter(|r| r["type"] == "call_requested")
        .map(|r| r["call"]["summary"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(summaries.len(), 2);
    for s in &summaries {
        assert!(!s.chars().any(char::is_control), "{s:?}");
    }
    assert!(summaries[0].contains("a\\nb"), "{:?}", summaries[0]);
    assert_eq!(
        summaries[1], "cat nope (refused)",
        "a refused call shows its first line"
    );
}
