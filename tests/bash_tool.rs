//! The bash tool through the real pipeline: a session started like the
//! binary starts one, calls approved by the approve-all confirmer.

mod bash_support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use airlock::call::{AgentInfo, Event};
use airlock::session::{self, Session, SessionOptions};
use airlock::supervisor::ApproveAllConfirmer;
use airlock::tools::ToolOutput;
use bash_support::{alive, gone_within};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

struct Fixture {
    _dir: tempfile::TempDir,
    ws: std::path::PathBuf,
    session: Session,
}

fn fixture(config: &str) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let ws = std::fs::canonicalize(ws).unwrap();
    let cfg = dir.path().join("config.toml");
    // These tests follow the shell by its host pid (`echo $PPID`: each
    // command runs in a bash of its own, which the shell starts) and check
    // the process-tree kill that runs when there is no PID namespace; with one
    // (the default) the shell is pid 1 in it: tests/sandbox_procs.rs.
    std::fs::write(
        &cfg,
        format!("{config}\n[sandbox]\ncontain_processes = false\n"),
    )
    .unwrap();
    let session = session::start(
        &SessionOptions {
            workspace: ws.clone(),
            data_dir: Some(dir.path().join("data")),
            config_file: Some(cfg),
            mode: airlock::call::SessionMode::Supervisor,
            policy_mode: None,
            user_config: false,
        },
        Arc::new(ApproveAllConfirmer),
    )
    .unwrap();
    Fixture {
        _dir: dir,
        ws,
        session,
    }
}

impl Fixture {
    fn agent(&self, name: &str) -> AgentInfo {
        self.session.supervisor.agent_connected(Some(name), None)
    }

    async fn bash(&self, agent: &AgentInfo, args: Value) -> ToolOutput {
        self.bash_cancel(agent, args, CancellationToken::new())
            .await
    }

    async fn bash_cancel(
        &self,
        agent: &AgentInfo,
        args: Value,
        c: CancellationToken,
    ) -> ToolOutput {
        let args = args.as_object().unwrap().clone();
        self.session
            .supervisor
            .call(agent, "bash", Some(args), c, None)
            .await
            .unwrap()
    }

    fn audit(&self) -> String {
        std::fs::read_to_string(&self.session.audit_path).unwrap()
    }
}

fn pid_of(out: &ToolOutput) -> i32 {
    out.text.lines().next().unwrap().trim().parse().unwrap()
}

#[tokio::test]
async fn result_has_exit_code_and_structured_content() {
    let f = fixture("");
    let a = f.agent("a");
    let out = f
        .bash(&a, json!({"command": "echo hi", "description": "say hi"}))
        .await;
    assert_eq!(out.text, "hi\nexit code: 0");
    assert!(!out.is_error);
    let s = out.structured.unwrap();
    assert_eq!(s["exit_code"], 0);
    assert_eq!(s["timed_out"], false);
    assert_eq!(s["truncated"], false);
    assert_eq!(s["cwd"], f.ws.display().to_string());
    assert_eq!(
        out.shell_cwd,
        Some(f.ws.display().to_string()),
        "typed, too"
    );
    assert!(s["duration_ms"].is_u64());

    let out = f
        .bash(
            &a,
            json!({"command": "echo oops >&2; exit_code() { return 3; }; exit_code"}),
        )
        .await;
    assert_eq!(out.text, "oops\nexit code: 3");
    assert!(out.is_error);

    let out = f.bash(&a, json!({"command": "   "})).await;
    assert!(out.is_error && out.text.contains("empty"), "{}", out.text);
    let out = f.bash(&a, json!({})).await;
    assert!(out.is_error && out.text.contains("command"), "{}", out.text);
    // The audit trail has the call, its description and its result.
    let audit = f.audit();
    assert!(audit.contains("say hi"));
    assert!(audit.contains("exit code: 3"));
}

#[tokio::test]
async fn two_agents_get_two_shells() {
    let f = fixture("");
    let a = f.agent("a");
    let b = f.agent("b");
    let pa = pid_of(
        &f.bash(&a, json!({"command": "echo $PPID; cd /tmp; export X=a"}))
            .await,
    );
    let pb = f
        .bash(&b, json!({"command": "echo $PPID; pwd; echo ${X:-unset}"}))
        .await;
    assert_ne!(pa, pid_of(&pb));
    assert_eq!(
        pb.text,
        format!("{}\n{}\nunset\nexit code: 0", pid_of(&pb), f.ws.display())
    );
    let again = f
        .bash(&a, json!({"command": "echo $PPID; pwd; echo $X"}))
        .await;
    assert_eq!(again.text, format!("{pa}\n/tmp\na\nexit code: 0"));

    // Disconnecting an agent ends its shell, not the other one.
    f.session.supervisor.agent_disconnected(&a);
    assert!(gone_within(pa, Duration::from_secs(2)));
    assert!(alive(pid_of(&pb)));
    f.session.supervisor.shutdown("test over");
    assert!(gone_within(pid_of(&pb), Duration::from_secs(2)));
}

