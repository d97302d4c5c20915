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
//! default) — only with `--no-hooks`: the hooks ([`super::hooks`],
//! `[[hooks.PreToolUse]]` / `[[hooks.PostToolUse]]` in the same file) put
//! every shell, `apply_patch` and MCP call through airlock instead.

use std::path::PathBuf;

use super::{
    AgentHomes, CONNECT_ENV_VARS, Change, FilePlan, Format, InitError, Options, Plan, SERVER_NAME,
    TOOL_TIMEOUT_SECS, Val,
};

/// Codex features that give the model a shell.
pub const SHELL_FEATURES: &[&str] = &["shell_tool", "unified_exec"];

/// Codex's plan.
pub fn plan(opts: &Options) -> Result<Plan, InitError> {
    let server = |key: &str, value: Val| Change::set(&["mcp_servers", SERVER_NAME, key], value);
    let env_vars = CONNECT_ENV_VARS.iter().map(|v| Val::from(*v)).collect();
    let mut changes = Vec::new();
    if opts.with_mcp() {
        match &opts.http_url {
            Some(url) => changes.extend(
                super::http::codex(url)
                    .into_iter()
                    .map(|(k, v)| server(k, v)),
            ),
            None => changes.extend([
                server("command", Val::from(super::path_str(&opts.command))),
                server("args", super::connect_args()),
                server("env_vars", Val::List(env_vars)),
            ]),
        }
        changes.extend([
            server(
                "tool_timeout_sec",
                Val::Int(TOOL_TIMEOUT_SECS.cast_signed()),
            ),
            server("default_tools_approval_mode", Val::from("approve")),
        ]);
    }
    if opts.turns_off_native() {
        changes.extend(
            SHELL_FEATURES
                .iter()
                .map(|f| Change::set(&["features", f], false)),
        );
    }
    if opts.with_hooks() {
        changes.extend(super::hooks::changes(opts));
    }
    let mut files = Vec::new();
    let mut notes: Vec<String> = opts.http_url.iter().map(|_| super::http::note()).collect();
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
    if opts.with_mcp() {
        notes.push(format!(
            "Codex waits up to {TOOL_TIMEOUT_SECS} s for an airlock call (tool_timeout_sec) and \
             runs airlock's tools without its own approval (airlock asks you)."
        ));
    }
    if opts.hooks {
        notes.extend(super::hooks::notes(opts));
        return Ok(Plan {
            files: merge_same_file(files),
            turned_off: Vec::new(),
            not_turned_off: vec![
                "web search: Codex's hosted tool runs at the model provider, no hook sees it"
                    .into(),
            ],
            notes,
        });
    }
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

/// Codex's default `tool_timeout_sec` (0.171.0), for a server without one.
pub const DEFAULT_TOOL_TIMEOUT_SECS: u64 = 300;

/// How long Codex waits for a call to airlock's server, as its config says:
/// the project file (which Codex reads in a trusted project) before the
/// user's; a registration without `tool_timeout_sec` waits Codex's default.
/// `None` when neither file registers airlock (or neither can be read).
pub fn airlock_tool_timeout(homes: &AgentHomes, project_dir: &std::path::Path) -> Option<u64> {
    let user = homes
        .codex_home
        .clone()
        .unwrap_or_else(|| homes.home.join(".codex"))
        .join("config.toml");
    let project = project_dir.join(".codex").join("config.toml");
    [project, user].iter().find_map(|path| {
        let text = std::fs::read_to_string(path).ok()?;
        let doc: toml::Table = text.parse().ok()?;
        let server = doc.get("mcp_servers")?.get(SERVER_NAME)?;
        Some(match server.get("tool_timeout_sec") {
            Some(toml::Value::Integer(n)) if *n > 0 => {
                u64::try_from(*n).unwrap_or(DEFAULT_TOOL_TIMEOUT_SECS)
            }
            Some(toml::Value::Float(f)) if *f > 0.0 => whole_secs(*f),
            _ => DEFAULT_TOOL_TIMEOUT_SECS,
        })
    })
}

/// Whole seconds of a positive float timeout (Codex reads the key as a
/// float); `as` truncates the fraction and saturates at `u64::MAX`.
#[expect(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "only called with secs > 0; truncating and saturating is the intended reading"
)]
fn whole_secs(secs: f64) -> u64 {
    secs as u64
}

#[cfg(test)]
mod timeout_tests {
    use super::*;

    fn homes(dir: &std::path::Path) -> AgentHomes {
        AgentHomes {
            home: dir.to_path_buf(),
            claude_config_dir: None,
            codex_home: Some(dir.join("codex")),
            gemini_cli_home: None,
        }
    }

    #[test]
    fn reads_the_configured_timeout_project_first() {
        let dir = tempfile::tempdir().unwrap();
        let h = homes(dir.path());
        let project = dir.path().join("p");
        assert_eq!(airlock_tool_timeout(&h, &project), None, "no registration");
        std::fs::create_dir_all(dir.path().join("codex")).unwrap();
        let user = dir.path().join("codex/config.toml");
        std::fs::write(&user, "[mcp_servers.airlock]\ncommand = \"airlock\"\n").unwrap();
        assert_eq!(
            airlock_tool_timeout(&h, &project),
            Some(300),
            "Codex's default"
        );
        std::fs::write(&user, "[mcp_servers.airlock]\ntool_timeout_sec = 3600\n").unwrap();
        assert_eq!(airlock_tool_timeout(&h, &project), Some(3600));
        std::fs::create_dir_all(project.join(".codex")).unwrap();
        std::fs::write(
            project.join(".codex/config.toml"),
            "[mcp_servers.airlock]\ntool_timeout_sec = 900.5\n",
        )
        .unwrap();
        assert_eq!(
            airlock_tool_timeout(&h, &project),
            Some(900),
            "project first"
        );
        std::fs::write(project.join(".codex/config.toml"), "not toml [").unwrap();
        assert_eq!(
            airlock_tool_timeout(&h, &project),
            Some(3600),
            "bad file skipped"
        );
    }
}
