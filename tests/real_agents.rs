//! Claude Code, Codex CLI and Gemini CLI — the real CLIs at the versions
//! scripts/test.sh pins — working through airlock as installed: each agent
//! configured only by `airlock init`, its model a scripted endpoint on
//! 127.0.0.1 (`tests/real_agents_support`), airlock's TUI in a PTY answered
//! by keys. What must reach the model is read back from the requests the
//! agent sent it. The three agents run side by side in one test so the
//! 90-second approval is waited for once.

mod pty_support;
mod real_agents_support;

use std::time::{Duration, Instant};

use real_agents_support::http::Server;
use real_agents_support::procs::{Relay, relays_in};
use real_agents_support::pty::Tui;
use real_agents_support::scenario::{Setup, all_agents, received};
use real_agents_support::script::{Step, airlock_tool};
use real_agents_support::{Agent, Home, agent_command, init, model, run};
use serde_json::{Value, json};

const PROMPT: &str = "Use airlock's tools to look at notes.txt, find grep-needle, run the \
    printing command, mark todo.txt reviewed and try to delete notes.txt.";

/// How long the human takes over the first bash call.
const SLOW_APPROVAL: Duration = Duration::from_secs(91);

const DENY_REASON: &str = "keep-the-notes-please";

/// Every tool airlock serves (DESIGN §3).
const AIRLOCK_TOOLS: [&str; 14] = [
    "bash",
    "cat",
    "diff",
    "edit_file",
    "find",
    "grep",
    "head",
    "ls",
    "pwd",
    "read_file",
    "stat",
    "tail",
    "wc",
    "write_file",
];

/// Tools an agent hides from its model whatever `airlock init` writes:
/// headless Gemini CLI 0.61 drops its own `write_file` (it would need a
/// confirmation) and, matching MCP tools by their unqualified name, airlock's
/// too (`tests/real_agents_support/FACTS.md`).
const HIDDEN: [(Agent, &str); 1] = [(Agent::Gemini, "write_file")];

fn steps() -> Vec<Step> {
    vec![
        Step::Call {
            tool: "read_file",
            args: json!({ "path": "notes.txt" }),
        },
        Step::Call {
            tool: "grep",
            args: json!({ "pattern": "grep-needle", "path": "." }),
        },
        Step::Call {
            tool: "bash",
            args: json!({ "command": "printf 'bash-out-%s\\n' $((40 + 2))",
                "description": "print a line" }),
        },
        Step::Call {
            tool: "edit_file",
            args: json!({ "path": "todo.txt", "old_text": "status: draft",
                "new_text": "status: reviewed" }),
        },
        Step::Call {
            tool: "bash",
            args: json!({ "command": "rm -f notes.txt", "description": "delete the notes" }),
        },
        Step::Say("all-steps-done"),
    ]
}

fn workspace(h: &Home) {
    h.write("ws/notes.txt", "read-marker quartz-falcon-17\n");
    h.write(
        "ws/src/app.txt",
        "first line\ngrep-needle alpha\nmiddle line\ngrep-needle omega\n",
    );
    h.write("ws/todo.txt", "title: ship it\nstatus: draft\n");
}

/// What the test checks, each failure a line.
#[derive(Default)]
struct Failures(Vec<String>);

impl Failures {
    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.0.push(what());
        }
    }
}

/// The human's part: the bash call approved after `SLOW_APPROVAL`, the
/// edit approved, the delete denied with a reason. Returns the `airlock
/// connect` relays running in the workspace while the first prompt waits.
async fn drive(tui: &mut Tui, ws: &std::path::Path) -> Result<Vec<Relay>, String> {
    tui.wait_for_new("Approve?", 240).await?;
    let relays = relays_in(ws);
    tokio::time::sleep(SLOW_APPROVAL).await;
    tui.keys("y");
    tui.answer("y", Duration::ZERO, 120).await?;
    tui.answer("n", Duration::ZERO, 120).await?;
    tui.keys(&format!("{DENY_REASON}\r"));
    Ok(relays)
}

