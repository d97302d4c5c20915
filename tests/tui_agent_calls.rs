//! Calls the agent runs itself (its native tools, through its hooks) and
//! multi-file changes, as the prompt, the list and the detail show them —
//! snapshots with styles, so a lost colour or a lost warning fails. Plus
//! what the prompt takes from the call's typed view and edit field.

mod tui_support;

use airlock::call::{CallInfo, CallView, EditField, Proposal, Runner, ToolKind, WriteAction};
use airlock::tui::Msg;
use serde_json::json;
use std::sync::Arc;
use tui_support::*;

fn snap(name: &str, w: u16, h: u16, screen: &str) {
    insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen);
}

fn agent_runner(tool: &str) -> Runner {
    Runner::Agent {
        native_tool: tool.into(),
        tool_use_id: Some("toolu_01".into()),
        session_id: None,
    }
}

/// Claude Code's own Bash tool, reported by its `PreToolUse` hook: a
/// command with a cwd, and no edit (this hook answer cannot rewrite it).
fn native_bash(id: u64) -> CallInfo {
    let mut c = call(
        id,
        "bash",
        ToolKind::Exec,
        json!({ "command": "npm test", "description": "run the tests" }),
        "npm test",
    );
    c.runner = agent_runner("Bash");
    c.view = CallView::Command {
        command: "npm test".into(),
        cwd: Some("/home/dev/tinytodo/web".into()),
        description: Some("run the tests".into()),
        shown_args: &["command", "description"],
    };
    c.grant = airlock::tools::bash::grant("npm test");
    c
}

const TWO_FILES: &str = "--- a/todo.sh\n+++ b/todo.sh\n@@ -1,2 +1,2 @@\n #!/bin/bash\n-set -e\n+set -eu\n--- a/README.md\n+++ b/README.md\n@@ -3,1 +3,2 @@\n A to-do list in one bash file.\n+Run tests with bash tests/run_tests.sh.\n";

/// Codex's `apply_patch` touching two files.
fn patch(id: u64) -> CallInfo {
    let mut c = call(
        id,
        "apply_patch",
        ToolKind::Write,
        json!({ "input": "*** Begin Patch …" }),
        "apply_patch todo.sh, README.md",
    );
    c.runner = agent_runner("apply_patch");
    c.view = CallView::Change;
    c.proposal = Some(Arc::new(Proposal {
        path: "todo.sh, README.md".into(),
        action: WriteAction::Edit,
        diff: Some(TWO_FILES.into()),
        added: 2,
        removed: 1,
        binary: false,
        old_bytes: 560,
        new_bytes: 602,
    }));
    c
}

fn prompted(w: u16, h: u16, call: CallInfo) -> airlock::tui::App {
    let mut app = app(w, h);
    app.update(Msg::Prompt {
        call,
        verdict: ask("default: exec tools ask"),
    });
    app.now = at(1000);
    app
}

#[test]
fn the_prompt_says_the_agent_runs_a_native_call_itself_and_offers_no_edit() {
    for (w, h) in SIZES {
        let app = prompted(w, h, native_bash(3));
        let text = plain(&app);
        assert!(
            text.contains("the agent runs this call itself (Bash), outside airlock's sandbox"),
            "{text}"
        );
        assert!(
            text.contains("/home/dev/tinytodo/web"),
            "the typed cwd: {text}"
        );
        assert!(
            !text.contains("e edit"),
            "no edit without an edit field: {text}"
        );
        snap("agent_prompt_bash", w, h, &screen(&app));
    }
    // Control: airlock's own bash offers the edit and says nothing of the kind.
    let app = prompted(160, 48, bash(3, "npm test", "run the tests"));
    let text = plain(&app);
    assert!(text.contains("e edit"), "{text}");
    assert!(!text.contains("the agent runs this call itself"), "{text}");
}

#[test]
fn e_edits_only_what_the_call_lets_be_edited() {
    let mut app = prompted(160, 48, native_bash(3));
    app.now = at(2000);
    app.update(key('e'));
    assert_eq!(
        app.live().unwrap().prompts.step,
        airlock::tui::prompt::Step::Choose,
        "no edit field: e does nothing"
    );
    let mut c = native_bash(4);
    c.edit = Some(EditField::Command {
        text: "npm test".into(),
    });
    let mut app = prompted(160, 48, c);
    app.now = at(2000);
    app.update(key('e'));
    assert!(matches!(
        app.live().unwrap().prompts.step,
        airlock::tui::prompt::Step::Edit(_)
    ));
}

#[test]
fn a_multi_file_patch_the_agent_applies_itself_is_a_coloured_diff() {
    for (w, h) in SIZES {
        let app = prompted(w, h, patch(5));
        let text = plain(&app);
        assert!(
            text.contains("(apply_patch), outside airlock's sandbox"),
            "{text}"
        );
        assert!(
            text.contains("README.md") && text.contains("set -eu"),
            "{text}"
        );
        snap("agent_prompt_patch", w, h, &screen(&app));
    }
}

#[test]
fn the_list_and_the_detail_say_the_agent_ran_it() {
    for (w, h) in SIZES {
        let mut app = busy_app(w, h);
        read_ok(&mut app, native_bash(9), "5 passing");
        read_ok(&mut app, patch(10), "patched 2 files");
        app.update(key('k'));
        let text = plain(&app);
        assert!(text.contains("[agent runs it: Bash] npm test"), "{text}");
        assert!(text.contains("[agent runs it: apply_patch]"), "{text}");
        assert!(
            text.contains("the agent runs this call itself (Bash), outside airlock's sandbox"),
            "the detail of the selected call: {text}"
        );
        snap("agent_calls_list_detail", w, h, &screen(&app));
    }
}

#[test]
fn a_native_command_whose_directory_the_hook_does_not_tell_says_so() {
    // Codex's hook shows no `workdir`: the view has no cwd.
    let mut c = native_bash(4);
    c.view = CallView::Command {
        command: "npm test".into(),
        cwd: None,
        description: None,
        shown_args: &["command"],
    };
    let app = prompted(160, 48, c);
    let text = plain(&app);
    assert!(
        text.contains("unknown (the agent's hook does not say where it runs)"),
        "{text}"
    );
    assert!(!text.contains("the agent's shell starts here"), "{text}");
    // Control: airlock's own bash with no cwd yet starts in the workspace.
    let text = plain(&prompted(160, 48, bash(4, "npm test", "run the tests")));
    assert!(text.contains("(the agent's shell starts here)"), "{text}");
}
