//! Through the hook pipeline: a native call is decided, shown and
//! recorded for the path the agent's tool really uses — a relative path
//! against the event's `cwd`, never the workspace — and a recursive read
//! for everything it can reach below where it starts. CONTROLS: with the
//! protection off (no exclusion, no rule) the same call goes through, and
//! the real `grep` reads what the refused search would.

mod hooks_support;

use std::path::Path;

use hooks_support::{CLAUDE, Env, GEMINI, Say, decision, of_type, reason};
use serde_json::{Value, json};

fn claude(tool: &str, input: &Value, cwd: &Path, id: &str) -> Value {
    json!({"session_id": "s1", "transcript_path": "/dev/null", "cwd": cwd,
        "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input,
        "tool_use_id": id, "permission_mode": "default"})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relative_write_is_the_file_in_the_agents_directory() {
    let mut env = Env::new(None);
    std::fs::create_dir(env.ws.join("sub")).unwrap();
    std::fs::write(env.ws.join("sub/todo.txt"), "status: draft\n").unwrap();
    env.start(&[Say::Yes, Say::Yes]);
    let sub = env.ws.join("sub");
    let write = json!({"file_path": "new.txt", "content": "fresh\n"});
    let (v, _) = env
        .send("claude", &claude("Write", &write, &sub, "w1"))
        .await;
    assert_eq!(decision(&v), "allow", "{v}");
    // The workspace's own todo.txt differs: the diff is of sub/todo.txt.
    let edit = json!({"file_path": "todo.txt", "old_string": "status: draft", "new_string": "status: done"});
    let (v, _) = env.send("claude", &claude("Edit", &edit, &sub, "e1")).await;
    assert_eq!(decision(&v), "allow", "{v}");
    // What the human was shown.
    let asked = env.script.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 2);
    let shown: Vec<&str> = asked
        .iter()
        .map(|c| c.proposal.as_ref().unwrap().path.as_str())
        .collect();
    assert_eq!(shown, ["sub/new.txt", "sub/todo.txt"]);
    let diff = asked[1].proposal.as_ref().unwrap().diff.clone().unwrap();
    assert!(diff.contains("-status: draft"), "{diff}");
    // What the trail recorded.
    let audit = env.audit();
    let requested = of_type(&audit, "call_requested");
    assert!(
        requested[0]["call"]["summary"]
            .as_str()
            .unwrap()
            .contains("sub/new.txt"),
        "{}",
        requested[0]
    );
    let decided = of_type(&audit, "call_decided");
    assert_eq!(decided.len(), 2);
    // CONTROL: the same argument against the workspace is another file.
    assert!(env.ws.join("todo.txt").exists() && !env.ws.join("new.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_directory_outside_the_workspace_is_refused_by_the_scope() {
    let mut env = Env::new(None);
    let outside = env.root.join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("notes.txt"), "elsewhere\n").unwrap();
    env.start(&[]);
    for (i, (tool, input)) in [
        ("Write", json!({"file_path": "notes.txt", "content": "x"})),
        ("Read", json!({"file_path": "notes.txt"})),
    ]
    .into_iter()
    .enumerate()
    {
        // The supervisor's socket, named: discovery from a `cwd` outside
        // the workspace would not find it.
        let event = claude(tool, &input, &outside, &format!("o{i}"));
        let (out, err, _) = env
            .hook_with(
                "claude",
                event.to_string().as_bytes(),
                &["--socket", &socket(&env)],
            )
            .await;
        let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out:?} {err}"));
        assert_eq!(decision(&v), "deny", "{tool}: {v}");
        assert!(reason(&v).contains("outside the allowed roots"), "{v}");
    }
    let audit = env.audit();
    assert!(
        of_type(&audit, "call_decided")
            .iter()
            .all(|d| d["by"] == "scope"),
        "{audit:#?}"
    );
    assert_eq!(env.asked(), 0, "refused outright, never re-rooted");
}

