//! A trail cut short, or rewritten with its chain recomputed, does not
//! verify: the anchor and `session_end` say so. Each attack's control is the
//! chain check alone ([`verify_reader`]), which the same damage passes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{AnchorCheck, AuditEvent, AuditLog, GENESIS, TrailEnd, verify_file, verify_reader};

/// A session as the supervisor writes one: start, an agent, three calls
/// (request, decision, result each), the end: 12 records. `end`: write the
/// `session_end` (else the log is returned open, its supervisor "running").
fn session(end: bool) -> (tempfile::TempDir, PathBuf, Option<AuditLog>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let log = AuditLog::create(&path).unwrap();
    let start = json!({"type": "session_start", "session": "s", "workspace": "/w",
        "version": "1", "pid": std::process::id(), "mode": "supervisor", "confirmer": "tui",
        "config_digest": "d", "config_files": [], "roots": [], "excluded": [], "tools": []});
    let append = |e: Value| {
        let e: AuditEvent = serde_json::from_value(e).unwrap();
        log.append(&e).unwrap();
    };
    append(start);
    append(json!({"type": "agent_connected", "agent": {"id": 1, "name": "a"}}));
    for id in 1..=3 {
        append(json!({"type": "call_requested", "call": {"id": id,
            "agent": {"id": 1, "name": "a"}, "tool": "bash",
            "args": {"command": format!("echo {id}")},
            "summary": "", "received_at": "2026-01-02T03:04:05Z"}}));
        append(json!({"type": "call_decided", "call_id": id, "approved": true, "by": "user"}));
        // Before a command runs, its approval is flushed (and anchored).
        log.sync_data().unwrap();
        append(
            json!({"type": "call_finished", "call_id": id, "status": "ok",
            "duration_ms": 1, "is_error": false, "truncated": false, "output_bytes": 2,
            "output_sha256": "", "excerpt": "x"}),
        );
    }
    if end {
        log.append(&AuditEvent::SessionEnd {
            reason: "done".into(),
        })
        .unwrap();
        return (dir, path, None);
    }
    (dir, path, Some(log))
}

fn records(p: &Path) -> Vec<Value> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Write `records` back as a valid chain: sequence numbers, `prev` and
/// `hash` recomputed (and, with `fix_end`, a `session_end`'s own count and
/// head), as an attacker with the file and a short script would.
fn rechain(p: &Path, records: Vec<Value>, fix_end: bool) {
    let mut prev = GENESIS.to_string();
    let mut text = String::new();
    for (seq, mut r) in records.into_iter().enumerate() {
        let o = r.as_object_mut().unwrap();
        o.remove("hash");
        o.insert("seq".into(), json!(seq));
        o.insert("prev".into(), json!(prev));
        if fix_end && o["type"] == "session_end" {
            o.insert("records".into(), json!(seq + 1));
            o.insert("head".into(), json!(prev));
        }
        let body = serde_json::to_string(&r).unwrap();
        prev = hex::encode(Sha256::digest(body.as_bytes()));
        text.push_str(&body[..body.len() - 1]);
        let _ = writeln!(text, ",\"hash\":\"{prev}\"}}");
    }
    std::fs::write(p, text).unwrap();
}

fn chain_only(p: &Path) -> super::VerifyReport {
    verify_reader(std::io::BufReader::new(std::fs::File::open(p).unwrap())).unwrap()
}

#[test]
fn an_ended_session_verifies_and_its_end_counts_its_records() {
    let (_d, p, _) = session(true);
    let r = verify_file(&p).unwrap();
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(r.verified, 12);
    assert_eq!(r.end, TrailEnd::Ended { line: 12 });
    assert_eq!(r.anchor, AnchorCheck::Matches { records: 12 });
    let all = records(&p);
    let end = &all[11];
    assert_eq!(
        (end["records"].clone(), end["head"].clone()),
        (json!(12), all[10]["hash"].clone())
    );
    assert_eq!(all[0]["anchored"], true);
    assert_eq!(r.head, end["hash"].as_str().unwrap());
}

#[test]
fn a_trail_cut_by_any_number_of_lines_does_not_verify() {
    for n in 1..=11 {
        let (_d, p, _) = session(true);
        // The lines as they were written, but the last n.
        let kept: String = std::fs::read_to_string(&p)
            .unwrap()
            .split_inclusive('\n')
            .take(12 - n)
            .collect();
        std::fs::write(&p, kept).unwrap();
        // Control: the chain alone holds.
        let chain = chain_only(&p);
        assert!(chain.is_ok(), "{n}: {chain:?}");
        let r = verify_file(&p).unwrap();
        assert!(!r.is_ok(), "cut by {n} lines: {r:?}");
        assert!(
            matches!(r.anchor, AnchorCheck::Short { anchored: 12, .. }),
            "{n}: {r:?}"
        );
        assert_eq!(r.end, TrailEnd::Unfinished, "{n}");
    }
}

