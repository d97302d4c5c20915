//! What the shell cannot see, the tools do not serve, and path rules hold
//! for every entry a walk would show, through the real pipeline:
//!
//! * a `sandbox.deny_read` path inside an extra root (the home directory)
//!   is refused by every read tool and hidden from every walk;
//! * airlock's data directory inside the workspace is neither read nor
//!   written (an earlier session's trail was truncated in `trust-edits`);
//! * a `read_file(PATH)` deny or ask rule holds for every read tool, and
//!   `grep`, `find` and `ls` keep back the entries path rules cover.
//!
//! CONTROLS: the same calls without the `deny_read` entry, on a scope
//! without the data directory, and without the rules, serve the secret.

mod scope_support;

use std::path::Path;

use airlock::policy::{Action, Mode};
use scope_support::{Env, text, write};
use serde_json::{Value, json};

const GCLOUD_MARK: &str = "MARK-GCLOUD-3a7e";

/// A workspace with `home` (holding gcloud's credentials) as an extra
/// root, with or without it in `deny_read`.
fn home_env(deny: bool) -> (Env, String) {
    let dir = tempfile::tempdir().unwrap();
    let home = std::fs::canonicalize(dir.path()).unwrap().join("home");
    let creds = home.join(".config/gcloud/application_default_credentials.json");
    write(
        &creds,
        &format!("{{\"refresh_token\": \"{GCLOUD_MARK}\"}}\n"),
    );
    write(&home.join("notes.txt"), "hello\n");
    let deny_read = if deny {
        format!("\"{}\"", home.join(".config/gcloud").display())
    } else {
        String::new()
    };
    let config = format!(
        "[scope]\nextra_roots = [\"{}\"]\n[sandbox]\ndeny_read = [{deny_read}]\n",
        home.display()
    );
    let env = Env::start(dir, &config, None, "denied-test");
    (env, creds.display().to_string())
}

/// Every read tool on `p`, and the walks over `home` that could reach it.
fn reads(p: &str, home: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("read_file", json!({ "path": p })),
        ("cat", json!({ "path": p })),
        ("head", json!({ "path": p })),
        ("tail", json!({ "path": p })),
        ("wc", json!({ "path": p })),
        ("stat", json!({ "path": p })),
        ("ls", json!({ "path": p })),
        ("find", json!({ "path": p, "max_depth": 0 })),
        ("grep", json!({ "pattern": "MARK", "path": p })),
        (
            "diff",
            json!({ "path_a": p, "path_b": format!("{home}/notes.txt") }),
        ),
        ("grep", json!({ "pattern": "MARK", "path": home })),
        ("find", json!({ "path": home, "pattern": "*.json" })),
        (
            "ls",
            json!({ "path": home, "show_hidden": true, "depth": 3 }),
        ),
    ]
}

#[tokio::test]
async fn deny_read_paths_in_an_extra_root_are_not_served() {
    let (env, creds) = home_env(true);
    let home = Path::new(&creds)
        .ancestors()
        .nth(3)
        .unwrap()
        .display()
        .to_string();
    for (tool, args) in reads(&creds, &home) {
        let out = env.call(tool, args.clone()).await;
        let all = text(&out);
        assert!(!all.contains(GCLOUD_MARK), "{tool} {args}: {all}");
        if args.to_string().contains("application_default_credentials") {
            assert!(out.is_error, "{tool} {args}: {all}");
            assert!(all.contains("(sandbox.deny_read)"), "{tool} {args}: {all}");
        } else {
            // A walk: not even the name.
            assert!(!all.contains("application_default"), "{tool} {args}: {all}");
        }
    }
    let out = env.call("read_file", json!({ "path": creds })).await;
    assert!(out.is_error);
    assert!(out.text.contains("(sandbox.deny_read)"), "{}", out.text);

    // CONTROL: without the deny_read entry, the same calls serve it.
    let (env, creds) = home_env(false);
    let out = text(&env.call("read_file", json!({ "path": creds })).await);
    assert!(out.contains(GCLOUD_MARK), "{out}");
    let out = text(
        &env.call(
            "find",
            json!({ "path": home_of(&creds), "pattern": "*.json" }),
        )
        .await,
    );
    assert!(out.contains("application_default_credentials"), "{out}");
}

fn home_of(creds: &str) -> String {
    Path::new(creds)
        .ancestors()
        .nth(3)
        .unwrap()
        .display()
        .to_string()
}

