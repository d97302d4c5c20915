//! `write_file` and `edit_file` through the real pipeline, on real files.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use airlock::audit::AuditLog;
use airlock::call::{AgentInfo, ApprovedBy, Decision, EventBus, Proposal};
use airlock::policy::Policy;
use airlock::scope::Scope;
use airlock::supervisor::{ConfirmRequest, Confirmer, Supervisor, SupervisorParts};
use airlock::tools::{Limits, ToolOutput, ToolRegistry};
use async_trait::async_trait;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// Approves every write, remembering the proposals it was shown; can run a
/// hook first (to change the file while the prompt is open).
struct Approver {
    seen: Mutex<Vec<Proposal>>,
    before: Mutex<Option<Box<dyn FnOnce() + Send>>>,
}

#[async_trait]
impl Confirmer for Approver {
    async fn confirm(&self, r: ConfirmRequest) -> Decision {
        if let Some(p) = r.call.proposal.as_deref() {
            self.seen.lock().unwrap().push(p.clone());
        }
        if let Some(hook) = self.before.lock().unwrap().take() {
            hook();
        }
        Decision::approve(ApprovedBy::User)
    }
    fn kind(&self) -> airlock::call::ConfirmerKind {
        airlock::call::ConfirmerKind::Scripted
    }
}

struct Ws {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    audit: PathBuf,
    sup: Arc<Supervisor>,
    approver: Arc<Approver>,
    agent: AgentInfo,
}

fn ws() -> Ws {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let audit = dir.path().join("audit/t.jsonl");
    let approver = Arc::new(Approver {
        seen: Mutex::new(Vec::new()),
        before: Mutex::new(None),
    });
    let excluded: Vec<String> = airlock::scope::DEFAULT_EXCLUDED
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    let sup = Supervisor::new(SupervisorParts {
        scope: Scope::new(&root, &[], &excluded).unwrap(),
        tools: ToolRegistry::all(),
        policy: Policy::new(),
        confirmer: approver.clone(),
        audit: Arc::new(AuditLog::create(&audit).unwrap()),
        limits: Limits::default(),
        approval_timeout: None,
        events: EventBus::default(),
    });
    let agent = sup.agent_connected(Some("writer"), None);
    let root = std::fs::canonicalize(&root).unwrap();
    Ws {
        _dir: dir,
        root,
        outside,
        audit,
        sup,
        approver,
        agent,
    }
}

impl Ws {
    async fn call(&self, tool: &str, args: Value) -> ToolOutput {
        let args = args.as_object().unwrap().clone();
        self.sup
            .call(
                &self.agent,
                tool,
                Some(args),
                CancellationToken::new(),
                None,
            )
            .await
            .unwrap()
    }
    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }
    fn put(&self, rel: &str, content: &[u8]) {
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    fn last_proposal(&self) -> Proposal {
        self.approver
            .seen
            .lock()
            .unwrap()
            .last()
            .cloned()
            .expect("a proposal was shown")
    }
    fn records(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.audit)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

fn leftover_temps(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".airlock-"))
        .collect()
}

