//! The real `airlock` binary with its TUI in a pseudo-terminal, an MCP
//! client connected through `airlock connect`, and keys typed into the
//! terminal: `y` runs the command, `n` + a reason denies it with the
//! reason, `e` + an edit runs the edited command, `q` asks, then denies
//! what waits. The audit trail records each decision with `by: user`.

mod mcp_support;
mod pty_support;

use std::sync::Arc;
use std::time::Duration;

use mcp_support::{NamedClient, Ws, args, of_type, read_audit, wait_for};
use pty_support::Pty;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

type Client = Arc<RunningService<RoleClient, NamedClient>>;

/// `airlock` running in a PTY, and everything it wrote.
struct Tui(Pty);

impl Tui {
    fn start(ws: &Ws) -> Tui {
        let mut cmd = pty_support::airlock();
        cmd.arg("--workspace");
        cmd.arg(&ws.root);
        cmd.arg("--data-dir");
        cmd.arg(&ws.data);
        cmd.env("AIRLOCK_NO_USER_CONFIG", "1");
        cmd.env("AIRLOCK_RUNTIME_DIR", &ws.runtime);
        cmd.env_remove("AIRLOCK_SOCKET");
        cmd.env_remove("AIRLOCK_DATA_DIR");
        cmd.cwd(&ws.root);
        Tui(Pty::spawn(cmd, 120, 40))
    }

    fn text(&self) -> String {
        self.0.text()
    }

    /// Wait until `needle` appears in what was written since the last
    /// match.
    async fn wait_for_new(&mut self, needle: &str) {
        if let Err(e) = self.0.wait_for_new(needle, 30).await {
            panic!("{e}; output so far:\n{}", self.text());
        }
    }

    fn keys(&mut self, s: &str) {
        self.0.keys(s);
    }

    /// Type into a prompt once it is on screen and past its key guard.
    async fn answer(&mut self, keys: &str) {
        self.wait_for_new("Approve?").await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        self.keys(keys);
    }
}

async fn connect(ws: &Ws) -> Client {
    let mut cmd = ws.command();
    cmd.arg("connect").current_dir(&ws.root);
    let transport = TokioChildProcess::new(cmd).unwrap();
    let client = tokio::time::timeout(
        Duration::from_secs(30),
        NamedClient("e2e-agent").serve(transport),
    )
    .await
    .expect("the session starts")
    .unwrap();
    Arc::new(client)
}

fn bash(client: &Client, command: &str) -> tokio::task::JoinHandle<CallToolResult> {
    let client = client.clone();
    let params = CallToolRequestParams::new("bash")
        .with_arguments(args(json!({ "command": command, "description": "e2e" })));
    tokio::spawn(async move { client.call_tool(params).await.unwrap() })
}

async fn result(call: tokio::task::JoinHandle<CallToolResult>) -> (bool, String) {
    let r = tokio::time::timeout(Duration::from_secs(30), call)
        .await
        .expect("the call is answered")
        .unwrap();
    let text = r
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect();
    (r.is_error.unwrap_or(false), text)
}

