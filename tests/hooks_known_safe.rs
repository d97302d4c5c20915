//! Known-safe commands on the hook path (red-team F4, repro 2): the agent
//! runs its own `Bash` with no sandbox, so airlock judges the command in
//! the directory the event reports, follows symbolic links, and never
//! auto-approves a walk of directories (excluded files are not hidden
//! from the agent's shell). CONTROLS: each refused command really reads
//! the secret where the agent runs it, and a plain read is still allowed.

mod hooks_support;

use std::path::Path;

use hooks_support::{Env, decision};
use serde_json::json;

/// A Claude Code `PreToolUse` of `Bash` running `command` in `cwd`.
fn bash_event(command: &str, cwd: &Path, id: &str) -> serde_json::Value {
    json!({
        "session_id": "s1", "transcript_path": "/dev/null", "cwd": cwd,
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command}, "tool_use_id": id,
        "permission_mode": "default"
    })
}

/// CONTROL: the agent's shell in `cwd` prints `secret` for `command`.
fn leaks(cwd: &Path, command: &str, secret: &str) {
    let out = std::process::Command::new("bash")
        .args(["--norc", "--noprofile", "-c", command])
        .current_dir(cwd)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(secret),
        "control: {command:?} prints {secret:?}: {text:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agents_own_commands_are_known_safe_only_where_they_stay_in_scope() {
    let mut env = Env::new(Some("[bash]\nauto_approve_read_only = true\n"));
    let outside = env.root.join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "OUTSIDE-SECRET\n").unwrap();
    std::fs::create_dir(env.ws.join("sub")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), env.ws.join("sub/link")).unwrap();
    // Inside the workspace by name, outside in fact: where `cd linkdir`
    // leaves the agent's shell.
    std::os::unix::fs::symlink(&outside, env.ws.join("linkdir")).unwrap();
    env.start(&[]);
    let ws = env.ws.clone();
    let linkdir = ws.join("linkdir");
    let (v, _) = env
        .send("claude", &bash_event("cat notes.txt", &ws, "t0"))
        .await;
    assert_eq!(decision(&v), "allow", "{v}");
    assert_eq!(env.asked(), 0);
    let cases = [
        ("grep -r SECRET .", &ws, "SECRET_TOKEN"),
        ("grep -r SECRET", &ws, "SECRET_TOKEN"),
        ("cat sub/link", &ws, "OUTSIDE-SECRET"),
        ("cat < sub/link", &ws, "OUTSIDE-SECRET"),
        ("cat secret.txt", &linkdir, "OUTSIDE-SECRET"),
        ("cat secret.txt", &outside, "OUTSIDE-SECRET"),
    ];
    // The supervisor's socket, named: discovery from a `cwd` outside the
    // workspace would not find it.
    let socket = std::fs::read_dir(&env.runtime)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".sock") && !name.ends_with(".hooks.sock")
        })
        .expect("the MCP socket");
    let socket = socket.to_str().unwrap();
    for (i, (command, cwd, secret)) in cases.into_iter().enumerate() {
        leaks(cwd, command, secret);
        let asked = env.asked();
        let event = bash_event(command, cwd, &format!("t{}", i + 1));
        let (out, err, _) = env
            .hook_with(
                "claude",
                event.to_string().as_bytes(),
                &["--socket", socket],
            )
            .await;
        let v: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out:?} {err}"));
        assert_ne!(decision(&v), "allow", "{command} in {cwd:?}: {v}");
        assert_eq!(env.asked(), asked + 1, "{command} in {cwd:?} is asked");
    }
}

/// `printenv` and its class print the environment the agent runs them
/// with — its own, with its keys — so on the hook path they are asked,
/// never known-safe. CONTROL: the agent's shell prints the secret, and a
/// plain read is still allowed (airlock's own shell keeps them known-safe:
/// `supervisor::known_safe_tests`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_that_print_the_agents_environment_are_asked() {
    let mut env = Env::new(Some("[bash]\nauto_approve_read_only = true\n"));
    env.start(&[]);
    let ws = env.ws.clone();
    let (v, _) = env
        .send("claude", &bash_event("cat notes.txt", &ws, "p0"))
        .await;
    assert_eq!(decision(&v), "allow", "{v}");
    for (i, command) in ["printenv", "env", "printenv API_KEY", "printenv | grep KEY"]
        .into_iter()
        .enumerate()
    {
        let out = std::process::Command::new("bash")
            .args(["--norc", "--noprofile", "-c", command])
            .current_dir(&ws)
            .env("API_KEY", "sk-test-not-for-the-model")
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("sk-test-not-for-the-model"),
            "control: {command} prints the agent's key"
        );
        let asked = env.asked();
        let (v, _) = env
            .send("claude", &bash_event(command, &ws, &format!("p{}", i + 1)))
            .await;
        assert_ne!(decision(&v), "allow", "{command}: {v}");
        assert_eq!(env.asked(), asked + 1, "{command} is asked");
    }
}
