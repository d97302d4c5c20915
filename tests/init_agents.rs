//! `airlock init` on copies of real configuration files of each pinned agent
//! version: the result parses and holds airlock's entries, everything else
//! is kept, a second run is a no-op, `--remove` restores the file byte for
//! byte, `--dry-run` writes nothing, a file that does not parse is refused.

mod init_support;

use std::os::unix::fs::PermissionsExt;

use airlock::init::{Action, Agent, FileStatus};
use init_support::{PINNED, World, all_unchanged, json, jsonc, read, toml};

const CMD: &str = "/opt/airlock/bin/airlock";

#[test]
fn init_is_written_for_the_pinned_agent_versions() {
    assert_eq!(
        PINNED[0],
        ("Claude Code", airlock::init::CLAUDE_CODE_VERSION)
    );
    assert_eq!(PINNED[1], ("Codex CLI", airlock::init::CODEX_VERSION));
    assert_eq!(PINNED[2], ("Gemini CLI", airlock::init::GEMINI_VERSION));
    let readme = read(&init_support::fixture_path("README.md"));
    for (name, version) in PINNED {
        assert!(
            readme.contains(&format!("{name} {version}")),
            "{name} {version}"
        );
    }
}

#[test]
fn claude_user_files_get_server_and_rules_and_keep_the_rest() {
    let w = World::new();
    let cj = w.put("claude/claude.json", "home/.claude.json");
    let settings = w.put("claude/settings.json", "home/.claude/settings.json");
    let (cj0, s0) = (read(&cj), read(&settings));

    let report = w.install(Agent::Claude);
    assert!(report.changed_anything());
    let v = json(&cj);
    assert_eq!(
        v["mcpServers"]["airlock"],
        serde_json::json!({"type": "stdio", "command": CMD, "args": ["connect"]})
    );
    let orig: serde_json::Value = serde_json::from_str(&cj0).unwrap();
    assert_eq!(
        v["mcpServers"]["other-server"],
        orig["mcpServers"]["other-server"]
    );
    assert_eq!(v["projects"], orig["projects"]);
    // Same indentation, key order kept: the original text is still there,
    // only the new entry was inserted.
    let other = "    \"other-server\": {\n      \"type\": \"stdio\",\n      \"command\": \"npx\",";
    assert!(read(&cj).contains(other), "{}", read(&cj));

    let s = json(&settings);
    assert_eq!(
        s["permissions"]["allow"],
        serde_json::json!(["Bash(git status)", "Read(~/notes/**)", "mcp__airlock__*"])
    );
    assert_eq!(
        s["permissions"]["deny"],
        serde_json::json!(["Read(./.env)", "Bash", "Edit", "Write", "NotebookEdit"])
    );
    let so: serde_json::Value = serde_json::from_str(&s0).unwrap();
    assert_eq!(s["hooks"], so["hooks"]);
    assert_eq!(s["env"], so["env"]);
    assert_eq!(s["permissions"]["defaultMode"], "default");

    // Backups hold the files as they were.
    assert_eq!(read(&cj.with_file_name(".claude.json.airlock-backup")), cj0);
    assert_eq!(
        read(&settings.with_file_name("settings.json.airlock-backup")),
        s0
    );

    // A second run changes nothing.
    let (cj1, s1) = (read(&cj), read(&settings));
    assert!(all_unchanged(&w.install(Agent::Claude)));
    assert_eq!((read(&cj), read(&settings)), (cj1, s1));

    // Remove restores both files exactly; the user's own "Bash" rule, which
    // was there before init, stays.
    let removed = w.remove(Agent::Claude);
    assert!(removed.changed_anything());
    assert_eq!(read(&cj), cj0);
    assert_eq!(read(&settings), s0);
    assert!(all_unchanged(&w.remove(Agent::Claude)));
}

