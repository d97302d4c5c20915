//! airlock's own files are read-only inside the bash sandbox wherever
//! they are: an approved command cannot write the user configuration
//! (`~/.config/airlock/config.toml`, with the home directory as the
//! workspace: `allow` rules for the next session), a `--config` file in
//! the workspace, or the audit trail of a data directory the shell may
//! write — not by writing it, replacing it, or moving it or a directory
//! on its way aside and making a new one. The controls: with
//! `protect_airlock = false` the same commands land.

mod mcp_support;
mod sandbox_support;

use std::path::{Path, PathBuf};

use airlock::sandbox::SandboxOverrides;
use mcp_support::{NamedClient, args};
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt, service::RunningService};
use sandbox_support::{At, Fixture, Placement, fixture_placed, q, target_tempdir};
use serde_json::json;

const OFF: &str = "protect_airlock = false";

/// One way to put `OWNED-n` at `rel` (relative to the shell's directory).
struct Attempt {
    name: String,
    command: String,
    marker: String,
}

/// Every way in: append, replace by a rename, move the file aside and
/// write a new one, move each directory on the way aside and make a new
/// one. The marker is put together by `printf`, so the command line (which
/// the trail records) does not hold it.
fn attempts(rel: &str) -> Vec<Attempt> {
    let p = Path::new(rel);
    let file = q(p);
    let parent = p.parent().map_or_else(|| ".".into(), q);
    let mut out = Vec::new();
    let mut add = |name: String, command: String| {
        let n = out.len() + 1;
        out.push(Attempt {
            name,
            command: format!("mkdir -p {parent}; {command}")
                .replace("MARK", &format!("printf '%s-%s\\n' OWNED {n}")),
            marker: format!("OWNED-{n}"),
        });
    };
    add("append".into(), format!("MARK >> {file}"));
    add(
        "replace".into(),
        format!("MARK > /tmp/own.new && mv -f /tmp/own.new {file}"),
    );
    add(
        "move the file".into(),
        format!("mv {file} {file}.old; MARK > {file}"),
    );
    for dir in p.ancestors().skip(1).filter(|d| !d.as_os_str().is_empty()) {
        let d = q(dir);
        add(
            format!("move {}", dir.display()),
            format!("mv {d} {d}.old && mkdir -p {parent} && MARK > {file}"),
        );
    }
    out
}

/// The names of the attempts whose marker is at `base/rel` afterwards,
/// each run through `run`.
async fn landed<F, Fut>(base: &Path, rel: &str, mut run: F) -> Vec<String>
where
    F: FnMut(String) -> Fut,
    Fut: std::future::Future<Output = String>,
{
    let mut out = Vec::new();
    for a in attempts(rel) {
        let said = run(a.command.clone()).await;
        let now = std::fs::read_to_string(base.join(rel)).unwrap_or_default();
        if now.contains(&a.marker) {
            out.push(a.name);
        } else {
            eprintln!("{}: refused: {said}", a.name);
        }
    }
    out
}

fn all(rel: &str) -> Vec<String> {
    attempts(rel).into_iter().map(|a| a.name).collect()
}

fn placed(sandbox: &str, at: Placement) -> Fixture {
    fixture_placed(target_tempdir(), sandbox, SandboxOverrides::default(), at)
}

async fn config_in_workspace(sandbox: &str) -> (Vec<String>, String, Fixture) {
    let rel = "cfg/session.toml";
    let f = placed(
        sandbox,
        Placement {
            config: At::Workspace(rel),
            data: At::Beside,
        },
    );
    let before = std::fs::read_to_string(f.ws.join(rel)).unwrap();
    let got = landed(&f.ws, rel, |c| {
        let f = &f;
        async move { f.bash(&c).await.text }
    })
    .await;
    (got, before, f)
}

