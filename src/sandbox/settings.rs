//! The `[sandbox]` settings, their command-line overrides, and the
//! environment allowlist.

use std::ffi::OsString;

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

/// What the shell may change.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Writes only in the workspace, the private `/tmp` and `allow_write`.
    #[default]
    WorkspaceWrite,
    /// The workspace is read-only too (the private `/tmp` stays writable).
    ReadOnly,
    /// No sandbox: the shell runs as before.
    Off,
}

impl SandboxMode {
    /// The config spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::Off => "off",
        }
    }
}

/// `[sandbox]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "mirrors the [sandbox] TOML table: one bool per switch"
)]
pub struct SandboxConfig {
    /// `workspace-write`, `read-only` or `off`.
    pub mode: SandboxMode,
    /// Refuse to start the shell when the kernel lacks a mechanism, instead
    /// of running with less than asked for.
    pub required: bool,
    /// Paths the shell may write besides the workspace and its private
    /// `/tmp` (absolute, `~/…`, or relative to the workspace).
    pub allow_write: Vec<String>,
    /// Where reads are allowed (`/`: everywhere); the system paths
    /// programs need are always added.
    pub allow_read: Vec<String>,
    /// Paths hidden entirely: absent inside the sandbox.
    pub deny_read: Vec<String>,
    /// Also hide the paths in the workspace that `scope.excluded` matches.
    pub deny_excluded: bool,
    /// Paths in the workspace kept read-only even when it is writable:
    /// what runs outside the sandbox later (airlock's project config, git's
    /// hooks and config).
    pub protect: Vec<String>,
    /// Let the shell open network connections (also to the host's
    /// loopback).
    pub allow_network: bool,
    /// Host environment variables the shell sees (case-sensitive globs);
    /// applied after `bash.env_deny`.
    pub allow_env: Vec<String>,
    /// Run each shell as the init of its own PID namespace, so that nothing
    /// it started (`setsid`, double-forked daemons) outlives a timeout, a
    /// restart or the agent's disconnect.
    pub contain_processes: bool,
    /// Keep the control files of every git repository in the workspace
    /// (config, hooks, info, `commondir`, `.git` files …) read-only, and
    /// remove git control files planted while a shell runs.
    pub protect_git: bool,
    /// Keep airlock's own files (its user configuration directory, the
    /// config files in force, its data and runtime directories) read-only
    /// wherever a path the shell may write holds them. `false` is for
    /// tests of this protection; the write tools refuse them either way.
    pub protect_airlock: bool,
}

/// The variables a shell sees by default.
pub const DEFAULT_ALLOW_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TZ",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "GOPATH",
    "GOROOT",
    "JAVA_HOME",
    "VIRTUAL_ENV",
    "PYENV_ROOT",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
];

/// Kept read-only by default: what runs outside the sandbox later without
/// asking. airlock's project config; the agents' project settings, where
/// their hooks, permissions and MCP servers live (Claude Code's `.claude/`
/// and `.mcp.json`, whose servers are approved by name; Codex's `.codex/`;
/// Gemini CLI's `.gemini/`). A trailing `/` protects a directory, a
/// trailing `?` only a path that exists (no empty placeholder for a file
/// an agent parses). (Git's control files are protected by `protect_git`.)
pub const DEFAULT_PROTECT: &[&str] = &[
    crate::dirs::PROJECT_CONFIG,
    ".claude/",
    ".mcp.json?",
    ".codex/",
    ".gemini/",
];