#[expect(clippy::too_many_lines, reason = "one scenario, read top to bottom")]
async fn scenario(agent: Agent, cli: std::path::PathBuf) -> Result<String, String> {
    let started = Instant::now();
    let Setup {
        h, server, mut tui, ..
    } = Setup::start(agent, workspace, |_| steps(), &["--no-hooks"]).await?;

    let mut task = tokio::spawn(run(
        agent_command(&h, agent, &cli, &server.url, PROMPT),
        600,
    ));
    let (driven, early) = tokio::select! {
        r = drive(&mut tui, &h.ws) => (r, None),
        out = &mut task => (
            Err("the agent ended before every prompt was answered".to_string()),
            Some(out),
        ),
    };
    let out = match early {
        Some(out) => out,
        None if driven.is_ok() => (&mut task).await,
        None => {
            task.abort();
            Ok(Err("stopped: the TUI was not driven to the end".into()))
        }
    };
    let out = out.map_err(|e| e.to_string()).and_then(|r| r);
    tui.quit().await;

    let mut f = Failures::default();
    match &driven {
        Err(e) => f.0.push(format!("driving the TUI: {e}")),
        Ok(relays) => relay_checks(agent, relays, &mut f),
    }
    match &out {
        Ok(o) => {
            let stdout = String::from_utf8_lossy(&o.stdout);
            f.check(
                o.status.success() && stdout.contains("all-steps-done"),
                || {
                    format!(
                        "the agent: {}\nstdout: {stdout}\nstderr: {}",
                        o.status,
                        String::from_utf8_lossy(&o.stderr)
                    )
                },
            );
        }
        Err(e) => f.0.push(format!("the agent: {e}")),
    }
    let got = received(agent, &server);
    let result = |i: usize| got.get(i).cloned().unwrap_or_default();
    f.check(result(0).contains("read-marker quartz-falcon-17"), || {
        format!("read_file content did not reach the model: {:?}", result(0))
    });
    f.check(
        result(1).contains("grep-needle alpha") && result(1).contains("grep-needle omega"),
        || format!("grep lines did not reach the model: {:?}", result(1)),
    );
    f.check(result(2).contains("bash-out-42"), || {
        format!("bash output did not reach the model: {:?}", result(2))
    });
    f.check(
        result(2).contains("exit code: 0") || result(2).contains("exit_code: 0"),
        || format!("bash exit code did not reach the model: {:?}", result(2)),
    );
    f.check(result(3).contains("edited todo.txt"), || {
        format!(
            "the edit confirmation did not reach the model: {:?}",
            result(3)
        )
    });
    f.check(result(4).contains(DENY_REASON), || {
        format!(
            "the denial's reason did not reach the model: {:?}",
            result(4)
        )
    });
    offered_checks(agent, &server, &mut f);
    let todo = std::fs::read_to_string(h.ws.join("todo.txt")).unwrap_or_default();
    f.check(todo.contains("status: reviewed"), || {
        format!("todo.txt was not edited: {todo:?}")
    });
    f.check(h.ws.join("notes.txt").exists(), || {
        "notes.txt was deleted though the human denied it".into()
    });
    audit_checks(&h, agent, &mut f);

    let dump = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("real-agents-{}-requests.json", agent.id()));
    let bodies: Vec<Value> = server
        .requests()
        .iter()
        .map(|r| json!({ "method": r.method, "target": r.target, "body": r.body }))
        .collect();
    let _ = std::fs::write(
        &dump,
        serde_json::to_vec_pretty(&bodies).unwrap_or_default(),
    );
    if std::env::var_os("AIRLOCK_TEST_TIMELINE").is_some() {
        for r in server.requests() {
            let n = real_agents_support::results(agent, &r.body).len();
            eprintln!(
                "{agent:?} {:>8.1?} {} {} ({n} results)",
                r.at, r.method, r.target
            );
        }
        if let Ok(relays) = &driven {
            for r in relays {
                eprintln!("{agent:?} airlock connect env: {:?}", r.env);
            }
        }
    }
    if f.0.is_empty() {
        Ok(format!("{agent:?} passed in {:.0?}", started.elapsed()))
    } else {
        let requests: Vec<String> = server
            .requests()
            .iter()
            .map(|r| format!("{} {}", r.method, r.target))
            .collect();
        Err(format!(
            "{agent:?} ({:.0?}):\n- {}\nrequests (bodies in {}): {requests:?}\nresults: {got:#?}\nscreen tail: {}",
            started.elapsed(),
            f.0.join("\n- "),
            dump.display(),
            tail(&tui.text())
        ))
    }
}

fn tail(s: &str) -> String {
    let start = s.len().saturating_sub(3000);
    let start = (start..s.len())
        .find(|i| s.is_char_boundary(*i))
        .unwrap_or(s.len());
    s[start..].to_string()
}

/// The model was offered every airlock tool (but the known `HIDDEN`).
fn offered_checks(agent: Agent, server: &Server, f: &mut Failures) {
    let offered = server
        .requests()
        .iter()
        .map(|r| real_agents_support::offered(agent, &r.body))
        .find(|o| airlock_tool(o, "read_file").is_some())
        .unwrap_or_default();
    for tool in AIRLOCK_TOOLS {
        if HIDDEN.contains(&(agent, tool)) {
            continue;
        }
        f.check(airlock_tool(&offered, tool).is_some(), || {
            format!("airlock's {tool} was not offered to the model")
        });
    }
}