#[tokio::test]
async fn a_config_file_in_the_workspace_is_read_only() {
    let (got, before, f) = config_in_workspace("").await;
    assert!(got.is_empty(), "the shell changed the config: {got:?}");
    assert_eq!(
        std::fs::read_to_string(f.ws.join("cfg/session.toml")).unwrap(),
        before
    );
    let shown = &f.session.sandbox.protect_own;
    assert!(
        shown.iter().any(|p| p.ends_with("cfg/session.toml")),
        "{shown:?}"
    );
}

#[tokio::test]
async fn control_a_config_file_in_the_workspace_is_writable_without_protection() {
    let (got, _, f) = config_in_workspace(OFF).await;
    assert_eq!(got, all("cfg/session.toml"));
    assert!(f.session.sandbox.protect_own.is_empty());
}

/// The session's trail, relative to the workspace, with the data
/// directory at `data` (relative to the workspace).
fn trail_rel(f: &Fixture) -> String {
    f.session
        .audit_path
        .strip_prefix(&f.ws)
        .unwrap()
        .display()
        .to_string()
}

async fn trail_in_workspace(sandbox: &str) -> (Vec<String>, Fixture) {
    // The workspace is the data directory: the trails are in it, and it
    // cannot be hidden (it holds the workspace).
    let f = placed(
        sandbox,
        Placement {
            config: At::Beside,
            data: At::Workspace(""),
        },
    );
    let rel = trail_rel(&f);
    let got = landed(&f.ws, &rel, |c| {
        let f = &f;
        async move { f.bash(&c).await.text }
    })
    .await;
    (got, f)
}

#[tokio::test]
async fn the_trail_in_a_writable_data_directory_is_read_only() {
    let (got, f) = trail_in_workspace("").await;
    assert!(got.is_empty(), "the shell changed the trail: {got:?}");
    // airlock itself still writes it (from outside the sandbox).
    let trail = std::fs::read_to_string(&f.session.audit_path).unwrap();
    assert!(!trail.contains("OWNED-"), "{trail}");
    let finished = trail.matches("\"call_finished\"").count();
    assert_eq!(finished, attempts(&trail_rel(&f)).len(), "{trail}");
}

#[tokio::test]
async fn control_the_trail_is_writable_without_protection() {
    let (got, f) = trail_in_workspace(OFF).await;
    assert_eq!(got, all(&trail_rel(&f)));
}

/// A data directory in the workspace is hidden (a read-only, empty
/// directory); the directories on its way are pinned too, so it cannot be
/// moved aside and replaced by one holding a forged trail.
async fn hidden_data_dir(sandbox: &str) -> (Vec<String>, Fixture) {
    let f = placed(
        sandbox,
        Placement {
            config: At::Beside,
            data: At::Workspace(".local/share/airlock"),
        },
    );
    let rel = trail_rel(&f);
    let got = landed(&f.ws, &rel, |c| {
        let f = &f;
        async move { f.bash(&c).await.text }
    })
    .await;
    (got, f)
}

#[tokio::test]
async fn a_hidden_data_directory_cannot_be_moved_aside() {
    let (got, f) = hidden_data_dir("").await;
    assert!(got.is_empty(), "{got:?}");
    assert!(f.ws.join(".local/share/airlock/audit").is_dir());
}

#[tokio::test]
async fn control_a_hidden_data_directory_is_moved_aside_without_protection() {
    let (got, _f) = hidden_data_dir(OFF).await;
    assert!(got.contains(&"move .local".to_string()), "{got:?}");
}

