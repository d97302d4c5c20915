//! The path-escape corpus, driven through the real pipeline: a session
//! started the way the binary starts one (`session::start`, headless
//! confirmer), every read-only tool that takes a path, every hostile path.
//! Each call must be refused by the scope (audited as `"by":"scope"`), and
//! no secret or outside content may appear in any result or in the trail.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use airlock::call::AgentInfo;
use airlock::session::{self, Session, SessionOptions};
use airlock::supervisor::HeadlessConfirmer;
use airlock::tools::ToolOutput;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// Content markers of files that must never be shown.
const SECRETS: &[(&str, &str)] = &[
    (".env", "MARK-ENV-1b7f"),
    (".env.local", "MARK-ENVLOCAL-2c8a"),
    ("a/b/.env.production", "MARK-ENVPROD-3d9b"),
    ("home/.ssh/id_rsa", "MARK-SSH-4eac"),
    ("certs/server.pem", "MARK-PEM-5fbd"),
    (".aws/credentials", "MARK-AWS-60ce"),
    ("deploy.key", "MARK-KEY-71df"),
];
/// The marker in the file outside the workspace.
const OUTSIDE_MARK: &str = "MARK-OUTSIDE-82e0";
/// The marker in a unicode-named file outside the workspace.
const OUTSIDE_UNICODE_MARK: &str = "MARK-OUTUNI-93f1";
/// A marker that *may* be shown (proves the walks search at all).
const PUBLIC_MARK: &str = "MARK-PUBLIC-a402";

/// Every read-only tool that takes a path, as argument builders.
fn path_calls(p: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("read_file", json!({ "path": p })),
        ("cat", json!({ "path": p })),
        ("head", json!({ "path": p })),
        ("tail", json!({ "path": p })),
        ("wc", json!({ "path": p })),
        ("stat", json!({ "path": p })),
        ("ls", json!({ "path": p })),
        ("find", json!({ "path": p })),
        ("grep", json!({ "pattern": "MARK", "path": p })),
        ("diff", json!({ "path_a": p, "path_b": "ok.txt" })),
        ("diff", json!({ "path_a": "ok.txt", "path_b": p })),
    ]
}

struct Env {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    outside: PathBuf,
    session: Session,
    agent: AgentInfo,
    /// Every call made, in order (call ids are 1, 2, …).
    calls: Vec<(String, Value)>,
}

fn mkfifo(path: &Path) {
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        path,
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
}

fn write(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, body).unwrap();
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&ws).unwrap();
    write(&outside.join("secret.txt"), &format!("{OUTSIDE_MARK}\n"));
    write(
        &outside.join("ünï-外.txt"),
        &format!("{OUTSIDE_UNICODE_MARK}\n"),
    );
    for (rel, mark) in SECRETS {
        write(&ws.join(rel), &format!("{mark}\n"));
    }
    write(&ws.join("ok.txt"), "hello world\nsecond line\n");
    write(&ws.join("other.txt"), "hello there\nsecond line\n");
    write(&ws.join("src/public.txt"), &format!("{PUBLIC_MARK}\n"));
    write(&ws.join("ünïcødé-文件.txt"), "unicode ok\n");
    symlink(outside.join("secret.txt"), ws.join("link_out")).unwrap();
    symlink(&outside, ws.join("link_out_dir")).unwrap();
    symlink(ws.join("nothing-here"), ws.join("dangling")).unwrap();
    symlink("loop_b", ws.join("loop_a")).unwrap();
    symlink("loop_a", ws.join("loop_b")).unwrap();
    symlink(".env", ws.join("innocent")).unwrap();
    symlink("home/.ssh", ws.join("innocent_dir")).unwrap();
    symlink("/dev/zero", ws.join("zero")).unwrap();
    symlink("/proc/self/environ", ws.join("environ")).unwrap();
    mkfifo(&ws.join("fifo"));
    let _sock = std::os::unix::net::UnixListener::bind(ws.join("sock")).unwrap();
    let session = session::start(
        &SessionOptions {
            workspace: ws.clone(),
            data_dir: Some(dir.path().join("data")),
            config_file: None,
            mode: airlock::call::SessionMode::Supervisor,
            policy_mode: None,
            user_config: false,
        },
        Arc::new(HeadlessConfirmer),
    )
    .unwrap();
    let agent = session
        .supervisor
        .agent_connected(Some("escape-test"), None);
    Env {
        ws: std::fs::canonicalize(&ws).unwrap(),
        outside: std::fs::canonicalize(&outside).unwrap(),
        _dir: dir,
        session,
        agent,
        calls: Vec::new(),
    }
}

