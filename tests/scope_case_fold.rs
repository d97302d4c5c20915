//! Exclusions ignore letter case, through the real pipeline: on a
//! filesystem that folds case `.ENV` opens `.env` and the opened file's
//! name (from `/proc/self/fd`) is `.ENV`, so a case-sensitive match reads
//! the secret. These tests need no such filesystem: the files here really
//! are named `.ENV`, `SERVER.PEM` …, which is what the check sees on one.
//! Every read tool, every walk and both write tools refuse them.
//! CONTROL: with no exclusions (`excluded = []`) the same calls read
//! them, so the exclusion is what stops them; `src/scope/exclude.rs` shows the old case-sensitive
//! matching lets each of these names through.

mod scope_support;

use std::path::Path;

use airlock::policy::Mode;
use scope_support::{Env, text, write};
use serde_json::{Value, json};

/// Files whose names differ from an excluded one only in letter case (and
/// `.env~`, an editor's backup), with the marker each holds.
const FOLDED: &[(&str, &str)] = &[
    (".ENV", "MARK-CF-ENV-01"),
    (".Env", "MARK-CF-ENV-02"),
    ("app/.ENV.LOCAL", "MARK-CF-ENVL-03"),
    (".SSH/id_rsa", "MARK-CF-SSH-04"),
    ("SERVER.PEM", "MARK-CF-PEM-05"),
    ("certs/Deploy.Key", "MARK-CF-KEY-06"),
    (".env~", "MARK-CF-BAK-07"),
    // KELVIN SIGN: Unicode simple case folding makes it `k`.
    ("certs/deploy.\u{212A}EY", "MARK-CF-KEY-08"),
];

/// A session; `config` is the `[scope]` section's body ("" for defaults).
fn env(config: &str) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    for (p, m) in FOLDED {
        write(&ws.join(p), &format!("{m}\n"));
    }
    write(&ws.join("ok.txt"), "MARK-CF-PUBLIC\n");
    Env::start(
        dir,
        &format!("[scope]\n{config}\n"),
        Some(Mode::TrustEdits),
        "cf-test",
    )
}

/// The calls that read `p`'s content.
fn reads(p: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("read_file", json!({ "path": p })),
        ("cat", json!({ "path": p })),
        ("head", json!({ "path": p })),
        ("grep", json!({ "pattern": "MARK", "path": p })),
        ("diff", json!({ "path_a": p, "path_b": "ok.txt" })),
        (
            "edit_file",
            json!({ "path": p, "old_text": "MARK-CF \n", "new_text": "x" }),
        ),
        (
            "write_file",
            json!({ "path": p, "content": "t\n", "append": true }),
        ),
    ]
}

/// The walks, whose output names files and shows content.
fn walks() -> Vec<(&'static str, Value)> {
    vec![
        ("grep", json!({ "pattern": "MARK", "path": "." })),
        ("find", json!({ "path": "." })),
        ("ls", json!({ "path": "." })),
        ("ls", json!({ "path": "certs" })),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_differing_only_in_case_are_excluded_everywhere() {
    let e = env("");
    for (path, mark) in FOLDED {
        for (tool, args) in reads(path) {
            let out = e.call(tool, args.clone()).await;
            let t = text(&out);
            assert!(out.is_error, "{tool} {args} should be refused: {t}");
            assert!(t.contains("excluded"), "{tool} {args} says why: {t}");
            assert!(!t.contains(mark), "{tool} {args} leaked {mark}: {t}");
        }
        let raw = std::fs::read_to_string(e.ws.join(path)).unwrap();
        assert_eq!(raw, format!("{mark}\n"), "{path} was not written");
    }
    for (tool, args) in walks() {
        let t = text(&e.call(tool, args.clone()).await);
        for (path, mark) in FOLDED {
            let name = Path::new(path).file_name().unwrap().to_str().unwrap();
            assert!(!t.contains(mark), "{tool} {args} leaked {mark}: {t}");
            assert!(!t.contains(name), "{tool} {args} listed {name}: {t}");
        }
    }
    // The walk does search.
    let t = text(
        &e.call("grep", json!({ "pattern": "MARK", "path": "." }))
            .await,
    );
    assert!(t.contains("MARK-CF-PUBLIC"), "{t}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_without_the_exclusions_the_same_calls_read_them() {
    let e = env("excluded = []");
    for (path, mark) in FOLDED {
        let out = e.call("cat", json!({ "path": path })).await;
        assert!(text(&out).contains(mark), "{path}: {}", text(&out));
    }
    let t = text(
        &e.call("grep", json!({ "pattern": "MARK", "path": "." }))
            .await,
    );
    for (_, mark) in FOLDED {
        assert!(t.contains(mark), "grep . should find {mark}: {t}");
    }
}