/// `airlock serve --stdio --approve-all` with `home` as both the home
/// directory and the workspace; runs each attempt at the user config.
async fn user_config(home: &Path, config: Option<&Path>) -> (Vec<String>, Vec<serde_json::Value>) {
    let dir = target_tempdir();
    let data = dir.path().join("data");
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_airlock"));
    cmd.env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME")
        .env_remove("AIRLOCK_DATA_DIR")
        .env_remove("AIRLOCK_SOCKET")
        .env_remove("AIRLOCK_NO_USER_CONFIG")
        .env("AIRLOCK_RUNTIME_DIR", dir.path().join("rt"))
        .kill_on_drop(true)
        .arg("serve")
        .arg("--stdio")
        .arg("--approve-all")
        .arg("--workspace")
        .arg(home)
        .arg("--data-dir")
        .arg(&data);
    if let Some(c) = config {
        cmd.arg("--config").arg(c);
    }
    let client: RunningService<RoleClient, NamedClient> = NamedClient("own-files")
        .serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap();
    let rel = ".config/airlock/config.toml";
    let got = landed(home, rel, |c| {
        let client = &client;
        async move {
            let r = client
                .call_tool(
                    CallToolRequestParams::new("bash").with_arguments(args(json!({"command": c}))),
                )
                .await
                .unwrap();
            r.content
                .iter()
                .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                .collect()
        }
    })
    .await;
    client.cancel().await.unwrap();
    let trail: PathBuf = std::fs::read_dir(data.join("audit"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .unwrap();
    (got, mcp_support::read_audit(&trail))
}

fn home() -> (tempfile::TempDir, PathBuf) {
    let d = target_tempdir();
    let h = std::fs::canonicalize(d.path()).unwrap().join("home");
    std::fs::create_dir(&h).unwrap();
    (d, h)
}

#[tokio::test]
async fn the_user_config_is_read_only_with_the_home_directory_as_workspace() {
    let rel = ".config/airlock/config.toml";
    // Absent: the directory gets a placeholder.
    let (_d, h) = home();
    let (got, records) = user_config(&h, None).await;
    assert!(got.is_empty(), "the shell wrote the user config: {got:?}");
    assert!(!h.join(rel).exists() || std::fs::read_to_string(h.join(rel)).unwrap().is_empty());
    let shown = records[0]["sandbox"]["protect_own"].to_string();
    assert!(shown.contains(".config/airlock"), "{shown}");
    // Present (and in force): the same.
    let (_d, h) = home();
    std::fs::create_dir_all(h.join(".config/airlock")).unwrap();
    std::fs::write(h.join(rel), "# mine\n").unwrap();
    let (got, _) = user_config(&h, None).await;
    assert!(got.is_empty(), "the shell wrote the user config: {got:?}");
    assert_eq!(std::fs::read_to_string(h.join(rel)).unwrap(), "# mine\n");
}

#[tokio::test]
async fn control_the_user_config_is_writable_without_protection() {
    let (d, h) = home();
    let cfg = d.path().join("off.toml");
    std::fs::write(&cfg, format!("[sandbox]\n{OFF}\n")).unwrap();
    let (got, _) = user_config(&h, Some(&cfg)).await;
    assert_eq!(got, all(".config/airlock/config.toml"));
}

/// `~/.config/airlock` a symlink into a dotfiles directory in the home:
/// the link is pinned too (it cannot be replaced by a directory of the
/// shell's), the directory it leads to is read-only. Control: without
/// the protection every attempt lands.
#[tokio::test]
async fn a_symlinked_user_config_directory_is_read_only_with_its_link() {
    let rel = ".config/airlock/config.toml";
    let linked = |h: &Path| {
        std::fs::create_dir_all(h.join("dotfiles/airlock")).unwrap();
        std::fs::create_dir_all(h.join(".config")).unwrap();
        std::os::unix::fs::symlink("../dotfiles/airlock", h.join(".config/airlock")).unwrap();
        std::fs::write(h.join("dotfiles/airlock/config.toml"), "# mine\n").unwrap();
    };
    let (_d, h) = home();
    linked(&h);
    let (got, _) = user_config(&h, None).await;
    assert!(got.is_empty(), "the shell wrote the user config: {got:?}");
    assert!(h.join(".config/airlock").is_symlink());
    assert_eq!(
        std::fs::read_to_string(h.join("dotfiles/airlock/config.toml")).unwrap(),
        "# mine\n"
    );
    let (d, h) = home();
    linked(&h);
    let cfg = d.path().join("off.toml");
    std::fs::write(&cfg, format!("[sandbox]\n{OFF}\n")).unwrap();
    let (got, _) = user_config(&h, Some(&cfg)).await;
    assert_eq!(got, all(rel));
}
