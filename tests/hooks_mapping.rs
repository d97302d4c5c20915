//! Every recorded pre-tool event of the pinned agents (tests/fixtures/hooks)
//! maps onto airlock's vocabulary: its kind, the airlock tool whose rules
//! apply, and what the prompt shows.

mod hooks_support;

use airlock::call::{CallView, Subject, ToolKind};
use airlock::hooks::native::{Mapped, map};
use airlock::hooks::{HookAgent, HookEvent};
use hooks_support::{CLAUDE, CODEX, Env, GEMINI};

/// (fixture, kind, rules of, prompt shows) — None: airlock's own tool.
type Row = (&'static str, Option<(ToolKind, &'static str, &'static str)>);

const ROWS: &[(HookAgent, &str, &[Row])] = &[
    (
        HookAgent::Claude,
        CLAUDE,
        &[
            ("PreToolUse-Bash", Some((ToolKind::Exec, "bash", "command"))),
            (
                "PreToolUse-Edit",
                Some((ToolKind::Write, "write_file", "change")),
            ),
            (
                "PreToolUse-Write",
                Some((ToolKind::Write, "write_file", "change")),
            ),
            (
                "PreToolUse-NotebookEdit",
                Some((ToolKind::Write, "write_file", "arguments")),
            ),
            (
                "PreToolUse-Read",
                Some((ToolKind::Read, "read_file", "arguments")),
            ),
            (
                "PreToolUse-Read-env",
                Some((ToolKind::Read, "read_file", "refused")),
            ),
            (
                "PreToolUse-Read-notebook",
                Some((ToolKind::Read, "read_file", "arguments")),
            ),
            (
                "PreToolUse-WebFetch",
                Some((ToolKind::Network, "WebFetch", "arguments")),
            ),
            (
                "PreToolUse-WebSearch",
                Some((ToolKind::Network, "WebSearch", "arguments")),
            ),
            ("PreToolUse-mcp", None),
        ],
    ),
    (
        HookAgent::Codex,
        CODEX,
        &[
            (
                "PreToolUse-exec_command",
                Some((ToolKind::Exec, "bash", "command")),
            ),
            (
                "PreToolUse-exec_command-env",
                Some((ToolKind::Exec, "bash", "command")),
            ),
            (
                "PreToolUse-exec_command-apply_patch",
                Some((ToolKind::Write, "write_file", "change")),
            ),
            (
                "PreToolUse-apply_patch-add",
                Some((ToolKind::Write, "write_file", "change")),
            ),
            (
                "PreToolUse-apply_patch-delete",
                Some((ToolKind::Write, "write_file", "change")),
            ),
            (
                "PreToolUse-apply_patch-move",
                Some((ToolKind::Write, "write_file", "change")),
            ),
            (
                "PreToolUse-apply_patch-multi",
                Some((ToolKind::Write, "write_file", "change")),
            ),
            (
                "PreToolUse-apply_patch-update",
                Some((ToolKind::Write, "write_file", "change")),
            ),
            ("PreToolUse-mcp", None),
        ],
    ),
    (
        HookAgent::Gemini,
        GEMINI,
        &[
            (
                "BeforeTool-run_shell_command",
                Some((ToolKind::Exec, "bash", "command")),
            ),
            (
                "BeforeTool-replace",
                Some((ToolKind::Write, "write_file", "change")),
            ),
            (
                "BeforeTool-write_file",
                Some((ToolKind::Write, "write_file", "change")),
            ),
            (
                "BeforeTool-read_file",
                Some((ToolKind::Read, "read_file", "arguments")),
            ),
            (
                "BeforeTool-glob",
                Some((ToolKind::Read, "find", "arguments")),
            ),
            // It searches the workspace, where `.env` (excluded) is.
            (
                "BeforeTool-grep_search",
                Some((ToolKind::Read, "grep", "refused")),
            ),
            (
                "BeforeTool-list_directory",
                Some((ToolKind::Read, "ls", "arguments")),
            ),
            (
                "BeforeTool-web_fetch",
                Some((ToolKind::Network, "web_fetch", "arguments")),
            ),
            (
                "BeforeTool-google_web_search",
                Some((ToolKind::Network, "google_web_search", "arguments")),
            ),
            ("BeforeTool-mcp_airlock_read_file", None),
        ],
    ),
];

#[test]
fn every_recorded_tool_maps_onto_the_vocabulary() {
    let env = Env::new(None);
    let scope = airlock::scope::Scope::new(&env.ws, &[], &[".env".to_string()]).unwrap();
    for (agent, dir, rows) in ROWS {
        for (name, want) in *rows {
            let event = HookEvent::from_value(*agent, env.fixture(dir, name)).unwrap();
            let got = map(&event, &scope);
            match (want, got) {
                (None, Mapped::Own) => {}
                (Some((kind, tool, "refused")), Mapped::Refused { call, error }) => {
                    assert_eq!(
                        (call.kind, call.policy_tool.as_str()),
                        (*kind, *tool),
                        "{dir}/{name}"
                    );
                    assert!(
                        error.to_string().contains("excluded"),
                        "{dir}/{name}: {error}"
                    );
                }
                (Some((kind, tool, view)), Mapped::Call(call)) => {
                    assert_eq!(
                        (call.kind, call.policy_tool.as_str(), call.view.describe()),
                        (*kind, *tool, *view),
                        "{dir}/{name}"
                    );
                    assert!(
                        !call.summary.is_empty() && !call.summary.contains('\n'),
                        "{dir}/{name}: {:?}",
                        call.summary
                    );
                    if *kind == ToolKind::Write && *view == "change" {
                        assert!(
                            call.proposal.as_ref().is_some_and(|p| p.diff.is_some()),
                            "{dir}/{name}: a diff"
                        );
                        assert!(
                            matches!(&call.subject, Subject::Paths { paths } if !paths.is_empty()),
                            "{dir}/{name}"
                        );
                    }
                    if let CallView::Command { command, .. } = &call.view {
                        assert_eq!(
                            Some(command.as_str()),
                            event.tool_input["command"].as_str(),
                            "{dir}/{name}: the whole command"
                        );
                        assert!(
                            call.edit.is_some(),
                            "{dir}/{name}: the command can be edited"
                        );
                    } else {
                        assert!(
                            call.edit.is_none(),
                            "{dir}/{name}: only commands are edited"
                        );
                    }
                }
                (want, got) => panic!("{dir}/{name}: wanted {want:?}, got {got:?}"),
            }
        }
    }
}

#[test]
fn every_recorded_pre_event_is_in_the_table() {
    for (_, dir, rows) in ROWS {
        let d = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/hooks")
            .join(dir);
        for entry in std::fs::read_dir(&d).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            let Some(stem) = name.strip_suffix(".json") else {
                continue;
            };
            if stem.starts_with("PreToolUse-") || stem.starts_with("BeforeTool-") {
                assert!(
                    rows.iter().any(|r| r.0 == stem),
                    "{dir}/{stem} is mapped in this test"
                );
            }
        }
    }
}