impl Env {
    /// One call through the pipeline; it must finish promptly (a FIFO must
    /// never block) and produce a result, never a JSON-RPC-level error.
    async fn call(&mut self, tool: &str, args: Value) -> ToolOutput {
        self.calls.push((tool.to_string(), args.clone()));
        let fut = self.session.supervisor.call(
            &self.agent,
            tool,
            args.as_object().cloned(),
            CancellationToken::new(),
            None,
        );
        match tokio::time::timeout(Duration::from_secs(20), fut).await {
            Ok(Ok(out)) => out,
            Ok(Err(e)) => panic!("{tool} {args}: call error {e}"),
            Err(elapsed) => panic!("{tool} {args}: hung ({elapsed})"),
        }
    }

    /// The audit trail's `call_decided` records, by call id.
    fn decisions(&self) -> std::collections::HashMap<u64, Value> {
        let text = std::fs::read_to_string(&self.session.audit_path).unwrap();
        text.lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|v| v["type"] == "call_decided")
            .map(|v| (v["call_id"].as_u64().unwrap(), v))
            .collect()
    }

    fn audit_text(&self) -> String {
        std::fs::read_to_string(&self.session.audit_path).unwrap()
    }
}

/// Nothing secret or from outside may appear in `text`.
fn assert_no_leak(what: &str, text: &str) {
    for (_, mark) in SECRETS {
        assert!(!text.contains(mark), "{what} leaked {mark}: {text}");
    }
    for mark in [OUTSIDE_MARK, OUTSIDE_UNICODE_MARK] {
        assert!(!text.contains(mark), "{what} leaked {mark}: {text}");
    }
    assert!(
        !text.contains("root:x:0:0"),
        "{what} leaked /etc/passwd: {text}"
    );
    assert!(
        !text.contains("PATH="),
        "{what} leaked an environment: {text}"
    );
}

