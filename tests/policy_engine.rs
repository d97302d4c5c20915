//! Policy end to end: precedence, modes, session grants, "always", the
//! approval timeout, and config errors — through `session::start` and the
//! real pipeline.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use airlock::call::{ApprovedBy, Decision, Subject, ToolKind, Verdict, VerdictSource};
use airlock::policy::{Action, GrantScope, Mode, Policy};
use airlock::session::{self, SessionOptions};
use airlock::supervisor::{ConfirmRequest, Confirmer};
use async_trait::async_trait;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn rules(allow: &[&str], ask: &[&str], deny: &[&str]) -> Vec<airlock::policy::Rule> {
    let mut out = Vec::new();
    for (action, list) in [
        (Action::Allow, allow),
        (Action::Ask, ask),
        (Action::Deny, deny),
    ] {
        for r in list {
            out.push(airlock::policy::Rule::parse(action, r, "test.toml").unwrap());
        }
    }
    out
}

fn cmd(c: &str) -> Subject {
    Subject::Command {
        command: c.to_string(),
    }
}

fn paths(ps: &[&str]) -> Subject {
    Subject::Paths {
        paths: ps.iter().map(|p| Path::new(p).to_path_buf()).collect(),
    }
}

#[test]
fn deny_beats_ask_beats_allow() {
    let p = Policy::with_rules(
        Mode::Default,
        rules(
            &["bash(cargo *)", "write_file(src/**)"],
            &["bash(cargo publish *)"],
            &["bash(cargo publish --force *)", "write_file(src/secret/**)"],
        ),
        Path::new("/ws"),
        false,
    );
    let v = p.evaluate("bash", ToolKind::Exec, &cmd("cargo build"));
    assert_eq!(
        (v.verdict, v.rule.as_str(), &v.source),
        (
            Verdict::Allow,
            "bash(cargo *)",
            &VerdictSource::File("test.toml".into())
        )
    );
    assert_eq!(
        p.evaluate("bash", ToolKind::Exec, &cmd("cargo publish --dry-run"))
            .verdict,
        Verdict::Ask
    );
    let v = p.evaluate("bash", ToolKind::Exec, &cmd("cargo publish --force x"));
    assert_eq!(
        (v.verdict, v.rule.as_str()),
        (Verdict::Deny, "bash(cargo publish --force *)")
    );
    assert_eq!(
        p.evaluate("write_file", ToolKind::Write, &paths(&["/ws/src/a.rs"]))
            .verdict,
        Verdict::Allow
    );
    assert_eq!(
        p.evaluate(
            "write_file",
            ToolKind::Write,
            &paths(&["/ws/src/secret/k.rs"])
        )
        .verdict,
        Verdict::Deny
    );
    assert_eq!(
        p.evaluate("write_file", ToolKind::Write, &paths(&["/ws/README.md"]))
            .verdict,
        Verdict::Ask,
        "default"
    );
    // A deny rule catches a command hidden in a chain; an allow rule needs every part.
    assert_eq!(
        p.evaluate("bash", ToolKind::Exec, &cmd("ls; cargo publish --force x"))
            .verdict,
        Verdict::Deny
    );
    assert_eq!(
        p.evaluate("bash", ToolKind::Exec, &cmd("cargo build && rm -rf x"))
            .verdict,
        Verdict::Ask
    );
    // Guardrails beat an allow-everything rule.
    let open = Policy::with_rules(
        Mode::Default,
        rules(&["bash"], &[], &[]),
        Path::new("/ws"),
        false,
    );
    assert_eq!(
        open.evaluate("bash", ToolKind::Exec, &cmd("echo hi"))
            .verdict,
        Verdict::Allow
    );
    let v = open.evaluate("bash", ToolKind::Exec, &cmd("rm -rf /"));
    assert_eq!(v.verdict, Verdict::Deny);
    assert!(v.rule.starts_with("guardrail"), "{}", v.rule);
}

