//! `airlock init` installing the agents' hooks (`airlock hook AGENT`) next
//! to the MCP server, on copies of real configuration files that already
//! hold the user's own hooks: the user's hooks stay first and untouched,
//! airlock's entry is one element per event, the agent's own tools stay on,
//! a second run is a no-op, `--remove` restores the file byte for byte.

mod init_support;

use airlock::init::{Action, Agent, Options};
use init_support::{World, all_unchanged, json, jsonc, read, toml};
use serde_json::json;

const HOOK: &str = "/opt/airlock/bin/airlock hook";

fn hooked(w: &World, agent: Agent) -> Options {
    let mut o = w.options(agent, Action::Install);
    o.hooks = true;
    o
}

fn install(w: &World, agent: Agent) -> airlock::init::Report {
    airlock::init::run(&hooked(w, agent)).unwrap()
}

fn remove(w: &World, agent: Agent) -> airlock::init::Report {
    let mut o = hooked(w, agent);
    o.action = Action::Remove;
    airlock::init::run(&o).unwrap()
}

#[test]
fn claude_hooks_join_the_users_and_leave_the_native_tools_on() {
    let w = World::new();
    let s = w.put("claude/settings.json", "home/.claude/settings.json");
    let cj = w.put("claude/claude.json", "home/.claude.json");
    let (before, before_cj) = (read(&s), read(&cj));
    let report = install(&w, Agent::Claude);

    let v = json(&s);
    let airlock = json!({ "matcher": "*", "hooks": [{ "type": "command",
        "command": format!("{HOOK} claude"), "timeout": 2_147_483 }] });
    assert_eq!(v["hooks"]["PreToolUse"], json!([airlock]));
    assert_eq!(v["hooks"]["PostToolUseFailure"], json!([airlock]));
    let post = v["hooks"]["PostToolUse"].as_array().unwrap();
    assert_eq!(post.len(), 2, "{post:?}");
    assert_eq!(
        post[0]["hooks"][0]["command"], "cargo fmt",
        "the user's first"
    );
    assert_eq!(post[1], airlock);
    // Native tools stay on: only the user's own deny rules.
    assert_eq!(v["permissions"]["deny"], json!(["Read(./.env)", "Bash"]));
    assert_eq!(v["permissions"]["allow"][2], "mcp__airlock__*");
    assert_eq!(
        json(&cj)["mcpServers"]["airlock"]["command"],
        "/opt/airlock/bin/airlock"
    );
    let text = report.to_string();
    assert!(
        text.contains("Hook command: /opt/airlock/bin/airlock hook claude"),
        "{text}"
    );
    assert!(!text.contains("Turned off"), "{text}");
    assert!(!text.contains("Could NOT turn off"), "{text}");

    let after = read(&s);
    assert!(all_unchanged(&install(&w, Agent::Claude)));
    assert_eq!(read(&s), after);
    remove(&w, Agent::Claude);
    assert_eq!(read(&s), before);
    assert_eq!(read(&cj), before_cj);
}