/// A hostile path and a fragment the refusal must contain.
fn hostile(e: &Env) -> Vec<(String, &'static str)> {
    let out = e.outside.display().to_string();
    let ws = e.ws.display().to_string();
    let mut v: Vec<(String, &'static str)> = vec![
        ("../outside/secret.txt".into(), "outside the allowed roots"),
        (
            "../../../../../../../../etc/passwd".into(),
            "outside the allowed roots",
        ),
        (
            "src/../../outside/secret.txt".into(),
            "outside the allowed roots",
        ),
        ("/etc/passwd".into(), "outside the allowed roots"),
        ("/etc".into(), "outside the allowed roots"),
        ("/".into(), "outside the allowed roots"),
        (format!("{out}/secret.txt"), "outside the allowed roots"),
        ("../outside/ünï-外.txt".into(), "outside the allowed roots"),
        ("link_out".into(), "outside the allowed roots"),
        ("link_out_dir".into(), "outside the allowed roots"),
        (
            "link_out_dir/secret.txt".into(),
            "outside the allowed roots",
        ),
        ("dangling".into(), "not found"),
        ("loop_a".into(), "symlink loop"),
        ("loop_a/x".into(), "symlink loop"),
        ("/dev/zero".into(), "outside the allowed roots"),
        ("zero".into(), "outside the allowed roots"),
        ("/proc/self/environ".into(), "outside the allowed roots"),
        ("environ".into(), "outside the allowed roots"),
        (
            "/proc/self/root/etc/passwd".into(),
            "outside the allowed roots",
        ),
        (
            format!("/proc/self/root{out}/secret.txt"),
            "outside the allowed roots",
        ),
        ("innocent".into(), "excluded by pattern \".env\""),
        ("innocent_dir/id_rsa".into(), "excluded by pattern \".ssh\""),
        ("innocent_dir".into(), "excluded by pattern \".ssh\""),
        ("home/.ssh".into(), "excluded by pattern \".ssh\""),
        (
            "./a/../home/.ssh/../.ssh/id_rsa".into(),
            "excluded by pattern \".ssh\"",
        ),
        (format!("{ws}/.env"), "excluded by pattern \".env\""),
        (
            "a/b/../../.env.local".into(),
            "excluded by pattern \".env.*\"",
        ),
        (
            "a/b/.env.production/".into(),
            "excluded by pattern \".env.*\"",
        ),
        (".aws".into(), "excluded by pattern \".aws\""),
        ("a".repeat(300), "name too long"),
        ("d/".repeat(2100) + "x", "name too long"),
        ("ok.txt\0.env".into(), "NUL"),
        (String::new(), "empty path"),
    ];
    for (rel, _) in SECRETS {
        let pattern = match *rel {
            ".env" => "excluded by pattern \".env\"",
            ".env.local" | "a/b/.env.production" => "excluded by pattern \".env.*\"",
            "home/.ssh/id_rsa" => "excluded by pattern \".ssh\"",
            "certs/server.pem" => "excluded by pattern \"*.pem\"",
            ".aws/credentials" => "excluded by pattern \".aws\"",
            _ => "excluded by pattern \"*.key\"",
        };
        v.push((rel.to_string(), pattern));
    }
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hostile_path_is_refused_by_the_scope_and_audited() {
    let mut e = env();
    let mut refused = Vec::new();
    for (path, fragment) in hostile(&e) {
        for (tool, args) in path_calls(&path) {
            let out = e.call(tool, args.clone()).await;
            let id = e.calls.len() as u64;
            assert!(out.is_error, "{tool} {args}: not an error: {}", out.text);
            assert!(
                out.text.contains(fragment),
                "{tool} {args}: wanted {fragment:?}, got {}",
                out.text
            );
            assert_no_leak(&format!("{tool} {args}"), &out.text);
            refused.push((id, tool, args));
        }
    }
    let decided = e.decisions();
    for (id, tool, args) in &refused {
        let d = decided
            .get(id)
            .unwrap_or_else(|| panic!("call {id} ({tool} {args}) not audited"));
        assert_eq!(d["by"], "scope", "{tool} {args}: {d}");
        assert_eq!(d["approved"], false, "{tool} {args}: {d}");
    }
    assert_no_leak("the audit trail", &e.audit_text());
    assert!(refused.len() > 400, "the corpus ran: {}", refused.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn special_files_never_block_and_are_refused_where_a_file_is_expected() {
    let mut e = env();
    for special in ["fifo", "sock"] {
        for (tool, args) in path_calls(special) {
            let out = e.call(tool, args.clone()).await;
            let id = e.calls.len() as u64;
            match tool {
                // Describing or listing a special file is fine; it is never opened.
                "stat" | "ls" | "find" => {
                    assert!(!out.is_error, "{tool} {args}: {}", out.text);
                    assert_eq!(e.decisions()[&id]["by"], "rule", "{tool} {args}");
                }
                _ => {
                    assert!(out.is_error, "{tool} {args}: {}", out.text);
                    assert!(
                        out.text.contains("not a regular file"),
                        "{tool} {args}: {}",
                        out.text
                    );
                    assert_eq!(e.decisions()[&id]["by"], "scope", "{tool} {args}");
                }
            }
        }
    }
    let out = e.call("stat", json!({"path": "fifo"})).await;
    assert!(out.text.contains("type: FIFO"), "{}", out.text);
    let out = e.call("ls", json!({"path": "sock"})).await;
    assert_eq!(out.text, "sock (socket)\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn walks_over_the_workspace_never_show_secrets_or_follow_links_out() {
    let mut e = env();
    let out = e.call("ls", json!({"show_hidden": true, "depth": 3})).await;
    assert!(!out.is_error, "{}", out.text);
    for name in [
        ".env",
        ".env.local",
        ".env.production",
        ".ssh",
        "id_rsa",
        "server.pem",
        ".aws",
        "deploy.key",
        "secret.txt",
    ] {
        assert!(
            !out.text.lines().any(|l| l.trim_start().starts_with(name)),
            "ls shows {name}: {}",
            out.text
        );
    }
    assert!(out.text.contains("excluded entries hidden"), "{}", out.text);
    assert!(
        out.text.contains("link_out_dir -> "),
        "symlinks are shown, not followed: {}",
        out.text
    );
    assert!(
        out.text.contains("ünïcødé-文件.txt (11 bytes)"),
        "{}",
        out.text
    );
    assert_no_leak("ls", &out.text);

    let out = e.call("find", json!({"pattern": "*"})).await;
    assert!(!out.is_error, "{}", out.text);
    // The entries listed (the part before ` -> ` or ` (`), by last name.
    let listed: Vec<&str> = out
        .text
        .lines()
        .map(|l| l.split(" -> ").next().unwrap().split(" (").next().unwrap())
        .map(|p| p.trim_end_matches('/').rsplit('/').next().unwrap())
        .collect();
    for name in [
        ".env",
        ".env.local",
        ".env.production",
        "id_rsa",
        ".ssh",
        "server.pem",
        ".aws",
        "credentials",
        "deploy.key",
        "secret.txt",
        "ünï-外.txt",
    ] {
        assert!(!listed.contains(&name), "find lists {name}: {}", out.text);
    }
    assert!(out.text.contains("src/public.txt"), "{}", out.text);
    assert!(
        out.text.contains("innocent -> (excluded)"),
        "the link itself is listed, its excluded target is not: {}",
        out.text
    );
    assert!(
        out.text.contains("link_out -> (outside the workspace)"),
        "a target outside is not shown: {}",
        out.text
    );
    assert!(
        !out.text.contains(&e.outside.display().to_string()),
        "no outside path appears: {}",
        out.text
    );

    let out = e.call("grep", json!({"pattern": "MARK"})).await;
    assert!(!out.is_error, "{}", out.text);
    assert!(
        out.text
            .contains(&format!("src/public.txt:1:{PUBLIC_MARK}")),
        "{}",
        out.text
    );
    assert_no_leak("grep", &out.text);
    let out = e
        .call(
            "grep",
            json!({"pattern": "mark-.*", "regex": true, "ignore_case": true, "include": "*"}),
        )
        .await;
    assert_eq!(
        out.text.lines().filter(|l| l.contains("MARK-")).count(),
        1,
        "{}",
        out.text
    );
    assert_no_leak("grep -i", &out.text);
    assert_no_leak("the audit trail", &e.audit_text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_read_only_tool_runs_under_the_default_policy() {
    let mut e = env();
    let names: Vec<&str> = e.session.supervisor.tools().names().collect();
    for t in [
        "read_file",
        "cat",
        "head",
        "tail",
        "ls",
        "find",
        "grep",
        "wc",
        "stat",
        "diff",
        "pwd",
    ] {
        assert!(names.contains(&t), "{t} is registered: {names:?}");
        let spec = e.session.supervisor.tools().get(t).unwrap().spec().clone();
        assert_eq!(spec.kind, airlock::call::ToolKind::Read, "{t}");
    }
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "read_file",
            json!({"path": "ok.txt"}),
            "     1\thello world\n     2\tsecond line\n",
        ),
        (
            "cat",
            json!({"path": "ok.txt"}),
            "hello world\nsecond line\n",
        ),
        (
            "head",
            json!({"path": "ok.txt", "lines": 1}),
            "hello world\n",
        ),
        (
            "tail",
            json!({"path": "ok.txt", "lines": 1}),
            "second line\n",
        ),
        (
            "wc",
            json!({"path": "ok.txt"}),
            "ok.txt: 2 lines, 4 words, 24 bytes\n",
        ),
        (
            "stat",
            json!({"path": "ok.txt"}),
            "path: ok.txt\ntype: file\nsize: 24 bytes\n",
        ),
        ("ls", json!({"path": "src"}), "public.txt (17 bytes)\n"),
        (
            "find",
            json!({"pattern": "*.txt", "path": "src"}),
            "src/public.txt (17 bytes)\n",
        ),
        (
            "grep",
            json!({"pattern": "second", "path": "ok.txt"}),
            "ok.txt:2:second line\n",
        ),
        (
            "diff",
            json!({"path_a": "ok.txt", "path_b": "other.txt"}),
            "--- a/ok.txt\n+++ b/other.txt\n@@ -1,2 +1,2 @@\n-hello world\n+hello there\n",
        ),
        (
            "read_file",
            json!({"path": "ünïcødé-文件.txt"}),
            "     1\tunicode ok\n",
        ),
    ];
    for (tool, args, want) in cases {
        let out = e.call(tool, args.clone()).await;
        let id = e.calls.len() as u64;
        assert!(!out.is_error, "{tool} {args}: {}", out.text);
        assert!(
            out.text.starts_with(want),
            "{tool} {args}: wanted {want:?}, got {:?}",
            out.text
        );
        let d = &e.decisions()[&id];
        assert_eq!(d["by"], "rule", "{tool}: {d}");
        assert_eq!(d["approved"], true, "{tool}: {d}");
    }
    let out = e.call("pwd", json!({})).await;
    assert_eq!(out.text, e.ws.display().to_string());
    let out = e.call("wc", json!({"path": "ok.txt"})).await;
    assert_eq!(
        out.structured,
        Some(json!({"path": "ok.txt", "lines": 2, "words": 4, "bytes": 24, "truncated": false}))
    );
    let out = e.call("stat", json!({"path": "ok.txt"})).await;
    assert_eq!(out.structured.as_ref().unwrap()["size"], 24);
    let text = e.audit_text();
    assert!(text.contains("\"call_finished\""), "results are audited");
}