#[test]
fn modes() {
    let ro = Policy::with_rules(
        Mode::ReadOnly,
        rules(&["bash(ls *)", "write_file"], &[], &[]),
        Path::new("/ws"),
        false,
    );
    assert_eq!(
        ro.evaluate("read_file", ToolKind::Read, &paths(&["/ws/a"]))
            .verdict,
        Verdict::Allow
    );
    assert_eq!(
        ro.evaluate("bash", ToolKind::Exec, &cmd("ls")).verdict,
        Verdict::Deny,
        "read-only refuses bash even when allowed"
    );
    assert_eq!(
        ro.evaluate("write_file", ToolKind::Write, &paths(&["/ws/a"]))
            .verdict,
        Verdict::Deny
    );

    let te = Policy::with_rules(
        Mode::TrustEdits,
        rules(&[], &[], &["edit_file(*.lock)"]),
        Path::new("/ws"),
        false,
    );
    assert_eq!(
        te.evaluate("edit_file", ToolKind::Write, &paths(&["/ws/src/a.rs"]))
            .verdict,
        Verdict::Allow
    );
    assert_eq!(
        te.evaluate("write_file", ToolKind::Write, &paths(&["/elsewhere/a.rs"]))
            .verdict,
        Verdict::Ask,
        "outside the workspace"
    );
    assert_eq!(
        te.evaluate("bash", ToolKind::Exec, &cmd("make")).verdict,
        Verdict::Ask
    );
    assert_eq!(
        te.evaluate("edit_file", ToolKind::Write, &paths(&["/ws/Cargo.lock"]))
            .verdict,
        Verdict::Deny,
        "deny holds in every mode"
    );
    assert_eq!(
        te.evaluate("bash", ToolKind::Exec, &cmd("mkfs.ext4 /dev/sda"))
            .verdict,
        Verdict::Deny
    );
}

#[test]
fn session_grants_exact_prefix_file_and_revoke() {
    let p = Policy::with_rules(Mode::Default, Vec::new(), Path::new("/ws"), false);
    let g = p.grant(GrantScope::ExactCommand("make test".into()), &["bash"]);
    let v = p.evaluate("bash", ToolKind::Exec, &cmd("make test"));
    assert_eq!(
        (v.verdict, v.source.describe()),
        (Verdict::Allow, VerdictSource::Session.describe())
    );
    assert_eq!(
        p.evaluate("bash", ToolKind::Exec, &cmd("make test; rm -rf x"))
            .verdict,
        Verdict::Ask
    );
    assert!(p.grants().revoke(g.id).is_some());
    assert_eq!(
        p.evaluate("bash", ToolKind::Exec, &cmd("make test"))
            .verdict,
        Verdict::Ask
    );

    p.grant(GrantScope::Prefix("cargo test".into()), &["bash"]);
    assert_eq!(
        p.evaluate("bash", ToolKind::Exec, &cmd("cargo test --release -p x"))
            .verdict,
        Verdict::Allow
    );
    assert_eq!(
        p.evaluate("bash", ToolKind::Exec, &cmd("cargo test > /etc/passwd"))
            .verdict,
        Verdict::Ask
    );
    assert_eq!(
        p.evaluate("bash", ToolKind::Exec, &cmd("cargo build"))
            .verdict,
        Verdict::Ask
    );

    p.grant(
        GrantScope::File("/ws/src/main.rs".into()),
        &["write_file", "edit_file"],
    );
    assert_eq!(
        p.evaluate("edit_file", ToolKind::Write, &paths(&["/ws/src/main.rs"]))
            .verdict,
        Verdict::Allow
    );
    assert_eq!(
        p.evaluate("edit_file", ToolKind::Write, &paths(&["/ws/src/lib.rs"]))
            .verdict,
        Verdict::Ask
    );
    assert_eq!(p.grants().list().len(), 2);
}

#[test]
fn known_safe_commands_only_when_enabled() {
    let off = Policy::with_rules(Mode::Default, Vec::new(), Path::new("/ws"), false);
    let on = Policy::with_rules(Mode::Default, Vec::new(), Path::new("/ws"), true);
    assert_eq!(
        off.evaluate("bash", ToolKind::Exec, &cmd("ls -la && git status"))
            .verdict,
        Verdict::Ask
    );
    let v = on.evaluate("bash", ToolKind::Exec, &cmd("ls -la && git status"));
    assert_eq!(
        (v.verdict, &v.source, v.source.describe().as_str()),
        (
            Verdict::Allow,
            &VerdictSource::KnownSafe,
            "bash.auto_approve_read_only"
        )
    );
    assert_eq!(
        on.evaluate("bash", ToolKind::Exec, &cmd("ls > out.txt"))
            .verdict,
        Verdict::Ask
    );
    assert_eq!(
        on.evaluate("bash", ToolKind::Exec, &cmd("find . -delete"))
            .verdict,
        Verdict::Ask
    );
    // Known-safe programs still may not name excluded, outside or upward paths.
    let excl: Vec<String> = airlock::scope::DEFAULT_EXCLUDED
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    let on = on.with_exclusions(airlock::scope::Exclusions::new(&excl).unwrap());
    assert_eq!(
        on.evaluate("bash", ToolKind::Exec, &cmd("cat src/main.rs"))
            .verdict,
        Verdict::Allow
    );
    for risky in [
        "cat .env",
        "cat config/.env.local",
        "head keys/server.pem",
        "cat /etc/shadow",
        "cat ../other/x",
        "cat ~/.bashrc",
        "cat .e*",
        "grep -r token --include=.env .",
    ] {
        assert_eq!(
            on.evaluate("bash", ToolKind::Exec, &cmd(risky)).verdict,
            Verdict::Ask,
            "{risky}"
        );
    }
}

