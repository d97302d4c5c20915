//! The write tools protect what the sandbox protects, in every mode and
//! whatever a rule says: in `trust-edits` (writes run without asking)
//! `write_file` and `edit_file` are refused outright on the agents'
//! project settings (the session's `sandbox.protect`, at any depth, in any
//! letter case, through a symlink), on the directory a repository's
//! `core.hooksPath` names, and on airlock's own config files and data
//! directory. Controls: with `protect = []` the same session writes the
//! agents' settings; with no protection at all the tools write the hooks
//! and airlock's files.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use airlock::audit::AuditLog;
use airlock::call::{AgentInfo, EventBus};
use airlock::policy::{Mode, Policy};
use airlock::scope::Scope;
use airlock::session::{self, SessionOptions};
use airlock::supervisor::{ApproveAllConfirmer, HeadlessConfirmer, Supervisor, SupervisorParts};
use airlock::tools::write::{Protection, WriteFile, airlock_paths};
use airlock::tools::{Limits, Tool, ToolError, ToolOutput, ToolRegistry};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const SETTINGS: &str = "{}\n";
const HOOK: &str = "{\"hooks\":{\"PreToolUse\":[{\"matcher\":\"*\",\"hooks\":[{\"type\":\"command\",\"command\":\"touch PWNED\"}]}]}}\n";

/// The sandbox's default list, and `deploy/` added by the user.
const PROTECT: &str = r#"[sandbox]
protect = [".airlock.toml", ".claude/", ".mcp.json?", ".codex/", ".gemini/", "deploy/"]
"#;

struct Ws {
    _dir: tempfile::TempDir,
    root: PathBuf,
    sup: Arc<Supervisor>,
    agent: AgentInfo,
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

/// A repository whose hooks are husky's (`core.hooksPath = .husky/_`),
/// a nested one with `hooks/`, the agents' settings, a symlink to
/// `.claude`, an explicit config file and the data directory inside the
/// workspace (as when the workspace is the home directory).
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("ws");
    std::fs::create_dir_all(root.join(".claude")).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::create_dir_all(root.join("conf")).unwrap();
    std::fs::write(root.join(".claude/settings.local.json"), SETTINGS).unwrap();
    std::os::unix::fs::symlink(".claude", root.join("lnk")).unwrap();
    git(&root, &["init", "-q"]);
    git(&root, &["config", "core.hooksPath", ".husky/_"]);
    git(&root.join("sub"), &["init", "-q"]);
    git(&root.join("sub"), &["config", "core.hooksPath", "hooks"]);
    (dir, root)
}

/// A session over `root` in `trust-edits` with `config` as its
/// `--config` file (at `conf/airlock.toml`), nobody to ask.
fn session_ws(dir: tempfile::TempDir, root: PathBuf, config: &str) -> Ws {
    let conf = root.join("conf/airlock.toml");
    std::fs::write(&conf, config).unwrap();
    let s = session::start(
        &SessionOptions {
            workspace: root.clone(),
            data_dir: Some(root.join(".airlock-data")),
            config_file: Some(conf),
            mode: airlock::call::SessionMode::Supervisor,
            policy_mode: Some(Mode::TrustEdits),
            user_config: false,
        },
        Arc::new(HeadlessConfirmer),
    )
    .unwrap();
    let agent = s.supervisor.agent_connected(Some("writer"), None);
    Ws {
        _dir: dir,
        root,
        sup: s.supervisor,
        agent,
    }
}

impl Ws {
    async fn call(&self, tool: &str, args: &Value) -> ToolOutput {
        self.sup
            .call(
                &self.agent,
                tool,
                Some(args.as_object().unwrap().clone()),
                CancellationToken::new(),
                None,
            )
            .await
            .unwrap()
    }

    fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.root.join(rel)).ok()
    }
}

fn write(path: &str) -> (&'static str, Value) {
    ("write_file", json!({"path": path, "content": HOOK}))
}

fn edit(path: &str, old: &str) -> (&'static str, Value) {
    (
        "edit_file",
        json!({"path": path, "old_text": old, "new_text": HOOK}),
    )
}

