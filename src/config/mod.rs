//! Configuration: the embedded defaults, then the user file, the project's
//! `.airlock.toml`, then `--config FILE`; later files override earlier ones.
//! The project file can come with a cloned repository (or be written by an
//! agent before airlock started), so unless the user trusts its content
//! (`trust`, `airlock trust`) it may only tighten: what loosens, by each
//! key's class (`classes`), is left out and said (`restrict`).
//!
//! This module only assembles: each subsystem owns its section (`[bash]`
//! is [`BashConfig`] in the bash tool, `[scope]` is [`ScopeConfig`] in the
//! scope, `[sandbox]`, `[limits]`, `[tools]` …) and [`crate::dirs`] names
//! the files.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::dirs::{PROJECT_CONFIG, user_config_path};
use crate::policy::{Action, Mode, Rule, SpecifierReading};
use crate::sandbox::SandboxConfig;
use crate::scope::ScopeConfig;
use crate::tools::bash::BashConfig;
use crate::tools::{Limits, ToolsConfig};
pub use project::{ProjectFile, project_file};
pub use restrict::Ignored;
pub use trust::{TrustKeeper, TrustRecord, TrustStore};

pub mod classes;
mod describe;
pub mod hooks;
pub mod http;
mod project;
mod restrict;
pub mod trust;
pub use describe::{describe, describe_loosening};

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
    /// The project's `.airlock.toml`, if there is one.
    pub project: Option<ProjectFile>,
    /// Each file's own table as applied, in order (for `airlock config`).
    layers: Vec<(String, toml::Table)>,
}

impl LoadedConfig {
    /// A hex sha256 of the effective configuration (for the audit trail).
    pub fn digest(&self) -> String {
        let json = serde_json::to_vec(&self.config).unwrap_or_default();
        hex::encode(Sha256::digest(json))
    }
}

/// Who wrote a layer, and so what it may change.
#[derive(Debug, Clone)]
enum Authority {
    /// The user's own file or `--config FILE`: anything.
    User,
    /// The project's file: anything when the record trusts its content,
    /// else only what tightens (and the allow rules the record keeps).
    Project(TrustRecord),
}

/// One file to read, with its authority.
struct Layer {
    path: PathBuf,
    text: String,
    authority: Authority,
}

/// Load defaults, the user file, `workspace/.airlock.toml` and `explicit`,
/// each checked on its own (so an error names its file and line); the
/// project file is judged by `trust`.
pub fn load(
    workspace: &Path,
    explicit: Option<&Path>,
    trust: &TrustStore,
) -> Result<LoadedConfig, ConfigError> {
    load_with(workspace, explicit, true, trust)
}

/// [`load`], reading the user file only when `user_config` is true (and
/// `AIRLOCK_NO_USER_CONFIG` is not set).
pub fn load_with(
    workspace: &Path,
    explicit: Option<&Path>,
    user_config: bool,
    trust: &TrustStore,
) -> Result<LoadedConfig, ConfigError> {
    let user = match user_file(user_config) {
        Some(p) => Some(read(&p, Authority::User)?),
        None => None,
    };
    load_from(user, workspace, explicit, trust)
}

/// [`load_with`] with the user's layer already read.
fn load_from(
    user: Option<Layer>,
    workspace: &Path,
    explicit: Option<&Path>,
    trust: &TrustStore,
) -> Result<LoadedConfig, ConfigError> {
    let mut files: Vec<Layer> = user.into_iter().collect();
    if let Some((path, text, canonical)) = project_file(workspace)? {
        let record = trust.get(&canonical);
        files.push(Layer {
            path,
            text,
            authority: Authority::Project(record),
        });
    }
    if let Some(p) = explicit {
        files.push(read(p, Authority::User)?);
    }
    assemble(files)
}

/// What the project file of `workspace` with content `text` loosens
/// against the defaults and the user's file (for `airlock trust`, before
/// it records the file): everything an untrusted copy would ignore.
pub fn loosening(workspace: &Path, text: &str) -> Result<Vec<Ignored>, ConfigError> {
    let user = match user_file(true) {
        Some(p) => Some(read(&p, Authority::User)?),
        None => None,
    };
    loosening_from(user, workspace, text)
}

fn loosening_from(
    user: Option<Layer>,
    workspace: &Path,
    text: &str,
) -> Result<Vec<Ignored>, ConfigError> {
    let mut files: Vec<Layer> = user.into_iter().collect();
    files.push(Layer {
        path: workspace.join(PROJECT_CONFIG),
        text: text.to_string(),
        authority: Authority::Project(TrustRecord::default()),
    });
    Ok(assemble(files)?
        .project
        .map(|p| p.ignored)
        .unwrap_or_default())
}