#[tokio::test]
async fn timeout_reports_and_restarts_the_session() {
    let f = fixture("[bash]\nmax_timeout_secs = 5\n");
    let a = f.agent("a");
    let pid = pid_of(&f.bash(&a, json!({"command": "echo $PPID; cd /tmp"})).await);
    let t = Instant::now();
    let out = f
        .bash(
            &a,
            json!({"command": "echo before; sleep 1000", "timeout_secs": 1}),
        )
        .await;
    assert!(t.elapsed() < Duration::from_secs(4), "{:?}", t.elapsed());
    assert!(out.is_error);
    assert!(out.text.starts_with("before\n"), "{}", out.text);
    assert!(out.text.contains("timed out after 1 s"), "{}", out.text);
    assert!(out.text.contains("restarted"), "{}", out.text);
    let s = out.structured.unwrap();
    assert_eq!(s["timed_out"], true);
    assert!(s["exit_code"].is_null());
    assert!(gone_within(pid, Duration::from_secs(2)));
    // A fresh shell in the workspace.
    let out = f.bash(&a, json!({"command": "pwd"})).await;
    assert_eq!(out.text, format!("{}\nexit code: 0", f.ws.display()));
    // An agent's timeout is capped by max_timeout_secs.
    let out = f
        .bash(
            &a,
            json!({"command": "sleep 1000", "timeout_secs": 100_000}),
        )
        .await;
    assert!(out.text.contains("timed out after 5 s"), "{}", out.text);
}

#[tokio::test]
async fn exit_restart_and_cancel() {
    let f = fixture("");
    let a = f.agent("a");
    // `exit` ends the command (each has a bash of its own), not the shell.
    let out = f.bash(&a, json!({"command": "exit 3"})).await;
    assert!(out.is_error);
    assert_eq!(out.text, "exit code: 3");
    let out = f
        .bash(&a, json!({"command": "cd /tmp && X=1 && echo ok"}))
        .await;
    assert!(!out.is_error, "{}", out.text);

    let out = f.bash(&a, json!({"restart": true})).await;
    assert!(
        !out.is_error && out.text.contains("restarted"),
        "{}",
        out.text
    );
    let out = f
        .bash(&a, json!({"command": "pwd; echo ${X:-unset}"}))
        .await;
    assert_eq!(out.text, format!("{}\nunset\nexit code: 0", f.ws.display()));
    let out = f
        .bash(&a, json!({"command": "cd /tmp", "restart": true}))
        .await;
    assert!(out.text.contains("restarted first"), "{}", out.text);

    // The agent cancels a running command: it is killed, the call ends.
    let pid = pid_of(&f.bash(&a, json!({"command": "echo $PPID"})).await);
    let cancel = CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        c.cancel();
    });
    let t = Instant::now();
    let out = f
        .bash_cancel(&a, json!({"command": "sleep 1000"}), cancel)
        .await;
    assert!(t.elapsed() < Duration::from_secs(3));
    assert!(
        out.is_error && out.text.contains("cancelled"),
        "{}",
        out.text
    );
    assert!(gone_within(pid, Duration::from_secs(2)));
    let finished: Vec<&str> = f
        .audit()
        .lines()
        .filter(|l| l.contains("\"type\":\"call_finished\""))
        .map(|l| {
            if l.contains("\"status\":\"cancelled\"") {
                "cancelled"
            } else {
                "other"
            }
        })
        .collect();
    assert_eq!(
        finished.last(),
        Some(&"cancelled"),
        "a cancelled command is audited as cancelled"
    );
}

