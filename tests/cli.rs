//! The binary's start-up errors: clear messages, non-zero exits, no panics.

use std::process::Command;

fn airlock() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_airlock"));
    c.env("AIRLOCK_NO_USER_CONFIG", "1");
    c
}

#[test]
fn unknown_tool_in_enabled_list_is_a_startup_error() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    std::fs::write(
        &cfg,
        "[tools]\nenabled = [\"read_file\", \"rm_everything\"]\n",
    )
    .unwrap();
    let out = airlock()
        .args(["serve", "--stdio", "--workspace"])
        .arg(dir.path())
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .arg("--config")
        .arg(&cfg)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown tool \"rm_everything\""), "{err}");
    assert!(err.contains("read_file"), "names the known tools: {err}");
    assert!(out.stdout.is_empty(), "nothing on stdout (the MCP channel)");
}

#[test]
fn config_error_names_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".airlock.toml"),
        "[limits]\ntimeout_secs = 5\nmax_entrys = 3\n",
    )
    .unwrap();
    let out = airlock()
        .args(["serve", "--stdio", "--workspace"])
        .arg(dir.path())
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(".airlock.toml:3"), "{err}");
    assert!(err.contains("max_entrys"), "{err}");
}

#[test]
fn missing_workspace_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = airlock()
        .args(["serve", "--stdio", "--workspace"])
        .arg(dir.path().join("nope"))
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("workspace") && err.contains("nope"), "{err}");
}

#[test]
fn empty_enabled_list_disables_all_tools_but_starts() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    std::fs::write(&cfg, "[tools]\nenabled = []\n").unwrap();
    // stdin closed at once: the server starts, sees EOF, exits cleanly.
    let out = airlock()
        .args(["serve", "--stdio", "--workspace"])
        .arg(dir.path())
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .arg("--config")
        .arg(&cfg)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let trail = std::fs::read_dir(dir.path().join("data/audit"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .expect("a trail");
    let first = std::fs::read_to_string(trail).unwrap();
    assert!(first.contains("\"tools\":[]"), "{first}");
}

/// `airlock SUB --help`, as text.
fn help_of(sub: &str) -> String {
    let out = airlock().args([sub, "--help"]).output().unwrap();
    assert!(out.status.success(), "{sub} --help");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn subcommand_help_lists_only_options_that_apply() {
    let session_only = [
        "--workspace",
        "--mode",
        "--sandbox",
        "--allow-network",
        "--config",
    ];
    for sub in ["log", "sessions", "review", "connect"] {
        let help = help_of(sub);
        for opt in session_only {
            assert!(!help.contains(opt), "`{sub} --help` lists {opt}:\n{help}");
        }
        assert!(
            help.contains("--data-dir"),
            "`{sub} --help` keeps --data-dir"
        );
    }
    // Control: the commands that run a session do list them.
    let serve = help_of("serve");
    for opt in session_only {
        assert!(serve.contains(opt), "`serve --help` lists {opt}:\n{serve}");
    }
    assert!(help_of("init").contains("--workspace"));
    // The demo's workspace is its own sample project.
    let demo = help_of("demo");
    assert!(!demo.contains("--workspace"), "{demo}");
    assert!(
        demo.contains("--mode") && demo.contains("--sandbox"),
        "{demo}"
    );
}

#[test]
fn session_options_work_before_and_after_the_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir");
    for args in [
        vec!["--workspace", missing.to_str().unwrap(), "serve", "--stdio"],
        vec!["serve", "--stdio", "--workspace", missing.to_str().unwrap()],
    ] {
        let out = airlock()
            .args(&args)
            .arg("--data-dir")
            .arg(dir.path().join("data"))
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("no-such-dir"),
            "{args:?} names the workspace: {err}"
        );
    }
    // An option that does not apply is refused, not silently ignored.
    let out = airlock()
        .args(["log", "--mode", "read-only"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}
