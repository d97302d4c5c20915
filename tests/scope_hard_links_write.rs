//! Hard links and the write tools: `write_file` and `edit_file` read the
//! file they replace (for the diff, to match `old_text`, to append), so a
//! workspace file that is another name of an excluded file or of a secret
//! outside the workspace is refused by them as by the read tools — at
//! prepare, before a byte is read: no content, diff, hint, match count or
//! line number, and nothing replaced. Writes run without asking here
//! (`trust-edits`), so a write that got past the check would happen.
//! CONTROL: with `scope.hard_links = "allow"` the outside secret comes back
//! through the same calls (the hint quotes it, an append copies it into a
//! file `cat` returns), so the check is what stops it.

mod scope_support;

use std::os::unix::fs::MetadataExt;

use airlock::policy::Mode;
use scope_support::{Env, text, write};
use serde_json::{Value, json};

const ENV_MARK: &str = "MARK-HLW-ENV-a1b2";
const OUT_MARK: &str = "MARK-HLW-OUT-c3d4";

fn env(hard_links: &str) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let outside = dir.path().join("outside");
    let body = |m: &str| format!("{m}=one\nSECOND={m}\n");
    write(&ws.join(".env"), &body(ENV_MARK));
    write(&outside.join("secret.txt"), &body(OUT_MARK));
    std::fs::hard_link(ws.join(".env"), ws.join("notes.txt")).unwrap();
    std::fs::hard_link(outside.join("secret.txt"), ws.join("data.txt")).unwrap();
    write(&ws.join("store/index.js"), "STORE\n");
    std::fs::create_dir_all(ws.join("node_modules/pkg")).unwrap();
    std::fs::hard_link(
        ws.join("store/index.js"),
        ws.join("node_modules/pkg/index.js"),
    )
    .unwrap();
    Env::start(
        dir,
        &format!("[scope]\nhard_links = \"{hard_links}\"\n"),
        Some(Mode::TrustEdits),
        "hlw-test",
    )
}

/// Every way a write tool reads or replaces an existing file, on `p`
/// holding `mark`: each prepare-time error of `edit_file` (whitespace
/// hint, first-line hint, case hint, several matches, not found), a
/// matching edit, an append and an overwrite.
fn writes(p: &str, mark: &str) -> Vec<(&'static str, Value)> {
    let edit = |old: String| json!({ "path": p, "old_text": old, "new_text": "x" });
    vec![
        ("edit_file", edit(format!("{mark}=one \n  SECOND={mark}"))),
        ("edit_file", edit(format!("{mark}=one\nnope"))),
        ("edit_file", edit(mark.to_lowercase())),
        ("edit_file", edit("=".into())),
        ("edit_file", edit("absent".into())),
        ("edit_file", edit(format!("{mark}=one"))),
        (
            "write_file",
            json!({ "path": p, "content": "tail\n", "append": true }),
        ),
        ("write_file", json!({ "path": p, "content": "new\n" })),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_tools_refuse_other_names_of_secrets_before_reading_them() {
    let e = env("packages");
    for (path, mark) in [("notes.txt", ENV_MARK), ("data.txt", OUT_MARK)] {
        // CONTROL: the link really is the secret.
        let raw = std::fs::read_to_string(e.ws.join(path)).unwrap();
        assert!(raw.contains(mark), "control: {path} holds {mark}");
        for (tool, args) in writes(path, mark) {
            let out = e.call(tool, args.clone()).await;
            let t = text(&out);
            assert!(out.is_error, "{tool} {args} should be refused: {t}");
            assert!(t.contains("hard link"), "{tool} {args} says why: {t}");
            for leak in [mark, "line", "matches", "bytes"] {
                assert!(!t.contains(leak), "{tool} {args} told {leak:?}: {t}");
            }
        }
        // Nothing was replaced: the name is still the secret's.
        assert_eq!(std::fs::metadata(e.ws.join(path)).unwrap().nlink(), 2);
        assert_eq!(std::fs::read_to_string(e.ws.join(path)).unwrap(), raw);
    }
    let trail = e.trail();
    for mark in [ENV_MARK, OUT_MARK] {
        // The agent's own old_text names the marks; no file content may.
        assert!(!trail.contains(&format!("{mark}\\nSECOND")), "trail leaked");
        assert!(
            !trail.contains(&format!("SECOND={mark}\\n")),
            "trail leaked"
        );
    }
    // pnpm's store links stay writable under `packages`.
    let out = e
        .call(
            "edit_file",
            json!({ "path": "node_modules/pkg/index.js", "old_text": "STORE", "new_text": "EDITED" }),
        )
        .await;
    assert!(!out.is_error, "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(e.ws.join("node_modules/pkg/index.js")).unwrap(),
        "EDITED\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_with_allow_the_write_tools_give_the_outside_secret_away() {
    let e = env("allow");
    // The whitespace hint quotes the file.
    let out = e
        .call(
            "edit_file",
            json!({ "path": "data.txt", "old_text": format!("{OUT_MARK}=one \n SECOND={OUT_MARK}"), "new_text": "x" }),
        )
        .await;
    assert!(
        text(&out).contains(&format!("SECOND={OUT_MARK}\n")),
        "{}",
        text(&out)
    );
    // An append renames a single-link copy of the secret into place.
    let out = e
        .call(
            "write_file",
            json!({ "path": "data.txt", "content": "tail\n", "append": true }),
        )
        .await;
    assert!(!out.is_error, "{}", text(&out));
    let out = e.call("cat", json!({ "path": "data.txt" })).await;
    assert!(text(&out).contains(OUT_MARK), "{}", text(&out));
    // An excluded file's other name stays refused whatever the setting.
    let out = e
        .call(
            "write_file",
            json!({ "path": "notes.txt", "content": "t\n", "append": true }),
        )
        .await;
    assert!(
        out.is_error && !text(&out).contains(ENV_MARK),
        "{}",
        text(&out)
    );
}