#[test]
fn only_airlocks_own_server_passes_unasked() {
    let env = Env::new(None);
    let own = |agent: HookAgent, dir: &str, name: &str, tool: &str, server: Option<&str>| {
        let mut e = env.fixture(dir, name);
        e["tool_name"] = serde_json::json!(tool);
        if let Some(s) = server {
            e["mcp_context"]["server_name"] = serde_json::json!(s);
        }
        airlock::hooks::native::is_airlocks_own(&HookEvent::from_value(agent, e).unwrap())
    };
    assert!(own(
        HookAgent::Claude,
        CLAUDE,
        "PreToolUse-mcp",
        "mcp__airlock__read_file",
        None
    ));
    assert!(own(
        HookAgent::Codex,
        CODEX,
        "PreToolUse-mcp",
        "mcp__airlock__bash",
        None
    ));
    let g = "BeforeTool-mcp_airlock_read_file";
    assert!(own(
        HookAgent::Gemini,
        GEMINI,
        g,
        "mcp_airlock_read_file",
        Some("airlock")
    ));
    // A server called `airlock__evil` (or Gemini's `airlock_evil`) with a
    // tool named like one of airlock's is another server: asked.
    assert!(!own(
        HookAgent::Claude,
        CLAUDE,
        "PreToolUse-mcp",
        "mcp__airlock__evil__read_file",
        None
    ));
    assert!(!own(
        HookAgent::Claude,
        CLAUDE,
        "PreToolUse-mcp",
        "mcp__airlock__frobnicate",
        None
    ));
    assert!(!own(
        HookAgent::Gemini,
        GEMINI,
        g,
        "mcp_airlock_evil_read_file",
        Some("airlock_evil")
    ));
    assert!(!own(
        HookAgent::Gemini,
        GEMINI,
        g,
        "mcp_airlock_read_file",
        Some("other")
    ));
}