#[tokio::test]
async fn the_data_directory_inside_the_workspace_is_neither_read_nor_written() {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap().join("ws");
    let data = ws.join(".airlock-data");
    write(&ws.join("ok.txt"), "hello\n");
    let env = Env::start_with_data(dir, "", Some(Mode::TrustEdits), "data-test", &data);
    // A call whose excerpt lands in the trail.
    env.call("read_file", json!({"path": "ok.txt"})).await;
    let trail = env.session.audit_path.clone();
    let rel = trail.strip_prefix(&env.ws).unwrap().display().to_string();
    let before = env.trail();
    for (tool, args) in [
        ("read_file", json!({ "path": rel })),
        ("cat", json!({ "path": rel })),
        ("grep", json!({ "pattern": "session_start", "path": rel })),
        ("ls", json!({ "path": ".airlock-data", "depth": 3 })),
        ("write_file", json!({ "path": rel, "content": "{}\n" })),
        (
            "write_file",
            json!({ "path": ".airlock-data/audit/x.jsonl", "content": "x\n" }),
        ),
        (
            "edit_file",
            json!({ "path": rel, "old_text": "session_start", "new_text": "x" }),
        ),
    ] {
        let out = env.call(tool, args.clone()).await;
        assert!(out.is_error, "{tool} {args}: {}", out.text);
        assert!(
            out.text.contains("(airlock's data directory)"),
            "{tool} {args}: {}",
            out.text
        );
    }
    for (tool, args) in [
        ("grep", json!({ "pattern": "session_start" })),
        ("find", json!({ "pattern": "*.jsonl" })),
        ("ls", json!({ "show_hidden": true, "depth": 3 })),
    ] {
        let out = text(&env.call(tool, args.clone()).await);
        assert!(!out.contains(".jsonl:"), "{tool} {args}: {out}");
        assert!(!out.contains(".jsonl ("), "{tool} {args}: {out}");
        assert!(!out.contains("audit/"), "{tool} {args}: {out}");
    }
    let after = env.trail();
    assert!(after.starts_with(&before), "the trail was rewritten");
    assert!(!Path::new(&env.ws.join(".airlock-data/audit/x.jsonl")).exists());

    // CONTROL: a scope without the data directory serves the trail to the
    // same tools and lets the write tools at it.
    let plain = airlock::scope::Scope::new(&env.ws, &[], &[]).unwrap();
    let (mut file, _, _) = plain.open_file(&rel).unwrap();
    let mut s = String::new();
    std::io::Read::read_to_string(&mut file, &mut s).unwrap();
    assert!(s.contains("session_start"));
    assert!(airlock::tools::write::resolve(&plain, &rel).is_ok());
}

/// A workspace with a secret under `config/secrets`, a note under
/// `notes/private`, and a public file naming the same word.
fn rules_env(config: &str) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    write(&ws.join("config/secrets/db.txt"), "DBPASS=hunter2\n");
    write(&ws.join("notes/private/note.txt"), "DBPASS private note\n");
    write(
        &ws.join("src/app.txt"),
        "reads DBPASS from the environment\n",
    );
    Env::start(dir, config, None, "rules-test")
}

/// The calls (walks and one-file tools) that let something out of the
/// two files.
async fn leaks(env: &Env) -> Vec<String> {
    let mut leaked = Vec::new();
    for (tool, args) in [
        ("grep", json!({"pattern": "DBPASS"})),
        ("find", json!({"pattern": "*.txt"})),
        ("ls", json!({"depth": 3})),
        ("cat", json!({"path": "config/secrets/db.txt"})),
        ("head", json!({"path": "config/secrets/db.txt"})),
        ("tail", json!({"path": "config/secrets/db.txt"})),
        ("wc", json!({"path": "config/secrets/db.txt"})),
        (
            "diff",
            json!({"path_a": "config/secrets/db.txt", "path_b": "src/app.txt"}),
        ),
        ("cat", json!({"path": "notes/private/note.txt"})),
        ("grep", json!({"pattern": "note", "path": "notes"})),
    ] {
        let out = text(&env.call(tool, args.clone()).await);
        let secrets = ["hunter2", "db.txt (", "db.txt:", "private note", "note.txt"];
        if secrets.iter().any(|s| out.contains(s)) {
            leaked.push(format!("{tool} {args}: {out}"));
        }
    }
    leaked
}

#[tokio::test]
async fn path_rules_hold_for_every_read_tool_and_every_walked_entry() {
    for config in [
        "deny = [\"read_file(**/secrets/**)\"]\nask = [\"read_file(**/private/**)\"]\n",
        "deny = [\"*(**/secrets/**)\"]\nask = [\"*(**/private/**)\"]\n",
    ] {
        let env = rules_env(config);
        assert_eq!(leaks(&env).await, Vec::<String>::new(), "{config}");
        let out = env.call("grep", json!({"pattern": "DBPASS"})).await;
        assert!(out.text.contains("src/app.txt:1:"), "{}", out.text);
        assert!(out.text.contains("hidden by deny rules"), "{}", out.text);
        assert!(out.text.contains("ask rules"), "{}", out.text);
        let out = env
            .call("cat", json!({"path": "config/secrets/db.txt"}))
            .await;
        assert!(out.text.contains("secrets/**)"), "{}", out.text);
    }
    // CONTROL: without the rules every one of them is served.
    let env = rules_env("");
    assert_eq!(leaks(&env).await.len(), 10, "{:#?}", leaks(&env).await);
}

#[tokio::test]
async fn a_rule_saved_during_the_session_holds_for_walks_at_once() {
    let env = rules_env("");
    let out = env.call("grep", json!({"pattern": "DBPASS"})).await;
    assert!(out.text.contains("hunter2"), "control: {}", out.text);
    env.session
        .supervisor
        .save_rule(Action::Deny, "grep(**/secrets/**)")
        .unwrap();
    let out = env.call("grep", json!({"pattern": "DBPASS"})).await;
    assert!(!out.text.contains("hunter2"), "{}", out.text);
    assert!(out.text.contains("src/app.txt:1:"), "{}", out.text);
}
