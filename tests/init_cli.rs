//! The real `airlock init` binary with HOME pointed at a tempdir: what it
//! writes, what it prints (the command path and why, the tools it could not
//! turn off), idempotence, `--dry-run`, `--remove`, a refused file.

mod init_support;

use std::path::Path;
use std::process::{Command, Output};

use init_support::{World, json, jsonc, read, toml};

const BIN: &str = env!("CARGO_BIN_EXE_airlock");

fn airlock(w: &World, args: &[&str]) -> Output {
    airlock_in(w, &w.project, args)
}

fn airlock_in(w: &World, cwd: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .env("HOME", &w.home)
        .env("AIRLOCK_DATA_DIR", &w.data)
        .env("AIRLOCK_NO_USER_CONFIG", "1")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("GEMINI_CLI_HOME")
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn exe() -> String {
    std::fs::canonicalize(BIN)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

#[test]
fn init_claude_writes_the_running_binary_and_says_what_it_could_not_turn_off() {
    let w = World::new();
    let cj = w.put("claude/claude.json", "home/.claude.json");
    let before = read(&cj);
    // Without hooks (as before them): Claude's own tools turned off.
    let out = stdout(&airlock(&w, &["init", "claude", "--no-hooks"]));
    assert!(out.contains("Claude Code 2.1.197"), "{out}");
    assert!(
        out.contains(&format!("MCP command: {} connect", exe())),
        "{out}"
    );
    assert!(
        out.contains("absolute path of this airlock binary"),
        "{out}"
    );
    assert!(out.contains("Could NOT turn off"), "{out}");
    assert!(out.contains("Read, Grep, Glob"), "{out}");
    assert_eq!(json(&cj)["mcpServers"]["airlock"]["command"], exe());
    let settings = json(&w.home.join(".claude/settings.json"));
    assert_eq!(settings["permissions"]["allow"][0], "mcp__airlock__*");

    let again = stdout(&airlock(&w, &["init", "claude", "--no-hooks"]));
    assert!(
        again.contains("Nothing to change: claude is already set up for airlock."),
        "{again}"
    );

    let removed = stdout(&airlock(&w, &["init", "claude", "--remove"]));
    assert!(
        removed.contains("- mcpServers.airlock.command"),
        "{removed}"
    );
    assert_eq!(read(&cj), before);
    assert!(!w.home.join(".claude/settings.json").exists());
}

#[test]
fn init_codex_dry_run_prints_the_diff_and_writes_nothing() {
    let w = World::new();
    let cfg = w.put("codex/config.toml", "home/.codex/config.toml");
    let before = read(&cfg);
    let out = stdout(&airlock(&w, &["init", "codex", "--dry-run", "--no-hooks"]));
    assert!(out.contains("would change"), "{out}");
    assert!(out.contains("+[mcp_servers.airlock]"), "{out}");
    assert!(out.contains("Dry run: nothing was written."), "{out}");
    assert_eq!(read(&cfg), before);
    assert!(!w.data.exists());

    stdout(&airlock(&w, &["init", "codex", "--no-hooks"]));
    let t = toml(&cfg);
    assert_eq!(
        t["mcp_servers"]["airlock"]["command"].as_str(),
        Some(exe().as_str())
    );
    assert_eq!(t["features"]["shell_tool"].as_bool(), Some(false));
}

#[test]
fn init_gemini_project_with_trust_folder_from_a_subdirectory_workspace_flag() {
    let w = World::new();
    let elsewhere = w.dir.path();
    let project = w.project.to_str().unwrap();
    let out = stdout(&airlock_in(
        &w,
        elsewhere,
        &[
            "init",
            "gemini",
            "--project",
            "--trust-folder",
            "--workspace",
            project,
        ],
    ));
    assert!(out.contains("is trusted for Gemini"), "{out}");
    let s = jsonc(&w.project.join(".gemini/settings.json"));
    assert_eq!(s["mcpServers"]["airlock"]["trust"], true);
    assert_eq!(s["mcpServers"]["airlock"]["timeout"], 3_600_000);
    let canonical = std::fs::canonicalize(&w.project).unwrap();
    let trusted = json(&w.home.join(".gemini/trustedFolders.json"));
    assert_eq!(trusted[canonical.to_str().unwrap()], "TRUST_FOLDER");
}

#[test]
fn init_refuses_a_broken_file_naming_it_and_exits_non_zero() {
    let w = World::new();
    let path = w.home.join(".gemini/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "{ \"mcpServers\": { \"x\": } }").unwrap();
    let o = airlock(&w, &["init", "gemini"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(path.to_str().unwrap()), "{err}");
    assert!(err.contains("does not parse"), "{err}");
    assert_eq!(read(&path), "{ \"mcpServers\": { \"x\": } }");
}

#[test]
fn init_rejects_an_unknown_agent() {
    let w = World::new();
    let o = airlock(&w, &["init", "cursor"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("claude") && err.contains("codex") && err.contains("gemini"),
        "{err}"
    );
}

#[test]
fn init_gemini_by_default_installs_hooks_with_the_running_binary_and_says_what_to_trust() {
    let w = World::new();
    let s = w.put("gemini/settings.json", "home/.gemini/settings.json");
    let before = read(&s);
    let out = stdout(&airlock(&w, &["init", "gemini"]));
    assert!(
        out.contains(&format!("MCP command: {} connect", exe())),
        "{out}"
    );
    assert!(
        out.contains(&format!("Hook command: {} hook gemini", exe())),
        "{out}"
    );
    assert!(out.contains("BeforeTool, AfterTool"), "{out}");
    assert!(out.contains("trusted folder"), "{out}");
    let v = jsonc(&s);
    let ours = v["hooks"]["BeforeTool"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        ours["hooks"][0]["command"],
        format!("{} hook gemini", exe())
    );
    assert_eq!(ours["hooks"][0]["timeout"], 2_147_483_647_i64);
    assert!(!out.contains("Turned off"), "{out}");

    let again = stdout(&airlock(&w, &["init", "gemini"]));
    assert!(again.contains("Nothing to change"), "{again}");
    stdout(&airlock(&w, &["init", "gemini", "--remove"]));
    assert_eq!(read(&s), before);
}

#[test]
fn init_no_hooks_with_no_mcp_is_an_error() {
    let w = World::new();
    let o = airlock(&w, &["init", "claude", "--no-hooks", "--no-mcp"]);
    assert!(!o.status.success());
}
