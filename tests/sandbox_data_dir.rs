//! The shell cannot read airlock's data directory: every session's audit
//! trail (output excerpts of other projects included) and the logs. The
//! control: with the sandbox off, the same command reads the trail.

mod sandbox_support;

use sandbox_support::{fixture, q};

async fn reads_trail(sandbox: &str) -> (bool, String) {
    let f = fixture(sandbox);
    let data = f.ws.parent().unwrap().join("data");
    assert!(
        std::fs::read_dir(data.join("audit")).unwrap().count() > 0,
        "the session has a trail"
    );
    let out = f
        .bash(&format!(
            "cat {}/audit/*.jsonl; ls {}/logs",
            q(&data),
            q(&data)
        ))
        .await;
    (out.text.contains("session_start"), out.text)
}

#[tokio::test]
async fn the_shell_cannot_read_the_audit_trails() {
    let (read, text) = reads_trail("").await;
    assert!(!read, "the sandboxed shell read the trail:\n{text}");
    let (read, text) = reads_trail("mode = \"off\"").await;
    assert!(
        read,
        "control: without the sandbox the trail is readable:\n{text}"
    );
}
