//! What `airlock init` added to each file, so `--remove` takes out exactly
//! that: a rule the user already had stays, a value init replaced comes
//! back, containers init created go once empty.
//!
//! One JSON file per configuration file in `<data-dir>/init/`, named by a
//! digest of the configuration file's path. Without a record (deleted data
//! directory) `--remove` falls back to removing what matches init's values.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Change, InitError};

/// One change install made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The change.
    pub change: Change,
    /// For a `set`: the value it replaced (`None`: there was none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<serde_json::Value>,
    /// Index in the change's path of the first container install created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<usize>,
}

impl Entry {
    /// Whether two entries are about the same value (same path; for an
    /// include, the same item).
    fn same_target(&self, change: &Change) -> bool {
        match (&self.change, change) {
            // Append: one element of airlock's per array, a new one
            // replaces it.
            (Change::Set { path: a, .. }, Change::Set { path: b, .. })
            | (Change::Append { path: a, .. }, Change::Append { path: b, .. }) => a == b,
            (Change::Include { path: a, item: x }, Change::Include { path: b, item: y }) => {
                a == b && x == y
            }
            _ => false,
        }
    }
}

/// The record for one configuration file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Record {
    /// The configuration file.
    pub file: PathBuf,
    /// Whether install created the file (remove deletes it once empty).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created_file: bool,
    /// What install did, oldest first.
    #[serde(default)]
    entries: Vec<Entry>,
    /// Whether the record was read from disk (an empty record on disk
    /// means init was removed; no record at all means init knows nothing).
    #[serde(skip)]
    found: bool,
}

impl Record {
    /// The record for `file` (empty when there is none).
    pub fn load(dir: &Path, file: &Path) -> Result<Record, InitError> {
        let path = record_path(dir, file);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map(|r| Record { found: true, ..r })
                .map_err(|e| InitError::Record {
                    path,
                    message: e.to_string(),
                }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Record {
                file: file.to_path_buf(),
                created_file: false,
                entries: Vec::new(),
                found: false,
            }),
            Err(source) => Err(InitError::Io { path, source }),
        }
    }

    /// The entry for `change`'s target, if install recorded one.
    pub fn find(&self, change: &Change) -> Option<&Entry> {
        self.entries.iter().find(|e| e.same_target(change))
    }

    /// What install did, oldest first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether there was a record on disk (possibly empty).
    pub fn found(&self) -> bool {
        self.found
    }

    /// Add what install just did (replacing entries for the same target) and
    /// drop what remove just undid.
    pub fn update(&mut self, applied: &[Entry], undone: &[Entry]) {
        for a in applied {
            match self.entries.iter_mut().find(|e| e.same_target(&a.change)) {
                Some(e) => *e = a.clone(),
                None => self.entries.push(a.clone()),
            }
        }
        self.entries
            .retain(|e| !undone.iter().any(|u| e.same_target(&u.change)));
    }

    /// Write the record. An empty record is kept: it says that what init
    /// added was removed, so a second remove leaves the user's own entries.
    pub fn save(&self, dir: &Path) -> Result<(), InitError> {
        let path = record_path(dir, &self.file);
        let io = |source| InitError::Io {
            path: path.clone(),
            source,
        };
        crate::dirs::ensure_private_dir(dir).map_err(io)?;
        let text = serde_json::to_string_pretty(self).map_err(|e| InitError::Record {
            path: path.clone(),
            message: e.to_string(),
        })?;
        super::file::write(&path, &(text + "\n"), false).map(|_| ())
    }
}

/// `<dir>/<digest of the file's path>.json`.
fn record_path(dir: &Path, file: &Path) -> PathBuf {
    crate::dirs::init_record_path(dir, file)
}
