//! The TUI asks the call, never the tool's name: the grant choices come
//! from the grant shape the tool filled (airlock's own tools through the
//! real pipeline, an agent's own tools through the real hooks mapping), the
//! shell's directory from the tool's typed result, the `e` notice from the
//! call's view.

mod tui_support;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use airlock::call::{ApprovedBy, CallInfo, CallView, Decision, Event, GrantShape, ToolKind};
use airlock::hooks::native::{Mapped, map};
use airlock::hooks::{HookAgent, HookEvent, Phase};
use airlock::policy::GrantScope;
use airlock::scope::Scope;
use airlock::session::{self, SessionOptions};
use airlock::supervisor::{ConfirmRequest, Confirmer};
use airlock::tui::Msg;
use airlock::tui::prompt::{ScopeChoice, choices};
use async_trait::async_trait;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tui_support::*;

/// Keeps every call it is asked about, and approves it.
#[derive(Default)]
struct Keep(Mutex<Vec<CallInfo>>);

#[async_trait]
impl Confirmer for Keep {
    async fn confirm(&self, r: ConfirmRequest) -> Decision {
        self.0.lock().unwrap().push(r.call);
        Decision::approve(ApprovedBy::User)
    }

    fn kind(&self) -> airlock::call::ConfirmerKind {
        airlock::call::ConfirmerKind::Scripted
    }
}

fn command_choices(
    tools: &'static [&'static str],
    exact: &str,
    prefix: Option<&str>,
) -> Vec<ScopeChoice> {
    let tool = tools[0];
    let mut out = vec![ScopeChoice {
        label: "this exact command".into(),
        grant: GrantScope::ExactCommand(exact.into()),
        tools,
        rules: vec![format!("{tool}(={exact})")],
    }];
    if let Some(p) = prefix {
        out.push(ScopeChoice {
            label: format!("commands starting with `{p}`"),
            grant: GrantScope::Prefix(p.into()),
            tools,
            rules: vec![format!("{tool}({p} *)")],
        });
    }
    out
}

fn file_choice(real: &Path, shown: &str) -> Vec<ScopeChoice> {
    vec![ScopeChoice {
        label: format!("writes to {shown}"),
        grant: GrantScope::File(real.to_path_buf()),
        tools: &["write_file", "edit_file"],
        rules: vec![
            format!("write_file(={shown})"),
            format!("edit_file(={shown})"),
        ],
    }]
}

fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(ws.join("notes.txt"), "alpha\nbeta\n").unwrap();
    std::fs::create_dir(ws.join("sub")).unwrap();
    (dir, ws)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn airlocks_own_tools_say_what_a_grant_covers_and_where_the_shell_is() {
    let (_dir, ws) = workspace();
    let keep = Arc::new(Keep::default());
    let s = session::start(
        &SessionOptions {
            workspace: ws.clone(),
            data_dir: Some(ws.join(".data")),
            config_file: None,
            mode: airlock::call::SessionMode::Supervisor,
            policy_mode: None,
            user_config: false,
        },
        keep.clone(),
    )
    .unwrap();
    let mut events = s.supervisor.events().subscribe();
    let agent = s.supervisor.agent_connected(Some("agent-a"), None);
    let calls: [(&str, Value); 4] = [
        ("bash", json!({"command": "git status --short"})),
        ("bash", json!({"command": "cd sub"})),
        ("write_file", json!({"path": "new.txt", "content": "x\n"})),
        (
            "edit_file",
            json!({"path": "notes.txt", "old_text": "beta", "new_text": "gamma"}),
        ),
    ];
    for (tool, args) in calls {
        let args = args.as_object().cloned();
        s.supervisor
            .call(&agent, tool, args, CancellationToken::new(), None)
            .await
            .unwrap();
    }
    let asked = keep.0.lock().unwrap().clone();
    assert_eq!(asked.len(), 4, "{asked:?}");
    assert_eq!(
        choices(&asked[0]),
        command_choices(&["bash"], "git status --short", Some("git status"))
    );
    assert_eq!(
        choices(&asked[1]),
        command_choices(&["bash"], "cd sub", Some("cd sub"))
    );
    assert_eq!(
        choices(&asked[2]),
        file_choice(&ws.join("new.txt"), "new.txt")
    );
    assert_eq!(
        choices(&asked[3]),
        file_choice(&ws.join("notes.txt"), "notes.txt")
    );
    // bash says, typed, where its shell is after `cd sub`.
    let mut cwds = Vec::new();
    while let Ok(e) = events.try_recv() {
        if let Event::CallFinished { id, outcome } = e {
            cwds.push((id, outcome.shell_cwd));
        }
    }
    let sub = ws.join("sub").display().to_string();
    let of = |id: u64| cwds.iter().find(|c| c.0 == id).map(|c| c.1.clone());
    assert_eq!(of(asked[1].id), Some(Some(sub)), "{cwds:?}");
    assert_eq!(of(asked[2].id), Some(None), "a write keeps no shell");
}

fn hook(agent: HookAgent, tool: &str, input: Value, ws: &Path) -> HookEvent {
    HookEvent {
        agent,
        phase: Phase::Pre,
        tool_name: tool.into(),
        tool_input: input,
        tool_use_id: Some("toolu_01".into()),
        session_id: None,
        cwd: Some(ws.to_path_buf()),
        tool_response: None,
        mcp_server: None,
        error: None,
    }
}

