//! Configuration: the embedded defaults, then the user file, the project's
//! `.airlock.toml`, then `--config FILE`; later files override earlier ones.
//!
//! This module only assembles: each subsystem owns its section (`[bash]`
//! is [`BashConfig`] in the bash tool, `[scope]` is [`ScopeConfig`] in the
//! scope, `[sandbox]`, `[limits]`, `[tools]` …) and [`crate::dirs`] names
//! the files.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::dirs::{PROJECT_CONFIG, user_config_path};
use crate::policy::{Action, Mode, Rule};
use crate::sandbox::SandboxConfig;
use crate::scope::ScopeConfig;
use crate::tools::bash::BashConfig;
use crate::tools::{Limits, ToolsConfig};

mod describe;
pub mod hooks;
pub mod http;
pub use describe::describe;

/// The built-in defaults, embedded from `assets/default-config.toml`.
pub const DEFAULT_CONFIG: &str = include_str!("../../assets/default-config.toml");

/// A configuration error, naming the file (and line, for parse errors).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid TOML or does not fit the schema.
    #[error("invalid config {path}{line}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// `:LINE` where known.
        line: String,
        /// The parser's message (names the key).
        message: String,
    },
}

/// The effective configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// `default`, `read-only` or `trust-edits`.
    pub mode: Mode,
    /// Seconds a call may wait for the human; 0 waits forever.
    pub approval_timeout_secs: u64,
    /// Rules that let calls run without asking (`tool(specifier)`); the
    /// lists of every config file are combined.
    pub allow: Vec<String>,
    /// Rules that make calls ask even if allowed elsewhere.
    pub ask: Vec<String>,
    /// Rules that refuse calls; deny beats ask beats allow.
    pub deny: Vec<String>,
    /// Which tools are enabled.
    pub tools: ToolsConfig,
    /// Per-call limits.
    pub limits: Limits,
    /// Path scope.
    pub scope: ScopeConfig,
    /// The bash tool.
    pub bash: BashConfig,
    /// The kernel sandbox around the bash tool's shells.
    pub sandbox: SandboxConfig,
    /// Streamable HTTP (`[http]`).
    pub http: http::HttpConfig,
    /// `[hooks]`: what `airlock hook` does when no supervisor runs.
    pub hooks: hooks::HooksConfig,
}

/// Where a layer of configuration came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigSource {
    /// The file path (`built-in` for the defaults).
    pub path: PathBuf,
}

/// The loaded configuration with the files that made it.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    /// The merged result.
    pub config: Config,
    /// The files read, in order.
    pub sources: Vec<ConfigSource>,
    /// Every rule of every file, with its file.
    pub rules: Vec<Rule>,
    /// Each file's own table, in order (for `airlock config`).
    layers: Vec<(String, toml::Table)>,
}

impl LoadedConfig {
    /// A hex sha256 of the effective configuration (for the audit trail).
    pub fn digest(&self) -> String {
        let json = serde_json::to_vec(&self.config).unwrap_or_default();
        hex::encode(Sha256::digest(json))
    }
}

/// Load defaults, the user file, `workspace/.airlock.toml` and `explicit`,
/// each checked on its own (so an error names its file and line).
pub fn load(workspace: &Path, explicit: Option<&Path>) -> Result<LoadedConfig, ConfigError> {
    load_with(workspace, explicit, true)
}

/// [`load`], reading the user file only when `user_config` is true (and
/// `AIRLOCK_NO_USER_CONFIG` is not set).
pub fn load_with(
    workspace: &Path,
    explicit: Option<&Path>,
    user_config: bool,
) -> Result<LoadedConfig, ConfigError> {
    let defaults = parse_layer(Path::new("built-in defaults"), DEFAULT_CONFIG)?;
    let mut rules = rules_of(Path::new("built-in"), DEFAULT_CONFIG, &defaults)?;
    let mut layers = vec![("built-in".to_string(), defaults.clone())];
    let mut merged = defaults;
    let mut sources = vec![ConfigSource {
        path: PathBuf::from("built-in"),
    }];
    let mut files: Vec<PathBuf> = Vec::new();
    if user_config
        && std::env::var_os("AIRLOCK_NO_USER_CONFIG").is_none()
        && let Some(p) = user_config_path()
        && p.is_file()
    {
        files.push(p);
    }
    let project = workspace.join(PROJECT_CONFIG);
    if project.is_file() {
        files.push(project);
    }
    if let Some(p) = explicit {
        files.push(p.to_path_buf());
    }
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
            path: path.clone(),
            source,
        })?;
        let layer = parse_layer(&path, &text)?;
        rules.extend(rules_of(&path, &text, &layer)?);
        layers.push((path.display().to_string(), layer.clone()));
        merge(&mut merged, layer);
        sources.push(ConfigSource { path });
    }
    let config: Config = Config::deserialize(merged).map_err(|e| ConfigError::Parse {
        path: PathBuf::from("merged configuration"),
        line: String::new(),
        message: e.to_string(),
    })?;
    Ok(LoadedConfig {
        config,
        sources,
        rules,
        layers,
    })
}

