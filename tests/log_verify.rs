//! `airlock log --verify` on intact and damaged trails (edited, deleted,
//! swapped lines, torn last line; cut short, or rewritten with the chain
//! recomputed; a session killed or still running): exit codes and the line
//! reported. The other readers tolerate the same damage and say so.

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

/// Write `records` back as a valid chain, as a short script would:
/// sequence numbers, `prev` and `hash` recomputed, and a `session_end`'s
/// own count and head.
fn rechain(p: &Path, records: Vec<serde_json::Value>) {
    use sha2::Digest;
    let mut prev = airlock::audit::GENESIS.to_string();
    let mut text = String::new();
    for (seq, mut r) in records.into_iter().enumerate() {
        let o = r.as_object_mut().unwrap();
        o.remove("hash");
        o.insert("seq".into(), json!(seq));
        o.insert("prev".into(), json!(prev));
        if o["type"] == "session_end" {
            o.insert("records".into(), json!(seq + 1));
            o.insert("head".into(), json!(prev));
        }
        let body = serde_json::to_string(&r).unwrap();
        prev = hex::encode(sha2::Sha256::digest(body.as_bytes()));
        text.push_str(&body[..body.len() - 1]);
        text.push_str(",\"hash\":\"");
        text.push_str(&prev);
        text.push_str("\"}\n");
    }
    std::fs::write(p, text).unwrap();
}

/// The chain check alone, as `--verify` did before the anchor: the control
/// for the attacks below.
fn chain_holds(p: &Path) -> bool {
    let f = std::io::BufReader::new(std::fs::File::open(p).unwrap());
    airlock::audit::verify_reader(f).unwrap().is_ok()
}

#[tokio::test]
async fn a_real_session_cut_at_its_end_does_not_verify() {
    let f = every_outcome().await;
    let all = std::fs::read_to_string(&f.trail).unwrap();
    let n = all.lines().count();
    for cut in [1, 4, n - 1] {
        let kept: String = all.split_inclusive('\n').take(n - cut).collect();
        std::fs::write(&f.trail, kept).unwrap();
        assert!(
            chain_holds(&f.trail),
            "control: cut by {cut}, the chain holds"
        );
        let (code, out, err) = verify(&f.data, &f.id);
        assert_eq!(code, 1, "cut by {cut}: {out}");
        let anchor = airlock::dirs::anchor_path(&f.trail);
        assert!(
            err.contains(&format!(
                "line {}: the trail ends after {} records, but its anchor {} counts {n}",
                n - cut + 1,
                n - cut,
                anchor.display()
            )),
            "{err}"
        );
    }
    // Overwritten with a trail of its own (one valid record): the same.
    let first: String = all.split_inclusive('\n').take(1).collect();
    std::fs::write(&f.trail, first).unwrap();
    assert!(chain_holds(&f.trail));
    let (code, _, err) = verify(&f.data, &f.id);
    assert_eq!(code, 1);
    assert!(err.contains("records were cut from the end"), "{err}");
}

#[tokio::test]
async fn a_call_removed_and_the_chain_recomputed_does_not_verify() {
    let f = every_outcome().await;
    let mut all = records(&std::fs::read_to_string(&f.trail).unwrap());
    let n = all.len();
    all.retain(|r| r["call"]["id"] != 2 && r["call_id"] != 2);
    assert_eq!(all.len(), n - 3, "call 2's request, decision and result");
    rechain(&f.trail, all);
    assert!(chain_holds(&f.trail), "control: the recomputed chain holds");
    let (code, out, err) = verify(&f.data, &f.id);
    assert_eq!(code, 1, "{out}");
    assert!(err.contains(&format!("counts {n}")), "{err}");

    // As many records instead, the call made innocent: the hash differs.
    let f = every_outcome().await;
    let mut all = records(&std::fs::read_to_string(&f.trail).unwrap());
    for r in &mut all {
        if r["call"]["id"] == 2 {
            r["call"]["args"]["command"] = json!("echo innocent");
        }
    }
    rechain(&f.trail, all);
    assert!(chain_holds(&f.trail), "control: the recomputed chain holds");
    let (code, _, err) = verify(&f.data, &f.id);
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!(
            "line {n}: this record's hash is not the one its anchor"
        )),
        "{err}"
    );
}

#[test]
fn a_running_session_verifies_and_a_killed_one_does_not() {
    use std::io::{BufRead, Write};
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let data = dir.path().join("data");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_airlock"))
        .env("AIRLOCK_NO_USER_CONFIG", "1")
        .arg("--data-dir")
        .arg(&data)
        .args(["serve", "--stdio"])
        .current_dir(&ws)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"a","version":"1"}}});
    writeln!(stdin, "{init}").unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let (code, out, err) = verify(&data, "--last");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("the session is still running"), "{out}");
    // Killed: no session_end, and its supervisor gone.
    child.kill().unwrap();
    child.wait().unwrap();
    let (code, _, err) = verify(&data, "--last");
    assert_eq!(code, 1);
    assert!(
        err.contains(
            "without session_end, and no supervisor is writing it: the supervisor was killed"
        ),
        "{err}"
    );
}