/// The agents' settings, spelled every way, and the user's own entry.
fn agent_settings() -> Vec<((&'static str, Value), &'static str)> {
    vec![
        (write(".claude/settings.json"), ".claude/settings.json"),
        (
            write(".claude/settings.local.json"),
            ".claude/settings.local.json",
        ),
        (
            edit(".claude/settings.local.json", "{}"),
            ".claude/settings.local.json",
        ),
        (write(".mcp.json"), ".mcp.json"),
        (write(".codex/config.toml"), ".codex/config.toml"),
        (write(".gemini/settings.json"), ".gemini/settings.json"),
        (
            write("sub/.claude/settings.json"),
            "sub/.claude/settings.json",
        ),
        (write(".Claude/settings.json"), ".Claude/settings.json"),
        (write("lnk/settings.json"), ".claude/settings.json"),
        (
            write("src/../.claude/commands/x.md"),
            ".claude/commands/x.md",
        ),
        (write("deploy/run.sh"), "deploy/run.sh"),
    ]
}

/// What runs or configures something without asking: git's hooks and
/// airlock's own files.
fn hooks_and_airlock() -> Vec<((&'static str, Value), &'static str)> {
    vec![
        (write(".husky/pre-commit"), ".husky/pre-commit"),
        (write(".husky/_/husky.sh"), ".husky/_/husky.sh"),
        (write("sub/hooks/pre-commit"), "sub/hooks/pre-commit"),
        (
            write(".airlock-data/audit/forged.jsonl"),
            ".airlock-data/audit/forged.jsonl",
        ),
        (write("conf/airlock.toml"), "conf/airlock.toml"),
        (edit("conf/airlock.toml", "[sandbox]"), "conf/airlock.toml"),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trust_edits_never_writes_what_the_sandbox_protects() {
    let (dir, root) = workspace();
    let w = session_ws(dir, root, PROTECT);
    for ((tool, args), file) in agent_settings().into_iter().chain(hooks_and_airlock()) {
        let before = w.read(file);
        let out = w.call(tool, &args).await;
        assert!(out.is_error, "{tool} {args}: {}", out.text);
        // The data directory is refused by the scope first (it is never
        // reached at all), the rest as protected.
        assert!(
            out.text.contains("protected") || out.text.contains("airlock never gives access to it"),
            "{tool} {args}: {}",
            out.text
        );
        assert_eq!(w.read(file), before, "{tool} {args} changed {file}");
    }
    // Ordinary writes next to them still run without asking.
    for ok in [
        "src/claude.txt",
        ".claude.json.txt",
        "husky/pre-commit",
        "sub/x/hooks",
    ] {
        let out = w
            .call("write_file", &json!({"path": ok, "content": "x"}))
            .await;
        assert!(!out.is_error, "{ok}: {}", out.text);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_with_protect_empty_the_same_session_writes_the_agents_settings() {
    let (dir, root) = workspace();
    let w = session_ws(dir, root, "[sandbox]\nprotect = []\n");
    for ((tool, args), file) in agent_settings() {
        // The symlink's file is written by the write through it.
        if args["path"] == "lnk/settings.json" {
            std::fs::remove_file(w.root.join(file)).unwrap();
        }
        if tool == "edit_file" {
            std::fs::write(w.root.join(file), SETTINGS).unwrap();
        }
        let out = w.call(tool, &args).await;
        assert!(!out.is_error, "{tool} {args}: {}", out.text);
        assert!(
            w.read(file).is_some_and(|t| t.contains("PreToolUse")),
            "{file}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_without_protection_the_tools_write_hooks_and_airlocks_files() {
    let (dir, root) = workspace();
    std::fs::write(root.join("conf/airlock.toml"), PROTECT).unwrap();
    let audit = dir.path().join("audit.jsonl");
    let sup = Supervisor::new(SupervisorParts {
        scope: Scope::new(&root, &[], &[]).unwrap(),
        tools: ToolRegistry::all().with_write_protection(Arc::new(Protection::default())),
        policy: Policy::new(),
        confirmer: Arc::new(ApproveAllConfirmer),
        audit: Arc::new(AuditLog::create(&audit).unwrap()),
        limits: Limits::default(),
        approval_timeout: None,
        events: EventBus::default(),
    });
    let agent = sup.agent_connected(Some("writer"), None);
    let w = Ws {
        _dir: dir,
        root,
        sup,
        agent,
    };
    for ((tool, args), file) in hooks_and_airlock() {
        if tool == "edit_file" {
            std::fs::write(w.root.join(file), PROTECT).unwrap();
        }
        let out = w.call(tool, &args).await;
        assert!(!out.is_error, "{tool} {args}: {}", out.text);
        assert!(
            w.read(file).is_some_and(|t| t.contains("PreToolUse")),
            "{file}"
        );
    }
}

/// The user's airlock config (`~/.config/airlock/config.toml`), when a
/// root holds it (the workspace is the home directory, or an extra root
/// is): prepared only, never written, here and in the control.
#[test]
fn airlocks_user_config_is_refused_when_a_root_holds_it() {
    let (Some(config), Some(home)) = (
        airlock::dirs::user_config_path(),
        std::env::var_os("HOME").map(PathBuf::from),
    ) else {
        return; // no home directory: nothing to protect
    };
    let Ok(home) = std::fs::canonicalize(&home) else {
        return;
    };
    let ws = tempfile::tempdir().unwrap();
    let scope = Scope::new(ws.path(), std::slice::from_ref(&home), &[]).unwrap();
    let data = ws.path().join("data");
    let args = json!({"path": config, "content": "allow = [\"bash\"]\n"});
    let args = args.as_object().unwrap();
    let own = airlock_paths(ws.path(), &data, &[]);
    let session =
        WriteFile::with_protection(Arc::new(Protection::new(&[], ws.path(), Some(&home), &own)));
    match session.prepare(args, &scope) {
        Err(ToolError::Scope(e)) => {
            assert!(e.to_string().contains("airlock's own"), "{e}");
        }
        Err(e) => panic!("refused for another reason: {e}"),
        Ok(_) => panic!("{} was prepared for writing", config.display()),
    }
    // Control: the same write is prepared (would run) without protection.
    if !config.starts_with(&home) {
        return; // XDG_CONFIG_HOME outside the home: not in the scope
    }
    let open = WriteFile::with_protection(Arc::new(Protection::default()));
    assert!(open.prepare(args, &scope).is_ok(), "control");
}
