//! `write_file` and `edit_file` run outside the sandbox, so the guard never
//! sees them: they themselves refuse a target inside a git repository's
//! control directory (an ancestor up to the workspace that is one, bare
//! ones included) or one that would complete a repository (`HEAD`,
//! `objects/…`, `refs/…`, `commondir`; executable files and symlinks count
//! as git counts them), and a nested `.airlock.toml`. Each refusal is
//! audited. The control writes the same files directly (what an
//! unprotected write does) and shows host git running the payload.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use airlock::audit::AuditLog;
use airlock::call::EventBus;
use airlock::policy::Policy;
use airlock::scope::Scope;
use airlock::supervisor::{ApproveAllConfirmer, Supervisor, SupervisorParts};
use airlock::tools::{Limits, ToolOutput, ToolRegistry};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

struct Ws {
    _dir: tempfile::TempDir,
    root: PathBuf,
    marker: PathBuf,
    payload: PathBuf,
    audit: PathBuf,
    sup: Arc<Supervisor>,
}

fn ws() -> Ws {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir_all(&root).unwrap();
    let root = std::fs::canonicalize(&root).unwrap();
    let outside = std::fs::canonicalize(dir.path()).unwrap();
    let marker = outside.join("marker");
    let payload = outside.join("payload");
    std::fs::write(
        &payload,
        format!("#!/bin/sh\ntouch '{}'\n", marker.display()),
    )
    .unwrap();
    std::fs::set_permissions(&payload, std::fs::Permissions::from_mode(0o755)).unwrap();
    let audit = outside.join("audit/t.jsonl");
    let excluded: Vec<String> = airlock::scope::DEFAULT_EXCLUDED
        .iter()
        .map(ToString::to_string)
        .collect();
    let sup = Supervisor::new(SupervisorParts {
        scope: Scope::new(&root, &[], &excluded).unwrap(),
        tools: ToolRegistry::all(),
        policy: Policy::new(),
        confirmer: Arc::new(ApproveAllConfirmer),
        audit: Arc::new(AuditLog::create(&audit).unwrap()),
        limits: Limits::default(),
        approval_timeout: None,
        events: EventBus::default(),
    });
    Ws {
        _dir: dir,
        root,
        marker,
        payload,
        audit,
        sup,
    }
}

impl Ws {
    async fn call(&self, tool: &str, args: Value) -> ToolOutput {
        let agent = self.sup.agent_connected(Some("writer"), None);
        self.sup
            .call(
                &agent,
                tool,
                Some(args.as_object().unwrap().clone()),
                CancellationToken::new(),
                None,
            )
            .await
            .unwrap()
    }

    async fn write(&self, path: &str, content: &str) -> ToolOutput {
        self.call("write_file", json!({"path": path, "content": content}))
            .await
    }

    fn config(&self) -> String {
        format!(
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = {}\n[alias]\n\tst = !{}\n",
            self.payload.display(),
            self.payload.display()
        )
    }

    fn scope_refusals(&self) -> usize {
        std::fs::read_to_string(&self.audit)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|r| r["type"] == "call_decided" && r["by"] == "scope")
            .count()
    }
}

/// Host-side git, without the machine's global config.
fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap_or(dir))
        .output()
        .unwrap()
}

fn exec_file(p: &Path) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The plants: (what exists first, the files written, where host git runs).
type Plant = (fn(&Ws), &'static [&'static str], &'static str);

const HEAD: &str = "ref: refs/heads/main\n";

fn plants() -> Vec<Plant> {
    vec![
        // A repository from nothing, directories made by the write itself.
        (
            |_| {},
            &[
                "sub/HEAD",
                "sub/objects/.keep",
                "sub/refs/.keep",
                "sub/config",
            ],
            "sub",
        ),
        // Dangling objects and refs symlinks (a shell made them), their
        // targets made by the write.
        (
            |w| {
                let d = w.root.join("d");
                std::fs::create_dir_all(&d).unwrap();
                std::fs::write(d.join("HEAD"), HEAD).unwrap();
                std::fs::write(d.join("config"), w.config()).unwrap();
                std::os::unix::fs::symlink("o", d.join("objects")).unwrap();
                std::os::unix::fs::symlink("r", d.join("refs")).unwrap();
            },
            &["d/o/.keep", "d/r/.keep"],
            "d",
        ),
        // objects and refs executable files (made by a shell earlier).
        (
            |w| {
                exec_file(&w.root.join("x/objects"));
                exec_file(&w.root.join("x/refs"));
            },
            &["x/HEAD", "x/config"],
            "x",
        ),
        // Symlinks to directories that exist.
        (
            |w| {
                std::fs::create_dir_all(w.root.join("l/o")).unwrap();
                std::os::unix::fs::symlink("/", w.root.join("l/objects")).unwrap();
                std::os::unix::fs::symlink("o", w.root.join("l/refs")).unwrap();
            },
            &["l/HEAD", "l/config"],
            "l",
        ),
        // The workspace root itself.
        (
            |w| {
                std::fs::create_dir_all(w.root.join("objects")).unwrap();
                std::fs::create_dir_all(w.root.join("refs")).unwrap();
            },
            &["HEAD", "config"],
            ".",
        ),
        // A bare repository's config and hooks.
        (
            |w| {
                let out = git(&w.root, &["init", "-q", "--bare", "remote.git"]);
                assert!(out.status.success(), "{out:?}");
            },
            &["remote.git/config", "remote.git/hooks/pre-auto-gc"],
            "remote.git",
        ),
    ]
}