#[test]
fn a_call_removed_with_the_chain_recomputed_does_not_verify() {
    // Call 2's three records (lines 6 to 8) go; the rest is re-chained,
    // the session_end's own count and head included.
    let (_d, p, _) = session(true);
    let mut all = records(&p);
    all.drain(5..8);
    rechain(&p, all, true);
    assert!(chain_only(&p).is_ok(), "control: the chain holds");
    let r = verify_file(&p).unwrap();
    assert!(!r.is_ok(), "{r:?}");
    assert!(
        matches!(r.anchor, AnchorCheck::Short { anchored: 12, .. }),
        "{r:?}"
    );

    // Without fixing session_end's count, the chain check itself sees it.
    let (_d, p, _) = session(true);
    let mut all = records(&p);
    all.drain(5..8);
    rechain(&p, all, false);
    let e = chain_only(&p).error.unwrap();
    assert_eq!(e.line, 9);
    assert!(e.message.contains("session_end counts 12 records"), "{e}");

    // Replaced by as many innocent records: the anchored hash differs.
    let (_d, p, _) = session(true);
    let mut all = records(&p);
    for r in &mut all[5..8] {
        if let Some(c) = r.pointer_mut("/call/args/command") {
            *c = json!("echo innocent");
        }
    }
    rechain(&p, all, true);
    assert!(chain_only(&p).is_ok(), "control: the chain holds");
    let r = verify_file(&p).unwrap();
    assert!(
        matches!(r.anchor, AnchorCheck::Differs { anchored: 12, .. }),
        "{r:?}"
    );
}

#[test]
fn a_session_without_its_end_is_running_then_unfinished() {
    let (_d, p, log) = session(false);
    let r = verify_file(&p).unwrap();
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(r.end, TrailEnd::Running);
    // Anchored at the last flush, before call 3's result.
    assert_eq!(r.anchor, AnchorCheck::Matches { records: 10 });
    drop(log);
    let r = verify_file(&p).unwrap();
    assert_eq!(r.end, TrailEnd::Unfinished);
    assert!(!r.is_ok(), "{r:?}");
    assert!(chain_only(&p).is_ok(), "control: the chain holds");
}

#[test]
fn records_after_the_last_flush_may_follow_the_anchor_but_a_forged_end_may_not() {
    let (_d, p, log) = session(false);
    let log = log.unwrap();
    log.sync_data().unwrap();
    let extra: AuditEvent = serde_json::from_value(
        json!({"type": "agent_disconnected", "agent": {"id": 1, "name": "a"}}),
    )
    .unwrap();
    log.append(&extra).unwrap();
    let r = verify_file(&p).unwrap();
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(r.anchor, AnchorCheck::Matches { records: 11 });
    // Killed; then a session_end is forged onto the trail to hide it.
    drop(log);
    let all = records(&p);
    let (seq, prev) = (all.len(), all[all.len() - 1]["hash"].as_str().unwrap());
    let body = json!({"v": 1, "seq": seq, "ts": "2026-01-02T03:04:05Z", "type": "session_end",
        "reason": "done", "records": seq + 1, "head": prev, "prev": prev})
    .to_string();
    let hash = hex::encode(Sha256::digest(body.as_bytes()));
    let mut text = std::fs::read_to_string(&p).unwrap();
    let _ = writeln!(text, "{},\"hash\":\"{hash}\"}}", &body[..body.len() - 1]);
    std::fs::write(&p, text).unwrap();
    assert!(chain_only(&p).is_ok(), "control: the chain holds");
    let r = verify_file(&p).unwrap();
    assert_eq!(r.end, TrailEnd::Ended { line: 13 });
    assert!(
        matches!(
            r.anchor,
            AnchorCheck::EndAfter {
                anchored: 11,
                line: 13,
                ..
            }
        ),
        "{r:?}"
    );
    assert!(!r.is_ok());
}

#[test]
fn a_deleted_anchor_is_noticed_and_an_older_trail_has_none() {
    let (_d, p, _) = session(true);
    std::fs::remove_file(crate::dirs::anchor_path(&p)).unwrap();
    let r = verify_file(&p).unwrap();
    assert!(matches!(r.anchor, AnchorCheck::Missing { .. }), "{r:?}");
    assert!(!r.is_ok());

    // An older airlock's trail: no anchor, and its first line claims none.
    let mut all = records(&p);
    all[0].as_object_mut().unwrap().remove("anchored");
    for r in &mut all {
        let o = r.as_object_mut().unwrap();
        o.remove("records");
        o.remove("head");
    }
    rechain(&p, all.clone(), false);
    let r = verify_file(&p).unwrap();
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(
        (r.anchor, r.end),
        (AnchorCheck::NotKept, TrailEnd::Ended { line: 12 })
    );
    // Without its end, and its supervisor (by pid) gone: unfinished.
    all.pop();
    all[0]["pid"] = json!(u32::MAX - 1);
    rechain(&p, all, false);
    let r = verify_file(&p).unwrap();
    assert_eq!(r.end, TrailEnd::Unfinished);
    assert!(!r.is_ok());
}

#[test]
fn a_garbled_anchor_does_not_verify() {
    let (_d, p, _) = session(true);
    let a = crate::dirs::anchor_path(&p);
    let text = std::fs::read_to_string(&a).unwrap();
    std::fs::write(
        &a,
        text.replace(
            "records=00000000000000000012",
            "records=00000000000000000009",
        ),
    )
    .unwrap();
    let r = verify_file(&p).unwrap();
    assert!(matches!(r.anchor, AnchorCheck::Unreadable { .. }), "{r:?}");
    assert!(!r.is_ok());
}