#[test]
fn prefix_grants_combine_with_allow_rules() {
    let p = Policy::with_rules(
        Mode::Default,
        rules(&["bash(ls *)"], &[], &[]),
        Path::new("/ws"),
        false,
    );
    assert_eq!(
        p.evaluate("bash", ToolKind::Exec, &cmd("ls && cargo test"))
            .verdict,
        Verdict::Ask
    );
    p.grant(GrantScope::Prefix("cargo test".into()), &["bash"]);
    let v = p.evaluate("bash", ToolKind::Exec, &cmd("ls && cargo test"));
    assert_eq!(v.verdict, Verdict::Allow);
    assert!(
        v.rule.contains("bash(ls *)") && v.rule.contains("bash(cargo test *)"),
        "{}",
        v.rule
    );
    let v = p.evaluate("bash", ToolKind::Exec, &cmd("cargo test -q"));
    assert_eq!(
        v.source,
        VerdictSource::Session,
        "a grant alone is audited as the grant"
    );
}

/// Answers nothing: the approval timeout must decide.
struct Silent;

#[async_trait]
impl Confirmer for Silent {
    async fn confirm(&self, _r: ConfirmRequest) -> Decision {
        std::future::pending().await
    }
    fn kind(&self) -> airlock::call::ConfirmerKind {
        airlock::call::ConfirmerKind::Scripted
    }
}

/// Approves and saves the command as an "always" rule, like the prompt's `a`.
struct Always(std::sync::Mutex<Option<Arc<airlock::supervisor::Supervisor>>>);

#[async_trait]
impl Confirmer for Always {
    async fn confirm(&self, r: ConfirmRequest) -> Decision {
        let sup = self.0.lock().unwrap().clone().unwrap();
        let cmd = r.call.args["command"].as_str().unwrap().to_string();
        sup.save_rule(Action::Allow, &format!("bash({cmd})"))
            .unwrap();
        Decision::approve(ApprovedBy::User)
    }
    fn kind(&self) -> airlock::call::ConfirmerKind {
        airlock::call::ConfirmerKind::Scripted
    }
}

fn start(ws: &Path, data: &Path, confirmer: Arc<dyn Confirmer>) -> session::Session {
    session::start(
        &SessionOptions {
            workspace: ws.to_path_buf(),
            data_dir: Some(data.to_path_buf()),
            config_file: None,
            mode: airlock::call::SessionMode::Supervisor,
            policy_mode: None,
            user_config: false,
        },
        confirmer,
    )
    .unwrap()
}

fn records(p: &Path) -> Vec<Value> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test]
async fn approval_timeout_from_config_tells_the_agent_the_user_is_away() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    std::fs::write(ws.join(".airlock.toml"), "approval_timeout_secs = 1\n").unwrap();
    let s = start(&ws, &dir.path().join("data"), Arc::new(Silent));
    let agent = s.supervisor.agent_connected(Some("t"), None);
    let args = json!({"path": "x.txt", "content": "x"})
        .as_object()
        .cloned();
    let t0 = std::time::Instant::now();
    let out = s
        .supervisor
        .call(&agent, "write_file", args, CancellationToken::new(), None)
        .await
        .unwrap();
    assert!(t0.elapsed() < Duration::from_secs(5));
    assert!(out.is_error);
    assert!(
        out.text.contains("no answer from the user in time"),
        "{}",
        out.text
    );
    assert!(!ws.join("x.txt").exists());
    let recs = records(&s.audit_path);
    let decided = recs.iter().find(|r| r["type"] == "call_decided").unwrap();
    assert_eq!(decided["by"], "timeout");
    let finished = recs.iter().find(|r| r["type"] == "call_finished").unwrap();
    assert_eq!(finished["status"], "timeout");
}

