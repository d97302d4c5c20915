//! Codex CLI (0.171.0): `~/.codex/config.toml` (`CODEX_HOME` moves it), or
//! `<project>/.codex/config.toml`, which Codex reads only for a trusted
//! project.
//!
//! `[mcp_servers.airlock]` (the fields of Codex's `RawMcpServerConfig`):
//! * `command`, `args`: the airlock binary, `connect`.
//! * `env_vars`: Codex starts servers with only HOME, LANG, PATH, PWD, TERM,
//!   TMPDIR, USER; these names are passed through when set, so `connect`
//!   finds the supervisor where it listens.
//! * `tool_timeout_sec`: Codex gives up on a tool call after 300 s by
//!   default — too short for a human.
//! * `default_tools_approval_mode = "approve"`: otherwise `codex exec`
//!   (approval policy "never") refuses every airlock tool ("MCP tool call
//!   requires approval"); airlock asks the human itself.
//!
//! `[features] shell_tool = false, unified_exec = false` turn Codex's own
//! shell tools off (`codex features list` names both, stable, on by
//! default).

use std::path::PathBuf;

use super::{
    CONNECT_ENV_VARS, Change, FilePlan, Format, InitError, Options, Plan, SERVER_NAME,
    TOOL_TIMEOUT_SECS, Val,
};

/// Codex features that give the model a shell.
pub const SHELL_FEATURES: &[&str] = &["shell_tool", "unified_exec"];

/// Codex's plan.
pub fn plan(opts: &Options) -> Result<Plan, InitError> {
    let server = |key: &str, value: Val| Change::set(&["mcp_servers", SERVER_NAME, key], value);
    let env_vars = CONNECT_ENV_VARS.iter().map(|v| Val::from(*v)).collect();
    let mut changes = vec![
        server("command", Val::from(super::path_str(&opts.command))),
        server("args", super::connect_args()),
        server("env_vars", Val::List(env_vars)),
        server("tool_timeout_sec", Val::Int(TOOL_TIMEOUT_SECS as i64)),
        server("default_tools_approval_mode", Val::from("approve")),
    ];
    changes.extend(
        SHELL_FEATURES
            .iter()
            .map(|f| Change::set(&["features", f], false)),
    );
    let mut files = Vec::new();
    let mut notes = Vec::new();
    let path = if opts.project {
        notes.push(format!(
            "Codex reads {} only when the project is trusted (its first-run prompt, \
             `codex exec --trust`, or `airlock init codex --project --trust-folder`); \
             untrusted, it warns and ignores the file.",
            project_file(opts).display()
        ));
        project_file(opts)
    } else {
        codex_home(opts).join("config.toml")
    };
    files.push(FilePlan {
        path,
        format: Format::Toml,
        changes,
        owned: vec![vec!["mcp_servers".into(), SERVER_NAME.into()]],
    });
    if opts.trust_folder {
        let dir = super::path_str(&opts.project_dir);
        files.push(FilePlan {
            path: codex_home(opts).join("config.toml"),
            format: Format::Toml,
            changes: vec![Change::set(&["projects", &dir, "trust_level"], "trusted")],
            owned: Vec::new(),
        });
        notes.push(format!(
            "{dir} is marked trusted for Codex (projects.\"{dir}\")."
        ));
    }
    notes.push(format!(
        "Codex waits up to {TOOL_TIMEOUT_SECS} s for an airlock call (tool_timeout_sec) and \
         runs airlock's tools without its own approval (airlock asks you)."
    ));
    Ok(Plan {
        files: merge_same_file(files),
        turned_off: SHELL_FEATURES
            .iter()
            .map(|f| format!("{f} (features.{f} = false)"))
            .collect(),
        not_turned_off: vec![
            "apply_patch: Codex's own file edits, when its model is offered the tool (no \
             setting turns it off; Codex's sandbox and approval policy still apply)"
                .into(),
            "view_image, web search: reads and network access without airlock".into(),
        ],
        notes,
    })
}

/// `CODEX_HOME` or `~/.codex`.
fn codex_home(opts: &Options) -> PathBuf {
    opts.homes
        .codex_home
        .clone()
        .unwrap_or_else(|| opts.homes.home.join(".codex"))
}

fn project_file(opts: &Options) -> PathBuf {
    opts.project_dir.join(".codex").join("config.toml")
}

/// One plan per file (the trust entry may go to the same file as the
/// server when not `--project`).
fn merge_same_file(files: Vec<FilePlan>) -> Vec<FilePlan> {
    let mut out: Vec<FilePlan> = Vec::new();
    for f in files {
        match out.iter_mut().find(|o| o.path == f.path) {
            Some(o) => {
                o.changes.extend(f.changes);
                o.owned.extend(f.owned);
            }
            None => out.push(f),
        }
    }
    out
}