/// Parse one file and check it against the schema on its own.
fn parse_layer(path: &Path, text: &str) -> Result<toml::Table, ConfigError> {
    let err = |e: toml::de::Error| ConfigError::Parse {
        path: path.to_path_buf(),
        line: e
            .span()
            .map(|s| format!(":{}", line_of(text, s.start)))
            .unwrap_or_default(),
        message: e.message().to_string(),
    };
    toml::from_str::<Config>(text).map_err(err)?;
    toml::from_str::<toml::Table>(text).map_err(err)
}

#[expect(
    clippy::naive_bytecount,
    reason = "config files are small; no bytecount dependency for this"
)]
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// The rules of one file, each checked (an invalid rule names its line).
fn rules_of(path: &Path, text: &str, table: &toml::Table) -> Result<Vec<Rule>, ConfigError> {
    let mut out = Vec::new();
    for action in [Action::Allow, Action::Ask, Action::Deny] {
        let Some(list) = table.get(action.as_str()).and_then(toml::Value::as_array) else {
            continue;
        };
        for v in list {
            let Some(t) = v.as_str() else { continue };
            let rule = Rule::parse(action, t, &path.display().to_string()).map_err(|e| {
                let line = text
                    .find(&format!("\"{t}\""))
                    .map(|o| format!(":{}", line_of(text, o)))
                    .unwrap_or_default();
                ConfigError::Parse {
                    path: path.to_path_buf(),
                    line,
                    message: e.message.clone() + &format!(" (rule {t:?})"),
                }
            })?;
            out.push(rule);
        }
    }
    Ok(out)
}

/// The top-level keys whose lists are combined across files, not replaced.
const COMBINED: &[&str] = &["allow", "ask", "deny"];

/// Deep-merge `over` into `base`: tables merge key by key, rule lists are
/// combined, anything else is replaced.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Array(b)), toml::Value::Array(o))
                if COMBINED.contains(&k.as_str()) =>
            {
                b.extend(o);
            }
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_defaults_equal_code_defaults() {
        let parsed: Config = toml::from_str(DEFAULT_CONFIG).unwrap();
        assert_eq!(parsed, Config::default());
    }

    #[test]
    fn defaults_parse() {
        let dir = tempfile::tempdir().unwrap();
        let c = load(dir.path(), None).unwrap().config;
        assert_eq!(c.limits, Limits::default());
        assert_eq!(c.scope.excluded.len(), crate::scope::DEFAULT_EXCLUDED.len());
        assert!(c.tools.enabled.is_none());
    }

    #[test]
    fn project_overrides_and_errors_name_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(PROJECT_CONFIG),
            "[limits]\ntimeout_secs = 3\n",
        )
        .unwrap();
        let c = load(dir.path(), None).unwrap().config;
        assert_eq!(c.limits.timeout_secs, 3);
        assert_eq!(c.limits.max_entries, 10_000);

        let bad = dir.path().join("bad.toml");
        std::fs::write(&bad, "[limits]\n\nbogus_key = 1\n").unwrap();
        let e = load(dir.path(), Some(&bad)).unwrap_err().to_string();
        assert!(e.contains("bad.toml:3"), "{e}");
        assert!(e.contains("bogus_key"), "{e}");

        std::fs::write(&bad, "[limits]\ntimeout_secs = \"ten\"\n").unwrap();
        let e = load(dir.path(), Some(&bad)).unwrap_err().to_string();
        assert!(e.contains("bad.toml:2"), "{e}");
    }
}
