//! An agent's own writes (Claude `Write`/`Edit`, Codex `apply_patch`,
//! Gemini `write_file`) are refused outright on what the sandbox protects,
//! exactly as airlock's `write_file`: in `trust-edits`, where writes are
//! never asked, the agents' project settings are still refused, and so is
//! the directory `core.hooksPath` names. The supervisor checks the paths
//! with the session's own protection (its `sandbox.protect`). Control: with
//! `protect = []` the same native write of `.claude/settings.json` is
//! allowed.

mod hooks_support;

use hooks_support::{CLAUDE, CODEX, Env, GEMINI, decision, reason};
use serde_json::json;

const TRUST: &str = "mode = \"trust-edits\"\n";

fn settings_write(env: &Env, rel: &str) -> serde_json::Value {
    let mut e = env.fixture(CLAUDE, "PreToolUse-Write");
    e["tool_input"]["file_path"] = json!(env.ws.join(rel));
    e["tool_input"]["content"] = json!("{\"hooks\":{}}\n");
    e
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn native_writes_of_protected_paths_are_refused_in_trust_edits() {
    let mut env = Env::new(Some(TRUST));
    std::fs::create_dir_all(env.ws.join(".claude")).unwrap();
    std::fs::write(env.ws.join(".claude/settings.local.json"), "{}\n").unwrap();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(&env.ws)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .expect("git")
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["config", "core.hooksPath", ".husky"]);
    env.start(&[]);
    for rel in [
        ".claude/settings.json",
        ".mcp.json",
        ".husky/pre-commit",
        "sub/.claude/x.json",
    ] {
        let (v, _) = env.send("claude", &settings_write(&env, rel)).await;
        assert_eq!(decision(&v), "deny", "{rel}: {v}");
        assert!(reason(&v).contains("protected"), "{rel}: {v}");
        assert!(!env.ws.join(rel).exists());
    }
    let mut e = env.fixture(CLAUDE, "PreToolUse-Edit");
    e["tool_input"]["file_path"] = json!(env.ws.join(".claude/settings.local.json"));
    e["tool_input"]["old_string"] = json!("{}");
    e["tool_input"]["new_string"] = json!("{\"hooks\":{}}");
    let (v, _) = env.send("claude", &e).await;
    assert_eq!(decision(&v), "deny", "{v}");
    let mut e = env.fixture(CODEX, "PreToolUse-apply_patch-add");
    e["tool_input"]["command"] =
        json!("*** Begin Patch\n*** Add File: .codex/config.toml\n+x = 1\n*** End Patch\n");
    let (v, _) = env.send("codex", &e).await;
    assert_eq!(decision(&v), "deny", "{v}");
    assert!(reason(&v).contains("protected"), "{v}");
    let mut e = env.fixture(GEMINI, "BeforeTool-write_file");
    e["tool_input"]["file_path"] = json!(env.ws.join(".gemini/settings.json"));
    let (v, _) = env.send("gemini", &e).await;
    assert_eq!(v["decision"], "deny", "{v}");
    assert_eq!(env.asked(), 0, "refused outright, never asked");
    // An ordinary native write in trust-edits is allowed without asking.
    let (v, _) = env
        .send("claude", &settings_write(&env, "notes.json"))
        .await;
    assert_eq!(decision(&v), "allow", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_with_protect_empty_the_native_write_is_allowed() {
    let mut env = Env::new(Some(&format!("{TRUST}[sandbox]\nprotect = []\n")));
    env.start(&[]);
    let (v, _) = env
        .send("claude", &settings_write(&env, ".claude/settings.json"))
        .await;
    assert_eq!(decision(&v), "allow", "{v}");
}
