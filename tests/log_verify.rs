//! `airlock log --verify` on intact and damaged trails (edited, deleted,
//! swapped lines, torn last line): exit codes and the line reported. The
//! other readers tolerate the same damage and say so.

mod log_support;

use std::path::{Path, PathBuf};

use airlock::audit::{AuditEvent, AuditLog};
use airlock::call::{AgentInfo, ApprovedBy, CallInfo, Decision, Outcome};
use log_support::*;
use serde_json::json;

const ID: &str = "20260101T120000.000Z-beef";

/// A trail of 3 calls written by the real writer: 1 + 3×3 + 1 = 11 records.
fn trail(data: &Path) -> PathBuf {
    let path = airlock::dirs::audit_dir(data).join(format!("{ID}.jsonl"));
    let log = AuditLog::create(&path).unwrap();
    let agent = AgentInfo {
        id: 1,
        name: "writer".into(),
        version: None,
    };
    log.append(&AuditEvent::AgentConnected {
        agent: agent.clone(),
    })
    .unwrap();
    for id in 1..=3 {
        let call = CallInfo {
            id,
            agent: agent.clone(),
            tool: "bash".into(),
            kind: None,
            args: json!({"command": format!("echo {id}")}),
            summary: format!("echo {id}"),
            received_at: chrono::Utc::now(),
            runner: airlock::call::Runner::default(),
            view: airlock::call::CallView::default(),
            edit: None,
            grant: airlock::call::GrantShape::None,
            proposal: None,
        };
        log.append(&AuditEvent::CallRequested { call }).unwrap();
        log.append(&AuditEvent::CallDecided {
            call_id: id,
            decision: Decision::approve(ApprovedBy::User),
        })
        .unwrap();
        log.append(&AuditEvent::CallFinished {
            call_id: id,
            status: Outcome::Ok,
            duration_ms: 5,
            wait_ms: None,
            run_ms: None,
            is_error: false,
            truncated: false,
            output_bytes: 2,
            output_sha256: String::new(),
            excerpt: format!("{id}\n"),
            change: None,
            cancelled_by: None,
            exit_code: None,
            file_sha256: None,
        })
        .unwrap();
    }
    log.append(&AuditEvent::SessionEnd {
        reason: "done".into(),
    })
    .unwrap();
    path
}

fn lines(p: &Path) -> Vec<String> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

fn write(p: &Path, ls: &[String]) {
    let text: String = ls.iter().flat_map(|l| [l.as_str(), "\n"]).collect();
    std::fs::write(p, text).unwrap();
}

/// `airlock log --verify`: (exit code, stdout, stderr).
fn verify(data: &Path, spec: &str) -> (i32, String, String) {
    let o = airlock(data, &["log", "--verify", spec]);
    (o.status.code().unwrap(), stdout(&o), stderr(&o))
}

#[test]
fn intact_trail_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let path = trail(dir.path());
    let (code, out, err) = verify(dir.path(), ID);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("verified 11 records"), "{out}");
    // By path and as the newest, too.
    assert_eq!(verify(dir.path(), path.to_str().unwrap()).0, 0);
    let o = airlock(dir.path(), &["log", "--verify", "--last"]);
    assert!(o.status.success());
}

#[tokio::test]
async fn a_real_session_verifies() {
    let f = every_outcome().await;
    let o = airlock(&f.data, &["log", "--verify"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let n = lines(&f.trail).len();
    assert_eq!(
        stdout(&o).lines().next().unwrap(),
        format!("verified {n} records in {}", f.trail.display())
    );
}

#[test]
fn an_edited_line_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = trail(dir.path());
    let mut ls = lines(&path);
    // Line 6 is call 2's decision: turn the approval into a denial.
    assert!(ls[5].contains("\"call_id\":2,\"approved\":true"));
    ls[5] = ls[5].replace("\"approved\":true", "\"approved\":false");
    write(&path, &ls);
    let (code, out, err) = verify(dir.path(), ID);
    assert_eq!(code, 1);
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("line 6: hash mismatch: the line was edited"),
        "{err}"
    );
    assert!(err.contains("5 records before it verify"), "{err}");
}

#[test]
fn a_deleted_line_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = trail(dir.path());
    let mut ls = lines(&path);
    ls.remove(3);
    write(&path, &ls);
    let (code, _, err) = verify(dir.path(), ID);
    assert_eq!(code, 1);
    assert!(
        err.contains("line 4: sequence number 4 where 3 was expected"),
        "{err}"
    );
}

#[test]
fn swapped_lines_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = trail(dir.path());
    let mut ls = lines(&path);
    ls.swap(7, 8);
    write(&path, &ls);
    let (code, _, err) = verify(dir.path(), ID);
    assert_eq!(code, 1);
    assert!(
        err.contains("line 8: sequence number 8 where 7 was expected"),
        "{err}"
    );
}

#[test]
fn a_torn_last_line_is_reported_by_verify_and_tolerated_by_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let path = trail(dir.path());
    let text = std::fs::read_to_string(&path).unwrap();
    // Cut the file in the middle of the last record (the session end).
    let cut = text.len() - 40;
    std::fs::write(&path, &text[..cut]).unwrap();
    let (code, _, err) = verify(dir.path(), ID);
    assert_eq!(code, 1);
    assert!(err.contains("line 11: torn last line"), "{err}");
    assert!(err.contains("10 records before it verify"), "{err}");

    // log: every complete record, and a note about the torn one.
    let o = airlock(dir.path(), &["log"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("3 of 3 calls shown"), "{}", stdout(&o));
    assert!(!stdout(&o).contains("session ended"));
    assert!(
        stderr(&o).contains("line 11: torn last line"),
        "{}",
        stderr(&o)
    );
    let o = airlock(dir.path(), &["log", "--json"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o), text[..=text[..cut].rfind('\n').unwrap()]);
    assert!(stderr(&o).contains("line 11: torn last line"));
    let o = airlock(dir.path(), &["log", "--json", "--tool", "bash"]);
    assert_eq!(records(&stdout(&o)).len(), 9);
    assert!(stderr(&o).contains("torn last line"));

    // sessions: listed with a note.
    let o = airlock(dir.path(), &["sessions"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains(ID), "{out}");
    assert!(out.contains("! torn last line 11"), "{out}");
    assert!(out.contains("! no session_end"), "{out}");
}

#[test]
fn a_line_that_is_not_a_record_is_skipped_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = trail(dir.path());
    let mut ls = lines(&path);
    ls.insert(2, "this is not json".into());
    write(&path, &ls);
    let (code, _, err) = verify(dir.path(), ID);
    assert_eq!(code, 1);
    assert!(err.contains("line 3: "), "{err}");
    let o = airlock(dir.path(), &["log"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("3 of 3 calls shown"), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("line 3: not an audit record"),
        "{}",
        stderr(&o)
    );
    let o = airlock(dir.path(), &["log", "--json"]);
    assert_eq!(records(&stdout(&o)).len(), 11);
    assert!(
        stderr(&o).contains("line 3: not an audit record"),
        "{}",
        stderr(&o)
    );
}
