//! What an agent's `init` wants: the files, and per file the [`Change`]s
//! that must hold afterwards. Agent modules build these; `edit` applies them.

use std::path::PathBuf;

use super::{Val, dotted, keys};

/// The format of a configuration file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Strict JSON (Claude Code's files: read with `JSON.parse`).
    Json,
    /// JSON with `//` and `/* */` comments (Gemini CLI's settings.json).
    JsonWithComments,
    /// TOML (Codex's config.toml).
    Toml,
}

/// One change to a file, addressed by the path of keys to the value.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Change {
    /// The value at `path` must be `value` (parents created as needed).
    Set {
        /// Keys from the top of the file.
        path: Vec<String>,
        /// What it must be.
        value: Val,
    },
    /// The array of strings at `path` must contain `item`.
    Include {
        /// Keys from the top of the file to the array.
        path: Vec<String>,
        /// The string it must contain.
        item: String,
    },
    /// The array at `path` (of objects; in TOML an array of tables) must
    /// contain `value`: airlock's one element there (a hook entry). A
    /// second install replaces the element the first one added.
    Append {
        /// Keys from the top of the file to the array.
        path: Vec<String>,
        /// The element.
        value: Val,
    },
}

impl Change {
    /// A [`Change::Set`] from `&str` keys.
    pub fn set(path: &[&str], value: impl Into<Val>) -> Self {
        Change::Set {
            path: keys(path),
            value: value.into(),
        }
    }

    /// A [`Change::Include`] from `&str` keys.
    pub fn include(path: &[&str], item: &str) -> Self {
        Change::Include {
            path: keys(path),
            item: item.to_string(),
        }
    }

    /// A [`Change::Append`] from `&str` keys.
    pub fn append(path: &[&str], value: Val) -> Self {
        Change::Append {
            path: keys(path),
            value,
        }
    }

    /// The keys this change addresses.
    pub fn path(&self) -> &[String] {
        match self {
            Change::Set { path, .. }
            | Change::Include { path, .. }
            | Change::Append { path, .. } => path,
        }
    }

    /// One line saying what the change is, e.g. `permissions.deny += "Bash"`.
    pub fn describe(&self) -> String {
        match self {
            Change::Set { path, value } => format!("{} = {}", dotted(path), value.to_json()),
            Change::Include { path, item } => {
                format!(
                    "{} += {}",
                    dotted(path),
                    serde_json::Value::from(item.as_str())
                )
            }
            Change::Append { path, value } => format!("{} += {}", dotted(path), value.to_json()),
        }
    }
}

/// The changes `init` makes to one file.
#[derive(Debug, Clone)]
pub struct FilePlan {
    /// The file.
    pub path: PathBuf,
    /// How it is written.
    pub format: Format,
    /// What must be true after init.
    pub changes: Vec<Change>,
    /// Containers that belong to airlock entirely (its server entry): taken
    /// out on `--remove` once empty, even without a record of init.
    pub owned: Vec<Vec<String>>,
}

/// What an agent's plan says besides the files.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The files to change.
    pub files: Vec<FilePlan>,
    /// The agent's native tools init turned off, and how.
    pub turned_off: Vec<String>,
    /// The agent's native tools init could NOT turn off, with why it matters.
    pub not_turned_off: Vec<String>,
    /// Other things the user should know (trust prompts, where things are).
    pub notes: Vec<String>,
}
