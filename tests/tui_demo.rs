//! `airlock demo`'s parts: the sample workspace and the scripted agent,
//! run against a real supervisor on a real socket with a confirmer that
//! answers like a newcomer would (approve the fix and the tests, deny the
//! rm).

use std::sync::Arc;
use std::time::Duration;

use airlock::call::{ApprovedBy, Decision, RefusedBy};
use airlock::demo::{Scenario, run_agent, write_workspace};
use airlock::session::{self, SessionOptions};
use airlock::supervisor::{ConfirmRequest, Confirmer};
use async_trait::async_trait;

struct Newcomer;

#[async_trait]
impl Confirmer for Newcomer {
    async fn confirm(&self, r: ConfirmRequest) -> Decision {
        if r.call.summary.contains("rm -rf") {
            Decision::deny(RefusedBy::User, Some("keep the build".into()))
        } else {
            Decision::approve(ApprovedBy::User)
        }
    }
    fn kind(&self) -> airlock::call::ConfirmerKind {
        airlock::call::ConfirmerKind::Scripted
    }
}

#[test]
fn the_scenario_uses_only_tools_that_exist() {
    let scenario = Scenario::builtin().unwrap();
    let tools = airlock::tools::ToolRegistry::configured(
        &airlock::tools::ToolsConfig::default(),
        &airlock::tools::bash::BashConfig::default(),
        None,
    )
    .unwrap();
    for step in &scenario.steps {
        assert!(tools.get(&step.tool).is_some(), "{}", step.tool);
    }
    let kinds: Vec<&str> = scenario.steps.iter().map(|s| s.tool.as_str()).collect();
    for needed in ["read_file", "grep", "edit_file", "bash", "cat"] {
        assert!(kinds.contains(&needed), "the demo shows {needed}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scripted_agent_makes_a_realistic_run() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("tinytodo");
    write_workspace(&ws).unwrap();
    let opts = SessionOptions {
        workspace: ws.clone(),
        data_dir: Some(dir.path().join("data")),
        config_file: None,
        mode: airlock::call::SessionMode::Demo,
        policy_mode: None,
        user_config: false,
    };
    let session = session::start(&opts, Arc::new(Newcomer)).unwrap();
    let runtime = dir.path().join("rt");
    std::fs::create_dir(&runtime).unwrap();
    let server = airlock::mcp::SocketServer::bind(&runtime, &session).unwrap();
    let socket = server.listening().socket.clone();
    let serving = tokio::spawn(server.serve(session.supervisor.clone()));

    let scenario = Scenario::builtin().unwrap();
    let results = tokio::time::timeout(
        Duration::from_secs(60),
        run_agent(&socket, &scenario, Some(Duration::ZERO)),
    )
    .await
    .expect("the run ends")
    .unwrap();
    assert_eq!(results.len(), scenario.steps.len());
    let by_tool = |tool: &str| {
        results
            .iter()
            .filter(|r| r.tool == tool)
            .collect::<Vec<_>>()
    };

    assert!(
        by_tool("grep")[0].text.contains("todo.sh"),
        "the grep finds the bug"
    );
    let edit = by_tool("edit_file")[0];
    assert!(!edit.is_error, "{}", edit.text);
    let bash = by_tool("bash");
    assert!(!bash[0].is_error, "{}", bash[0].text);
    assert!(
        bash[0].text.contains("all 5 tests ok"),
        "the fix makes the tests pass: {}",
        bash[0].text
    );
    let cat = by_tool("cat")[0];
    assert!(
        cat.is_error && cat.text.contains("excluded"),
        "{}",
        cat.text
    );
    assert!(!cat.text.contains("demo-not-a-real-secret"));
    assert!(
        bash[1].is_error && bash[1].text.contains("keep the build"),
        "{}",
        bash[1].text
    );
    assert!(
        ws.join("build/report.txt").exists(),
        "the denied rm did not run"
    );

    session.supervisor.shutdown("test over");
    let _ = tokio::time::timeout(Duration::from_secs(10), serving).await;
}

#[test]
fn the_sample_tests_fail_before_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    write_workspace(dir.path()).unwrap();
    let out = std::process::Command::new("bash")
        .arg("tests/run_tests.sh")
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("done_marks_the_item ... FAILED"), "{text}");
}
