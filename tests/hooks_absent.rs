//! Without a supervisor a native call never passes silently; bad input and
//! a supervisor that fails refuse the call (exit 2 for every agent).

mod hooks_support;

use hooks_support::{CLAUDE, CODEX, Env, GEMINI, decision, of_type, reason};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_supervisor_hands_the_call_back_to_the_agent() {
    let env = Env::new(None);
    let (v, code) = env
        .send("claude", &env.fixture(CLAUDE, "PreToolUse-Bash"))
        .await;
    assert_eq!((decision(&v), code), ("ask", 0), "{v}");
    assert!(reason(&v).contains("airlock is not running"), "{v}");
    let (v, code) = env
        .send("codex", &env.fixture(CODEX, "PreToolUse-exec_command"))
        .await;
    assert_eq!(code, 0);
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("airlock is not running"),
        "{v}"
    );
    let (v, _) = env
        .send(
            "gemini",
            &env.fixture(GEMINI, "BeforeTool-run_shell_command"),
        )
        .await;
    assert_eq!(v["decision"], "ask", "{v}");
    // After the call: nothing to say.
    let (v, code) = env
        .send("claude", &env.fixture(CLAUDE, "PostToolUse-Bash"))
        .await;
    assert_eq!((v, code), (Value::Null, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_absent_deny_refuses_and_says_how_to_start_airlock() {
    let env = Env::new(Some("[hooks]\nwhen_absent = \"deny\"\n"));
    for (agent, fixture) in [
        ("claude", (CLAUDE, "PreToolUse-Bash")),
        ("codex", (CODEX, "PreToolUse-exec_command")),
        ("gemini", (GEMINI, "BeforeTool-run_shell_command")),
    ] {
        let (v, code) = env.send(agent, &env.fixture(fixture.0, fixture.1)).await;
        assert_eq!(code, 0);
        let text = v.to_string();
        assert!(text.contains("\"deny\""), "{agent}: {v}");
        assert!(text.contains("airlock --workspace"), "{agent}: {v}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreadable_events_exit_2_and_are_audited() {
    let mut env = Env::new(None);
    env.start(&[]);
    for agent in ["claude", "codex", "gemini"] {
        let (out, err, code) = env.hook(agent, b"{not json").await;
        assert_eq!((out.as_str(), code), ("", 2), "{agent}: {err}");
        assert!(
            err.contains("could not read the hook event"),
            "{agent}: {err}"
        );
    }
    let foreign = json!({"hook_event_name": "BeforeTool", "tool_name": "x", "tool_input": {}});
    let (_, err, code) = env.hook("claude", foreign.to_string().as_bytes()).await;
    assert_eq!(code, 2);
    assert!(err.contains("PreToolUse and PostToolUse"), "{err}");
    let no_tool = json!({"hook_event_name": "PreToolUse", "tool_input": {}});
    let (_, err, code) = env.hook("codex", no_tool.to_string().as_bytes()).await;
    assert_eq!(code, 2, "{err}");
    assert_eq!(of_type(&env.audit(), "protocol_error").len(), 5);
    // Without a supervisor, too.
    let alone = Env::new(None);
    let (_, err, code) = alone.hook("gemini", b"garbage").await;
    assert_eq!(code, 2, "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_supervisor_that_does_not_answer_in_time_refuses() {
    // A stand-in hook socket that accepts and never answers.
    let env = Env::new(None);
    let mcp = env.runtime.join("fake.sock");
    let hooks = airlock::hooks::wire::hook_socket_path(&mcp);
    let listener = std::os::unix::net::UnixListener::bind(&hooks).unwrap();
    let held = std::thread::spawn(move || listener.accept().map(|(s, _)| s));
    let event = env.fixture(CLAUDE, "PreToolUse-Bash").to_string();
    let (out, err, code) = env
        .hook_with(
            "claude",
            event.as_bytes(),
            &["--socket", mcp.to_str().unwrap(), "--timeout", "1"],
        )
        .await;
    assert_eq!((out.as_str(), code), ("", 2), "{err}");
    assert!(err.contains("no decision within 1 s"), "{err}");
    drop(held);
    // One that closes without answering.
    let hooks2 = airlock::hooks::wire::hook_socket_path(&env.runtime.join("closing.sock"));
    let l2 = std::os::unix::net::UnixListener::bind(&hooks2).unwrap();
    std::thread::spawn(move || {
        if let Ok((s, _)) = l2.accept() {
            use std::io::BufRead;
            let mut line = String::new();
            let _ = std::io::BufReader::new(&s).read_line(&mut line);
        }
    });
    let closing = env.runtime.join("closing.sock");
    let (_, err, code) = env
        .hook_with(
            "claude",
            event.as_bytes(),
            &["--socket", closing.to_str().unwrap()],
        )
        .await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("closed without answering"), "{err}");
}

/// A user config directory (`XDG_CONFIG_HOME`) holding `text` as
/// `airlock/config.toml`.
fn user_config(env: &Env, text: &str) -> std::path::PathBuf {
    let xdg = env.root.join("xdg");
    std::fs::create_dir_all(xdg.join("airlock")).unwrap();
    std::fs::write(xdg.join("airlock/config.toml"), text).unwrap();
    xdg
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repositorys_when_absent_cannot_loosen_the_users() {
    // The user says "deny"; a cloned repository's .airlock.toml says "ask".
    let repo = "[hooks]\nwhen_absent = \"ask\"\n";
    for trusted in [false, true] {
        let env = if trusted {
            Env::new(Some(repo))
        } else {
            Env::untrusted(Some(repo))
        };
        let xdg = user_config(&env, "[hooks]\nwhen_absent = \"deny\"\n");
        let event = env.fixture(CLAUDE, "PreToolUse-Bash").to_string();
        let (out, err, code) = env
            .hook_in(
                "claude",
                event.as_bytes(),
                &[],
                &[("XDG_CONFIG_HOME", &xdg)],
            )
            .await;
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        // CONTROL: trusted (`airlock trust`), the repository's word holds.
        let want = if trusted { "ask" } else { "deny" };
        assert_eq!(decision(&v), want, "trusted: {trusted}: {v}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_absent_is_the_project_roots_not_the_shells_directory() {
    // The project's root says "deny"; the agent's shell has moved to a
    // directory below it, which has no .airlock.toml of its own.
    let env = Env::untrusted(Some("[hooks]\nwhen_absent = \"deny\"\n"));
    let sub = env.ws.join("src");
    let mut event = env.fixture(CLAUDE, "PreToolUse-Bash");
    event["cwd"] = json!(sub.to_str().unwrap());
    let event = event.to_string();
    // Claude Code tells its hooks the project directory.
    let (out, err, _) = env
        .hook_in(
            "claude",
            event.as_bytes(),
            &[],
            &[("CLAUDE_PROJECT_DIR", &env.ws)],
        )
        .await;
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    assert_eq!(decision(&v), "deny", "{v}");
    assert!(
        reason(&v).contains(&format!("airlock --workspace {}", env.ws.display())),
        "{v}"
    );
    // Gemini CLI too (its event has the same cwd field).
    let mut g = env.fixture(GEMINI, "BeforeTool-run_shell_command");
    g["cwd"] = json!(sub.to_str().unwrap());
    let (out, _, _) = env
        .hook_in(
            "gemini",
            g.to_string().as_bytes(),
            &[],
            &[("GEMINI_PROJECT_DIR", &env.ws)],
        )
        .await;
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["decision"], "deny", "{v}");
    // CONTROL: with only the shell's directory to go by (what the hook
    // read before), the subdirectory's (absent) file decides: "ask".
    let (out, _, _) = env.hook_in("claude", event.as_bytes(), &[], &[]).await;
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(decision(&v), "ask", "{v}");
}
