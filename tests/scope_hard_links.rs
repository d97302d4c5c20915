//! Hard links and the read tools: a workspace file that is another name
//! of an excluded file or of a secret outside the workspace is refused by
//! every read tool, through the real pipeline; pnpm-style hard links under
//! `node_modules` stay readable. CONTROLS: each link really holds the
//! secret (read directly), and with `scope.hard_links = "allow"` the
//! outside secret is readable through the tools, so the check is what
//! stops it.

mod scope_support;

use std::path::Path;

use scope_support::{Env, text, write};
use serde_json::{Value, json};

const ENV_MARK: &str = "MARK-HL-ENV-51c2";
const OUT_MARK: &str = "MARK-HL-OUT-62d3";
const DENY_MARK: &str = "MARK-HL-DENY-73e4";
const STORE_MARK: &str = "MARK-HL-STORE-84f5";

fn link(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::hard_link(from, to).unwrap();
}

fn env(hard_links: &str) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let outside = dir.path().join("outside");
    let denied = dir.path().join("denied");
    write(&ws.join(".env"), &format!("{ENV_MARK}\n"));
    write(&outside.join("secret.txt"), &format!("{OUT_MARK}\n"));
    write(&denied.join("id_rsa"), &format!("{DENY_MARK}\n"));
    write(&outside.join("store/index.js"), &format!("{STORE_MARK}\n"));
    write(&ws.join("ok.txt"), "hello\n");
    link(&ws.join(".env"), &ws.join("notes.txt"));
    link(&outside.join("secret.txt"), &ws.join("data.txt"));
    link(&denied.join("id_rsa"), &ws.join("node_modules/pkg/key.js"));
    link(&ws.join(".env"), &ws.join("node_modules/pkg/env.js"));
    link(
        &outside.join("store/index.js"),
        &ws.join("node_modules/pkg/index.js"),
    );
    let config = format!(
        "[scope]\nhard_links = \"{hard_links}\"\n[sandbox]\ndeny_read = [\"{}\"]\n",
        denied.display()
    );
    Env::start(dir, &config, None, "hl-test")
}

/// Every read tool that returns file content, on `p`.
fn reads(p: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("read_file", json!({ "path": p })),
        ("cat", json!({ "path": p })),
        ("head", json!({ "path": p })),
        ("tail", json!({ "path": p })),
        ("wc", json!({ "path": p })),
        ("grep", json!({ "pattern": "MARK", "path": p })),
        ("diff", json!({ "path_a": p, "path_b": "ok.txt" })),
        ("diff", json!({ "path_a": "ok.txt", "path_b": p })),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hard_links_to_secrets_are_refused_by_every_read_tool() {
    let e = env("packages");
    let cases = [
        ("notes.txt", ENV_MARK),
        ("data.txt", OUT_MARK),
        ("node_modules/pkg/key.js", DENY_MARK),
        ("node_modules/pkg/env.js", ENV_MARK),
    ];
    for (path, mark) in cases {
        // CONTROL: the link really is the secret.
        let raw = std::fs::read_to_string(e.ws.join(path)).unwrap();
        assert!(raw.contains(mark), "control: {path} holds {mark}");
        for (tool, args) in reads(path) {
            let out = e.call(tool, args.clone()).await;
            let t = text(&out);
            assert!(!t.contains(mark), "{tool} {args} leaked {mark}: {t}");
            assert!(out.is_error, "{tool} {args} should be refused: {t}");
            assert!(t.contains("hard link"), "{tool} {args} says why: {t}");
        }
    }
    // A walk over everything shows none of them.
    let out = e
        .call("grep", json!({ "pattern": "MARK", "path": "." }))
        .await;
    let t = text(&out);
    for mark in [ENV_MARK, OUT_MARK, DENY_MARK] {
        assert!(!t.contains(mark), "grep . leaked {mark}: {t}");
    }
    // pnpm's store links stay readable (and the walk does search).
    assert!(
        t.contains(STORE_MARK),
        "grep . should find the store file: {t}"
    );
    let out = e
        .call("cat", json!({ "path": "node_modules/pkg/index.js" }))
        .await;
    assert!(text(&out).contains(STORE_MARK), "{}", text(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_setting_decides_for_other_multiply_linked_files() {
    // CONTROL: with "allow", the outside secret is read (the check is
    // what refused it above) — but excluded and deny_read inodes never.
    let e = env("allow");
    let out = e.call("cat", json!({ "path": "data.txt" })).await;
    assert!(text(&out).contains(OUT_MARK), "{}", text(&out));
    for (path, mark) in [
        ("notes.txt", ENV_MARK),
        ("node_modules/pkg/key.js", DENY_MARK),
    ] {
        let out = e.call("cat", json!({ "path": path })).await;
        assert!(
            out.is_error && !text(&out).contains(mark),
            "{path}: {}",
            text(&out)
        );
    }
    // "refuse" refuses even the store links.
    let e = env("refuse");
    let out = e
        .call("cat", json!({ "path": "node_modules/pkg/index.js" }))
        .await;
    assert!(
        out.is_error && !text(&out).contains(STORE_MARK),
        "{}",
        text(&out)
    );
}
