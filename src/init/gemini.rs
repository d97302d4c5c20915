//! Gemini CLI (0.61.0): `~/.gemini/settings.json` (`GEMINI_CLI_HOME`
//! replaces the home directory), or `<project>/.gemini/settings.json`. JSON
//! with comments (Gemini strips them before parsing).
//!
//! * `mcpServers.airlock`: `command`, `args`; `trust: true` skips Gemini's
//!   own confirmation for airlock's tools (headless Gemini in its default
//!   approval mode otherwise offers the model none of them; airlock asks the
//!   human itself); `timeout` in milliseconds (Gemini's default is 10 min).
//! * `tools.exclude`: Gemini's own shell and edit tools
//!   (`run_shell_command`, `replace`), removed from the tools the model is
//!   offered. Not `write_file`: Gemini matches an excluded name against MCP
//!   tools too, so excluding it also hides airlock's `write_file` (seen with
//!   0.61.0: `--approval-mode yolo` offers `mcp_airlock_write_file` only
//!   without the exclusion). In its default headless mode Gemini offers
//!   neither its own `write_file` nor, by the same name match, airlock's.
//! * Hooks ([`super::hooks`], `hooks.BeforeTool` / `AfterTool` in the same
//!   file): with them Gemini's own tools stay on (airlock supervises each
//!   call); `tools.exclude` is written only with `--no-hooks`.
//! * Folder trust: Gemini connects no MCP server in an untrusted folder and
//!   headless `gemini -p` exits there (55). `--trust-folder` adds the
//!   project to `~/.gemini/trustedFolders.json` (`"TRUST_FOLDER"`).

use std::path::PathBuf;

use super::{
    Change, FilePlan, Format, InitError, Options, Plan, SERVER_NAME, TOOL_TIMEOUT_SECS, Val,
};

/// Gemini CLI's own tools that run commands or change files.
pub const EXCLUDED_TOOLS: &[&str] = &["run_shell_command", "replace"];

/// Gemini's plan.
pub fn plan(opts: &Options) -> Result<Plan, InitError> {
    let server = |key: &str, value: Val| Change::set(&["mcpServers", SERVER_NAME, key], value);
    let mut changes = Vec::new();
    if opts.with_mcp() {
        match &opts.http_url {
            Some(url) => changes.extend(
                super::http::gemini(url)
                    .into_iter()
                    .map(|(k, v)| server(k, v)),
            ),
            None => changes.extend([
                server("command", Val::from(super::path_str(&opts.command))),
                server("args", super::connect_args()),
            ]),
        }
        changes.extend([
            server("trust", Val::Bool(true)),
            server(
                "timeout",
                Val::Int((TOOL_TIMEOUT_SECS * 1000).cast_signed()),
            ),
        ]);
    }
    if opts.turns_off_native() {
        changes.extend(
            EXCLUDED_TOOLS
                .iter()
                .map(|t| Change::include(&["tools", "exclude"], t)),
        );
    }
    if opts.with_hooks() {
        changes.extend(super::hooks::changes(opts));
    }
    let path = if opts.project {
        opts.project_dir.join(".gemini").join("settings.json")
    } else {
        gemini_dir(opts).join("settings.json")
    };
    let mut files = vec![FilePlan {
        path,
        format: Format::JsonWithComments,
        changes,
        owned: vec![vec!["mcpServers".into(), SERVER_NAME.into()]],
    }];
    let dir = super::path_str(&opts.project_dir);
    let mut notes: Vec<String> = opts.http_url.iter().map(|_| super::http::note()).collect();
    if opts.trust_folder {
        files.push(FilePlan {
            path: gemini_dir(opts).join("trustedFolders.json"),
            format: Format::Json,
            changes: vec![Change::set(&[&dir], "TRUST_FOLDER")],
            owned: Vec::new(),
        });
        notes.push(format!(
            "{dir} is trusted for Gemini (trustedFolders.json)."
        ));
    } else {
        notes.push(
            "Gemini connects MCP servers only in trusted folders: trust the project in Gemini's \
             dialog, or run `airlock init gemini --trust-folder` in it (headless: \
             GEMINI_CLI_TRUST_WORKSPACE=true)."
                .into(),
        );
    }
    if opts.with_mcp() {
        notes.push(format!(
            "Gemini waits up to {TOOL_TIMEOUT_SECS} s for an airlock call (timeout) and runs \
             airlock's tools without its own confirmation (trust: airlock asks you)."
        ));
    }
    if opts.hooks {
        notes.extend(super::hooks::notes(opts));
        return Ok(Plan {
            files,
            turned_off: Vec::new(),
            not_turned_off: Vec::new(),
            notes,
        });
    }
    Ok(Plan {
        files,
        turned_off: EXCLUDED_TOOLS
            .iter()
            .map(|t| format!("{t} (tools.exclude)"))
            .collect(),
        not_turned_off: vec![
            "write_file: Gemini's own file writes (excluding the name would also hide airlock's \
             write_file: Gemini matches it across MCP servers). Gemini asks before each one, \
             headless Gemini in its default mode does not offer it (nor airlock's, by the same \
             name match), but with --approval-mode yolo it runs without asking"
                .into(),
            "read_file, read_many_files, glob, search_file_content, list_directory: Gemini's \
             own reads, outside airlock's scope rules and audit trail (add them to \
             tools.exclude if you want every read to go through airlock)"
                .into(),
            "web_fetch, google_web_search: network access without airlock".into(),
            "save_memory: writes ~/.gemini/GEMINI.md".into(),
        ],
        notes,
    })
}

/// `~/.gemini`, or `$GEMINI_CLI_HOME/.gemini`.
fn gemini_dir(opts: &Options) -> PathBuf {
    opts.homes
        .gemini_cli_home
        .clone()
        .unwrap_or_else(|| opts.homes.home.clone())
        .join(".gemini")
}