fn decision_for(records: &[Value], command: &str) -> Value {
    let id = of_type(records, "call_requested")
        .into_iter()
        .find(|r| r["call"]["args"]["command"] == command)
        .unwrap_or_else(|| panic!("no request for {command}"))["call"]["id"]
        .clone();
    of_type(records, "call_decided")
        .into_iter()
        .find(|r| r["call_id"] == id)
        .unwrap_or_else(|| panic!("no decision for {command}"))
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_in_the_terminal_answer_the_agent() {
    let ws = Ws::new();
    let mut tui = Tui::start(&ws);
    tui.wait_for_new("No calls yet").await;
    let client = connect(&ws).await;

    // y: the command runs and the agent gets its output.
    let call = bash(&client, "echo approved-$((40 + 2))");
    tui.answer("y").await;
    let (is_error, text) = result(call).await;
    assert!(!is_error, "{text}");
    assert!(text.contains("approved-42"), "{text}");
    let out = tui.text();
    assert!(
        out.contains("\x07\x1b]9;airlock: e2e-agent wants to run bash"),
        "bell and OSC 9"
    );

    // n + a reason: the agent gets an error with the reason.
    let call = bash(&client, "touch never-created");
    tui.answer("n").await;
    tui.keys("not on a friday\r");
    let (is_error, text) = result(call).await;
    assert!(is_error, "{text}");
    assert!(
        text.contains("denied by the user: not on a friday"),
        "{text}"
    );
    assert!(!ws.root.join("never-created").exists());

    // e + an edit: the edited command runs and the result says so.
    let call = bash(&client, "echo original-command");
    tui.answer("e").await;
    tui.keys("\x15echo edited-$((6 * 7))\r");
    let (is_error, text) = result(call).await;
    assert!(!is_error, "{text}");
    assert!(text.contains("proposed: echo original-command"), "{text}");
    assert!(text.contains("ran: echo edited-$((6 * 7))"), "{text}");
    assert!(text.contains("edited-42"), "{text}");
    assert!(!text.contains("original-command\nexit"), "{text}");

    // q with a call waiting: asks, then denies it ("supervisor closed").
    let call = bash(&client, "echo left-waiting");
    tui.answer("q").await;
    tui.wait_for_new("Quit airlock?").await;
    tui.keys("y");
    let (is_error, text) = result(call).await;
    assert!(is_error, "{text}");
    assert!(text.contains("supervisor closed"), "{text}");

    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(s) = tui.0.child.try_wait().unwrap() {
            break s;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "airlock exits after q"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "{status:?}");
    wait_for("the terminal is given back", 10, || {
        let t = tui.text();
        t.contains("\x1b[?1049l") && t.contains("the user quit; audit trail:")
    })
    .await;

    let records = read_audit(&ws.audit_files()[0]);
    let y = decision_for(&records, "echo approved-$((40 + 2))");
    assert_eq!(
        (y["approved"].clone(), y["by"].clone()),
        (json!(true), json!("user"))
    );
    let n = decision_for(&records, "touch never-created");
    assert_eq!(
        (n["approved"].clone(), n["by"].clone()),
        (json!(false), json!("user"))
    );
    assert_eq!(n["reason"], "not on a friday");
    let e = decision_for(&records, "echo original-command");
    assert_eq!(
        (e["approved"].clone(), e["by"].clone()),
        (json!(true), json!("user"))
    );
    assert_eq!(e["edited_command"], "echo edited-$((6 * 7))");
    let q = decision_for(&records, "echo left-waiting");
    assert_eq!(
        (q["approved"].clone(), q["by"].clone()),
        (json!(false), json!("shutdown"))
    );
    let end = of_type(&records, "session_end");
    assert_eq!(end.len(), 1);
    assert_eq!(end[0]["reason"], "the user quit");
    assert_eq!(of_type(&records, "session_start")[0]["confirmer"], "tui");
    assert!(
        airlock::audit::verify_file(&ws.audit_files()[0])
            .unwrap()
            .is_ok()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_gives_the_terminal_back() {
    let ws = Ws::new();
    let mut tui = Tui::start(&ws);
    tui.wait_for_new("No calls yet").await;
    let pid = i32::try_from(tui.0.child.process_id().unwrap()).expect("a pid fits an i32");
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid).unwrap(),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(s) = tui.0.child.try_wait().unwrap() {
            break s;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "airlock exits on SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "{status:?}");
    wait_for("the terminal is given back", 10, || {
        let t = tui.text();
        t.contains("\x1b[?1049l") && t.contains("\x1b[?1000l") && t.contains("audit trail:")
    })
    .await;
    let records = read_audit(&ws.audit_files()[0]);
    assert_eq!(
        of_type(&records, "session_end")[0]["reason"],
        "signal SIGTERM"
    );
}

/// The end of a command longer than the prompt must have been on screen
/// before `y` approves it: `y` first asks to scroll, `G` shows the hidden
/// part, then `y` runs it. An 82-line command and a one-line command
/// padded by 20,000 spaces.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_command_is_approved_only_after_its_end_was_on_screen() {
    let ws = Ws::new();
    let mut tui = Tui::start(&ws);
    tui.wait_for_new("No calls yet").await;
    let client = connect(&ws).await;
    let cases = [
        (
            format!("echo harmless{}touch hidden-one", "\n".repeat(81)),
            "touch hidden-one",
            "hidden-one",
        ),
        (
            format!("echo harmless{}; touch hidden-two", " ".repeat(20_000)),
            "; touch hidden-two",
            "hidden-two",
        ),
    ];
    for (command, tail, file) in cases {
        let call = bash(&client, &command);
        tui.answer("y").await;
        tui.wait_for_new("more lines below: scroll to the end")
            .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(
            !tui.text().contains(tail),
            "the hidden part was never drawn"
        );
        assert!(!ws.root.join(file).exists(), "y did not run unseen text");
        assert!(!call.is_finished(), "the call still waits");
        tui.keys("G");
        tui.wait_for_new(tail).await;
        tui.keys("y");
        let (is_error, text) = result(call).await;
        assert!(!is_error, "{text}");
        assert!(ws.root.join(file).exists(), "approved once seen: it ran");
        // The trail keeps the whole command, exactly as it ran.
        let records = read_audit(&ws.audit_files()[0]);
        let d = decision_for(&records, &command);
        assert_eq!(
            (d["approved"].clone(), d["by"].clone()),
            (json!(true), json!("user"))
        );
    }
    // Control: a command that fits is approved by the first y.
    let call = bash(&client, "echo harmless; touch fits-at-once");
    tui.answer("y").await;
    let (is_error, text) = result(call).await;
    assert!(!is_error, "{text}");
    assert!(ws.root.join("fits-at-once").exists());
}
