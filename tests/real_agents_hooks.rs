//! The agents' OWN tools through airlock's hooks, end to end: each pinned
//! CLI configured only by `airlock init AGENT` (hooks and MCP server), its
//! scripted model calling the agent's native shell, edit and read tools,
//! airlock's TUI in a PTY answered by keys. What must reach the model is
//! read back from the requests the agent sent it.
//!
//! Run arguments the agents need for their own writing tools headless
//! (`tests/real_agents_support/FACTS.md`, "Hooks"): Codex `-s
//! danger-full-access -c model="gpt-5.5"` (airlock's hook gates each call;
//! the agent runs it outside any sandbox, as the prompt says; `apply_patch`
//! is offered to a model Codex knows) and `--dangerously-bypass-hook-trust`
//! (in place of the user's `/hooks` trust, which `codex exec` cannot ask
//! for); Gemini `--approval-mode yolo` (airlock's hook asks instead).

mod pty_support;
mod real_agents_support;

use std::time::Instant;

use real_agents_support::http::Server;
use real_agents_support::scenario::{Setup, all_agents, received};
use real_agents_support::script::Step;
use real_agents_support::{Agent, Home, agent_command_with, init_with, model, run};
use serde_json::{Value, json};

const DENY_REASON: &str = "keep-the-notes-please";
const PROMPT: &str = "Use your own tools on this workspace.";

fn workspace(h: &Home) {
    h.write("ws/notes.txt", "read-marker quartz-falcon-17\n");
    h.write("ws/todo.txt", "title: ship it\nstatus: draft\n");
    h.write("ws/.env", "SECRET_TOKEN=do-not-read\n");
}

fn native(tool: &'static str, args: Value) -> Step {
    Step::Native { tool, args }
}

const SHELL: &str = "printf 'hook-out-%s\\n' 42";
const DELETE: &str = "rm -f notes.txt";

/// The script: (Claude) a read of .env, refused by airlock's scope without
/// a prompt — Gemini refuses .env itself before its hook, and a Codex read
/// is a shell command; then a shell command (approved), an edit (approved,
/// after its diff is shown), a delete (denied with a reason).
fn steps(agent: Agent, h: &Home) -> Vec<Step> {
    let p = |rel: &str| h.ws.join(rel).display().to_string();
    let mut s = match agent {
        Agent::Claude => vec![
            native("Read", json!({ "file_path": p(".env") })),
            native("Bash", json!({ "command": SHELL, "description": "print" })),
            native("Read", json!({ "file_path": p("todo.txt") })),
            native(
                "Edit",
                json!({ "file_path": p("todo.txt"), "old_string": "status: draft",
                    "new_string": "status: reviewed" }),
            ),
            native(
                "Bash",
                json!({ "command": DELETE, "description": "delete" }),
            ),
        ],
        Agent::Codex => vec![
            native("exec_command", json!({ "cmd": SHELL })),
            native(
                "apply_patch",
                json!(
                    "*** Begin Patch\n*** Update File: todo.txt\n@@\n title: ship it\n-status: draft\n+status: reviewed\n*** End Patch\n"
                ),
            ),
            native("exec_command", json!({ "cmd": DELETE })),
        ],
        Agent::Gemini => vec![
            native(
                "run_shell_command",
                json!({ "command": SHELL, "description": "print" }),
            ),
            native(
                "replace",
                json!({ "file_path": p("todo.txt"), "instruction": "mark reviewed",
                    "old_string": "status: draft", "new_string": "status: reviewed" }),
            ),
            native(
                "run_shell_command",
                json!({ "command": DELETE, "description": "delete" }),
            ),
        ],
    };
    s.push(Step::Say("hooks-done"));
    s
}

fn run_args(agent: Agent) -> &'static [&'static str] {
    match agent {
        Agent::Claude => &[],
        Agent::Codex => &[
            "--dangerously-bypass-hook-trust",
            "-s",
            "danger-full-access",
            "-c",
            "model=\"gpt-5.5\"",
        ],
        Agent::Gemini => &["--approval-mode", "yolo"],
    }
}

