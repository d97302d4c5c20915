//! `airlock sessions`: every trail in the data directory, newest first,
//! with its counts; damaged and unreadable trails are listed with a note.

mod log_support;

use airlock::audit::{AuditEvent, AuditLog};
use log_support::*;
use serde_json::Value;

#[tokio::test]
async fn sessions_lists_trails_newest_first_with_counts_and_notes() {
    let f = every_outcome().await;
    let audit = airlock::dirs::audit_dir(&f.data);
    // An older trail that was killed mid-line.
    let old = audit.join("20200101T000000.000Z-0001.jsonl");
    let log = AuditLog::create(&old).unwrap();
    log.append(&AuditEvent::SessionEnd {
        reason: "placeholder".into(),
    })
    .unwrap();
    drop(log);
    let mut bytes = std::fs::read(&old).unwrap();
    bytes.truncate(bytes.len() - 10);
    std::fs::write(&old, bytes).unwrap();
    // An empty trail, and a "trail" that cannot be read at all.
    std::fs::write(audit.join("20210101T000000.000Z-0002.jsonl"), "").unwrap();
    std::fs::create_dir(audit.join("29990101T000000.000Z-0003.jsonl")).unwrap();
    std::fs::write(audit.join("README.txt"), "not a trail").unwrap();

    let o = airlock(&f.data, &["sessions"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(!text.contains('\x1b'));
    let ids: Vec<&str> = text
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "29990101T000000.000Z-0003",
            f.id.as_str(),
            "20210101T000000.000Z-0002",
            "20200101T000000.000Z-0001"
        ],
        "{text}"
    );
    let row = text.lines().find(|l| l.starts_with(&f.id)).unwrap();
    let cols: Vec<&str> = row.split_whitespace().collect();
    // id, date, time, duration, then calls auto you denied blocked unanswered errors.
    assert_eq!(&cols[4..11], ["14", "3", "4", "2", "3", "2", "1"], "{row}");
    assert!(row.contains("agent-a, agent-b"), "{row}");
    assert!(row.contains(&f.ws.display().to_string()), "{row}");
    assert!(text.contains("! unreadable: "), "{text}");
    assert!(text.contains("! no records"), "{text}");
    assert!(text.contains("! torn last line 1"), "{text}");
    assert!(!text.contains("README"));

    let o = airlock(&f.data, &["sessions", "--json"]);
    assert!(o.status.success());
    let rows = records(&stdout(&o));
    assert_eq!(rows.len(), 4);
    let real: &Value = rows.iter().find(|r| r["id"] == f.id.as_str()).unwrap();
    assert_eq!(real["counts"]["calls"], 14);
    assert_eq!(real["counts"]["blocked"], 3);
    assert_eq!(real["counts"]["errors"], 1);
    assert_eq!(real["ended"], true);
    assert!(real["notes"].as_array().unwrap().is_empty(), "{real}");
    assert!(
        real["duration_ms"].as_u64().unwrap() >= 1000,
        "the timeout alone took a second"
    );
}

#[test]
fn no_trails_yet() {
    let dir = tempfile::tempdir().unwrap();
    let o = airlock(dir.path(), &["sessions"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("(no sessions yet)"));
    let o = airlock(dir.path(), &["log"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no audit trails in"), "{}", stderr(&o));
}
