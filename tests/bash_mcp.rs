//! The bash tool end to end: `airlock serve --stdio --approve-all` driven by
//! rmcp's client, with secrets in the server's environment.

mod mcp_support;

use mcp_support::{NamedClient, Ws, args};
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt, service::RunningService};
use serde_json::json;

type Client = RunningService<RoleClient, NamedClient>;

fn text(r: &rmcp::model::CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

async fn call(client: &Client, a: serde_json::Value) -> rmcp::model::CallToolResult {
    client
        .call_tool(CallToolRequestParams::new("bash").with_arguments(args(a)))
        .await
        .unwrap()
}

#[tokio::test]
async fn secrets_stay_out_and_results_are_mcp_shaped() {
    let ws = Ws::new();
    let mut cmd = ws.serve_stdio();
    cmd.arg("--approve-all")
        .env("MY_API_KEY", "sk-leak-check-1")
        .env("GITHUB_TOKEN", "ghp-leak-check-2")
        .env("db_password", "leak-check-3")
        .env("LC_KEEP_ME", "visible-value");
    let client = NamedClient("bash-e2e")
        .serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap();

    let tools = client.list_all_tools().await.unwrap();
    let bash = tools
        .iter()
        .find(|t| t.name == "bash")
        .expect("bash is listed");
    let ann = bash.annotations.as_ref().unwrap();
    assert_eq!(ann.read_only_hint, Some(false));
    assert_eq!(ann.destructive_hint, Some(true));
    let props = bash.input_schema.get("properties").unwrap();
    for p in ["command", "description", "restart", "timeout_secs"] {
        assert!(props.get(p).is_some(), "schema lacks {p}");
    }

    let r = call(
        &client,
        json!({"command": "env; echo \"[$MY_API_KEY]\"", "description": "look"}),
    )
    .await;
    let out = text(&r);
    assert_eq!(r.is_error, Some(false));
    for secret in ["sk-leak-check-1", "ghp-leak-check-2", "leak-check-3"] {
        assert!(!out.contains(secret), "{secret} leaked:\n{out}");
    }
    assert!(out.contains("LC_KEEP_ME=visible-value"));
    assert!(out.contains("\n[]\n"), "{out}");
    assert!(out.ends_with("exit code: 0"));
    let s = r.structured_content.unwrap();
    assert_eq!(s["exit_code"], 0);

    let r = call(&client, json!({"command": "exit 3"})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).ends_with("exit code: 3"), "{}", text(&r));

    let r = call(&client, json!({"command": "rm -fr /"})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).contains("rm-root"), "{}", text(&r));
    client.cancel().await.unwrap();
}

/// Every live descendant of `pid`, from `/proc` (ppid links).
fn descendants(pid: i32) -> Vec<i32> {
    let table: Vec<(i32, i32)> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|p| {
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
            let rest = &stat[stat.rfind(')')? + 1..];
            let ppid = rest.split_whitespace().nth(1)?.parse().ok()?;
            Some((p, ppid))
        })
        .collect();
    let mut found = vec![pid];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(
            table
                .iter()
                .filter(|(_, pp)| *pp == parent)
                .map(|(p, _)| *p),
        );
        i += 1;
    }
    found.retain(|p| *p != pid);
    found
}

/// Whether `pid` is a live process.
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(
        |s| !matches!(s.rsplit(')').next().map(str::trim_start), Some(r) if r.starts_with('Z')),
    )
}

#[tokio::test]
async fn shells_end_when_the_server_ends() {
    // Clean end: stdin closes, the supervisor shuts down, shells are killed,
    // background jobs too.
    let ws = Ws::new();
    // The shell is pid 1 of its own PID namespace, so its processes are
    // found from the host side: every descendant of the server.
    let mut cmd = ws.serve_stdio();
    cmd.arg("--approve-all");
    let transport = TokioChildProcess::new(cmd).unwrap();
    let server = i32::try_from(transport.id().unwrap()).expect("a pid fits an i32");
    let client = NamedClient("bash-end").serve(transport).await.unwrap();
    let r = call(
        &client,
        json!({"command": "sleep 1000 >/dev/null 2>&1 & setsid -f sleep 1000 >/dev/null 2>&1; echo started"}),
    )
    .await;
    assert!(text(&r).contains("started"), "{}", text(&r));
    let pids = descendants(server);
    assert!(pids.len() >= 4, "shell, init, two sleeps: {pids:?}");
    assert!(pids.iter().all(|p| alive(*p)));
    client.cancel().await.unwrap();
    mcp_support::wait_for("shell and job to end", 5, || {
        pids.iter().all(|p| !alive(*p))
    })
    .await;

    // SIGKILL of the server: nobody cleans up, but an idle shell reads
    // end-of-file on its command pipe and exits.
    let mut cmd = ws.serve_stdio();
    cmd.arg("--approve-all");
    let transport = TokioChildProcess::new(cmd).unwrap();
    let server = i32::try_from(transport.id().unwrap()).expect("a pid fits an i32");
    let client = NamedClient("bash-kill").serve(transport).await.unwrap();
    let r = call(&client, json!({"command": "true"})).await;
    assert_eq!(r.is_error, Some(false));
    let shell = descendants(server);
    assert!(!shell.is_empty() && shell.iter().all(|p| alive(*p)));
    let _ = rustix::process::kill_process(
        rustix::process::Pid::from_raw(server).unwrap(),
        rustix::process::Signal::KILL,
    );
    mcp_support::wait_for("the orphaned shell to exit", 5, || {
        shell.iter().all(|p| !alive(*p))
    })
    .await;

    // Its private directory was left behind; the next shell anyone starts
    // sweeps it away.
    let left = || {
        std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .flatten()
            .any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with(&format!("airlock-bash-{server}-"))
            })
    };
    assert!(left());
    let mut cmd = ws.serve_stdio();
    cmd.arg("--approve-all");
    let client = NamedClient("bash-sweep")
        .serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap();
    let r = call(&client, json!({"command": "true"})).await;
    assert_eq!(r.is_error, Some(false));
    assert!(!left(), "stale directory not swept");
    client.cancel().await.unwrap();
}
