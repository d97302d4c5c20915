//! Stage 2, decide, on its own: a rule or a grant answers at once, "ask"
//! goes to the confirmer, and a timeout, a cancellation, a disconnect or
//! shutdown ends the wait as a refusal. Deciding records nothing.

use std::time::Duration;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::stage_support::{Answer, Setup, Stage, kinds, stage, stage_with};
use crate::call::{DecidedBy, Decision, Outcome, Verdict};
use crate::policy::{Action, GrantScope};

/// Decide a call of `tool` with `args` (call `id`), cancelled by `cancel`.
async fn decide(s: &Stage, id: u64, tool: &str, args: serde_json::Value) -> Decision {
    decide_with(s, id, tool, args, &CancellationToken::new()).await
}

async fn decide_with(
    s: &Stage,
    id: u64,
    tool: &str,
    args: serde_json::Value,
    cancel: &CancellationToken,
) -> Decision {
    let p = s.prepared(id, tool, &args).await;
    s.sup
        .decide(&p.info, &p.invocation.subject(), cancel, None)
        .await
}

fn with_rule(action: Action, rule: &'static str, answer: Answer) -> Stage {
    stage_with(Setup {
        answer,
        rules: vec![(action, rule)],
        ..Setup::default()
    })
}

#[tokio::test]
async fn an_allow_rule_approves_at_once_without_asking() {
    let s = with_rule(Action::Allow, "bash(make *)", Answer::Deny("asked"));
    let d = decide(&s, 1, "bash", json!({"command": "make test"})).await;
    assert!(d.is_approved(), "{d:?}");
    assert!(
        matches!(d.by(), DecidedBy::Rule { ref rule, .. } if rule == "bash(make *)"),
        "{d:?}"
    );
    assert!(s.asked().is_empty(), "the confirmer was asked");
    assert_eq!(
        kinds(&s.trail),
        ["agent_connected"],
        "decide records nothing"
    );
}

#[tokio::test]
async fn a_deny_rule_refuses_at_once_naming_the_rule() {
    let s = with_rule(Action::Deny, "bash(make *)", Answer::Approve);
    let d = decide(&s, 1, "bash", json!({"command": "make deploy"})).await;
    assert!(!d.is_approved(), "{d:?}");
    assert_eq!(d.refusal_outcome(), Some(Outcome::Blocked));
    let reason = d.reason().unwrap_or_default();
    assert!(reason.contains("bash(make *)"), "{reason}");
    assert!(s.asked().is_empty(), "the confirmer was asked");
}

#[tokio::test]
async fn a_session_grant_approves_a_write_to_its_file_only() {
    let s = stage(Answer::Deny("asked"));
    let file = s.ws.canonicalize().unwrap().join("a.txt");
    s.sup.grant(
        GrantScope::File(file),
        &[
            crate::tools::write::WRITE_FILE,
            crate::tools::write::EDIT_FILE,
        ],
    );
    let write = |path: &str| json!({"path": path, "content": "x\n"});

    let d = decide(&s, 1, "write_file", write("a.txt")).await;
    assert!(d.is_approved(), "{d:?}");
    assert!(matches!(d.by(), DecidedBy::Grant { .. }), "{d:?}");
    assert!(s.asked().is_empty(), "the grant did not answer");

    let d = decide(&s, 2, "write_file", write("b.txt")).await;
    assert_eq!(d.reason(), Some("asked"), "another file is asked");
    assert_eq!(s.asked().len(), 1);
    assert_eq!(kinds(&s.trail), ["agent_connected", "grant_added"]);
}

#[tokio::test]
async fn ask_goes_to_the_confirmer_with_the_call_and_its_change() {
    let s = stage(Answer::Approve);
    let d = decide(
        &s,
        5,
        "write_file",
        json!({"path": "a.txt", "content": "x\n"}),
    )
    .await;
    assert_eq!(d.by(), DecidedBy::User, "{d:?}");
    assert!(d.is_approved());
    let asked = s.asked();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].call.id, 5);
    assert_eq!(asked[0].verdict.verdict, Verdict::Ask);
    let diff = asked[0].call.proposal.as_ref().and_then(|p| p.diff.clone());
    assert!(
        diff.is_some_and(|d| d.contains("+x")),
        "the prompt lacks the diff"
    );
    assert!(asked[0].cancel.is_cancelled(), "the prompt was not closed");
    assert!(!s.ws.join("a.txt").exists(), "deciding wrote the file");
    assert_eq!(
        kinds(&s.trail),
        ["agent_connected"],
        "decide records nothing"
    );
}

#[tokio::test]
async fn the_humans_refusal_comes_back_with_its_reason() {
    let s = stage(Answer::Deny("use the staging bucket"));
    let d = decide(&s, 1, "bash", json!({"command": "aws s3 rm s3://prod"})).await;
    assert_eq!(d.by(), DecidedBy::User);
    assert_eq!(d.reason(), Some("use the staging bucket"));
    assert_eq!(d.refusal_outcome(), Some(Outcome::Denied));
}

#[tokio::test]
async fn a_read_runs_by_the_mode_without_asking() {
    let s = stage(Answer::Deny("asked"));
    std::fs::write(s.ws.join("a.txt"), "a\n").unwrap();
    let d = decide(&s, 1, "read_file", json!({"path": "a.txt"})).await;
    assert!(d.is_approved(), "{d:?}");
    assert!(s.asked().is_empty());
}

#[tokio::test]
async fn nobody_answering_in_time_is_a_timeout_and_the_prompt_closes() {
    let s = stage_with(Setup {
        answer: Answer::Never,
        approval_timeout: Some(Duration::from_millis(100)),
        ..Setup::default()
    });
    let d = decide(&s, 1, "bash", json!({"command": "ls"})).await;
    assert_eq!(d.by(), DecidedBy::Timeout, "{d:?}");
    assert_eq!(d.refusal_outcome(), Some(Outcome::Timeout));
    let asked = s.asked();
    assert_eq!(asked.len(), 1);
    assert!(asked[0].cancel.is_cancelled(), "the prompt was left open");
}

#[tokio::test]
async fn the_agents_cancellation_ends_the_wait_as_cancelled() {
    let s = stage(Answer::Never);
    let cancel = CancellationToken::new();
    let later = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        later.cancel();
    });
    let d = decide_with(&s, 1, "bash", json!({"command": "ls"}), &cancel).await;
    assert_eq!(d.by(), DecidedBy::Cancelled, "{d:?}");
    // Already cancelled: refused without asking.
    let d = decide_with(&s, 2, "bash", json!({"command": "ls"}), &cancel).await;
    assert_eq!(d.by(), DecidedBy::Cancelled, "{d:?}");
    assert_eq!(s.asked().len(), 1);
}

#[tokio::test]
async fn a_disconnect_and_shutdown_end_the_wait_never_as_approval() {
    let s = stage(Answer::Never);
    let (sup, agent) = (s.sup.clone(), s.agent.clone());
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        sup.agent_gone(&agent);
    });
    let d = decide(&s, 1, "bash", json!({"command": "ls"})).await;
    assert_eq!(d.by(), DecidedBy::Disconnected, "{d:?}");

    let s = stage(Answer::Never);
    let sup = s.sup.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        sup.shutdown("test");
    });
    let d = decide(&s, 1, "bash", json!({"command": "ls"})).await;
    assert_eq!(d.by(), DecidedBy::Shutdown, "{d:?}");
}