async fn scenario(agent: Agent, cli: std::path::PathBuf) -> Result<String, String> {
    let started = Instant::now();
    let Setup {
        h,
        server,
        init,
        mut tui,
    } = Setup::start(agent, workspace, |h| steps(agent, h), &[]).await?;
    if !init.contains("Hook command:") {
        return Err(format!("init did not install the hooks: {init}"));
    }
    let cmd = agent_command_with(&h, agent, &cli, &server.url, PROMPT, run_args(agent));
    let task = tokio::spawn(run(cmd, 400));
    let drive = async {
        // The shell command, whole.
        tui.answer_showing("y", &["printf 'hook-out-%s", "42"], 180)
            .await?;
        // The edit: its diff (both sides of the changed line).
        tui.answer_showing("y", &["status: draft", "status: reviewed"], 120)
            .await?;
        // The delete, refused with a reason.
        tui.answer_showing("n", &[DELETE], 120).await?;
        tui.wait_screen("Reason for the agent", 30).await?;
        tui.keys(&format!("{DENY_REASON}\r"));
        Ok::<(), String>(())
    };
    let driven = drive.await;
    let out = task.await.map_err(|e| e.to_string())?;
    let last_screen = tui.screen();
    tui.quit().await;

    let mut f = Vec::new();
    if let Err(e) = driven {
        f.push(format!("driving the TUI: {e}"));
    }
    match &out {
        Ok(o) if String::from_utf8_lossy(&o.stdout).contains("hooks-done") => {}
        other => f.push(format!("the agent: {other:?}")),
    }
    let got = received(agent, &server).join("\n---\n");
    for (what, needle) in [
        ("the approved command's output", "hook-out-42"),
        ("the denial's reason", DENY_REASON),
    ] {
        if !got.contains(needle) {
            f.push(format!("{what} did not reach the model"));
        }
    }
    // Claude's script reads .env first: airlock's scope refusal is what
    // its model must get.
    if agent == Agent::Claude && !got.contains("excluded by pattern") {
        f.push("the .env refusal did not reach the model".into());
    }
    if got.contains("SECRET_TOKEN") {
        f.push("the .env content reached the model".into());
    }
    let todo = std::fs::read_to_string(h.ws.join("todo.txt")).unwrap_or_default();
    if !todo.contains("status: reviewed") {
        f.push(format!("the approved edit was not applied: {todo:?}"));
    }
    if !h.ws.join("notes.txt").exists() {
        f.push("notes.txt was deleted though the human denied it".into());
    }
    let records = h.log_json();
    let native: Vec<&Value> = records
        .iter()
        .filter(|r| r["type"] == "call_requested" && r["call"]["runner"]["native_tool"].is_string())
        .collect();
    let finished = |id: &Value| {
        records
            .iter()
            .any(|r| r["type"] == "call_finished" && &r["call_id"] == id)
    };
    let expected = steps(agent, &h).len() - 1;
    if native.len() < expected {
        f.push(format!(
            "{} native calls in the trail, not {expected}",
            native.len()
        ));
    }
    for r in &native {
        if !finished(&r["call"]["id"]) {
            f.push(format!("no result in the trail for {}", r["call"]));
        }
    }
    if f.is_empty() {
        Ok(format!("{agent:?} passed in {:.0?}", started.elapsed()))
    } else {
        Err(format!(
            "{agent:?}:\n- {}\nresults: {got}\nscreen: {}",
            f.join("\n- "),
            last_screen
        ))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_agents_native_tools_wait_for_the_human_through_hooks() {
    all_agents(scenario).await;
}

/// No supervisor: a native shell command must not run silently. (Claude
/// `-p` cannot ask; the hook hands the call back to Claude's own approval,
/// which refuses it headless.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_supervisor_a_native_command_does_not_run_silently() {
    let Some(cli) = Agent::Claude.cli() else {
        return;
    };
    let h = Home::new();
    workspace(&h);
    let steps = vec![
        native(
            "Bash",
            json!({ "command": DELETE, "description": "delete" }),
        ),
        Step::Say("hooks-done"),
    ];
    let server = Server::start(model(Agent::Claude, steps)).await;
    let _ = init_with(&h, Agent::Claude, &[]);
    let cmd = agent_command_with(&h, Agent::Claude, &cli, &server.url, PROMPT, &[]);
    let out = run(cmd, 300).await;
    assert!(out.is_ok(), "{out:?}");
    assert!(
        h.ws.join("notes.txt").exists(),
        "the command ran with no supervisor: {:?}",
        received(Agent::Claude, &server)
    );
}