#[test]
fn codex_hooks_are_arrays_of_tables_after_the_users() {
    let w = World::new();
    let cfg = w.put("codex/config.toml", "home/.codex/config.toml");
    let before = read(&cfg);
    let report = install(&w, Agent::Codex);

    let t = toml(&cfg);
    let pre = t["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 2, "{pre:?}");
    assert_eq!(pre[0]["matcher"].as_str(), Some("Bash"), "the user's first");
    assert_eq!(
        pre[0]["hooks"][0]["command"].as_str(),
        Some("/usr/local/bin/check-command")
    );
    for event in ["PreToolUse", "PostToolUse"] {
        let ours = t["hooks"][event].as_array().unwrap().last().unwrap();
        assert!(ours.get("matcher").is_none(), "every tool: {ours:?}");
        let hook = &ours["hooks"][0];
        assert_eq!(hook["type"].as_str(), Some("command"));
        assert_eq!(hook["command"].as_str(), Some(&*format!("{HOOK} codex")));
        assert_eq!(hook["timeout"].as_integer(), Some(2_147_483));
    }
    // Codex's shell stays on; the server is there as before.
    assert!(t["features"].get("shell_tool").is_none());
    assert!(t["features"].get("unified_exec").is_none());
    assert_eq!(
        t["mcp_servers"]["airlock"]["command"].as_str(),
        Some("/opt/airlock/bin/airlock")
    );
    let text = read(&cfg);
    assert_eq!(text.matches("[[hooks.PreToolUse]]").count(), 2, "{text}");
    assert_eq!(
        text.matches("[[hooks.PreToolUse.hooks]]").count(),
        2,
        "{text}"
    );
    assert!(
        text.contains("[[hooks.PostToolUse]]\n\n[[hooks.PostToolUse.hooks]]"),
        "{text}"
    );
    let said = report.to_string();
    assert!(
        said.contains("Hooks need review") && said.contains("/hooks"),
        "{said}"
    );

    assert!(all_unchanged(&install(&w, Agent::Codex)));
    assert_eq!(read(&cfg), text);
    remove(&w, Agent::Codex);
    assert_eq!(read(&cfg), before);
}

#[test]
fn gemini_hooks_keep_comments_and_the_users_hook() {
    let w = World::new();
    let s = w.put("gemini/settings.json", "home/.gemini/settings.json");
    let before = read(&s);
    let report = install(&w, Agent::Gemini);

    let v = jsonc(&s);
    let airlock = json!({ "matcher": "*", "hooks": [{ "type": "command", "name": "airlock",
        "command": format!("{HOOK} gemini"), "timeout": 2_147_483_647_i64 }] });
    let before_tool = v["hooks"]["BeforeTool"].as_array().unwrap();
    assert_eq!(before_tool.len(), 2);
    assert_eq!(before_tool[0]["matcher"], "write_file", "the user's first");
    assert_eq!(before_tool[1], airlock);
    assert_eq!(
        v["hooks"]["AfterTool"].as_array().unwrap().last(),
        Some(&airlock)
    );
    // Only the user's exclusion: Gemini's own tools stay on.
    assert_eq!(v["tools"]["exclude"], json!(["web_fetch"]));
    let text = read(&s);
    assert!(
        text.contains("// no network") && text.contains("/* the UI */"),
        "{text}"
    );
    assert!(report.to_string().contains("trusted folder"));

    assert!(all_unchanged(&install(&w, Agent::Gemini)));
    remove(&w, Agent::Gemini);
    assert_eq!(read(&s), before);
}

#[test]
fn no_mcp_installs_the_hooks_alone() {
    let w = World::new();
    let s = w.put("claude/settings.json", "home/.claude/settings.json");
    let before = read(&s);
    let mut o = hooked(&w, Agent::Claude);
    o.mcp = false;
    let report = airlock::init::run(&o).unwrap();
    assert!(!w.home.join(".claude.json").exists(), "no server file");
    let v = json(&s);
    assert_eq!(v["permissions"]["allow"].as_array().unwrap().len(), 2);
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        format!("{HOOK} claude")
    );
    let text = report.to_string();
    assert!(!text.contains("MCP command"), "{text}");
    o.action = Action::Remove;
    airlock::init::run(&o).unwrap();
    assert_eq!(read(&s), before);
}

#[test]
fn no_hooks_and_no_mcp_is_refused() {
    let w = World::new();
    let mut o = w.options(Agent::Gemini, Action::Install);
    o.hooks = false;
    o.mcp = false;
    let err = airlock::init::run(&o).unwrap_err().to_string();
    assert!(err.contains("nothing to install"), "{err}");
}

#[test]
fn a_moved_binary_replaces_airlocks_hook_instead_of_adding_one() {
    let w = World::new();
    let cfg = w.put("codex/config.toml", "home/.codex/config.toml");
    let before = read(&cfg);
    install(&w, Agent::Codex);
    let mut o = hooked(&w, Agent::Codex);
    o.command = "/home/dev/my tools/airlock".into();
    assert!(airlock::init::run(&o).unwrap().changed_anything());
    let t = toml(&cfg);
    let pre = t["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 2, "{pre:?}");
    assert_eq!(
        pre[1]["hooks"][0]["command"].as_str(),
        Some("'/home/dev/my tools/airlock' hook codex"),
        "quoted for the shell"
    );
    o.action = Action::Remove;
    airlock::init::run(&o).unwrap();
    assert_eq!(read(&cfg), before);
}

#[test]
fn a_hook_the_user_changed_is_theirs_and_stays_on_remove() {
    let w = World::new();
    let s = w.put("gemini/settings.json", "home/.gemini/settings.json");
    install(&w, Agent::Gemini);
    let text = read(&s).replace("2147483647", "5000");
    std::fs::write(&s, &text).unwrap();
    remove(&w, Agent::Gemini);
    let v = jsonc(&s);
    let after = v["hooks"]["AfterTool"].as_array().unwrap();
    assert!(
        after.iter().any(|h| h["hooks"][0]["timeout"] == 5000),
        "{after:?}"
    );
    assert!(v["mcpServers"].get("airlock").is_none());
}
