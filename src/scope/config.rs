//! `[scope]`: the path scope's section of the configuration.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{DEFAULT_EXCLUDED, HardLinks};

/// `[scope]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ScopeConfig {
    /// Allowed roots besides the workspace.
    pub extra_roots: Vec<PathBuf>,
    /// Exclusion globs.
    pub excluded: Vec<String>,
    /// Files with more than one hard link: `packages` (read only under
    /// `node_modules`), `refuse` or `allow`. An excluded or `deny_read`
    /// file's other names are refused whatever this says.
    pub hard_links: HardLinks,
}

impl Default for ScopeConfig {
    fn default() -> Self {
        Self {
            extra_roots: Vec::new(),
            excluded: DEFAULT_EXCLUDED.iter().map(ToString::to_string).collect(),
            hard_links: HardLinks::default(),
        }
    }
}