/// The native call as the prompt gets it: its grant shape on a call.
fn native_choices(event: &HookEvent, scope: &Scope) -> Vec<ScopeChoice> {
    let Mapped::Call(native) = map(event, scope) else {
        panic!("not a call to decide: {event:?}");
    };
    let mut c = call(1, &native.policy_tool, native.kind, json!({}), "x");
    c.grant = native.grant;
    choices(&c)
}

#[test]
fn an_agents_own_tools_get_the_choices_of_airlocks_matching_tool() {
    let (_dir, ws) = workspace();
    let scope = Scope::new(&ws, &[], &[]).unwrap();
    let git = command_choices(&["bash"], "git status --short", Some("git status"));
    let claude = hook(
        HookAgent::Claude,
        "Bash",
        json!({"command": "git status --short", "description": "look"}),
        &ws,
    );
    assert_eq!(native_choices(&claude, &scope), git);
    // Codex's shell sends an argv: the same command, the same choices.
    let codex = hook(
        HookAgent::Codex,
        "shell",
        json!({"command": ["bash", "-lc", "git status --short"]}),
        &ws,
    );
    assert_eq!(native_choices(&codex, &scope), git);
    let edit = hook(
        HookAgent::Claude,
        "Edit",
        json!({"file_path": "notes.txt", "old_string": "beta", "new_string": "gamma"}),
        &ws,
    );
    let notes = file_choice(&ws.join("notes.txt"), "notes.txt");
    assert_eq!(native_choices(&edit, &scope), notes);
    let patch = |body: &str| {
        hook(
            HookAgent::Codex,
            "apply_patch",
            json!({"input": format!("*** Begin Patch\n{body}*** End Patch\n")}),
            &ws,
        )
    };
    let one = patch("*** Update File: notes.txt\n@@\n-beta\n+gamma\n");
    assert_eq!(native_choices(&one, &scope), notes);
    // Two files: no one file to grant, so nothing to grant.
    let two = patch("*** Update File: notes.txt\n@@\n-beta\n+gamma\n*** Add File: b.txt\n+b\n");
    assert_eq!(native_choices(&two, &scope), []);
}

#[test]
fn the_shell_directory_is_what_the_tool_reports_not_read_by_its_name() {
    let prompted = |app: &mut airlock::tui::App, id: u64| {
        app.update(Msg::Prompt {
            call: bash(id, "ls", "look"),
            verdict: ask("default: exec tools ask"),
        });
        app.now = at(1000);
    };
    // A shell tool of another name that reports its directory: shown.
    let mut other = app(120, 40);
    let mut sh = call(
        1,
        "sh",
        ToolKind::Exec,
        json!({"command": "cd src"}),
        "cd src",
    );
    sh.view = CallView::Args;
    other.update(Msg::Core(Event::CallReceived(sh)));
    let mut done = outcome("ok", 3, "", false);
    done.shell_cwd = Some("/home/dev/tinytodo/src".into());
    core(
        &mut other,
        vec![Event::CallFinished {
            id: 1,
            outcome: done,
        }],
    );
    prompted(&mut other, 2);
    let s = screen(&other);
    assert!(
        s.contains("/home/dev/tinytodo/src (after the agent's last command)"),
        "{s}"
    );
    // bash's structured content with a cwd, but no typed report: the
    // workspace, where the shell starts (nothing is dug out of the JSON).
    let mut app = app(120, 40);
    app.update(Msg::Core(Event::CallReceived(bash(1, "cd src", "go"))));
    let mut done = outcome("ok", 3, "exit code: 0", false);
    done.structured = Some(json!({"exit_code": 0, "cwd": "/home/dev/tinytodo/src"}));
    core(
        &mut app,
        vec![Event::CallFinished {
            id: 1,
            outcome: done,
        }],
    );
    prompted(&mut app, 2);
    let s = screen(&app);
    assert!(
        s.contains("/home/dev/tinytodo (the agent's shell starts here)"),
        "{s}"
    );
}

#[test]
fn e_on_a_call_that_cannot_be_edited_says_what_its_prompt_shows() {
    // An agent's command that the agent cannot take back edited.
    let mut native = bash(1, "npm test", "test");
    native.edit = None;
    let mut read = call(
        2,
        "read_file",
        ToolKind::Read,
        json!({"path": "a"}),
        "read_file a",
    );
    read.grant = GrantShape::None;
    for (c, words) in [
        (native, "the command cannot be edited before approval"),
        (read, "the arguments cannot be edited before approval"),
    ] {
        let mut app = app(80, 24);
        app.update(Msg::Prompt {
            call: c,
            verdict: ask("default: exec tools ask"),
        });
        app.now = at(1000);
        assert!(app.update(key('e')).is_empty());
        let notice = app.current_notice().unwrap();
        assert!(notice.starts_with(words), "{notice}");
        assert_eq!(app.live().unwrap().prompts.len(), 1);
    }
}

#[test]
fn a_command_view_says_which_arguments_it_shows_and_the_others_are_listed() {
    // A tool of another name whose command is in `script`: its `command`
    // argument is not the command, so the prompt lists it.
    let mut c = call(
        1,
        "run",
        ToolKind::Exec,
        json!({"script": "make", "command": "not-the-command"}),
        "make",
    );
    c.view = CallView::Command {
        command: "make".into(),
        cwd: None,
        description: None,
        shown_args: &["script"],
    };
    let mut app = app(120, 40);
    app.update(Msg::Prompt {
        call: c,
        verdict: ask("default: exec tools ask"),
    });
    let s = screen(&app);
    assert!(s.contains("$ make"), "{s}");
    assert!(s.contains("command: not-the-command"), "{s}");
    assert!(
        !s.contains("script: make"),
        "shown once, as the command: {s}"
    );
}
