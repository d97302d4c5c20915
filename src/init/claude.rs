//! Claude Code (2.1.197): where its MCP servers and permission rules live.
//!
//! * User scope: servers in `~/.claude.json` → `mcpServers` (what
//!   `claude mcp add --scope user` writes), rules in `~/.claude/settings.json`
//!   → `permissions`. `CLAUDE_CONFIG_DIR` moves both (`.claude.json` inside
//!   it).
//! * Project scope: servers in `<project>/.mcp.json` → `mcpServers` (what
//!   `claude mcp add --scope project` writes). Claude Code starts a project
//!   server only once approved; headless `claude -p` cannot ask, and in a
//!   workspace whose trust dialog was never accepted it reads the approval
//!   from `.claude/settings.local.json` (`enabledMcpjsonServers`) but not
//!   from the shared `.claude/settings.json` — so the approval and the rules
//!   go to `.claude/settings.local.json` (the personal, git-ignored file).
//! * `permissions.allow: ["mcp__airlock__*"]` lets `claude -p` call
//!   airlock's tools without its own prompt (airlock gates them);
//!   `permissions.deny` turns Claude's own shell and edit tools off.
//! * Hooks ([`super::hooks`]) go into the same settings file as the rules;
//!   with them Claude's own tools stay on (airlock supervises each call),
//!   and `permissions.deny` is written only with `--no-hooks`.
//! * Tool-call timeout: Claude Code waits 1e8 ms (~27 h) by default
//!   (`MCP_TOOL_TIMEOUT`), so nothing is set.

use std::path::PathBuf;

use super::{Change, FilePlan, Format, InitError, Options, Plan, SERVER_NAME, Val};

/// Claude Code's own tools that run commands or change files. (2.1.197 has
/// no `MultiEdit`: a rule naming it draws "matches no known tool".)
pub const DENIED_TOOLS: &[&str] = &["Bash", "Edit", "Write", "NotebookEdit"];

/// The rule that allows every airlock tool.
pub const ALLOW_RULE: &str = "mcp__airlock__*";

/// Claude Code's plan.
pub fn plan(opts: &Options) -> Result<Plan, InitError> {
    let server = |key: &str, value: Val| Change::set(&["mcpServers", SERVER_NAME, key], value);
    let servers = match &opts.http_url {
        Some(url) => super::http::claude(url)
            .into_iter()
            .map(|(k, v)| server(k, v))
            .collect(),
        None => vec![
            server("type", Val::from("stdio")),
            server("command", Val::from(super::path_str(&opts.command))),
            server("args", super::connect_args()),
        ],
    };
    let mut rules = Vec::new();
    if opts.with_mcp() {
        rules.push(Change::include(&["permissions", "allow"], ALLOW_RULE));
    }
    if opts.turns_off_native() {
        rules.extend(
            DENIED_TOOLS
                .iter()
                .map(|t| Change::include(&["permissions", "deny"], t)),
        );
    }
    if opts.with_hooks() {
        rules.extend(super::hooks::changes(opts));
    }
    let owned = vec![vec!["mcpServers".to_string(), SERVER_NAME.to_string()]];
    let (server_file, settings_file) = if opts.project {
        if opts.with_mcp() {
            rules.push(Change::include(&["enabledMcpjsonServers"], SERVER_NAME));
        }
        let dir = &opts.project_dir;
        (
            dir.join(".mcp.json"),
            dir.join(".claude").join("settings.local.json"),
        )
    } else {
        (user_json(opts), config_dir(opts).join("settings.json"))
    };
    let notes = notes(opts);
    let mut files = Vec::new();
    if opts.with_mcp() {
        files.push(FilePlan {
            path: server_file,
            format: Format::Json,
            changes: servers,
            owned,
        });
    }
    files.push(FilePlan {
        path: settings_file,
        format: Format::Json,
        changes: rules,
        owned: Vec::new(),
    });
    if opts.hooks {
        // Every native tool goes through the hooks: nothing is off, and
        // nothing runs without airlock.
        return Ok(Plan {
            files,
            turned_off: Vec::new(),
            not_turned_off: Vec::new(),
            notes,
        });
    }
    Ok(Plan {
        files,
        turned_off: DENIED_TOOLS
            .iter()
            .map(|t| format!("{t} (permissions.deny)"))
            .collect(),
        not_turned_off: vec![
            "Read, Grep, Glob: Claude's own reads, outside airlock's scope rules and audit \
             trail (deny them in permissions if you want every read to go through airlock)"
                .into(),
            "WebFetch, WebSearch: network access without airlock".into(),
            "EnterWorktree, ExitWorktree: create and leave git worktrees".into(),
            "Agent, Skill, Task*, Cron*, Workflow: subagents and scheduling (subagents inherit \
             these rules)"
                .into(),
        ],
        notes,
    })
}

/// What the report says about Claude Code's plan.
fn notes(opts: &Options) -> Vec<String> {
    let mut notes = Vec::new();
    if opts.with_mcp() {
        notes.push(format!(
            "headless `claude -p` calls airlock's tools without asking (permissions.allow \
             \"{ALLOW_RULE}\"): airlock asks you instead."
        ));
    }
    if opts.http_url.is_some() {
        notes.push(super::http::note());
    }
    if opts.hooks {
        notes.extend(super::hooks::notes(opts));
    }
    if opts.trust_folder {
        notes.push(
            "--trust-folder changes nothing for Claude Code: the project server is approved in \
             .claude/settings.local.json, which Claude reads before the workspace is trusted."
                .into(),
        );
    }
    if opts.project {
        notes.push(
            ".mcp.json holds this machine's airlock path; the approval and the rules are in \
             .claude/settings.local.json (personal, not for the repository)."
                .into(),
        );
    }
    notes
}

/// `~/.claude` or `CLAUDE_CONFIG_DIR`.
fn config_dir(opts: &Options) -> PathBuf {
    opts.homes
        .claude_config_dir
        .clone()
        .unwrap_or_else(|| opts.homes.home.join(".claude"))
}

/// `~/.claude.json` or `$CLAUDE_CONFIG_DIR/.claude.json`.
fn user_json(opts: &Options) -> PathBuf {
    let dir = opts
        .homes
        .claude_config_dir
        .clone()
        .unwrap_or_else(|| opts.homes.home.clone());
    dir.join(".claude.json")
}