/// The user's own config file, when it is read and exists.
fn user_file(user_config: bool) -> Option<PathBuf> {
    if !user_config || std::env::var_os("AIRLOCK_NO_USER_CONFIG").is_some() {
        return None;
    }
    user_config_path().filter(|p| p.is_file())
}

fn read(path: &Path, authority: Authority) -> Result<Layer, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(Layer {
        path: path.to_path_buf(),
        text,
        authority,
    })
}

/// The defaults, then each file in order.
fn assemble(files: Vec<Layer>) -> Result<LoadedConfig, ConfigError> {
    let defaults = parse_layer(Path::new("built-in defaults"), DEFAULT_CONFIG)?;
    let mut rules = rules_of(Path::new("built-in"), DEFAULT_CONFIG, &defaults)?;
    let mut layers = vec![("built-in".to_string(), defaults.clone())];
    let mut merged = defaults;
    let mut sources = vec![ConfigSource {
        path: PathBuf::from("built-in"),
    }];
    let mut project = None;
    for Layer {
        path,
        text,
        authority,
    } in files
    {
        let layer = parse_layer(&path, &text)?;
        // Every rule is checked, also those an untrusted file may not add.
        let mut file_rules = rules_of(&path, &text, &layer)?;
        let layer = match authority {
            Authority::User => layer,
            Authority::Project(record) => {
                let (applied, file) =
                    project::judge(&path, &text, layer, &record, &merged, &rules)?;
                file_rules = rules_of(&path, &text, &applied)?;
                project = Some(file);
                applied
            }
        };
        rules.extend(file_rules);
        layers.push((path.display().to_string(), layer.clone()));
        merge(&mut merged, layer);
        sources.push(ConfigSource { path });
    }
    let config = typed(merged)?;
    Ok(LoadedConfig {
        config,
        sources,
        rules,
        project,
        layers,
    })
}

/// The merged tables as a [`Config`].
fn typed(merged: toml::Table) -> Result<Config, ConfigError> {
    Config::deserialize(merged).map_err(|e| ConfigError::Parse {
        path: PathBuf::from("merged configuration"),
        line: String::new(),
        message: e.to_string(),
    })
}

/// The configuration so far, every key with its value (what a project
/// file's values are judged against).
fn effective(merged: &toml::Table) -> Result<toml::Table, ConfigError> {
    let config = typed(merged.clone())?;
    toml::Table::try_from(&config).map_err(|e| ConfigError::Parse {
        path: PathBuf::from("merged configuration"),
        line: String::new(),
        message: e.to_string(),
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

/// How the specifier of a rule about `tool` is read: the tool says (a
/// tool that runs commands matches commands, the others paths); `*` and
/// tools airlock does not have (an agent's own) either way.
fn specifier_reading(tool: &str) -> SpecifierReading {
    match crate::tools::ToolRegistry::builtin().get(tool) {
        Some(t) if t.spec().kind == crate::call::ToolKind::Exec => SpecifierReading::Command,
        Some(_) => SpecifierReading::Path,
        None => SpecifierReading::Either,
    }
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
            let rule = Rule::parse(action, t, &path.display().to_string())
                .and_then(|r| r.check_specifier(specifier_reading(&r.tool)).map(|()| r))
                .map_err(|e| {
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
        let store = TrustStore::new(&dir.path().join("data"));
        let c = load_with(dir.path(), None, false, &store).unwrap().config;
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
        let store = TrustStore::new(&dir.path().join("data"));
        let load = |explicit: Option<&Path>| load_with(dir.path(), explicit, false, &store);
        let c = load(None).unwrap().config;
        assert_eq!(c.limits.timeout_secs, 3);
        assert_eq!(c.limits.max_entries, 10_000);

        let bad = dir.path().join("bad.toml");
        std::fs::write(&bad, "[limits]\n\nbogus_key = 1\n").unwrap();
        let e = load(Some(&bad)).unwrap_err().to_string();
        assert!(e.contains("bad.toml:3"), "{e}");
        assert!(e.contains("bogus_key"), "{e}");

        std::fs::write(&bad, "[limits]\ntimeout_secs = \"ten\"\n").unwrap();
        let e = load(Some(&bad)).unwrap_err().to_string();
        assert!(e.contains("bad.toml:2"), "{e}");
    }
}

#[cfg(test)]
#[path = "load_tests.rs"]
mod load_tests;
