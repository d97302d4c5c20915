//! Calls the agent runs itself: decided and recorded like airlock's own,
//! finished by the agent's report, closed as unreported without one.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::audit::{AuditLog, Timeline};
use crate::call::*;
use crate::policy::Policy;
use crate::scope::Scope;
use crate::tools::{Limits, ToolRegistry};

/// Answers with a fixed decision and counts how often it was asked.
struct Answer(Decision, Mutex<usize>);

#[async_trait]
impl Confirmer for Answer {
    async fn confirm(&self, _r: ConfirmRequest) -> Decision {
        *self.1.lock().unwrap() += 1;
        self.0.clone()
    }
    fn kind(&self) -> crate::call::ConfirmerKind {
        crate::call::ConfirmerKind::Scripted
    }
}

struct Fixture {
    dir: tempfile::TempDir,
    sup: Arc<Supervisor>,
    confirmer: Arc<Answer>,
    agent: AgentInfo,
}

impl Fixture {
    fn new(answer: Decision) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir(&ws).unwrap();
        std::fs::write(ws.join("notes.txt"), "hello\n").unwrap();
        let audit = Arc::new(AuditLog::create(&dir.path().join("t.jsonl")).unwrap());
        let confirmer = Arc::new(Answer(answer, Mutex::new(0)));
        let sup = Supervisor::new(SupervisorParts {
            scope: Scope::new(&ws, &[], &[]).unwrap(),
            tools: ToolRegistry::all(),
            policy: Policy::new(),
            confirmer: confirmer.clone(),
            audit,
            limits: Limits::default(),
            approval_timeout: None,
            events: EventBus::default(),
        });
        let agent = sup.agent_connected(Some("claude-code"), Some("2.1.197"));
        Self {
            dir,
            sup,
            confirmer,
            agent,
        }
    }

    fn asked(&self) -> usize {
        *self.confirmer.1.lock().unwrap()
    }

    fn records(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.path().join("t.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn of_type(&self, t: &str) -> Vec<Value> {
        self.records()
            .into_iter()
            .filter(|r| r["type"] == t)
            .collect()
    }

    fn timeline(&self) -> Timeline {
        Timeline::load(&self.dir.path().join("t.jsonl")).unwrap()
    }

    async fn decide(&self, call: ExternalCall) -> (CallId, Decision) {
        self.sup
            .decide_external(&self.agent, call, CancellationToken::new(), None)
            .await
            .unwrap()
    }
}

fn bash(command: &str, tool_use_id: &str) -> ExternalCall {
    let mut args = Map::new();
    args.insert("command".into(), json!(command));
    ExternalCall {
        tool: "bash".into(),
        kind: ToolKind::Exec,
        subject: Subject::Command {
            command: command.into(),
        },
        args,
        summary: format!("bash {command}"),
        view: CallView::Command {
            command: command.into(),
            cwd: None,
            description: None,
            shown_args: &["command"],
        },
        edit: Some(EditField::Command {
            text: command.into(),
        }),
        grant: crate::tools::bash::grant(command),
        proposal: None,
        native_tool: "Bash".into(),
        tool_use_id: Some(tool_use_id.into()),
        session_id: Some("sess-1".into()),
    }
}

fn read(path: &str) -> ExternalCall {
    ExternalCall {
        tool: "read_file".into(),
        kind: ToolKind::Read,
        subject: Subject::Paths {
            paths: vec![path.into()],
        },
        args: Map::new(),
        summary: format!("read_file {path}"),
        view: CallView::Args,
        edit: None,
        grant: crate::call::GrantShape::None,
        proposal: None,
        native_tool: "Read".into(),
        tool_use_id: Some("toolu_read".into()),
        session_id: Some("sess-1".into()),
    }
}

#[tokio::test]
async fn an_approved_call_is_recorded_like_airlocks_own_and_finished_by_its_report() {
    let f = Fixture::new(Decision::approve(ApprovedBy::User));
    let (id, d) = f.decide(bash("cargo test", "toolu_1")).await;
    assert!(d.is_approved());
    assert_eq!(f.asked(), 1, "exec asks by default");
    let requested = &f.of_type("call_requested")[0]["call"];
    assert_eq!(
        requested["runner"],
        json!({"type": "agent", "native_tool": "Bash", "tool_use_id": "toolu_1", "session_id": "sess-1"})
    );
    assert_eq!(requested["args"]["command"], "cargo test");
    assert_eq!(f.of_type("call_decided")[0]["approved"], true);
    assert!(f.of_type("call_finished").is_empty(), "still open");

    assert_eq!(f.sup.external_call(Some("sess-1"), "toolu_1"), Some(id));
    assert_eq!(f.sup.external_call(Some("sess-2"), "toolu_1"), None);
    let output = "test result: ok\n".to_string();
    f.sup
        .finish_external(
            id,
            ExternalResult {
                is_error: false,
                exit_code: Some(crate::call::ExitCode::Reported(0)),
                output: output.clone(),
                truncated: false,
                file_sha256: None,
            },
        )
        .unwrap();
    let fin = &f.of_type("call_finished")[0];
    assert_eq!(fin["status"], "ok");
    assert_eq!(fin["exit_code"], 0);
    assert_eq!(fin["output_bytes"], output.len());
    assert_eq!(
        fin["output_sha256"],
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(output.as_bytes()))
    );
    assert_eq!(fin["excerpt"], output);
    assert_eq!(f.sup.external_call(Some("sess-1"), "toolu_1"), None);
    assert!(matches!(
        f.sup.finish_external(id, ExternalResult::default()),
        Err(ExternalError::NotOpen(_))
    ));
    let t = f.timeline();
    assert!(t.problems.is_empty(), "{:?}", t.problems);
    assert_eq!(
        t.calls[0].status(),
        crate::audit::CallState::Ended(Outcome::Ok)
    );
    assert!(matches!(t.calls[0].call.runner, Runner::Agent { .. }));
}

