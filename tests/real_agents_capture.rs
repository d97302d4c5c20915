//! Records the hook events the pinned agent CLIs send, into
//! tests/fixtures/hooks/<agent>-<version>/ (see the README there). Not part
//! of the normal run: `cargo test --test real_agents_capture -- --ignored`
//! (with scripts/test.sh's `AIRLOCK_TEST_*` variables) captures them again.
//!
//! Each agent gets a private home configured by `airlock init AGENT
//! --no-hooks` (airlock's MCP server, for the MCP tool call) plus a capture
//! hook on its pre- and post-tool events (tests/fixtures/hooks/
//! capture-hook.sh: saves stdin, answers "allow", exits 0); the scripted
//! model then calls each native tool once, and airlock's `read_file`.

mod pty_support;
mod real_agents_support;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Output;

use real_agents_support::http::Server;
use real_agents_support::pty::Tui;
use real_agents_support::scenario::last_results;
use real_agents_support::script::{Step, flatten};
use real_agents_support::{Agent, Home, agent_command_with, init_with, model, run, user_settings};
use serde_json::{Value, json};

/// `airlock init` without its own hooks: the capture hook is the only one.
const INIT_ARGS: &[&str] = &["--no-hooks"];

const PROMPT: &str = "Call each tool once, in order.";

/// The root of every test's temp dir is replaced by this in the fixtures.
const ROOT: &str = "@ROOT@";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hooks")
}

fn capture_hook() -> String {
    fixtures().join("capture-hook.sh").display().to_string()
}

fn workspace(h: &Home) {
    h.write("ws/notes.txt", "read-marker quartz-falcon-17\n");
    h.write(
        "ws/src/app.txt",
        "first line\ngrep-needle alpha\nmiddle line\ngrep-needle omega\n",
    );
    h.write("ws/todo.txt", "title: ship it\nstatus: draft\n");
    h.write("ws/.env", "SECRET_TOKEN=do-not-read\n");
    h.write("ws/gone.txt", "to be deleted\n");
    h.write("ws/old.txt", "old name\n");
    h.write(
        "ws/nb.ipynb",
        &json!({ "cells": [{ "cell_type": "code", "id": "c1", "metadata": {},
            "source": ["print(1)\n"], "outputs": [], "execution_count": null }],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5 })
        .to_string(),
    );
}

fn native(tool: &'static str, args: Value) -> Step {
    Step::Native { tool, args }
}

/// Prints `bash-out-42`, a line the command itself does not hold (Gemini
/// refuses `$(…)`, so no arithmetic).
const BASH_CMD: &str = "printf 'bash-out-%s\\n' 42";

fn claude_steps(h: &Home, url: &str) -> Vec<(&'static str, Step)> {
    let p = |rel: &str| h.ws.join(rel).display().to_string();
    vec![
        (
            "Read",
            native("Read", json!({ "file_path": p("todo.txt") })),
        ),
        (
            "Read-env",
            native("Read", json!({ "file_path": p(".env") })),
        ),
        (
            "Grep",
            native(
                "Grep",
                json!({ "pattern": "grep-needle", "path": p("."), "output_mode": "content" }),
            ),
        ),
        (
            "Glob",
            native("Glob", json!({ "pattern": "**/*.txt", "path": p(".") })),
        ),
        ("LS", native("LS", json!({ "path": p(".") }))),
        (
            "Bash",
            native(
                "Bash",
                json!({ "command": BASH_CMD, "description": "print a line" }),
            ),
        ),
        (
            "Edit",
            native(
                "Edit",
                json!({ "file_path": p("todo.txt"), "old_string": "status: draft",
                    "new_string": "status: reviewed" }),
            ),
        ),
        (
            "MultiEdit",
            native(
                "MultiEdit",
                json!({ "file_path": p("todo.txt"), "edits": [
                    { "old_string": "title: ship it", "new_string": "title: shipped" }] }),
            ),
        ),
        (
            "Write",
            native(
                "Write",
                json!({ "file_path": p("new.txt"), "content": "a new file\n" }),
            ),
        ),
        (
            "Read-notebook",
            native("Read", json!({ "file_path": p("nb.ipynb") })),
        ),
        (
            "NotebookEdit",
            native(
                "NotebookEdit",
                json!({ "notebook_path": p("nb.ipynb"), "cell_id": "c1",
                    "new_source": "print(2)", "edit_mode": "replace" }),
            ),
        ),
        (
            "WebFetch",
            native(
                "WebFetch",
                json!({ "url": format!("{url}/page"), "prompt": "summarise the page" }),
            ),
        ),
        (
            "WebSearch",
            native("WebSearch", json!({ "query": "airlock supervisor" })),
        ),
        (
            "mcp",
            Step::Call {
                tool: "read_file",
                args: json!({ "path": "notes.txt" }),
            },
        ),
    ]
}

