//! The credentials of common tools in the home directory are out of the
//! shell's reach by default, and out of the read tools': a fake home
//! holds a secret in each place one lives (keys, cloud and registry
//! tokens, forges, the agents' own logins, password stores, keyrings,
//! browser profiles); an approved `cat` of each finds nothing and
//! `read_file` is refused. The control: with `deny_read = []` the same
//! `cat` prints every secret.

mod mcp_support;
mod sandbox_support;

use std::path::{Path, PathBuf};

use mcp_support::{NamedClient, args};
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt, service::RunningService};
use sandbox_support::target_tempdir;
use serde_json::json;

/// Where a tool keeps a secret, relative to the home directory.
const SECRETS: &[&str] = &[
    ".ssh/id_ed25519",
    ".gnupg/private-keys-v1.d/key.key",
    ".aws/credentials",
    ".config/gcloud/application_default_credentials.json",
    ".azure/msal_token_cache.json",
    ".kube/config",
    ".oci/config",
    ".docker/config.json",
    ".terraform.d/credentials.tfrc.json",
    ".vault-token",
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".config/gh/hosts.yml",
    ".config/hub",
    ".config/glab-cli/config.yml",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".gemini/oauth_creds.json",
    ".password-store/email.gpg",
    ".local/share/keyrings/login.keyring",
    ".mozilla/firefox/p.default/logins.json",
    ".config/google-chrome/Default/Cookies",
    ".config/chromium/Default/Login Data",
    ".config/BraveSoftware/Brave-Browser/Default/Cookies",
];

struct FakeHome {
    _dir: tempfile::TempDir,
    home: PathBuf,
    ws: PathBuf,
    data: PathBuf,
}

fn home() -> FakeHome {
    let dir = target_tempdir();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let home = base.join("home");
    for (i, rel) in SECRETS.iter().enumerate() {
        let p = home.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, format!("SECRET-{i}\n")).unwrap();
    }
    let ws = home.join("project");
    std::fs::create_dir_all(&ws).unwrap();
    FakeHome {
        _dir: dir,
        home,
        ws,
        data: base.join("data"),
    }
}

async fn serve(h: &FakeHome, config: Option<&Path>) -> RunningService<RoleClient, NamedClient> {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_airlock"));
    cmd.env("HOME", &h.home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME")
        .env_remove("AIRLOCK_DATA_DIR")
        .env_remove("AIRLOCK_SOCKET")
        .env("AIRLOCK_NO_USER_CONFIG", "1")
        .env("AIRLOCK_RUNTIME_DIR", h.data.join("rt"))
        .kill_on_drop(true)
        .args(["serve", "--stdio", "--approve-all", "--workspace"])
        .arg(&h.ws)
        .arg("--data-dir")
        .arg(&h.data);
    if let Some(c) = config {
        cmd.arg("--config").arg(c);
    }
    NamedClient("home-secrets")
        .serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap()
}

async fn call(
    client: &RunningService<RoleClient, NamedClient>,
    tool: &str,
    a: serde_json::Value,
) -> String {
    let r = client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args(a)))
        .await
        .unwrap();
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

/// `cat` every secret in one command; the secrets it printed.
async fn leaked(client: &RunningService<RoleClient, NamedClient>, h: &FakeHome) -> Vec<String> {
    let files: Vec<String> = SECRETS
        .iter()
        .map(|r| format!("'{}'", h.home.join(r).display()))
        .collect();
    let cmd = format!(
        "for f in {}; do cat \"$f\" 2>/dev/null; done; echo end",
        files.join(" ")
    );
    let out = call(client, "bash", json!({ "command": cmd })).await;
    assert!(out.contains("end"), "{out}");
    out.lines()
        .filter(|l| l.starts_with("SECRET-"))
        .map(str::to_string)
        .collect()
}

#[tokio::test]
async fn the_shell_and_the_read_tools_find_no_credentials_in_the_home_directory() {
    let h = home();
    let client = serve(&h, None).await;
    let got = leaked(&client, &h).await;
    let extra = format!("[scope]\nextra_roots = [\"{}\"]\n", h.home.display());
    client.cancel().await.unwrap();
    assert!(got.is_empty(), "the shell read: {got:?}");
    // The read tools, with the home directory as an extra root.
    let cfg = h.data.with_file_name("roots.toml");
    std::fs::write(&cfg, extra).unwrap();
    let client = serve(&h, Some(&cfg)).await;
    for rel in SECRETS {
        let out = call(&client, "read_file", json!({ "path": h.home.join(rel) })).await;
        assert!(!out.contains("SECRET-"), "read_file {rel}: {out}");
        assert!(out.contains("excluded"), "read_file {rel}: {out}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn control_with_deny_read_empty_the_shell_reads_every_secret() {
    let h = home();
    let cfg = h.data.with_file_name("off.toml");
    let text = format!(
        "[sandbox]\ndeny_read = []\n[scope]\nextra_roots = [\"{}\"]\n",
        h.home.display()
    );
    std::fs::write(&cfg, text).unwrap();
    let client = serve(&h, Some(&cfg)).await;
    let got = leaked(&client, &h).await;
    assert_eq!(got.len(), SECRETS.len(), "{got:?}");
    // A secret no excluded name covers is served by read_file too.
    let out = call(
        &client,
        "read_file",
        json!({ "path": h.home.join(".kube/config") }),
    )
    .await;
    client.cancel().await.unwrap();
    assert!(out.contains("SECRET-"), "{out}");
}
