//! The project's `.airlock.toml`: read as the supervisor reads it (in the
//! workspace), and judged by the trust store's record of it: a full layer
//! when the user trusts its content, else only what tightens.

use std::path::{Path, PathBuf};

use super::restrict::{self, Ignored};
use super::trust::{self, TrustRecord};
use super::{Authority, ConfigError, effective, read};
use crate::dirs::PROJECT_CONFIG;
use crate::policy::{Action, Rule};

/// The project's `.airlock.toml` as it was read, and whether the user
/// trusts it (`airlock trust`): when not, what in it loosens was ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectFile {
    /// The file's canonical path (what the trust store is keyed by).
    pub path: PathBuf,
    /// Hex SHA-256 of the content read.
    pub sha256: String,
    /// Whether the user trusts this content.
    pub trusted: bool,
    /// What was not applied because it loosens (empty when trusted).
    pub ignored: Vec<Ignored>,
}

impl ProjectFile {
    /// One line for the status bar and the log, when something was
    /// ignored: `.airlock.toml is not trusted: 7 settings that loosen
    /// ignored (airlock trust)`.
    pub fn notice(&self) -> Option<String> {
        if self.ignored.is_empty() {
            return None;
        }
        let n = self.ignored.len();
        Some(format!(
            "{PROJECT_CONFIG} is not trusted: {n} setting{} that loosen{} ignored (airlock trust)",
            if n == 1 { "" } else { "s" },
            if n == 1 { "s" } else { "" },
        ))
    }
}

/// The project file of `workspace`: its path, text and canonical path, or
/// `None` when there is none (or it is not a regular file).
pub fn project_file(workspace: &Path) -> Result<Option<(PathBuf, String, PathBuf)>, ConfigError> {
    let path = workspace.join(PROJECT_CONFIG);
    if !path.is_file() {
        return Ok(None);
    }
    let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
    let layer = read(&path, Authority::User)?;
    Ok(Some((path, layer.text, canonical)))
}

/// What of the project file at `path` (content `text`, parsed `layer`)
/// applies over `merged` (the layers before it, whose rules are `rules`):
/// all of it when `record` trusts the content, else what tightens (and
/// the allow rules the record keeps, or the user's files allow already).
pub(super) fn judge(
    path: &Path,
    text: &str,
    layer: toml::Table,
    record: &TrustRecord,
    merged: &toml::Table,
    rules: &[Rule],
) -> Result<(toml::Table, ProjectFile), ConfigError> {
    let mut file = ProjectFile {
        path: std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        sha256: trust::digest(text),
        trusted: record.trusts(text),
        ignored: Vec::new(),
    };
    if file.trusted {
        return Ok((layer, file));
    }
    let base = effective(merged)?;
    let allowed: Vec<String> = rules
        .iter()
        .filter(|r| r.action == Action::Allow)
        .map(Rule::text)
        .collect();
    let keep = |raw: &str| {
        let text =
            Rule::parse(Action::Allow, raw, "").map_or_else(|_| raw.to_string(), |r| r.text());
        record.rules.contains(&text) || allowed.contains(&text)
    };
    let restricted = restrict::restrict(&base, layer, &keep);
    file.ignored = restricted.ignored;
    Ok((restricted.table, file))
}