fn write_directly(w: &Ws, rel: &str) {
    let p = w.root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let content = match p.file_name().and_then(|n| n.to_str()) {
        Some("HEAD") => HEAD.to_string(),
        Some("config") => w.config(),
        _ => String::new(),
    };
    std::fs::write(&p, content).unwrap();
}

/// Whether host git, run where the plant says, ran the payload.
fn host_git_ran(w: &Ws, at: &str) -> bool {
    let dir = w.root.join(at);
    git(&dir, &["status"]);
    git(&dir, &["st"]);
    w.marker.exists()
}

#[tokio::test]
async fn writes_that_plant_or_enter_a_repository_are_refused_and_audited() {
    let mut planted = Vec::new();
    let mut refusals = 0;
    for (setup, files, at) in plants() {
        let w = ws();
        setup(&w);
        for f in files {
            let content = match Path::new(f).file_name().and_then(|n| n.to_str()) {
                Some("HEAD") => HEAD.to_string(),
                Some("config") => w.config(),
                _ => String::new(),
            };
            let out = w.write(f, &content).await;
            if out.is_error {
                assert!(out.text.contains("git repository"), "{f}: {}", out.text);
            }
        }
        refusals += w.scope_refusals();
        if host_git_ran(&w, at) {
            planted.push(at);
        }
    }
    assert!(
        planted.is_empty(),
        "host git ran a payload written in: {planted:?}"
    );
    assert!(
        refusals >= 5,
        "each plant was refused and audited ({refusals})"
    );
}

#[tokio::test]
async fn control_the_same_files_written_directly_make_host_git_run_the_payload() {
    let mut missed = Vec::new();
    for (setup, files, at) in plants() {
        let w = ws();
        setup(&w);
        for f in files {
            write_directly(&w, f);
        }
        if !host_git_ran(&w, at) {
            missed.push(at);
        }
    }
    assert!(
        missed.is_empty(),
        "these plants do not work even unprotected: {missed:?}"
    );
}

#[tokio::test]
async fn edit_file_in_a_bare_repository_and_nested_project_configs_are_refused() {
    let w = ws();
    assert!(
        git(&w.root, &["init", "-q", "--bare", "b.git"])
            .status
            .success()
    );
    let out = w
        .call(
            "edit_file",
            json!({"path": "b.git/config", "old_text": "[core]", "new_text": "[alias]\n\tx = !true\n[core]"}),
        )
        .await;
    assert!(
        out.is_error && out.text.contains("git repository b.git"),
        "{}",
        out.text
    );
    for p in [
        "crates/foo/.airlock.toml",
        "crates/bar/.AIRLOCK.TOML",
        "a/.Git/config",
        // KELVIN SIGN: a case-folding filesystem opens `.airlock.toml`.
        "crates/baz/.airloc\u{212A}.toml",
    ] {
        let out = w.write(p, "x = 1\n").await;
        assert!(
            out.is_error && out.text.contains("(protected)"),
            "{p}: {}",
            out.text
        );
        assert!(!w.root.join(p).exists());
    }
    assert_eq!(w.scope_refusals(), 5);
}

#[tokio::test]
async fn ordinary_writes_next_to_git_names_still_work() {
    let w = ws();
    assert!(git(&w.root, &["init", "-q"]).status.success());
    for p in [
        "src/main.rs",
        "docs/HEAD",
        "docs/refs/intro.md",
        "lib/objects/mod.rs",
        "crates/foo/airlock.toml",
    ] {
        let out = w.write(p, "x\n").await;
        assert!(!out.is_error, "{p}: {}", out.text);
    }
    // Inside a nested repository's work tree (not its control directory).
    assert!(
        git(&w.root.join("src"), &["init", "-q", "inner"])
            .status
            .success()
    );
    let out = w.write("src/inner/lib.rs", "x\n").await;
    assert!(!out.is_error, "{}", out.text);
}