fn patch(body: &str) -> Value {
    json!(format!("*** Begin Patch\n{body}*** End Patch\n"))
}

fn codex_steps(_h: &Home, _url: &str) -> Vec<(&'static str, Step)> {
    vec![
        (
            "exec_command",
            native("exec_command", json!({ "cmd": BASH_CMD })),
        ),
        (
            "apply_patch-add",
            native("apply_patch", patch("*** Add File: new.txt\n+a new file\n")),
        ),
        (
            "apply_patch-update",
            native(
                "apply_patch",
                patch(
                    "*** Update File: todo.txt\n@@\n title: ship it\n-status: draft\n+status: reviewed\n",
                ),
            ),
        ),
        (
            "apply_patch-delete",
            native("apply_patch", patch("*** Delete File: gone.txt\n")),
        ),
        (
            "apply_patch-move",
            native(
                "apply_patch",
                patch(
                    "*** Update File: old.txt\n*** Move to: moved.txt\n@@\n-old name\n+new name\n",
                ),
            ),
        ),
        (
            "apply_patch-multi",
            native(
                "apply_patch",
                patch(
                    "*** Add File: one.txt\n+one\n*** Update File: notes.txt\n@@\n-read-marker quartz-falcon-17\n+read-marker quartz-falcon-18\n",
                ),
            ),
        ),
        (
            "exec_command-apply_patch",
            native(
                "exec_command",
                json!({ "cmd": "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: via-shell.txt\n+through the shell\n*** End Patch\nEOF\n" }),
            ),
        ),
        (
            "exec_command-env",
            native("exec_command", json!({ "cmd": "cat .env" })),
        ),
    ]
}

/// Codex offers MCP tools directly only to a model it has no metadata
/// for (to gpt-5.5 it defers them behind tool search): a second run.
fn codex_mcp_steps(_h: &Home, _url: &str) -> Vec<(&'static str, Step)> {
    vec![(
        "mcp",
        Step::Call {
            tool: "read_file",
            args: json!({ "path": "todo.txt" }),
        },
    )]
}

fn gemini_steps(h: &Home, url: &str) -> Vec<(&'static str, Step)> {
    let p = |rel: &str| h.ws.join(rel).display().to_string();
    vec![
        (
            "read_file",
            native("read_file", json!({ "file_path": p("notes.txt") })),
        ),
        (
            "read_file-env",
            native("read_file", json!({ "file_path": p(".env") })),
        ),
        (
            "read_many_files",
            native("read_many_files", json!({ "include": ["src/*.txt"] })),
        ),
        (
            "list_directory",
            native("list_directory", json!({ "dir_path": p(".") })),
        ),
        ("glob", native("glob", json!({ "pattern": "**/*.txt" }))),
        (
            "grep_search",
            native("grep_search", json!({ "pattern": "grep-needle" })),
        ),
        (
            "run_shell_command",
            native(
                "run_shell_command",
                json!({ "command": BASH_CMD, "description": "print a line" }),
            ),
        ),
        (
            "replace",
            native(
                "replace",
                json!({ "file_path": p("todo.txt"), "instruction": "mark it reviewed",
                    "old_string": "status: draft", "new_string": "status: reviewed" }),
            ),
        ),
        (
            "write_file",
            native(
                "write_file",
                json!({ "file_path": p("new.txt"), "content": "a new file\n" }),
            ),
        ),
        (
            "web_fetch",
            native(
                "web_fetch",
                json!({ "prompt": format!("summarise {url}/page") }),
            ),
        ),
        (
            "google_web_search",
            native(
                "google_web_search",
                json!({ "query": "airlock supervisor" }),
            ),
        ),
        (
            "mcp",
            Step::Call {
                tool: "read_file",
                args: json!({ "path": "notes.txt" }),
            },
        ),
    ]
}