#[tokio::test]
async fn a_refusal_is_finished_at_once_and_not_left_open() {
    let f = Fixture::new(Decision::deny(RefusedBy::User, Some("not now".into())));
    let (id, d) = f.decide(bash("rm -rf build", "toolu_2")).await;
    assert_eq!(d.refusal_outcome(), Some(Outcome::Denied));
    assert_eq!(f.of_type("call_finished")[0]["status"], "denied");
    assert_eq!(f.sup.external_call(Some("sess-1"), "toolu_2"), None);
    assert!(
        f.sup
            .finish_external(id, ExternalResult::default())
            .is_err()
    );
}

#[tokio::test]
async fn paths_outside_the_scope_are_refused_without_asking() {
    let f = Fixture::new(Decision::approve(ApprovedBy::User));
    for path in ["../outside.txt", "/etc/passwd", ".env"] {
        let (_, d) = f.decide(read(path)).await;
        assert_eq!(d.by(), DecidedBy::Scope, "{path}");
    }
    // Control: a path inside the workspace is allowed by the read default.
    let (_, d) = f.decide(read("notes.txt")).await;
    assert!(d.is_approved());
    assert_eq!(f.asked(), 0);
}

#[tokio::test]
async fn an_edited_command_is_judged_again() {
    let f = Fixture::new(Decision::approve_edited("rm -rf /".into()));
    let (_, d) = f.decide(bash("ls", "toolu_3")).await;
    assert_eq!(d.refusal_outcome(), Some(Outcome::Blocked), "{d:?}");
    assert_eq!(d.edited_command(), Some("rm -rf /"));
    // Control: an edit that no rule refuses stands.
    let f = Fixture::new(Decision::approve_edited("ls -la".into()));
    let (_, d) = f.decide(bash("ls", "toolu_4")).await;
    assert!(d.is_approved());
    assert_eq!(d.edited_command(), Some("ls -la"));
}

#[tokio::test]
async fn without_a_report_the_call_closes_as_unreported() {
    let f = Fixture::new(Decision::approve(ApprovedBy::User));
    let (first, _) = f.decide(bash("make", "toolu_5")).await;
    assert_eq!(f.sup.close_stale_external(Duration::from_secs(3600)), 0);
    assert_eq!(f.sup.close_stale_external(Duration::ZERO), 1);
    assert!(
        f.sup
            .finish_external(first, ExternalResult::default())
            .is_err()
    );
    let (_, _) = f.decide(bash("make", "toolu_6")).await;
    f.sup.agent_disconnected(&f.agent);
    let fin = f.of_type("call_finished");
    assert_eq!(fin.len(), 2);
    for r in &fin {
        assert_eq!(r["status"], "unreported");
    }
    assert!(
        fin[1]["excerpt"].as_str().unwrap().contains("disconnected"),
        "{}",
        fin[1]
    );
    assert_eq!(f.sup.external_call(Some("sess-1"), "toolu_6"), None);
}

#[tokio::test]
async fn without_tool_use_ids_results_pair_by_session_tool_and_input() {
    let f = Fixture::new(Decision::approve(ApprovedBy::User));
    let mut call = bash("ls", "unused");
    call.tool_use_id = None;
    call.native_tool = "run_shell_command".into();
    let (first, _) = f.decide(call.clone()).await;
    let (second, _) = f.decide(call.clone()).await;
    let mut other = call.clone();
    other.args.insert("command".into(), json!("pwd"));
    let (third, _) = f.decide(other.clone()).await;
    let find = |input: &Map<String, Value>| {
        f.sup
            .external_call_matching(Some("sess-1"), "run_shell_command", input)
    };
    assert_eq!(find(&call.args), Some(first), "the oldest first");
    assert_eq!(find(&other.args), Some(third));
    assert_eq!(
        f.sup
            .external_call_matching(Some("sess-2"), "run_shell_command", &call.args),
        None
    );
    f.sup
        .finish_external(first, ExternalResult::default())
        .unwrap();
    assert_eq!(find(&call.args), Some(second));
}