/// The supervisor's MCP socket in `env`'s runtime directory.
fn socket(env: &Env) -> String {
    std::fs::read_dir(&env.runtime)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".sock") && !name.ends_with(".hooks.sock")
        })
        .expect("the MCP socket")
        .display()
        .to_string()
}

/// CONTROL: the real grep, as Gemini's fallback runs it, reads `.env`.
fn grep_reads_the_secret(ws: &Path) {
    let out = std::process::Command::new("grep")
        .args(["-r", "SECRET_TOKEN", "."])
        .current_dir(ws)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("do-not-read"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_native_search_is_refused_when_an_excluded_file_lies_below_it() {
    let mut env = Env::new(None);
    env.start(&[]);
    grep_reads_the_secret(&env.ws);
    // The recorded Gemini search: no directory, no include, from the
    // workspace, where `.env` is.
    let event = env.fixture(GEMINI, "BeforeTool-grep_search");
    let (v, _) = env.send("gemini", &event).await;
    assert_eq!(v["decision"], "deny", "{v}");
    let why = v["reason"].as_str().unwrap_or_default();
    assert!(why.contains(".env") && why.contains("grep_search"), "{why}");
    // An include pattern that cannot match it: the search holds.
    let mut narrow = event.clone();
    narrow["tool_input"]["include_pattern"] = json!("*.txt");
    let (v, _) = env.send("gemini", &narrow).await;
    assert_eq!(v["decision"], "allow", "{v}");
    // One that can: refused.
    let mut wide = event.clone();
    wide["tool_input"]["include_pattern"] = json!("*");
    let (v, _) = env.send("gemini", &wide).await;
    assert_eq!(v["decision"], "deny", "{v}");
    assert_eq!(env.asked(), 0);
    // CONTROL: without the exclusion the recorded search runs.
    let mut open = Env::new(Some("[scope]\nexcluded = []\n"));
    open.start(&[]);
    let (v, _) = open
        .send("gemini", &open.fixture(GEMINI, "BeforeTool-grep_search"))
        .await;
    assert_eq!(v["decision"], "allow", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deny_rule_about_a_file_below_a_search_denies_the_search() {
    let mut env = Env::new(Some("deny = [\"read_file(src/**)\"]\n"));
    env.start(&[]);
    let glob = env.fixture(GEMINI, "BeforeTool-glob");
    assert_eq!(glob["tool_input"]["pattern"], "**/*.txt");
    let (v, _) = env.send("gemini", &glob).await;
    assert_eq!(v["decision"], "deny", "src/app.txt matches: {v}");
    assert!(
        v["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("read_file(src/**)"),
        "{v}"
    );
    // CONTROL: a pattern the rule's files cannot match is allowed.
    let mut md = glob.clone();
    md["tool_input"]["pattern"] = json!("*.md");
    let (v, _) = env.send("gemini", &md).await;
    assert_eq!(v["decision"], "allow", "{v}");
    // CONTROL: without the rule the recorded glob is allowed.
    let mut open = Env::new(None);
    open.start(&[]);
    let (v, _) = open
        .send("gemini", &open.fixture(GEMINI, "BeforeTool-glob"))
        .await;
    assert_eq!(v["decision"], "allow", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_grep_below_the_secret_holds_and_one_above_it_does_not() {
    let mut env = Env::new(None);
    env.start(&[]);
    let ws = env.ws.clone();
    let grep = json!({"pattern": "grep-needle"});
    let (v, _) = env
        .send("claude", &claude("Grep", &grep, &ws.join("src"), "g1"))
        .await;
    assert_eq!(decision(&v), "allow", "{v}");
    let (v, _) = env.send("claude", &claude("Grep", &grep, &ws, "g2")).await;
    assert_eq!(decision(&v), "deny", "{v}");
    assert!(reason(&v).contains(".env"), "{v}");
    // The recorded Read still holds as before.
    let (v, _) = env
        .send("claude", &env.fixture(CLAUDE, "PreToolUse-Read"))
        .await;
    assert_eq!(decision(&v), "allow", "{v}");
}