/// The capture hook as one command line: `capture-hook.sh DIR EVENT 'ANSWER'`.
fn hook_command(dir: &Path, event: &str, answer: &str) -> String {
    let mut c = format!("{} {} {event}", capture_hook(), dir.display());
    if !answer.is_empty() {
        let _ = write!(c, " '{answer}'");
    }
    c
}

fn edit_json(path: &Path, f: impl FnOnce(&mut Value)) {
    let mut v: Value = std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(json!({}));
    f(&mut v);
    std::fs::write(path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
}

/// Undoes what `airlock init --no-hooks` turns off, so the agent's own
/// tools are offered and run (their post-tool events need them to run).
fn native_tools_on(h: &Home, agent: Agent) {
    match agent {
        Agent::Claude => edit_json(&h.home.join(".claude/settings.json"), |v| {
            if let Some(p) = v["permissions"].as_object_mut() {
                p.remove("deny");
            }
        }),
        Agent::Codex => {
            let path = h.home.join(".codex/config.toml");
            let text = std::fs::read_to_string(&path).unwrap();
            let text = text
                .replace("shell_tool = false", "shell_tool = true")
                .replace("unified_exec = false", "unified_exec = true");
            std::fs::write(&path, text).unwrap();
        }
        Agent::Gemini => edit_json(&h.home.join(".gemini/settings.json"), |v| {
            if let Some(t) = v["tools"].as_object_mut() {
                t.remove("exclude");
            }
        }),
    }
}

/// Adds the capture hooks to the agent's own configuration.
fn install_capture(h: &Home, agent: Agent, dir: &Path) {
    match agent {
        Agent::Claude => {
            let allow = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#;
            edit_json(&h.home.join(".claude/settings.json"), |v| {
                v["hooks"] = json!({
                    "PreToolUse": [{ "matcher": "*", "hooks": [{ "type": "command",
                        "command": hook_command(dir, "PreToolUse", allow), "timeout": 60 }] }],
                    "PostToolUse": [{ "matcher": "*", "hooks": [{ "type": "command",
                        "command": hook_command(dir, "PostToolUse", ""), "timeout": 60 }] }],
                    "PostToolUseFailure": [{ "matcher": "*", "hooks": [{ "type": "command",
                        "command": hook_command(dir, "PostToolUseFailure", ""), "timeout": 60 }] }],
                });
            });
        }
        Agent::Codex => {
            let path = h.home.join(".codex/config.toml");
            let mut text = std::fs::read_to_string(&path).unwrap();
            for event in ["PreToolUse", "PostToolUse"] {
                let _ = write!(
                    text,
                    "\n[[hooks.{event}]]\n\n[[hooks.{event}.hooks]]\ntype = \"command\"\n\
                     command = {}\ntimeout = 60\n",
                    toml_str(&hook_command(dir, event, ""))
                );
            }
            std::fs::write(&path, text).unwrap();
        }
        Agent::Gemini => {
            edit_json(&h.home.join(".gemini/settings.json"), |v| {
                v["hooks"] = json!({
                    "BeforeTool": [{ "hooks": [{ "type": "command",
                        "command": hook_command(dir, "BeforeTool", r#"{"decision":"allow"}"#),
                        "timeout": 60000 }] }],
                    "AfterTool": [{ "hooks": [{ "type": "command",
                        "command": hook_command(dir, "AfterTool", ""), "timeout": 60000 }] }],
                });
            });
        }
    }
}

fn toml_str(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// Arguments that let the agent run its own writing tools headless (the
/// capture hook allows everything; airlock's real hook is what gates them).
fn run_args(agent: Agent, pass: Pass) -> &'static [&'static str] {
    match agent {
        Agent::Claude => &[],
        Agent::Codex if pass != Pass::Native => &["--dangerously-bypass-hook-trust"],
        // A model Codex knows (gpt-5.5) is offered `apply_patch` (freeform);
        // the scripted one gets fallback metadata without it.
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

fn version(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude => airlock::init::CLAUDE_CODE_VERSION,
        Agent::Codex => airlock::init::CODEX_VERSION,
        Agent::Gemini => airlock::init::GEMINI_VERSION,
    }
}

/// The step a payload belongs to: the `_scripted_N` in its tool-use id,
/// else the next step of that tool in order.
fn label_of(
    payload: &Value,
    tool: &str,
    labels: &[(&'static str, Option<String>)],
    used: &mut Vec<(String, usize)>,
) -> String {
    let text = payload.to_string();
    if let Some(i) = text.find("_scripted_") {
        let n: String = text[i + 10..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if let Some((l, _)) = n.parse::<usize>().ok().and_then(|n| labels.get(n)) {
            return l.to_string();
        }
    }
    let event = payload["hook_event_name"]
        .as_str()
        .unwrap_or("?")
        .to_string();
    let seen = used
        .iter()
        .filter(|(k, _)| *k == format!("{event}/{tool}"))
        .count();
    used.push((format!("{event}/{tool}"), 0));
    labels
        .iter()
        .filter(|(_, t)| t.as_deref() == Some(tool))
        .nth(seen)
        .map_or_else(|| tool.to_string(), |(l, _)| l.to_string())
}

fn anonymise(text: &str, h: &Home) -> String {
    text.replace(&h.root.display().to_string(), ROOT)
}

/// One run of an agent: its native tools, or (Codex) airlock's MCP tool.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Pass {
    Native,
    Mcp,
    /// The decision formats: `probe-hook.sh` answers each shell call by
    /// the marker in its command.
    Probe,
}

const PROBES: [&str; 7] = [
    "probe-deny",
    "probe-rewrite",
    "probe-exit2",
    "probe-exit1",
    "probe-slow",
    "probe-garbage",
    "probe-plain",
];

/// `AIRLOCK_PROBE_ONLY=probe-slow` runs one probe.
fn probe_steps(agent: Agent) -> Vec<(&'static str, Step)> {
    let only = std::env::var("AIRLOCK_PROBE_ONLY").ok();
    PROBES
        .iter()
        .filter(|p| only.as_deref().is_none_or(|o| o == **p))
        .map(|p| {
            let command = format!("printf 'out-%s\\n' {p}");
            let step = match agent {
                Agent::Claude => native("Bash", json!({ "command": command, "description": *p })),
                Agent::Codex => native("exec_command", json!({ "cmd": command })),
                Agent::Gemini => native(
                    "run_shell_command",
                    json!({ "command": command, "description": *p }),
                ),
            };
            (*p, step)
        })
        .collect()
}

/// The probe hook on the pre-tool event only, with a 3 s timeout
/// (`AIRLOCK_PROBE_TIMEOUT`: another, in the agent's unit).
fn install_probe(h: &Home, agent: Agent, dir: &Path) {
    let timeout: u64 = std::env::var("AIRLOCK_PROBE_TIMEOUT")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(if agent == Agent::Gemini { 3000 } else { 3 });
    let hook = fixtures().join("probe-hook.sh");
    let command = format!("{} {} {}", hook.display(), agent.id(), dir.display());
    match agent {
        Agent::Claude => edit_json(&h.home.join(".claude/settings.json"), |v| {
            v["hooks"] = json!({ "PreToolUse": [{ "matcher": "*", "hooks": [
                { "type": "command", "command": command, "timeout": timeout }] }] });
        }),
        Agent::Codex => {
            let path = h.home.join(".codex/config.toml");
            let mut text = std::fs::read_to_string(&path).unwrap();
            let _ = write!(
                text,
                "\n[[hooks.PreToolUse]]\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\n\
                 command = {}\ntimeout = {timeout}\n",
                toml_str(&command)
            );
            std::fs::write(&path, text).unwrap();
        }
        Agent::Gemini => edit_json(&h.home.join(".gemini/settings.json"), |v| {
            v["hooks"] = json!({ "BeforeTool": [{ "hooks": [
                { "type": "command", "command": command, "timeout": timeout }] }] });
        }),
    }
}

/// Each step's label with the native tool it calls (`None`: not native).
type Labels = Vec<(&'static str, Option<String>)>;

/// The steps of `agent`'s `pass` (web fetches to `url`), then the closing
/// words, and their labels.
fn labelled_steps(agent: Agent, pass: Pass, h: &Home, url: &str) -> (Labels, Vec<Step>) {
    let labelled = match (agent, pass) {
        (_, Pass::Probe) => probe_steps(agent),
        (Agent::Claude, _) => claude_steps(h, url),
        (Agent::Codex, Pass::Native) => codex_steps(h, url),
        (Agent::Codex, Pass::Mcp) => codex_mcp_steps(h, url),
        (Agent::Gemini, _) => gemini_steps(h, url),
    };
    let labels: Labels = labelled
        .iter()
        .map(|(l, s)| {
            let tool = match s {
                Step::Native { tool, .. } => Some(tool.to_string()),
                _ => None,
            };
            (*l, tool)
        })
        .collect();
    let mut steps: Vec<Step> = labelled.into_iter().map(|(_, s)| s).collect();
    steps.push(Step::Say("capture-done"));
    (labels, steps)
}

/// airlock's MCP server by `airlock init AGENT --no-hooks`, the agent's own
/// tools back on, and the capture hook (or for a probe, the probe hook)
/// writing into `dir`.
fn configure(h: &Home, agent: Agent, pass: Pass, dir: &Path) {
    init_with(h, agent, INIT_ARGS);
    native_tools_on(h, agent);
    match pass {
        Pass::Probe => install_probe(h, agent, dir),
        _ => install_capture(h, agent, dir),
    }
}

/// Each captured payload (`files`) into `target` as `EVENT-LABEL.json`,
/// anonymised; what was written, with the hook's environment.
fn save_payloads(
    files: &[PathBuf],
    target: &Path,
    labels: &[(&'static str, Option<String>)],
    h: &Home,
) -> Vec<Value> {
    let mut used = Vec::new();
    let mut written = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        let payload: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let event = payload["hook_event_name"].as_str().unwrap_or("unknown");
        let tool = payload["tool_name"].as_str().unwrap_or("unknown");
        let label = label_of(&payload, tool, labels, &mut used);
        let name = format!("{event}-{label}.json");
        let pretty = serde_json::to_string_pretty(&payload).unwrap();
        std::fs::write(target.join(&name), anonymise(&pretty, h) + "\n").unwrap();
        let env = std::fs::read_to_string(f.with_extension("env")).unwrap_or_default();
        written.push(json!({ "file": name, "tool": tool,
            "env": env.lines().collect::<Vec<_>>() }));
    }
    written
}

/// The tools offered in the turn that offered the most, by name.
fn offered_names(agent: Agent, server: &Server) -> Vec<String> {
    server
        .requests()
        .iter()
        .map(|r| real_agents_support::offered(agent, &r.body))
        .max_by_key(Vec::len)
        .unwrap_or_default()
        .iter()
        .map(|t| match &t.namespace {
            Some(ns) => format!("{ns}/{}", t.name),
            None if t.custom => format!("{} (freeform)", t.name),
            None => t.name.clone(),
        })
        .collect()
}

/// The agent's exit status, stdout and stderr (or why it did not finish).
fn outcome(out: &Result<Output, String>) -> (String, String, String) {
    match out {
        Ok(o) => (
            o.status.to_string(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        ),
        Err(e) => (e.clone(), String::new(), String::new()),
    }
}

async fn capture(agent: Agent, pass: Pass) {
    let Some(cli) = agent.cli() else {
        return;
    };
    let h = Home::new();
    workspace(&h);
    let dir = h.root.join("captured");
    std::fs::create_dir_all(&dir).unwrap();
    // Web fetches go to a closed port on 127.0.0.1 (tests talk to no
    // other host): the pre-tool event is what matters.
    let (labels, steps) = labelled_steps(agent, pass, &h, "http://127.0.0.1:9");
    let server = Server::start(model(agent, steps)).await;
    user_settings(&h, agent, &server.url);
    configure(&h, agent, pass, &dir);
    let mut tui = Tui::start(&h.ws, &h.data, &h.env());
    tui.wait_for_new("No calls yet", 60).await.unwrap();
    let cmd = agent_command_with(&h, agent, &cli, &server.url, PROMPT, run_args(agent, pass));
    let out = run(cmd, 400).await;
    tui.quit().await;

    let target = fixtures().join(format!("{}-{}", agent.id(), version(agent)));
    std::fs::create_dir_all(&target).unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let written = if pass == Pass::Probe {
        Vec::new()
    } else {
        save_payloads(&files, &target, &labels, &h)
    };
    let received: Vec<String> = last_results(agent, &server)
        .iter()
        .map(|v| anonymise(&flatten(v), &h))
        .collect();
    let steps: Vec<&str> = labels.iter().map(|(l, _)| *l).collect();
    let (status, stdout, stderr) = outcome(&out);
    let session = json!({
        "agent": agent.id(), "version": version(agent), "run_args": run_args(agent, pass),
        "steps": steps, "captured": written, "offered_tools": offered_names(agent, &server),
        "model_received": received, "agent_status": status,
        "agent_stdout": anonymise(&stdout, &h), "agent_stderr": anonymise(&stderr, &h),
    });
    std::fs::write(
        target.join(match pass {
            Pass::Native => "session.json",
            Pass::Mcp => "session-mcp.json",
            Pass::Probe => "probe-session.json",
        }),
        serde_json::to_string_pretty(&session).unwrap() + "\n",
    )
    .unwrap();
    let dump = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("capture-{}-requests.json", agent.id()));
    let bodies: Vec<Value> = server
        .requests()
        .iter()
        .map(|r| json!({ "method": r.method, "target": r.target, "body": r.body }))
        .collect();
    let _ = std::fs::write(&dump, serde_json::to_vec_pretty(&bodies).unwrap());
    eprintln!(
        "{agent:?}: {} payloads into {} (requests in {})\n{status}\n{stderr}",
        files.len(),
        target.display(),
        dump.display()
    );
    assert!(!files.is_empty(), "no hook event was captured");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "probes the agents' hook decision formats; run with --ignored"]
async fn probe_decisions() {
    let only = std::env::var("AIRLOCK_PROBE_AGENT").ok();
    let runs: Vec<_> = [Agent::Claude, Agent::Codex, Agent::Gemini]
        .into_iter()
        .filter(|a| only.as_deref().is_none_or(|o| o == a.id()))
        .map(|a| tokio::spawn(capture(a, Pass::Probe)))
        .collect();
    for r in runs {
        r.await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "re-captures tests/fixtures/hooks; run with --ignored"]
async fn capture_claude() {
    capture(Agent::Claude, Pass::Native).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "re-captures tests/fixtures/hooks; run with --ignored"]
async fn capture_codex() {
    capture(Agent::Codex, Pass::Native).await;
    capture(Agent::Codex, Pass::Mcp).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "re-captures tests/fixtures/hooks; run with --ignored"]
async fn capture_gemini() {
    capture(Agent::Gemini, Pass::Native).await;
}
