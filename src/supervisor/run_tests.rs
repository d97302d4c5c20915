//! Stage 4, run, on its own (then stage 5 records what it returned): the
//! real tools run in the workspace, announce it and stream their output; a
//! command the agent cancels or the supervisor's shutdown is killed and
//! ends cancelled.

use std::time::{Duration, Instant};

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::record::CallResult;
use super::stage_support::{Answer, Stage, records, stage};
use crate::call::{CancelCause, Event, Outcome};
use crate::tools::ToolOutput;

/// Prepare and run `tool` with `args` as call `id`, cancelled by `cancel`.
async fn run(
    s: &Stage,
    id: u64,
    tool: &str,
    args: serde_json::Value,
    cancel: &CancellationToken,
) -> (ToolOutput, Outcome, Instant) {
    let p = s.prepared(id, tool, &args).await;
    s.sup.run(&p.info, p.invocation, cancel, None).await
}

/// The events heard on `bus` so far.
fn heard(bus: &mut tokio::sync::broadcast::Receiver<Event>) -> Vec<Event> {
    std::iter::from_fn(|| bus.try_recv().ok()).collect()
}

#[tokio::test]
async fn an_approved_write_runs_and_its_result_is_recorded() {
    let s = stage(Answer::Approve);
    let mut bus = s.sup.events().subscribe();
    let args = json!({"path": "a.txt", "content": "one\ntwo\n"});
    let (out, outcome, ran) = run(&s, 9, "write_file", args, &CancellationToken::new()).await;

    assert_eq!(outcome, Outcome::Ok, "{}", out.text);
    assert!(
        out.text.starts_with("created a.txt (8 bytes, +2 −0)"),
        "{}",
        out.text
    );
    assert_eq!(
        std::fs::read_to_string(s.ws.join("a.txt")).unwrap(),
        "one\ntwo\n"
    );
    assert!(
        heard(&mut bus)
            .iter()
            .any(|e| matches!(e, Event::CallStarted { id: 9 }))
    );

    let result = CallResult {
        ran: Some(ran),
        ..CallResult::not_run(outcome, &out, ran)
    };
    s.sup.record_result(9, result);
    let finished = records(&s.trail).pop().unwrap();
    assert_eq!(finished["type"], "call_finished");
    assert_eq!(finished["status"], "ok");
    assert_eq!(finished["output_bytes"], out.text.len());
}

#[tokio::test]
async fn a_file_changed_after_its_diff_is_not_overwritten() {
    let s = stage(Answer::Approve);
    std::fs::write(s.ws.join("a.txt"), "old\n").unwrap();
    let p = s
        .prepared(
            1,
            "write_file",
            &json!({"path": "a.txt", "content": "new\n"}),
        )
        .await;
    std::fs::write(s.ws.join("a.txt"), "changed meanwhile\n").unwrap();
    let (out, outcome, _) = s
        .sup
        .run(&p.info, p.invocation, &CancellationToken::new(), None)
        .await;
    assert_eq!(outcome, Outcome::Error, "{}", out.text);
    assert!(out.text.contains("nothing was written"), "{}", out.text);
    let now = std::fs::read_to_string(s.ws.join("a.txt")).unwrap();
    assert_eq!(now, "changed meanwhile\n");
}

#[tokio::test]
async fn a_command_runs_in_the_workspace_streaming_its_output() {
    let s = stage(Answer::Approve);
    let mut bus = s.sup.events().subscribe();
    let args = json!({"command": "echo streamed; echo kept > out.txt"});
    let (out, outcome, _) = run(&s, 4, "bash", args, &CancellationToken::new()).await;
    assert_eq!(outcome, Outcome::Ok, "{}", out.text);
    assert!(out.text.contains("streamed"), "{}", out.text);
    assert_eq!(
        std::fs::read_to_string(s.ws.join("out.txt")).unwrap(),
        "kept\n"
    );
    let streamed: Vec<u8> = heard(&mut bus)
        .into_iter()
        .filter_map(|e| match e {
            Event::CallOutput { id: 4, chunk } => Some(chunk),
            _ => None,
        })
        .flatten()
        .collect();
    assert!(String::from_utf8_lossy(&streamed).contains("streamed"));
}

#[tokio::test]
async fn a_command_the_agent_cancels_is_killed_and_recorded_cancelled() {
    let s = stage(Answer::Approve);
    let cancel = CancellationToken::new();
    let later = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        later.cancel();
    });
    let args = json!({"command": "sleep 20; echo late > late.txt"});
    let started = Instant::now();
    let (out, outcome, ran) = run(&s, 2, "bash", args, &cancel).await;
    assert_eq!(outcome, Outcome::Cancelled, "{}", out.text);
    assert!(started.elapsed() < Duration::from_secs(10), "not killed");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!s.ws.join("late.txt").exists(), "the command went on");

    let result = CallResult {
        ran: Some(ran),
        cancelled_by: Some(CancelCause::Agent),
        ..CallResult::not_run(outcome, &out, ran)
    };
    s.sup.record_result(2, result);
    let finished = records(&s.trail).pop().unwrap();
    assert_eq!(finished["status"], "cancelled");
    assert_eq!(finished["cancelled_by"], "agent");
}

#[tokio::test]
async fn shutdown_ends_a_running_command_as_cancelled() {
    let s = stage(Answer::Approve);
    let sup = s.sup.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        sup.shutdown("test");
    });
    let started = Instant::now();
    let args = json!({"command": "sleep 20"});
    let (out, outcome, _) = run(&s, 3, "bash", args, &CancellationToken::new()).await;
    assert_eq!(outcome, Outcome::Cancelled, "{}", out.text);
    assert!(started.elapsed() < Duration::from_secs(10), "not killed");
}

#[tokio::test]
async fn a_read_returns_the_file() {
    let s = stage(Answer::Approve);
    std::fs::write(s.ws.join("a.txt"), "alpha\nbeta\n").unwrap();
    let args = json!({"path": "a.txt"});
    let (out, outcome, _) = run(&s, 1, "read_file", args, &CancellationToken::new()).await;
    assert_eq!(outcome, Outcome::Ok, "{}", out.text);
    assert!(
        out.text.contains("alpha") && out.text.contains("beta"),
        "{}",
        out.text
    );
}

#[tokio::test]
async fn a_write_that_finishes_although_the_agent_cancelled_is_recorded_as_written() {
    let s = stage(Answer::Approve);
    let cancel = CancellationToken::new();
    cancel.cancel();
    let args = json!({"path": "w1.txt", "content": "written\n"});
    let (out, outcome, _) = run(&s, 5, "write_file", args, &cancel).await;
    assert_eq!(
        std::fs::read_to_string(s.ws.join("w1.txt")).unwrap(),
        "written\n",
        "the write tool runs to completion"
    );
    assert_eq!(
        outcome,
        Outcome::Ok,
        "the trail says what happened: {}",
        out.text
    );
    assert!(!out.cancelled);
}