/// The agent's relay was there; Codex's ran with Codex's reduced
/// environment (none of the XDG dirs but what init passes) and still found
/// the supervisor.
fn relay_checks(agent: Agent, relays: &[Relay], f: &mut Failures) {
    f.check(relays.len() == 1, || {
        format!("one airlock connect while the prompt waits, not {relays:?}")
    });
    if agent == Agent::Codex {
        f.check(
            relays
                .iter()
                .all(|r| !r.env.iter().any(|k| k == "XDG_CONFIG_HOME")),
            || format!("Codex started airlock connect with its full environment: {relays:?}"),
        );
    }
}

/// `airlock log --json` names the agent on every call and says who decided.
fn audit_checks(h: &Home, agent: Agent, f: &mut Failures) {
    let records = h.log_json();
    let of = |ty: &str| -> Vec<&Value> { records.iter().filter(|r| r["type"] == ty).collect() };
    let requested = of("call_requested");
    f.check(requested.len() >= 5, || {
        format!("the trail has {} calls, not 5", requested.len())
    });
    for r in &requested {
        let name = r["call"]["agent"]["name"].as_str().unwrap_or_default();
        f.check(name == agent.client_name(), || {
            format!(
                "call {} is from {name:?}, not {}",
                r["call"]["id"],
                agent.client_name()
            )
        });
    }
    let decided = of("call_decided");
    let by = |tool: &str, approved: bool| -> Vec<String> {
        requested
            .iter()
            .filter(|r| r["call"]["tool"] == tool)
            .filter_map(|r| decided.iter().find(|d| d["call_id"] == r["call"]["id"]))
            .filter(|d| d["approved"] == approved)
            .map(|d| d["by"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    f.check(
        by("read_file", true).first().is_some_and(|b| b == "rule"),
        || {
            format!(
                "read_file decided by {:?}, not a rule",
                by("read_file", true)
            )
        },
    );
    f.check(
        by("bash", true) == ["user"] && by("bash", false) == ["user"],
        || {
            format!(
                "bash decided by {:?} (approved) and {:?} (denied)",
                by("bash", true),
                by("bash", false)
            )
        },
    );
    // The first bash call waited SLOW_APPROVAL for the human, then ran.
    let ts =
        |r: &Value| chrono::DateTime::parse_from_rfc3339(r["ts"].as_str().unwrap_or_default()).ok();
    let first_bash = requested.iter().find(|r| r["call"]["tool"] == "bash");
    let waited = first_bash.and_then(|r| {
        let d = decided.iter().find(|d| d["call_id"] == r["call"]["id"])?;
        Some((ts(d)? - ts(r)?).num_seconds())
    });
    f.check(waited.is_some_and(|s| s >= 90), || {
        format!("the first bash call was decided after {waited:?} s, not 90")
    });
    f.check(by("edit_file", true) == ["user"], || {
        format!("edit_file decided by {:?}", by("edit_file", true))
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_agents_read_grep_run_edit_and_are_denied_through_airlock() {
    all_agents(scenario).await;
}

/// Claude Code started before airlock, its server registered (by `airlock
/// init`, then switched to `connect --wait` as a user who wants to start
/// airlock later would): Claude does not wait for a server still starting,
/// answers and exits. The relay it started must be gone, and a supervisor
/// started afterwards must not get a phantom connection from it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_wait_leaves_nothing_behind_when_the_agent_exits_first() {
    let Some(cli) = Agent::Claude.cli() else {
        return;
    };
    let h = Home::new();
    workspace(&h);
    let server = Server::start(model(Agent::Claude, vec![Step::Say("no-supervisor-yet")])).await;
    let _ = init(&h, Agent::Claude);
    let config = h.home.join(".claude.json");
    let mut v: Value = serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
    assert_eq!(v["mcpServers"]["airlock"]["args"], json!(["connect"]));
    v["mcpServers"]["airlock"]["args"] = json!(["connect", "--wait"]);
    std::fs::write(&config, serde_json::to_vec_pretty(&v).unwrap()).unwrap();

    let cmd = agent_command(&h, Agent::Claude, &cli, &server.url, "say hello");
    let out = run(cmd, 300).await.expect("claude -p ends");
    assert!(out.status.success(), "{out:?}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !relays_in(&h.ws).is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let left = relays_in(&h.ws);
    for r in &left {
        let _ = rustix::process::kill_process(
            rustix::process::Pid::from_raw(i32::try_from(r.pid).expect("a pid fits an i32"))
                .unwrap(),
            rustix::process::Signal::KILL,
        );
    }
    assert!(left.is_empty(), "relays left behind by the agent: {left:?}");

    let mut tui = Tui::start(&h.ws, &h.data, &h.env());
    tui.wait_for_new("No calls yet", 60).await.unwrap();
    tokio::time::sleep(Duration::from_secs(3)).await;
    tui.quit().await;
    let connected: Vec<Value> = h
        .log_json()
        .into_iter()
        .filter(|r| r["type"] == "agent_connected")
        .collect();
    assert!(connected.is_empty(), "phantom connections: {connected:?}");
}