#[test]
fn claude_project_writes_mcp_json_and_local_settings() {
    let w = World::new();
    let mcp = w.put("claude/mcp.json", "proj/.mcp.json");
    let local = w.put(
        "claude/settings.local.json",
        "proj/.claude/settings.local.json",
    );
    let (m0, l0) = (read(&mcp), read(&local));
    let mut opts = w.options(Agent::Claude, Action::Install);
    opts.project = true;
    airlock::init::run(&opts).unwrap();

    let m = json(&mcp);
    assert_eq!(m["mcpServers"]["airlock"]["command"], CMD);
    assert_eq!(m["mcpServers"]["proj-server"]["command"], "node");
    let l = json(&local);
    assert_eq!(
        l["enabledMcpjsonServers"],
        serde_json::json!(["proj-server", "airlock"])
    );
    assert_eq!(l["permissions"]["allow"][0], "Bash(npm test)");
    assert!(
        l["permissions"]["deny"]
            .as_array()
            .unwrap()
            .contains(&"Bash".into())
    );
    // Nothing in the user's home.
    assert!(!w.home.join(".claude.json").exists());
    assert!(!w.home.join(".claude").exists());

    assert!(all_unchanged(&airlock::init::run(&opts).unwrap()));
    opts.action = Action::Remove;
    airlock::init::run(&opts).unwrap();
    assert_eq!((read(&mcp), read(&local)), (m0, l0));
}