#[tokio::test]
async fn new_file_with_parents_and_diff_shown_first() {
    let w = ws();
    let out = w
        .call(
            "write_file",
            json!({"path": "src/deep/new.rs", "content": "fn a() {}\nfn b() {}\n"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(w.read("src/deep/new.rs"), "fn a() {}\nfn b() {}\n");
    assert!(
        out.text.contains("created src/deep/new.rs") && out.text.contains("+2 −0"),
        "{}",
        out.text
    );
    let p = w.last_proposal();
    assert_eq!((p.added, p.removed), (2, 0));
    assert!(p.diff.unwrap().contains("+fn b() {}"));
    // The audit keeps the diff and its hash in the finished record.
    let fin = w
        .records()
        .into_iter()
        .find(|r| r["type"] == "call_finished" && r["status"] == "ok")
        .unwrap();
    assert!(
        fin["change"]["diff"]
            .as_str()
            .unwrap()
            .contains("+fn a() {}")
    );
    assert_eq!(fin["change"]["diff_sha256"].as_str().unwrap().len(), 64);
    assert!(leftover_temps(&w.root.join("src/deep")).is_empty());
}

#[tokio::test]
async fn overwrite_keeps_permissions_and_append_adds() {
    let w = ws();
    w.put("run.sh", b"#!/bin/sh\necho old\n");
    std::fs::set_permissions(
        w.root.join("run.sh"),
        std::fs::Permissions::from_mode(0o750),
    )
    .unwrap();
    let out = w
        .call(
            "write_file",
            json!({"path": "run.sh", "content": "#!/bin/sh\necho new\n"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.text);
    assert!(
        out.text.contains("overwrote") && out.text.contains("+1 −1"),
        "{}",
        out.text
    );
    let mode = std::fs::metadata(w.root.join("run.sh"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o750);
    let out = w
        .call(
            "write_file",
            json!({"path": "run.sh", "content": "echo more\n", "append": true}),
        )
        .await;
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(w.read("run.sh"), "#!/bin/sh\necho new\necho more\n");
    assert_eq!(w.last_proposal().action, airlock::call::WriteAction::Append);
}

#[tokio::test]
async fn edit_once_and_replace_all() {
    let w = ws();
    w.put("a.txt", b"alpha\nbeta\ngamma\nbeta\n");
    let out = w
        .call(
            "edit_file",
            json!({"path": "a.txt", "old_text": "gamma", "new_text": "GAMMA"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(w.read("a.txt"), "alpha\nbeta\nGAMMA\nbeta\n");
    let out = w
        .call(
            "edit_file",
            json!({"path": "a.txt", "old_text": "beta", "new_text": "B"}),
        )
        .await;
    assert!(out.is_error);
    assert!(
        out.text.contains("2 times") && out.text.contains("lines 2, 4"),
        "{}",
        out.text
    );
    assert_eq!(
        w.read("a.txt"),
        "alpha\nbeta\nGAMMA\nbeta\n",
        "nothing written"
    );
    let out = w
        .call(
            "edit_file",
            json!({"path": "a.txt", "old_text": "beta", "new_text": "B", "replace_all": true}),
        )
        .await;
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.contains("replaced 2 occurrences"), "{}", out.text);
    assert_eq!(w.read("a.txt"), "alpha\nB\nGAMMA\nB\n");
}

#[tokio::test]
async fn no_match_gives_a_whitespace_hint_and_is_never_asked() {
    let w = ws();
    w.put("m.py", b"def f():\n\treturn 1\n");
    let asked_before = w.approver.seen.lock().unwrap().len();
    let out = w
        .call(
            "edit_file",
            json!({"path": "m.py", "old_text": "def f():\n    return 1", "new_text": "x"}),
        )
        .await;
    assert!(out.is_error);
    assert!(
        out.text.contains("when whitespace is ignored") && out.text.contains("lines 1-2"),
        "{}",
        out.text
    );
    assert_eq!(
        w.approver.seen.lock().unwrap().len(),
        asked_before,
        "a failing edit is not shown to the human"
    );
}

#[tokio::test]
async fn crlf_and_missing_final_newline_are_preserved() {
    let w = ws();
    w.put("win.txt", b"one\r\ntwo\r\nthree\r\n");
    let out = w
        .call(
            "edit_file",
            json!({"path": "win.txt", "old_text": "two\nthree", "new_text": "2\n3"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(w.read("win.txt"), "one\r\n2\r\n3\r\n");
    w.put("nonl.txt", b"x = 1\ny = 2");
    let out = w
        .call(
            "edit_file",
            json!({"path": "nonl.txt", "old_text": "y = 2", "new_text": "y = 3"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(w.read("nonl.txt"), "x = 1\ny = 3");
}

#[tokio::test]
async fn binary_content_is_shown_as_binary() {
    let w = ws();
    w.put("img.bin", b"\x89PNG\r\n\x1a\n\0\0\0");
    let out = w
        .call(
            "write_file",
            json!({"path": "img.bin", "content": "now text\n"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.text);
    let p = w.last_proposal();
    assert!(p.binary && p.diff.is_none());
    assert!(p.summary().contains("binary"));
    let out = w
        .call(
            "edit_file",
            json!({"path": "img.bin", "old_text": "now", "new_text": "x"}),
        )
        .await;
    assert!(!out.is_error, "the file is text now: {}", out.text);
    w.put("img2.bin", b"\0\x01\x02");
    let out = w
        .call(
            "edit_file",
            json!({"path": "img2.bin", "old_text": "a", "new_text": "b"}),
        )
        .await;
    assert!(out.is_error && out.text.contains("binary"), "{}", out.text);
}

#[tokio::test]
async fn escapes_git_and_excluded_names_are_refused() {
    let w = ws();
    std::fs::write(w.outside.join("target.txt"), "outside\n").unwrap();
    std::os::unix::fs::symlink(w.outside.join("target.txt"), w.root.join("link.txt")).unwrap();
    std::os::unix::fs::symlink(&w.outside, w.root.join("outdir")).unwrap();
    std::fs::create_dir_all(w.root.join(".git")).unwrap();
    for (path, want) in [
        ("link.txt", "outside the allowed roots"),
        ("outdir/new.txt", "outside the allowed roots"),
        ("../outside/x.txt", "outside the allowed roots"),
        ("/tmp/airlock-escape.txt", "outside the allowed roots"),
        (".git/config", ".git"),
        (".git/hooks/pre-commit", ".git"),
        ("sub/.git/HEAD", ".git"),
        (".airlock.toml", ".airlock.toml"),
        (".env", "excluded"),
        ("config/.env.local", "excluded"),
        ("keys/server.pem", "excluded"),
    ] {
        let out = w
            .call("write_file", json!({"path": path, "content": "pwned\n"}))
            .await;
        assert!(out.is_error, "{path}: {}", out.text);
        assert!(out.text.contains(want), "{path}: {}", out.text);
    }
    assert_eq!(
        std::fs::read_to_string(w.outside.join("target.txt")).unwrap(),
        "outside\n"
    );
    assert!(!w.outside.join("new.txt").exists() && !w.outside.join("x.txt").exists());
    assert!(!Path::new("/tmp/airlock-escape.txt").exists());
    assert!(!w.root.join(".git/config").exists() && !w.root.join(".env").exists());
    let refused = w
        .records()
        .iter()
        .filter(|r| r["type"] == "call_decided" && r["by"] == "scope")
        .count();
    assert_eq!(refused, 11, "every refusal is audited as a scope decision");
}

#[tokio::test]
async fn in_scope_symlink_writes_its_target_and_keeps_the_link() {
    let w = ws();
    w.put("real.txt", b"v1\n");
    std::os::unix::fs::symlink("real.txt", w.root.join("alias.txt")).unwrap();
    let out = w
        .call(
            "edit_file",
            json!({"path": "alias.txt", "old_text": "v1", "new_text": "v2"}),
        )
        .await;
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(w.read("real.txt"), "v2\n");
    assert!(
        std::fs::symlink_metadata(w.root.join("alias.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[tokio::test]
async fn non_regular_targets_are_refused() {
    let w = ws();
    std::fs::create_dir(w.root.join("adir")).unwrap();
    let out = w
        .call("write_file", json!({"path": "adir", "content": "x"}))
        .await;
    assert!(
        out.is_error && out.text.contains("not a regular file"),
        "{}",
        out.text
    );
    let fifo = w.root.join("pipe");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
    let out = w
        .call("write_file", json!({"path": "pipe", "content": "x"}))
        .await;
    assert!(out.is_error && out.text.contains("FIFO"), "{}", out.text);
}

#[tokio::test]
async fn file_changed_while_waiting_for_approval_is_not_written() {
    let w = ws();
    w.put("race.txt", b"original\n");
    let path = w.root.join("race.txt");
    *w.approver.before.lock().unwrap() = Some(Box::new(move || {
        std::fs::write(path, "someone else\n").unwrap();
    }));
    let out = w
        .call(
            "edit_file",
            json!({"path": "race.txt", "old_text": "original", "new_text": "mine"}),
        )
        .await;
    assert!(out.is_error);
    assert!(
        out.text.contains("changed after the change was proposed")
            && out.text.contains("Read the file again"),
        "{}",
        out.text
    );
    assert_eq!(w.read("race.txt"), "someone else\n");

    // A file created while a "create" waited is not overwritten either.
    let path = w.root.join("fresh.txt");
    *w.approver.before.lock().unwrap() =
        Some(Box::new(move || std::fs::write(path, "theirs\n").unwrap()));
    let out = w
        .call(
            "write_file",
            json!({"path": "fresh.txt", "content": "mine\n"}),
        )
        .await;
    assert!(out.is_error, "{}", out.text);
    assert_eq!(w.read("fresh.txt"), "theirs\n");
}

#[test]
fn crash_between_temp_write_and_rename_leaves_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join("f.txt"), "original\n").unwrap();
    let scope = Scope::new(&root, &[], &[]).unwrap();
    let target = airlock::tools::write::resolve(&scope, "f.txt").unwrap();
    let fd = rustix::fs::open(
        &root,
        rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::RDONLY,
        rustix::fs::Mode::empty(),
    )
    .unwrap();
    let staged =
        airlock::tools::write::Staged::write(fd, &target.name, "f.txt", b"new content\n", None)
            .unwrap();
    let tmp = root.join(staged.temp_name());
    assert_eq!(
        std::fs::read_to_string(&tmp).unwrap(),
        "new content\n",
        "the temp file is complete and synced"
    );
    std::mem::forget(staged); // the process "dies" here: no rename, no cleanup
    assert_eq!(
        std::fs::read_to_string(root.join("f.txt")).unwrap(),
        "original\n"
    );
    assert!(tmp.exists(), "only a stray temp file remains");

    // And a staged write that is dropped (an error path) cleans up after itself.
    let fd = rustix::fs::open(
        &root,
        rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::RDONLY,
        rustix::fs::Mode::empty(),
    )
    .unwrap();
    let staged =
        airlock::tools::write::Staged::write(fd, &target.name, "f.txt", b"x", None).unwrap();
    let tmp2 = root.join(staged.temp_name());
    drop(staged);
    assert!(!tmp2.exists());
    assert_eq!(
        std::fs::read_to_string(root.join("f.txt")).unwrap(),
        "original\n"
    );
}
