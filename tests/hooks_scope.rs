//! The scope holds for native calls exactly as for airlock's own tools:
//! the same refusals with the same messages, each with a control showing
//! the same call goes through when the protection is off.

mod hooks_support;

use hooks_support::{CLAUDE, CODEX, Env, GEMINI, Say, decision, of_type, reason};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// What airlock's own `read_file` says about `path` in `env`'s workspace.
async fn read_tool_says(env: &Env, path: &str) -> String {
    let sup = env.session.as_ref().unwrap().supervisor.clone();
    let agent = sup.agent_connected(Some("probe"), None);
    let mut args = serde_json::Map::new();
    args.insert("path".into(), json!(path));
    let out = sup
        .call(
            &agent,
            "read_file",
            Some(args),
            CancellationToken::default(),
            None,
        )
        .await
        .unwrap();
    assert!(out.is_error, "{}", out.text);
    out.text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_native_read_of_an_excluded_file_is_refused_like_airlocks_read() {
    let mut env = Env::new(None);
    env.start(&[]);
    let (v, _) = env
        .send("claude", &env.fixture(CLAUDE, "PreToolUse-Read-env"))
        .await;
    assert_eq!(decision(&v), "deny", "{v}");
    let path = env.fixture(CLAUDE, "PreToolUse-Read-env")["tool_input"]["file_path"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(reason(&v), read_tool_says(&env, &path).await);
    assert!(reason(&v).contains("excluded by pattern \".env\""), "{v}");
    let refused = of_type(&env.audit(), "call_decided")
        .into_iter()
        .find(|d| d["by"] == "scope")
        .cloned();
    assert!(refused.is_some(), "audited as refused by the scope");
    assert_eq!(env.asked(), 0, "refused outright, never prompted");
    // Control: without the exclusion the same read runs.
    let mut open = Env::new(Some("[scope]\nexcluded = []\n"));
    open.start(&[]);
    let (v, _) = open
        .send("claude", &open.fixture(CLAUDE, "PreToolUse-Read-env"))
        .await;
    assert_eq!(decision(&v), "allow", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlink_to_an_excluded_file_is_refused_too() {
    let mut env = Env::new(None);
    std::os::unix::fs::symlink(env.ws.join(".env"), env.ws.join("innocent.txt")).unwrap();
    std::os::unix::fs::symlink(env.ws.join("notes.txt"), env.ws.join("plain.txt")).unwrap();
    env.start(&[]);
    let mut e = env.fixture(CLAUDE, "PreToolUse-Read");
    e["tool_input"]["file_path"] = json!(env.ws.join("innocent.txt"));
    let (v, _) = env.send("claude", &e).await;
    assert_eq!(decision(&v), "deny", "{v}");
    // Control: a symlink to an ordinary file is read.
    e["tool_input"]["file_path"] = json!(env.ws.join("plain.txt"));
    let (v, _) = env.send("claude", &e).await;
    assert_eq!(decision(&v), "allow", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_native_read_outside_the_workspace_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    let file = std::fs::canonicalize(outside.path())
        .unwrap()
        .join("secret.txt");
    std::fs::write(&file, "x\n").unwrap();
    let mut env = Env::new(None);
    env.start(&[]);
    for (agent, fixture) in [
        ("claude", (CLAUDE, "PreToolUse-Read")),
        ("gemini", (GEMINI, "BeforeTool-read_file")),
    ] {
        let mut e = env.fixture(fixture.0, fixture.1);
        e["tool_input"]["file_path"] = json!(file);
        let (v, _) = env.send(agent, &e).await;
        let text = v.to_string();
        assert!(text.contains("outside the allowed roots"), "{agent}: {v}");
        let why = read_tool_says(&env, file.to_str().unwrap()).await;
        assert!(
            text.contains(&why.replace('"', "\\\"")),
            "{agent}: {v} vs {why}"
        );
    }
    // Control: with the directory as an extra root, the read runs.
    let cfg = format!("[scope]\nextra_roots = [{:?}]\n", file.parent().unwrap());
    let mut wide = Env::new(Some(&cfg));
    wide.start(&[]);
    let mut e = wide.fixture(CLAUDE, "PreToolUse-Read");
    e["tool_input"]["file_path"] = json!(file);
    let (v, _) = wide.send("claude", &e).await;
    assert_eq!(decision(&v), "allow", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_patch_or_write_outside_the_workspace_is_refused_before_anyone_is_asked() {
    let mut env = Env::new(None);
    env.start(&[Say::Yes, Say::Yes]);
    let escape = "*** Begin Patch\n*** Add File: ../escaped.txt\n+x\n*** End Patch\n";
    let mut e = env.fixture(CODEX, "PreToolUse-apply_patch-add");
    e["tool_input"]["command"] = json!(escape);
    let (v, _) = env.send("codex", &e).await;
    assert_eq!(decision(&v), "deny", "{v}");
    assert!(reason(&v).contains("outside the allowed roots"), "{v}");
    let mut w = env.fixture(CLAUDE, "PreToolUse-Write");
    w["tool_input"]["file_path"] = json!(env.root.join("escaped.txt"));
    let (v, _) = env.send("claude", &w).await;
    assert_eq!(decision(&v), "deny", "{v}");
    assert_eq!(env.asked(), 0);
    // Control: the same patch inside the workspace is asked and approved.
    e["tool_input"]["command"] = json!(escape.replace("../", ""));
    let (v, _) = env.send("codex", &e).await;
    assert_eq!(v, serde_json::Value::Null);
    assert_eq!(env.asked(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_patch_is_refused_with_where_it_is_wrong() {
    let mut env = Env::new(None);
    env.start(&[]);
    let mut e = env.fixture(CODEX, "PreToolUse-apply_patch-update");
    e["tool_input"]["command"] =
        json!("*** Begin Patch\n*** Update File: todo.txt\n@@\n*garbage\n*** End Patch\n");
    let (v, _) = env.send("codex", &e).await;
    assert_eq!(decision(&v), "deny");
    assert!(reason(&v).contains("malformed patch, line 4"), "{v}");
    // A patch that does not match the file cannot be shown: refused.
    e["tool_input"]["command"] = json!(
        "*** Begin Patch\n*** Update File: todo.txt\n@@\n-not in the file\n+x\n*** End Patch\n"
    );
    let (v, _) = env.send("codex", &e).await;
    assert!(reason(&v).contains("does not apply to todo.txt"), "{v}");
    assert_eq!(env.asked(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_native_edit_of_a_hard_link_to_a_secret_reads_nothing_of_it() {
    // The file an agent's Edit would change is another name of a file
    // outside the workspace: its diff and old_string matching must not
    // read it (a "not found" is an oracle on its content).
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "OUT-SECRET-HL-9z\n").unwrap();
    let event = |env: &Env| {
        std::fs::remove_file(env.ws.join("todo.txt")).unwrap();
        std::fs::hard_link(&secret, env.ws.join("todo.txt")).unwrap();
        let mut e = env.fixture(CLAUDE, "PreToolUse-Edit");
        e["tool_input"]["old_string"] = json!("absent-text");
        e
    };
    let mut env = Env::new(None);
    env.start(&[]);
    let (v, _) = env.send("claude", &event(&env)).await;
    assert_eq!(decision(&v), "deny", "{v}");
    assert!(reason(&v).contains("hard link"), "{v}");
    assert!(!reason(&v).contains("not found"), "{v}");
    assert_eq!(env.asked(), 0, "refused outright, never prompted");
    // Control: with hard_links = "allow" the same Edit reads the file (and
    // says whether old_string is in it).
    let mut open = Env::new(Some("[scope]\nhard_links = \"allow\"\n"));
    open.start(&[]);
    let (v, _) = open.send("claude", &event(&open)).await;
    assert!(reason(&v).contains("was not found in the file"), "{v}");
}