/// Hidden by default (besides the workspace's excluded paths).
pub const DEFAULT_DENY_READ: &[&str] = &[
    // Keys and cloud accounts.
    "~/.ssh",
    "~/.gnupg",
    "~/.aws",
    "~/.config/gcloud",
    "~/.azure",
    "~/.kube",
    "~/.oci",
    "~/.docker/config.json",
    "~/.terraform.d/credentials.tfrc.json",
    "~/.vault-token",
    // Tokens of forges and package registries.
    "~/.netrc",
    "~/.git-credentials",
    "~/.config/git/credentials",
    "~/.config/gh",
    "~/.config/hub",
    "~/.config/glab-cli",
    "~/.npmrc",
    "~/.pypirc",
    "~/.cargo/credentials",
    "~/.cargo/credentials.toml",
    "~/.gem/credentials",
    // The agents' own logins.
    "~/.claude/.credentials.json",
    "~/.codex/auth.json",
    "~/.gemini/oauth_creds.json",
    // Password stores, keyrings and browser profiles (cookies, saved logins).
    "~/.password-store",
    "~/.local/share/keyrings",
    "~/.mozilla",
    "~/.config/google-chrome",
    "~/.config/chromium",
    "~/.config/BraveSoftware",
];

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(std::string::ToString::to_string).collect()
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            mode: SandboxMode::WorkspaceWrite,
            required: false,
            allow_write: Vec::new(),
            allow_read: vec!["/".into()],
            deny_read: strings(DEFAULT_DENY_READ),
            deny_excluded: true,
            protect: strings(DEFAULT_PROTECT),
            allow_network: false,
            allow_env: strings(DEFAULT_ALLOW_ENV),
            contain_processes: true,
            protect_git: true,
            protect_airlock: true,
        }
    }
}

/// Command-line flags that override the config for one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SandboxOverrides {
    /// `--sandbox MODE`.
    pub mode: Option<SandboxMode>,
    /// `--allow-network`.
    pub allow_network: Option<bool>,
}

impl SandboxOverrides {
    /// `cfg` with the flags applied.
    pub fn apply(&self, cfg: &SandboxConfig) -> SandboxConfig {
        let mut c = cfg.clone();
        if let Some(m) = self.mode {
            c.mode = m;
        }
        if let Some(n) = self.allow_network {
            c.allow_network = n;
        }
        c
    }
}

/// An `allow_env` pattern is not a valid glob.
#[derive(Debug, Clone, thiserror::Error)]
#[error("invalid pattern {pattern:?} in sandbox.allow_env: {message}")]
pub struct AllowEnvError {
    /// The pattern.
    pub pattern: String,
    /// Why.
    pub message: String,
}

/// The compiled `allow_env` list.
#[derive(Debug, Clone)]
pub struct EnvAllowlist {
    set: GlobSet,
}

impl EnvAllowlist {
    /// Compile `patterns`.
    pub fn new(patterns: &[String]) -> Result<Self, AllowEnvError> {
        let mut b = GlobSetBuilder::new();
        for p in patterns {
            let g = Glob::new(p).map_err(|e| AllowEnvError {
                pattern: p.clone(),
                message: e.kind().to_string(),
            })?;
            b.add(g);
        }
        let set = b.build().map_err(|e| AllowEnvError {
            pattern: patterns.join(", "),
            message: e.to_string(),
        })?;
        Ok(Self { set })
    }

    /// Whether the variable `name` passes.
    pub fn allows(&self, name: &str) -> bool {
        self.set.is_match(name)
    }

    /// The variables of `vars` that pass.
    pub fn filter<I>(&self, vars: I) -> Vec<(OsString, OsString)>
    where
        I: IntoIterator<Item = (OsString, OsString)>,
    {
        vars.into_iter()
            .filter(|(k, _)| k.to_str().is_some_and(|k| self.allows(k)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowlist_is_case_sensitive_and_globbed() {
        let a = EnvAllowlist::new(&SandboxConfig::default().allow_env).unwrap();
        for yes in ["PATH", "HOME", "LC_ALL", "LC_CTYPE", "CARGO_HOME"] {
            assert!(a.allows(yes), "{yes}");
        }
        for no in [
            "path",
            "AWS_REGION",
            "DATABASE_URL",
            "SSH_AUTH_SOCK",
            "XPATH",
        ] {
            assert!(!a.allows(no), "{no}");
        }
    }

    #[test]
    fn overrides_replace_only_what_they_name() {
        let base = SandboxConfig::default();
        let o = SandboxOverrides {
            mode: Some(SandboxMode::Off),
            allow_network: None,
        };
        let c = o.apply(&base);
        assert_eq!(c.mode, SandboxMode::Off);
        assert!(!c.allow_network);
        assert_eq!(c.deny_read, base.deny_read);
    }

    #[test]
    fn bad_pattern_names_itself() {
        let e = EnvAllowlist::new(&["[x".into()]).unwrap_err().to_string();
        assert!(e.contains("[x") && e.contains("allow_env"), "{e}");
    }
}