#[test]
fn files_init_created_are_deleted_again_by_remove() {
    let w = World::new();
    let report = w.install(Agent::Claude);
    let created: Vec<_> = report.files.iter().map(|f| f.path.clone()).collect();
    assert!(
        report
            .files
            .iter()
            .all(|f| f.status == FileStatus::Changed { backup: None })
    );
    for p in &created {
        json(p);
        assert_eq!(
            std::fs::metadata(p).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    let removed = w.remove(Agent::Claude);
    assert!(
        removed
            .files
            .iter()
            .all(|f| f.status == FileStatus::Deleted)
    );
    for p in &created {
        assert!(!p.exists(), "{}", p.display());
    }
}

#[test]
fn codex_config_gets_server_and_features_and_keeps_comments() {
    let w = World::new();
    let cfg = w.put("codex/config.toml", "home/.codex/config.toml");
    let before = read(&cfg);
    w.install(Agent::Codex);

    let t = toml(&cfg);
    let server = &t["mcp_servers"]["airlock"];
    assert_eq!(server["command"].as_str(), Some(CMD));
    assert_eq!(server["args"], toml::Value::Array(vec!["connect".into()]));
    assert_eq!(
        server["default_tools_approval_mode"].as_str(),
        Some("approve")
    );
    assert_eq!(server["tool_timeout_sec"].as_integer(), Some(3600));
    let env: Vec<_> = server["env_vars"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    for var in ["XDG_RUNTIME_DIR", "AIRLOCK_SOCKET", "AIRLOCK_RUNTIME_DIR"] {
        assert!(env.contains(&var), "{var}");
    }
    assert_eq!(t["features"]["shell_tool"].as_bool(), Some(false));
    assert_eq!(t["features"]["unified_exec"].as_bool(), Some(false));
    assert_eq!(t["features"]["web_search_request"].as_bool(), Some(false));
    let text = read(&cfg);
    for kept in [
        "# Codex configuration (hand-written parts kept by airlock init).",
        "approval_policy = \"on-request\" # ask before risky commands",
        "# keep web search off",
        "[[hooks.PreToolUse.hooks]]",
        "[mcp_servers.other-server.env]\nFOO = \"bar\"",
    ] {
        assert!(text.contains(kept), "{kept:?} lost:\n{text}");
    }
    assert!(!text.contains("[mcp_servers]\n"), "{text}");

    assert!(all_unchanged(&w.install(Agent::Codex)));
    assert_eq!(read(&cfg), text);
    w.remove(Agent::Codex);
    assert_eq!(read(&cfg), before);
}

#[test]
fn codex_value_the_user_had_is_restored_by_remove() {
    let w = World::new();
    let cfg = w.home.join(".codex/config.toml");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    let before = "[features]\nshell_tool = true # I want my shell\n";
    std::fs::write(&cfg, before).unwrap();
    w.install(Agent::Codex);
    assert_eq!(toml(&cfg)["features"]["shell_tool"].as_bool(), Some(false));
    assert!(read(&cfg).contains("# I want my shell"));
    w.remove(Agent::Codex);
    assert_eq!(read(&cfg), before);
}

#[test]
fn gemini_settings_with_comments_keep_them() {
    let w = World::new();
    let s = w.put("gemini/settings.json", "home/.gemini/settings.json");
    let before = read(&s);
    let report = w.install(Agent::Gemini);
    assert!(report.changed_anything());

    let v = jsonc(&s);
    assert_eq!(
        v["mcpServers"]["airlock"],
        serde_json::json!({
            "command": CMD, "args": ["connect"], "trust": true, "timeout": 3_600_000
        })
    );
    assert_eq!(
        v["tools"]["exclude"],
        serde_json::json!(["web_fetch", "run_shell_command", "replace"])
    );
    let text = read(&s);
    for kept in [
        "// Written by `gemini mcp add`; comments added by hand.",
        "/* the UI */",
        "\"web_fetch\", // no network",
        "\"command\": \"./check.sh\"",
    ] {
        assert!(text.contains(kept), "{kept:?} lost:\n{text}");
    }
    assert!(all_unchanged(&w.install(Agent::Gemini)));
    w.remove(Agent::Gemini);
    assert_eq!(read(&s), before);
}

#[test]
fn gemini_project_and_trust_folder() {
    let w = World::new();
    let s = w.put("gemini/project-settings.json", "proj/.gemini/settings.json");
    let before = read(&s);
    let mut opts = w.options(Agent::Gemini, Action::Install);
    opts.project = true;
    opts.trust_folder = true;
    airlock::init::run(&opts).unwrap();
    assert_eq!(jsonc(&s)["mcpServers"]["airlock"]["trust"], true);
    assert_eq!(jsonc(&s)["mcpServers"]["proj-server"]["command"], "node");
    let trusted = json(&w.home.join(".gemini/trustedFolders.json"));
    assert_eq!(trusted[w.project.to_str().unwrap()], "TRUST_FOLDER");
    assert!(!w.home.join(".gemini/settings.json").exists());

    opts.action = Action::Remove;
    airlock::init::run(&opts).unwrap();
    assert_eq!(read(&s), before);
    assert!(!w.home.join(".gemini/trustedFolders.json").exists());
}

#[test]
fn dry_run_writes_nothing_and_shows_the_diff() {
    let w = World::new();
    let cfg = w.put("codex/config.toml", "home/.codex/config.toml");
    let before = read(&cfg);
    let mut opts = w.options(Agent::Codex, Action::Install);
    opts.dry_run = true;
    let report = airlock::init::run(&opts).unwrap();
    assert_eq!(report.files[0].status, FileStatus::WouldChange);
    assert!(report.files[0].diff.contains("+[mcp_servers.airlock]"));
    let shown = report.to_string();
    assert!(shown.contains("Dry run: nothing was written."), "{shown}");
    assert!(
        shown.contains("+default_tools_approval_mode = \"approve\""),
        "{shown}"
    );
    assert_eq!(read(&cfg), before);
    assert!(!cfg.with_file_name("config.toml.airlock-backup").exists());
    assert!(!w.data.exists(), "no record for a dry run");
}

#[test]
fn a_file_that_does_not_parse_is_refused_with_its_path() {
    for (agent, dest, text) in [
        (Agent::Claude, "home/.claude.json", "{\"mcpServers\": {,}\n"),
        (
            Agent::Codex,
            "home/.codex/config.toml",
            "[mcp_servers\ncommand = 1\n",
        ),
        (
            Agent::Gemini,
            "home/.gemini/settings.json",
            "{ \"a\": [1 2] }",
        ),
    ] {
        let w = World::new();
        let path = w.dir.path().join(dest);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        let err = airlock::init::run(&w.options(agent, Action::Install)).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains(path.to_str().unwrap()), "{msg}");
        assert!(msg.contains("does not parse"), "{msg}");
        assert_eq!(read(&path), text, "left alone");
        // Nothing else was written either.
        assert!(!w.data.exists());
    }
}

#[test]
fn a_value_of_the_wrong_type_is_refused() {
    let w = World::new();
    let s = w.home.join(".claude/settings.json");
    std::fs::create_dir_all(s.parent().unwrap()).unwrap();
    std::fs::write(&s, "{\"permissions\": \"none\"}\n").unwrap();
    let err = airlock::init::run(&w.options(Agent::Claude, Action::Install)).unwrap_err();
    assert!(
        err.to_string().contains("permissions is not an object"),
        "{err}"
    );
    assert!(!w.home.join(".claude.json").exists(), "nothing written");
}

#[test]
fn permissions_and_symlinks_are_kept() {
    let w = World::new();
    let real = w.put("claude/claude.json", "dotfiles/claude.json");
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = w.home.join(".claude.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    w.install(Agent::Claude);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(json(&real)["mcpServers"]["airlock"]["command"], CMD);
    let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
}

#[test]
fn remove_without_a_record_takes_out_only_airlocks_own_entries() {
    let w = World::new();
    let s = w.put("claude/settings.json", "home/.claude/settings.json");
    let cj = w.put("claude/claude.json", "home/.claude.json");
    let before = read(&cj);
    w.install(Agent::Claude);
    // The data directory is gone: no record of what init added.
    std::fs::remove_dir_all(&w.data).unwrap();
    let report = w.remove(Agent::Claude);
    // The server entry and the airlock allow rule are airlock's own...
    assert_eq!(read(&cj), before);
    let v = json(&s);
    assert!(
        !v["permissions"]["allow"]
            .as_array()
            .unwrap()
            .contains(&"mcp__airlock__*".into())
    );
    // ...a deny rule could be the user's: left, and said so.
    assert!(
        v["permissions"]["deny"]
            .as_array()
            .unwrap()
            .contains(&"Edit".into())
    );
    let shown = report.to_string();
    assert!(shown.contains("no record"), "{shown}");
    assert!(shown.contains("permissions.deny += \"Edit\""), "{shown}");
}

#[test]
fn a_second_remove_changes_nothing() {
    let w = World::new();
    let s = w.put("claude/settings.json", "home/.claude/settings.json");
    let before = read(&s);
    w.install(Agent::Claude);
    w.remove(Agent::Claude);
    assert!(all_unchanged(&w.remove(Agent::Claude)));
    assert_eq!(read(&s), before, "the user's own Bash rule stays");
}

#[test]
fn moved_binary_updates_the_command_and_remove_still_works() {
    let w = World::new();
    let s = w.put("gemini/settings.json", "home/.gemini/settings.json");
    let before = read(&s);
    w.install(Agent::Gemini);
    let mut opts = w.options(Agent::Gemini, Action::Install);
    opts.command = "/usr/local/bin/airlock".into();
    let report = airlock::init::run(&opts).unwrap();
    assert!(report.changed_anything());
    assert_eq!(
        jsonc(&s)["mcpServers"]["airlock"]["command"],
        "/usr/local/bin/airlock"
    );
    w.remove(Agent::Gemini);
    assert_eq!(read(&s), before);
}

#[test]
fn tabs_crlf_and_a_missing_final_newline_survive_install_and_remove() {
    let w = World::new();
    let s = w.home.join(".gemini/settings.json");
    std::fs::create_dir_all(s.parent().unwrap()).unwrap();
    let before = "{\r\n\t\"ui\": {\r\n\t\t\"theme\": \"GitHub\"\r\n\t}\r\n}";
    std::fs::write(&s, before).unwrap();
    w.install(Agent::Gemini);
    let text = read(&s);
    assert!(
        text.contains("\r\n\t\"mcpServers\": {\r\n\t\t\"airlock\": {"),
        "{text:?}"
    );
    assert!(
        !text.replace("\r\n", "").contains('\n'),
        "only CRLF: {text:?}"
    );
    assert_eq!(jsonc(&s)["mcpServers"]["airlock"]["args"][0], "connect");
    w.remove(Agent::Gemini);
    assert_eq!(read(&s), before);
}

#[test]
fn a_crlf_codex_config_keeps_its_line_endings() {
    let w = World::new();
    let cfg = w.home.join(".codex/config.toml");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    let before = "# mine\r\nmodel = \"x\"\r\n\r\n[features]\r\nfoo = true\r\n";
    std::fs::write(&cfg, before).unwrap();
    w.install(Agent::Codex);
    let text = read(&cfg);
    assert!(
        !text.replace("\r\n", "").contains('\n'),
        "only CRLF: {text:?}"
    );
    assert_eq!(toml(&cfg)["features"]["shell_tool"].as_bool(), Some(false));
    assert!(all_unchanged(&w.install(Agent::Codex)));
    w.remove(Agent::Codex);
    assert_eq!(read(&cfg), before);
}

#[test]
fn codex_project_file_and_trust_entry() {
    let w = World::new();
    let user = w.put("codex/config.toml", "home/.codex/config.toml");
    let before = read(&user);
    let mut opts = w.options(Agent::Codex, Action::Install);
    opts.project = true;
    opts.trust_folder = true;
    let report = airlock::init::run(&opts).unwrap();
    assert_eq!(report.files.len(), 2);
    let project = w.project.join(".codex/config.toml");
    assert_eq!(
        toml(&project)["mcp_servers"]["airlock"]["command"].as_str(),
        Some(CMD)
    );
    let t = toml(&user);
    let dir = w.project.to_str().unwrap();
    assert_eq!(t["projects"][dir]["trust_level"].as_str(), Some("trusted"));
    assert!(
        t["mcp_servers"].get("airlock").is_none(),
        "server only in the project file"
    );
    assert!(read(&user).contains("[projects.\"/home/dev/proj\"]\ntrust_level = \"trusted\""));

    opts.action = Action::Remove;
    airlock::init::run(&opts).unwrap();
    assert_eq!(read(&user), before);
    assert!(!project.exists());
}

#[test]
fn codex_user_file_with_trust_entry_is_one_edit() {
    let w = World::new();
    let user = w.put("codex/config.toml", "home/.codex/config.toml");
    let before = read(&user);
    let mut opts = w.options(Agent::Codex, Action::Install);
    opts.trust_folder = true;
    let report = airlock::init::run(&opts).unwrap();
    assert_eq!(report.files.len(), 1);
    let t = toml(&user);
    assert_eq!(t["mcp_servers"]["airlock"]["command"].as_str(), Some(CMD));
    let dir = w.project.to_str().unwrap();
    assert_eq!(t["projects"][dir]["trust_level"].as_str(), Some("trusted"));
    opts.action = Action::Remove;
    airlock::init::run(&opts).unwrap();
    assert_eq!(read(&user), before);
}

#[test]
fn an_entry_from_an_older_manual_setup_is_updated_and_restored() {
    let w = World::new();
    let cj = w.home.join(".claude.json");
    // What `claude mcp add airlock -- airlock connect` wrote.
    let before = "{\n  \"mcpServers\": {\n    \"airlock\": {\n      \"type\": \"stdio\",\n      \"command\": \"airlock\",\n      \"args\": [\n        \"connect\"\n      ],\n      \"env\": {}\n    }\n  }\n}\n";
    std::fs::write(&cj, before).unwrap();
    w.install(Agent::Claude);
    assert_eq!(json(&cj)["mcpServers"]["airlock"]["command"], CMD);
    assert_eq!(
        json(&cj)["mcpServers"]["airlock"]["env"],
        serde_json::json!({})
    );
    w.remove(Agent::Claude);
    assert_eq!(read(&cj), before);
}
