//! Stages 3 and 5, record, on their own: the request and the decision go
//! to a real trail (together when decided at once), the result with its
//! sizes, hashes and change; the hash chain holds and the bus hears it.

use std::time::Instant;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::record::CallResult;
use super::stage_support::{Answer, chain_holds, kinds, records, stage};
use crate::call::{ApprovedBy, Decision, Event, Outcome, RefusedBy};
use crate::tools::ToolOutput;

fn sha(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// The records of type `kind`.
fn of(trail: &std::path::Path, kind: &str) -> Vec<Value> {
    records(trail)
        .into_iter()
        .filter(|r| r["type"] == kind)
        .collect()
}

#[tokio::test]
async fn the_request_then_the_decision_are_recorded_and_announced() {
    let s = stage(Answer::Approve);
    let mut bus = s.sup.events().subscribe();
    let p = s.prepared(3, "bash", &json!({"command": "ls -l"})).await;

    s.sup.record_requested(&p.info).unwrap();
    assert_eq!(kinds(&s.trail), ["agent_connected", "call_requested"]);
    let refused = Decision::deny(RefusedBy::User, Some("not now".into()));
    s.sup.record_decision(&p.info, &refused).unwrap();

    let requested = &of(&s.trail, "call_requested")[0];
    assert_eq!(requested["call"]["id"], 3);
    assert_eq!(requested["call"]["tool"], "bash");
    assert_eq!(requested["call"]["args"], json!({"command": "ls -l"}));
    let decided = &of(&s.trail, "call_decided")[0];
    assert_eq!(decided["call_id"], 3);
    assert_eq!(decided["approved"], false);
    assert_eq!(decided["by"], "user");
    assert_eq!(decided["reason"], "not now");
    assert!(chain_holds(&s.trail));
    assert!(matches!(bus.try_recv(), Ok(Event::CallReceived(c)) if c.id == 3));
    assert!(
        matches!(bus.try_recv(), Ok(Event::CallDecided { id: 3, decision }) if decision == refused)
    );
}

#[tokio::test]
async fn decided_at_once_the_request_and_decision_are_one_write() {
    let s = stage(Answer::Approve);
    std::fs::write(s.ws.join("a.txt"), "a\n").unwrap();
    // A read: its approval is not synced to disk, so 300 of them are quick.
    let p = s.prepared(1, "read_file", &json!({"path": "a.txt"})).await;
    let approved = Decision::approve(ApprovedBy::User);
    // Another writer appends as fast as it can meanwhile: a record of its
    // could land between two separate writes, never inside one.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (sup, done) = (s.sup.clone(), stop.clone());
    let noise = std::thread::spawn(move || {
        while !done.load(std::sync::atomic::Ordering::Relaxed) {
            sup.protocol_error(None, "noise", b"{}");
        }
    });
    for _ in 0..300 {
        s.sup
            .record_requested_and_decided(p.info.clone(), approved.clone())
            .unwrap();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    noise.join().unwrap();

    let trail = kinds(&s.trail);
    let pairs = trail.iter().filter(|k| *k == "call_requested").count();
    assert_eq!(pairs, 300);
    for (i, k) in trail.iter().enumerate() {
        if k == "call_requested" {
            assert_eq!(trail[i + 1], "call_decided", "split at record {i}");
        }
    }
    assert!(chain_holds(&s.trail));
}

#[tokio::test]
async fn the_result_is_recorded_with_sizes_hashes_and_the_change() {
    let s = stage(Answer::Approve);
    let mut bus = s.sup.events().subscribe();
    let p = s
        .prepared(2, "write_file", &json!({"path": "a.txt", "content": "x\n"}))
        .await;
    let out = ToolOutput::ok("y".repeat(2000));
    let result = CallResult {
        ran: Some(Instant::now()),
        proposal: p.info.proposal.as_deref(),
        ..CallResult::not_run(Outcome::Ok, &out, Instant::now())
    };
    s.sup.record_result(2, result);

    let finished = &of(&s.trail, "call_finished")[0];
    assert_eq!(finished["call_id"], 2);
    assert_eq!(finished["status"], "ok");
    assert_eq!(finished["output_bytes"], 2000);
    assert_eq!(finished["output_sha256"], sha(&out.text));
    let excerpt = finished["excerpt"].as_str().unwrap();
    assert!(
        excerpt.len() <= 600 && excerpt.starts_with("yyy"),
        "{} bytes",
        excerpt.len()
    );
    let change = &finished["change"];
    assert_eq!(change["path"], "a.txt");
    assert_eq!(change["action"], "create");
    let diff = p
        .info
        .proposal
        .as_ref()
        .and_then(|p| p.diff.clone())
        .unwrap();
    assert_eq!(change["diff"], diff.as_str());
    assert_eq!(change["diff_sha256"], sha(&diff));
    assert_eq!(change["diff_truncated"], false);
    assert!(chain_holds(&s.trail));
    let Ok(Event::CallFinished { id: 2, outcome }) = bus.try_recv() else {
        panic!("no CallFinished on the bus");
    };
    assert_eq!(
        (outcome.status, outcome.text),
        (Outcome::Ok, out.text.clone())
    );
}

#[tokio::test]
async fn a_large_diff_is_kept_bounded_and_hashed_whole() {
    let s = stage(Answer::Approve);
    let content = "line of a long file\n".repeat(10_000);
    let p = s
        .prepared(
            1,
            "write_file",
            &json!({"path": "big.txt", "content": content}),
        )
        .await;
    let out = ToolOutput::ok("done");
    let mut result = CallResult::not_run(Outcome::Ok, &out, Instant::now());
    result.proposal = p.info.proposal.as_deref();
    s.sup.record_result(1, result);

    let change = of(&s.trail, "call_finished")[0]["change"].clone();
    let diff = p
        .info
        .proposal
        .as_ref()
        .and_then(|p| p.diff.clone())
        .unwrap();
    assert!(diff.len() > 64 * 1024);
    assert_eq!(change["diff_truncated"], true);
    assert!(change["diff"].as_str().unwrap().len() <= 64 * 1024 + 64);
    assert_eq!(change["diff_sha256"], sha(&diff));
}

#[tokio::test]
async fn a_refusal_before_the_prompt_is_requested_decided_and_finished() {
    let s = stage(Answer::Approve);
    let Err(super::prepare::NotPrepared::Refused(info, decision)) = s
        .sup
        .prepare(
            4,
            &s.agent,
            "read_file",
            super::stage_support::object(&json!({"path": "../x"})),
        )
        .await
    else {
        panic!("not refused");
    };
    s.sup
        .refuse_early(&info, &decision, Instant::now())
        .unwrap();

    assert_eq!(
        kinds(&s.trail),
        [
            "agent_connected",
            "call_requested",
            "call_decided",
            "call_finished"
        ]
    );
    assert_eq!(of(&s.trail, "call_decided")[0]["by"], "scope");
    let finished = &of(&s.trail, "call_finished")[0];
    assert_eq!(finished["status"], "refused");
    assert_eq!(finished["excerpt"], decision.reason().unwrap());
    assert!(chain_holds(&s.trail));
}

#[tokio::test]
async fn the_chain_check_sees_a_changed_record() {
    let s = stage(Answer::Approve);
    let p = s.prepared(1, "bash", &json!({"command": "ls"})).await;
    let (info, decision) = s
        .sup
        .record_requested_and_decided(p.info.clone(), Decision::approve(ApprovedBy::User))
        .unwrap();
    // Both come back as they went in.
    assert_eq!(
        serde_json::to_value(&info).unwrap(),
        serde_json::to_value(&p.info).unwrap()
    );
    assert_eq!(decision, Decision::approve(ApprovedBy::User));
    assert!(chain_holds(&s.trail));
    let text = std::fs::read_to_string(&s.trail).unwrap();
    std::fs::write(
        &s.trail,
        text.replace("\"approved\":true", "\"approved\":false"),
    )
    .unwrap();
    assert!(!chain_holds(&s.trail), "an edited decision went unnoticed");
}

/// What an agent controls reaches the trail bounded, however large: a
/// 5 MB argument name (in the request, and quoted by the refusal's
/// reason), tool name, client name and version, a protocol error's text.
/// The control: the refusal the agent gets back still quotes the whole
/// name, so the reason was that large until the writer cut it.
#[tokio::test]
async fn huge_names_keys_and_reasons_stay_small_in_the_trail() {
    const HUGE: usize = 5 * 1024 * 1024;
    let s = stage(Answer::Approve);
    std::fs::write(s.ws.join("a.txt"), "a\n").unwrap();
    let big = "k".repeat(HUGE);
    let agent = s.sup.agent_connected(Some(&big), Some(&big));
    let mut args = serde_json::Map::new();
    args.insert(big.clone(), json!(1));
    args.insert("path".into(), json!("a.txt"));
    let cancel = tokio_util::sync::CancellationToken::new;
    let out = s
        .sup
        .call(&agent, "read_file", Some(args.clone()), cancel(), None)
        .await
        .unwrap();
    assert!(out.is_error);
    assert!(out.text.len() > HUGE, "control: the reason quotes the key");
    args.insert("command".into(), json!("ls"));
    let _ = s.sup.call(&agent, "bash", Some(args), cancel(), None).await;
    let _ = s.sup.call(&agent, &big, None, cancel(), None).await;
    s.sup.protocol_error(Some(&agent), &big, big.as_bytes());

    let size = std::fs::metadata(&s.trail).unwrap().len();
    assert!(size < 256 * 1024, "the trail holds {size} bytes");
    for r in records(&s.trail) {
        let line = serde_json::to_string(&r).unwrap();
        assert!(
            line.len() < 64 * 1024,
            "{} bytes: {}",
            line.len(),
            &line[..200]
        );
    }
    // Every record still reads as what it is.
    let t = crate::audit::Timeline::load(&s.trail).unwrap();
    assert!(t.problems.is_empty(), "{:?}", t.problems);
    assert_eq!(t.calls.len(), 3);
    assert!(
        t.calls
            .iter()
            .all(|c| c.decided.is_some() && c.finished.is_some())
    );
    assert!(chain_holds(&s.trail));
}
