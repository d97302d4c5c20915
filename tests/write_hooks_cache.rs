//! The write tools look up every enclosing repository's `core.hooksPath`
//! when a write is prepared and again just before it is written. The
//! session remembers each repository's value while the config files git
//! read are unchanged: an unchanged repository runs `git config` once for
//! any number of writes, and a changed one (an approved command sets
//! `core.hooksPath`, an include the agent wrote names one, the config is
//! rewritten in place) is read again at the next write, whose target in
//! the new hooks directory is refused. The count is the protection's own
//! (`Protection::git_runs`); the controls are the same writes allowed
//! before the change.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use airlock::audit::AuditLog;
use airlock::call::{AgentInfo, EventBus};
use airlock::policy::Policy;
use airlock::sandbox::hooks_path::SETTLE;
use airlock::scope::Scope;
use airlock::supervisor::{ApproveAllConfirmer, Supervisor, SupervisorParts};
use airlock::tools::write::Protection;
use airlock::tools::{Limits, ToolOutput, ToolRegistry};
use serde_json::json;
use tokio_util::sync::CancellationToken;

struct Ws {
    _dir: tempfile::TempDir,
    root: PathBuf,
    sup: Arc<Supervisor>,
    agent: AgentInfo,
    protection: Arc<Protection>,
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// A repository (`core.hooksPath = .husky`) with a nested one, `extra`
/// run in the root before the files settle, every write approved.
async fn workspace(extra: &[&[&str]]) -> Ws {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("ws");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    git(&root, &["init", "-q"]);
    git(&root, &["config", "core.hooksPath", ".husky"]);
    git(&root.join("sub"), &["init", "-q"]);
    for args in extra {
        git(&root, args);
    }
    // Past the settling time: the readings are cached from now on.
    tokio::time::sleep(SETTLE + std::time::Duration::from_millis(200)).await;
    let protection = Arc::new(Protection::new(&[], &root, None, &[]));
    let sup = Supervisor::new(SupervisorParts {
        scope: Scope::new(&root, &[], &[]).unwrap(),
        tools: ToolRegistry::all().with_write_protection(protection.clone()),
        policy: Policy::new(),
        confirmer: Arc::new(ApproveAllConfirmer),
        audit: Arc::new(AuditLog::create(&dir.path().join("audit.jsonl")).unwrap()),
        limits: Limits::default(),
        approval_timeout: None,
        events: EventBus::default(),
    });
    let agent = sup.agent_connected(Some("writer"), None);
    Ws {
        _dir: dir,
        root,
        sup,
        agent,
        protection,
    }
}

impl Ws {
    async fn write(&self, path: &str, content: &str) -> ToolOutput {
        let args = json!({"path": path, "content": content});
        self.sup
            .call(
                &self.agent,
                "write_file",
                Some(args.as_object().unwrap().clone()),
                CancellationToken::new(),
                None,
            )
            .await
            .unwrap()
    }

    async fn written(&self, path: &str) {
        let out = self.write(path, "x\n").await;
        assert!(!out.is_error, "{path}: {}", out.text);
    }

    async fn refused(&self, path: &str) {
        let out = self.write(path, "#!/bin/sh\ntouch PWNED\n").await;
        assert!(out.is_error, "{path} was written: {}", out.text);
        assert!(out.text.contains("core.hooksPath"), "{}", out.text);
    }

    fn runs(&self) -> u64 {
        self.protection.git_runs()
    }
}

#[tokio::test]
async fn an_unchanged_repository_runs_git_once() {
    let w = workspace(&[]).await;
    w.written("src/a.txt").await;
    let first = w.runs();
    assert!(first >= 1, "the first write reads the repository's config");
    for i in 0..5 {
        w.written(&format!("src/b{i}.txt")).await;
    }
    w.refused(".husky/pre-commit").await;
    assert_eq!(
        w.runs(),
        first,
        "six more writes (each checked twice) ran git again"
    );
    // A write in the nested repository reads its config once; the outer
    // one is remembered.
    w.written("sub/c.txt").await;
    w.written("sub/d.txt").await;
    assert_eq!(w.runs(), first + 1);
}

#[tokio::test]
async fn a_hooks_path_set_after_the_first_write_is_refused_at_the_next() {
    let w = workspace(&[]).await;
    w.written("hooks2/pre-commit").await;
    w.written("hooks2/pre-push").await;
    let cached = w.runs();
    // What an approved `git config core.hooksPath hooks2` does.
    git(&w.root, &["config", "core.hooksPath", "hooks2"]);
    w.refused("hooks2/pre-commit").await;
    assert!(w.runs() > cached, "the changed config was read again");
    w.written(".husky/pre-commit").await;
}

#[tokio::test]
async fn an_include_the_agent_writes_is_read_at_the_next_write() {
    let w = workspace(&[&["config", "include.path", "../shared.gitconfig"]]).await;
    w.written("hooks3/pre-commit").await;
    w.written("hooks3/pre-push").await;
    // The agent writes the included file itself (it is in the work tree).
    let out = w
        .write("shared.gitconfig", "[core]\n\thooksPath = hooks3\n")
        .await;
    assert!(!out.is_error, "{}", out.text);
    w.refused("hooks3/pre-commit").await;
}

#[tokio::test]
async fn a_config_rewritten_in_place_with_the_same_size_is_read_again() {
    let w = workspace(&[&["config", "core.hooksPath", "aaaa"]]).await;
    w.written("bbbb/pre-commit").await;
    w.written("bbbb/pre-push").await;
    let config = w.root.join(".git/config");
    let text = std::fs::read_to_string(&config).unwrap();
    let before = std::fs::metadata(&config).unwrap();
    // Same inode, same size: only the times tell.
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(&config)
        .unwrap();
    std::io::Write::write_all(&mut f, text.replace("aaaa", "bbbb").as_bytes()).unwrap();
    drop(f);
    let after = std::fs::metadata(&config).unwrap();
    assert_eq!(
        (std::os::unix::fs::MetadataExt::ino(&before), before.len()),
        (std::os::unix::fs::MetadataExt::ino(&after), after.len())
    );
    w.refused("bbbb/pre-commit").await;
}
