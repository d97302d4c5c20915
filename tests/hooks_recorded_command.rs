//! A native shell call's whole command reaches `airlock log`: Codex's
//! `exec_command` (its command in `cmd`) and an argv `shell` call go through
//! the real `airlock hook` binary and a real supervisor into the trail, and
//! the log shows each command whole, not the call's summary (cut at 512
//! bytes).

mod hooks_support;

use hooks_support::{CODEX, Env, Say, decision};
use serde_json::json;

fn log(env: &Env) -> String {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_airlock"))
        .env("AIRLOCK_NO_USER_CONFIG", "1")
        .env("TZ", "UTC")
        .arg("--data-dir")
        .arg(&env.data)
        .arg("log")
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    String::from_utf8(o.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_commands_in_cmd_or_an_argv_are_logged_whole() {
    let mut env = Env::new(None);
    env.start(&[Say::Yes, Say::Yes]);
    let words = |w: &str| vec![w; 80].join(" ");
    let in_cmd = format!("printf '%s\\n' {}", words("exec-word"));
    let in_argv = format!("printf '%s\\n' {}", words("argv-word"));
    assert!(in_cmd.len() > 512 && in_argv.len() > 512);
    for (id, tool, input) in [
        ("call_cmd", "exec_command", json!({ "cmd": in_cmd })),
        (
            "call_argv",
            "shell",
            json!({ "command": ["bash", "-lc", in_argv] }),
        ),
    ] {
        let mut event = env.fixture(CODEX, "PreToolUse-exec_command");
        event["tool_name"] = tool.into();
        event["tool_input"] = input;
        event["tool_use_id"] = id.into();
        let (answer, _) = env.send("codex", &event).await;
        // Approved as proposed: no answer, which Codex reads as allow.
        assert!(
            answer.is_null() || decision(&answer) == "allow",
            "{tool}: {answer}"
        );
    }
    assert_eq!(env.asked(), 2);
    let out = log(&env);
    for whole in [&in_cmd, &in_argv] {
        assert!(out.contains(whole.as_str()), "not whole in the log:\n{out}");
    }
}