#[tokio::test]
async fn large_output_keeps_head_tail_and_exit_code_through_the_pipeline() {
    let f = fixture("");
    let a = f.agent("a");
    // ~590 KB: above bash.max_output_bytes (256 KiB), far above the
    // read-only tools' 32 KiB limit that must not apply to bash.
    let out = f.bash(&a, json!({"command": "seq 100000"})).await;
    assert!(!out.is_error, "{}", &out.text[out.text.len() - 200..]);
    assert!(out.text.starts_with("1\n2\n3\n"));
    assert!(
        out.text.ends_with("99999\n100000\nexit code: 0"),
        "{}",
        &out.text[out.text.len() - 100..]
    );
    assert!(
        out.text.len() > 200_000 && out.text.len() < 270_000,
        "{}",
        out.text.len()
    );
    assert!(
        out.text.contains("bytes"),
        "the marker says how much was left out"
    );
    assert!(out.truncated);
}

#[tokio::test]
async fn shutdown_ends_a_running_command() {
    let f = fixture("");
    let a = f.agent("a");
    let pid = pid_of(&f.bash(&a, json!({"command": "echo $PPID"})).await);
    let sup = f.session.supervisor.clone();
    let agent = a.clone();
    let call = tokio::spawn(async move {
        let args = json!({"command": "sleep 1000"})
            .as_object()
            .unwrap()
            .clone();
        sup.call(&agent, "bash", Some(args), CancellationToken::new(), None)
            .await
            .unwrap()
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    f.session.supervisor.shutdown("test");
    // Killed synchronously by shutdown, before the call even returns.
    assert!(!alive(pid) || gone_within(pid, Duration::from_millis(200)));
    let out = tokio::time::timeout(Duration::from_secs(5), call)
        .await
        .unwrap()
        .unwrap();
    assert!(out.is_error, "{}", out.text);
}

#[tokio::test]
async fn output_is_streamed_on_the_event_bus() {
    let f = fixture("");
    let a = f.agent("a");
    let mut rx = f.session.supervisor.events().subscribe();
    let out = f
        .bash(&a, json!({"command": "echo one; sleep 0.2; echo two"}))
        .await;
    assert!(!out.is_error);
    let mut streamed = Vec::new();
    while let Ok(ev) = rx.try_recv() {
        if let Event::CallOutput { chunk, .. } = ev {
            streamed.extend(chunk);
        }
    }
    assert_eq!(streamed, b"one\r\ntwo\r\n");
}

#[tokio::test]
async fn guardrails_refuse_without_running() {
    let f = fixture("");
    let a = f.agent("a");
    let out = f
        .bash(&a, json!({"command": "touch ran && rm -rf ~"}))
        .await;
    assert!(out.is_error);
    assert!(out.text.contains("rm-root"), "{}", out.text);
    assert!(out.text.contains("built-in guardrail"), "{}", out.text);
    assert!(!f.ws.join("ran").exists());
    let audit = f.audit();
    assert!(audit.contains("built-in guardrail"));
    let out = f
        .bash(
            &a,
            json!({"command": "mkdir -p build && rm -rf ./build && echo ok"}),
        )
        .await;
    assert_eq!(out.text, "ok\nexit code: 0");
}

#[tokio::test]
async fn calls_of_one_agent_take_turns_on_its_shell() {
    let f = Arc::new(fixture(""));
    let a = f.agent("a");
    let t = Instant::now();
    let (f1, a1) = (f.clone(), a.clone());
    let first = tokio::spawn(async move {
        f1.bash(
            &a1,
            json!({"command": "echo first-start; sleep 0.5; cd /tmp; echo first-end"}),
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let second = f.bash(&a, json!({"command": "echo second; pwd"})).await;
    let first = first.await.unwrap();
    assert!(t.elapsed() >= Duration::from_millis(500));
    assert_eq!(first.text, "first-start\nfirst-end\nexit code: 0");
    // The second ran after the first, on the same shell (it sees the cd).
    assert_eq!(second.text, "second\n/tmp\nexit code: 0");
}

#[tokio::test]
async fn a_shell_killed_between_calls_is_replaced_and_the_agent_told() {
    let f = fixture("");
    let a = f.agent("a");
    let pid = pid_of(&f.bash(&a, json!({"command": "echo $PPID; cd /tmp"})).await);
    let _ = rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid).unwrap(),
        rustix::process::Signal::KILL,
    );
    assert!(gone_within(pid, Duration::from_secs(2)));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let out = f.bash(&a, json!({"command": "pwd"})).await;
    assert!(
        out.text.starts_with("[the previous shell had ended"),
        "{}",
        out.text
    );
    assert!(
        out.text
            .ends_with(&format!("{}\nexit code: 0", f.ws.display())),
        "{}",
        out.text
    );
}

/// A command longer than bash can be given is refused with a clear error
/// before anyone is asked, and recorded; one just under the limit runs.
/// The control: handed to the shell as it is, a command of 2.5 MB fails
/// in the kernel (`Argument list too long`), which is what the limit
/// turns into a message the agent can act on.
#[tokio::test]
async fn a_command_too_long_for_bash_is_refused_and_one_under_the_limit_runs() {
    use airlock::tools::bash::MAX_COMMAND_BYTES;

    let f = fixture("");
    let a = f.agent("a");
    let long = format!("touch ran; : {}", "x".repeat(MAX_COMMAND_BYTES));
    let out = f.bash(&a, json!({ "command": long })).await;
    assert!(out.is_error, "{}", out.text);
    assert!(
        out.text
            .contains(&format!("command is {} bytes", long.len()))
            && out.text.contains("write_file"),
        "{}",
        out.text
    );
    assert!(!f.ws.join("ran").exists());
    assert!(
        f.audit()
            .contains(&format!("command is {} bytes", long.len()))
    );

    let fits = format!(": {}; echo fits", "x".repeat(MAX_COMMAND_BYTES - 20));
    let out = f.bash(&a, json!({ "command": fits })).await;
    assert_eq!(out.text, "fits\nexit code: 0");

    let ws = tempfile::tempdir().unwrap();
    let mut sh = airlock::tools::bash::Shell::spawn(&bash_support::config(ws.path()))
        .await
        .unwrap();
    let huge = format!(": {}; echo ran", "x".repeat(5 * MAX_COMMAND_BYTES / 2));
    let r = bash_support::run(&mut sh, &huge).await;
    assert!(
        r.output.text.contains("Argument list too long") && !r.output.text.contains("ran"),
        "control: {}",
        r.output.text
    );
}

/// A known read-only command that runs without asking
/// (`bash.auto_approve_read_only`) runs without the `PATH` an approved
/// command exported: the workspace's planted `ls` does not run in its
/// place. The control: a command that is asked about (and approved) runs
/// the planted one.
#[tokio::test]
async fn a_known_safe_command_does_not_run_a_planted_program() {
    let f = fixture("[bash]\nauto_approve_read_only = true");
    let a = f.agent("a");
    let plant = "mkdir -p bin && printf '#!/bin/sh\\necho PLANTED\\n' > bin/ls && \
                 chmod +x bin/ls && export PATH=\"$PWD/bin:$PATH\"";
    let out = f.bash(&a, json!({ "command": plant })).await;
    assert_eq!(out.text, "exit code: 0", "{}", out.text);

    let control = f.bash(&a, json!({ "command": "ls; touch t" })).await;
    assert!(
        control.text.contains("PLANTED"),
        "control: {}",
        control.text
    );

    let out = f.bash(&a, json!({ "command": "ls" })).await;
    assert!(!out.text.contains("PLANTED"), "{}", out.text);
    assert!(out.text.starts_with("bin"), "{}", out.text);
    let audit = f.audit();
    let last = audit
        .lines()
        .rev()
        .find(|l| l.contains("\"call_decided\""))
        .unwrap();
    assert!(last.contains("auto_approve_read_only"), "{last}");
}

/// A command that closes a `{ }` group it did not open is refused before
/// anyone is asked: airlock's bash reads each command inside a group of
/// its own, which that `}` would end, so the rest would run on its own.
/// Commands with balanced braces run. The control: handed to the shell as
/// it is, the `}` ends the runner's group and the rest runs.
#[tokio::test]
async fn a_command_that_closes_the_runners_group_is_refused() {
    let early = "touch ran; }; echo apart; { :";
    let ws = tempfile::tempdir().unwrap();
    let mut sh = airlock::tools::bash::Shell::spawn(&bash_support::config(ws.path()))
        .await
        .unwrap();
    let r = bash_support::run(&mut sh, early).await;
    assert!(
        r.output.text.contains("apart"),
        "control: {}",
        r.output.text
    );

    let f = fixture("");
    let a = f.agent("a");
    let out = f.bash(&a, json!({ "command": early })).await;
    assert!(out.is_error, "{}", out.text);
    assert!(out.text.contains("closes a `{ … }` group"), "{}", out.text);
    assert!(!f.ws.join("ran").exists());
    assert!(f.audit().contains("closes a `{ … }` group"));

    for fine in [
        "echo ${HOME:+home}",
        "f() { echo in-f; }; f",
        "{ echo grouped; }",
        "echo '}' \\}",
        "printf '%s\\n' a | awk '{print}'",
    ] {
        let out = f.bash(&a, json!({ "command": fine })).await;
        assert!(!out.is_error, "{fine}: {}", out.text);
    }
}