#[tokio::test]
async fn always_writes_the_commented_project_config_and_applies_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let original = "# Team policy — reviewed in PR #12.\nallow = [\n    \"bash(git status)\", # harmless\n]\n\n[limits]\n# keep reads quick\ntimeout_secs = 5\n";
    std::fs::write(ws.join(".airlock.toml"), original).unwrap();
    let always = Arc::new(Always(std::sync::Mutex::new(None)));
    let s = start(&ws, &dir.path().join("data"), always.clone());
    *always.0.lock().unwrap() = Some(s.supervisor.clone());
    let agent = s.supervisor.agent_connected(Some("t"), None);
    let call = |c: &str| json!({"command": c}).as_object().cloned();
    let out = s
        .supervisor
        .call(
            &agent,
            "bash",
            call("echo saved"),
            CancellationToken::new(),
            None,
        )
        .await
        .unwrap();
    assert!(out.text.contains("saved"), "{}", out.text);
    let text = std::fs::read_to_string(ws.join(".airlock.toml")).unwrap();
    for keep in [
        "# Team policy — reviewed in PR #12.",
        "# harmless",
        "# keep reads quick",
        "timeout_secs = 5",
        "\"bash(echo saved)\"",
    ] {
        assert!(text.contains(keep), "lost {keep:?}:\n{text}");
    }
    // The next identical call is allowed by the saved rule, without asking.
    let out = s
        .supervisor
        .call(
            &agent,
            "bash",
            call("echo saved"),
            CancellationToken::new(),
            None,
        )
        .await
        .unwrap();
    assert!(!out.is_error, "{}", out.text);
    let recs = records(&s.audit_path);
    let saved = recs
        .iter()
        .find(|r| r["type"] == "rule_saved")
        .expect("the saved rule is audited");
    assert_eq!(saved["rule"], "bash(echo saved)");
    let decisions: Vec<&Value> = recs
        .iter()
        .filter(|r| r["type"] == "call_decided")
        .collect();
    assert_eq!(decisions[0]["by"], "user");
    assert_eq!(decisions[1]["by"], "rule");
    assert_eq!(decisions[1]["rule"], "bash(echo saved)");
    assert!(
        decisions[1]["source"]
            .as_str()
            .unwrap()
            .ends_with(".airlock.toml")
    );
    s.supervisor.shutdown("test");
}

#[test]
fn invalid_rule_is_a_config_error_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".airlock.toml"),
        "mode = \"default\"\n\ndeny = [\n  \"bash(rm *\",\n]\n",
    )
    .unwrap();
    let store = airlock::config::TrustStore::new(&dir.path().join("data"));
    let e = airlock::config::load(dir.path(), None, &store)
        .unwrap_err()
        .to_string();
    assert!(e.contains(".airlock.toml:4"), "{e}");
    assert!(e.contains("bash(rm *"), "{e}");
    std::fs::write(dir.path().join(".airlock.toml"), "mode = \"yolo\"\n").unwrap();
    let e = airlock::config::load(dir.path(), None, &store)
        .unwrap_err()
        .to_string();
    assert!(e.contains(".airlock.toml:1") && e.contains("yolo"), "{e}");
}

#[test]
fn rule_lists_are_combined_across_files_with_their_sources() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".airlock.toml"),
        "allow = [\"bash(make *)\"]\n",
    )
    .unwrap();
    let extra = dir.path().join("extra.toml");
    std::fs::write(
        &extra,
        "allow = [\"bash(npm test)\"]\ndeny = [\"write_file(dist/**)\"]\n",
    )
    .unwrap();
    // The project file is the test's own: trusted, as `airlock trust` does.
    let store = airlock::config::TrustStore::new(&dir.path().join("data"));
    let project = std::fs::canonicalize(dir.path().join(".airlock.toml")).unwrap();
    store
        .trust(&project, "allow = [\"bash(make *)\"]\n")
        .unwrap();
    let loaded = airlock::config::load(dir.path(), Some(&extra), &store).unwrap();
    let texts: Vec<(String, bool)> = loaded
        .rules
        .iter()
        .map(|r| (r.text(), r.source.ends_with("extra.toml")))
        .collect();
    assert_eq!(
        texts,
        [
            ("bash(make *)".to_string(), false),
            ("bash(npm test)".to_string(), true),
            ("write_file(dist/**)".to_string(), true)
        ]
    );
    let shown = airlock::config::describe(&loaded);
    assert!(shown.contains("\"bash(make *)\","), "{shown}");
    assert!(shown.contains("extra.toml"), "{shown}");
}
