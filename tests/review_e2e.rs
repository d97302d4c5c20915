//! The real `airlock review` in a pseudo-terminal: it finds the trail (the
//! newest, by id prefix, by path), shows its calls and its verdict on the
//! chain, moves and filters on keys, and `q` exits 0 with the terminal
//! given back. Without a terminal it says to use `airlock log`.

mod pty_support;
mod review_support;

use std::path::Path;

use pty_support::Pty;
use review_support::*;

/// `airlock review` with `args`, running in a PTY.
fn start(data: &Path, args: &[&str]) -> Pty {
    let mut cmd = pty_support::airlock();
    cmd.arg("--data-dir");
    cmd.arg(data);
    cmd.arg("review");
    cmd.args(args);
    cmd.env("AIRLOCK_NO_USER_CONFIG", "1");
    cmd.env("TZ", "UTC");
    cmd.env_remove("AIRLOCK_DATA_DIR");
    Pty::spawn(cmd, 120, 40)
}

/// The fixture trail in `<data>/audit/`, next to an older one.
fn data_dir() -> tempfile::TempDir {
    let data = tempfile::tempdir().unwrap();
    let audit = data.path().join("audit");
    std::fs::create_dir_all(&audit).unwrap();
    std::fs::write(
        audit.join(format!("{SESSION}.jsonl")),
        session_chain().text(),
    )
    .unwrap();
    let mut old = Chain::default();
    old.raw(
        at(-86_400_000),
        &serde_json::json!({"type": "session_end", "reason": "old"}),
    );
    std::fs::write(audit.join("20260101T000000.000Z-0000.jsonl"), old.text()).unwrap();
    data
}

#[test]
fn review_shows_the_newest_trail_and_q_gives_the_terminal_back() {
    let data = data_dir();
    let trail = data.path().join("audit").join(format!("{SESSION}.jsonl"));
    let before = std::fs::read(&trail).unwrap();
    let mut t = start(data.path(), &[]);
    t.wait_for("REVIEW · read-only");
    // Unstyled spaces are not drawn on a fresh screen: look for words.
    for shown in [
        "example.org/install.sh",
        "tests/run_tests.sh",
        "hash chain verified: 41 records",
        "/home/dev/tinytodo",
    ] {
        t.wait_for(shown);
    }
    // Keys move and filter; nothing asks, nothing runs.
    t.keys("nn/curl\r");
    t.wait_for("curl\"");
    t.keys("\x1bGgq");
    assert_eq!(t.exit_code(), 0);
    let out = t.text();
    assert!(out.contains("\x1b[?1049l"), "the alternate screen is left");
    assert!(out.contains("\x1b[?1000l"), "the mouse is released");
    assert!(out.contains("\x1b[?25h"), "the cursor is shown");
    assert_eq!(
        std::fs::read(&trail).unwrap(),
        before,
        "the trail is untouched"
    );
}

#[test]
fn review_takes_a_prefix_or_a_path() {
    let data = data_dir();
    let mut t = start(data.path(), &["20260101"]);
    t.wait_for("ended: old");
    t.wait_for("This trail has no calls.");
    t.keys("q");
    assert_eq!(t.exit_code(), 0);

    let (_d, path) = torn_trail();
    let mut t = start(data.path(), &[path.to_str().unwrap()]);
    t.wait_for("TORN LAST LINE 39");
    t.keys("q");
    assert_eq!(t.exit_code(), 0);

    let mut t = start(data.path(), &["2027"]);
    assert_eq!(t.exit_code(), 1);
    assert!(t.text().contains("no session \"2027\""), "{}", t.text());
}

#[test]
fn review_without_a_terminal_points_to_log() {
    let data = data_dir();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_airlock"))
        .env("AIRLOCK_NO_USER_CONFIG", "1")
        .arg("--data-dir")
        .arg(data.path())
        .args(["review", "--last"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("review needs a terminal"), "{err}");
    assert!(err.contains("airlock log"), "{err}");
}
