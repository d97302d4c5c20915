//! The trust store: which project config files the user trusts, by the
//! file's canonical path and the SHA-256 of the content they trusted
//! (`airlock trust`), and the allow rules they saved to it with "always"
//! at the prompt. One small JSON record per file, in the data directory
//! (`dirs::trust_dir`), which the sandboxed shell cannot see and the write
//! tools refuse.
//!
//! A file the user trusts is a full configuration layer; any other project
//! file may only tighten (see `restrict`). A change of its content ends
//! the trust, but not the rules the human saved at the prompt: those apply
//! as long as the file holds them.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::policy::Action;
use crate::policy::persist::SaveObserver;

/// Hex SHA-256 of a config file's text, as the store keeps it.
pub fn digest(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// What the store keeps about one project config file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TrustRecord {
    /// The file's canonical path.
    pub path: PathBuf,
    /// The SHA-256 of the content the user trusted; `None`: not trusted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Allow rules the human saved to the file at the prompt ("always").
    pub rules: Vec<String>,
}

impl TrustRecord {
    /// Whether the user trusts the file with content `text`.
    pub fn trusts(&self, text: &str) -> bool {
        self.sha256.as_deref() == Some(digest(text).as_str())
    }
}

/// The trust records of one data directory.
#[derive(Debug, Clone)]
pub struct TrustStore {
    dir: PathBuf,
}

impl TrustStore {
    /// The store in the data directory `data_dir`.
    pub fn new(data_dir: &Path) -> Self {
        Self {
            dir: crate::dirs::trust_dir(data_dir),
        }
    }

    /// What is kept about `file` (a canonical path). Nothing (an empty
    /// record) when there is no record, it is unreadable, it is another
    /// file's, or it is not the user's own in a private directory.
    pub fn get(&self, file: &Path) -> TrustRecord {
        let empty = TrustRecord {
            path: file.to_path_buf(),
            ..TrustRecord::default()
        };
        let path = crate::dirs::trust_record_path(&self.dir, file);
        if !crate::dirs::is_private_dir(&self.dir) || !owned_by_us(&path) {
            return empty;
        }
        std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice::<TrustRecord>(&b).ok())
            .filter(|r| r.path == file)
            .unwrap_or(empty)
    }

    /// Trust `file` (canonical) with content `text`.
    pub fn trust(&self, file: &Path, text: &str) -> std::io::Result<()> {
        self.update(file, |r| r.sha256 = Some(digest(text)))
    }

    /// Forget `file`: its trust and the rules saved to it. False when
    /// nothing was kept.
    pub fn revoke(&self, file: &Path) -> std::io::Result<bool> {
        let path = crate::dirs::trust_record_path(&self.dir, file);
        match std::fs::remove_file(path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Change `file`'s record with `f`, under the store's lock.
    fn update(&self, file: &Path, f: impl FnOnce(&mut TrustRecord)) -> std::io::Result<()> {
        crate::dirs::ensure_private_dir(&self.dir)?;
        let path = crate::dirs::trust_record_path(&self.dir, file);
        let _lock = crate::files::DirLock::for_file(&path)?;
        let mut record = self.get(file);
        f(&mut record);
        let json = serde_json::to_vec_pretty(&record).map_err(std::io::Error::other)?;
        crate::files::replace(&path, &json, 0o600)
    }
}

fn owned_by_us(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.uid() == crate::dirs::uid())
}

/// Keeps the store in step with "always" (the policy tells it each save,
/// under the project file's lock): the rule the human saved applies from
/// then on, and the file stays trusted when it was trusted (or did not
/// exist: airlock wrote all of it) before the save.
#[derive(Debug, Clone)]
pub struct TrustKeeper {
    store: TrustStore,
}

impl TrustKeeper {
    /// A keeper of `store`.
    pub fn new(store: TrustStore) -> Self {
        Self { store }
    }
}

impl SaveObserver for TrustKeeper {
    fn saved(&self, file: &Path, old: Option<&str>, new: &str, action: Action, rule: &str) {
        // Keyed as the loader looks it up: by the canonical path.
        let canonical = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
        let file = canonical.as_path();
        let result = self.store.update(file, |r| {
            let was_trusted = old.is_none_or(|old| r.trusts(old));
            if was_trusted {
                r.sha256 = Some(digest(new));
            }
            if action == Action::Allow && !r.rules.iter().any(|x| x == rule) {
                r.rules.push(rule.to_string());
            }
        });
        if let Err(e) = result {
            tracing::warn!(
                file = %file.display(),
                "cannot record the saved rule in the trust store ({e}); it applies this session only"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_is_by_path_and_content_and_can_be_revoked() {
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::new(dir.path());
        let file = Path::new("/w/.airlock.toml");
        assert!(!store.get(file).trusts("a"));
        store.trust(file, "a").unwrap();
        assert!(store.get(file).trusts("a"));
        assert!(!store.get(file).trusts("a "), "another content");
        assert!(!store.get(Path::new("/v/.airlock.toml")).trusts("a"));
        assert!(store.revoke(file).unwrap());
        assert!(!store.get(file).trusts("a"));
        assert!(!store.revoke(file).unwrap());
    }

    #[test]
    fn a_save_keeps_trust_only_when_it_was_there() {
        let dir = tempfile::tempdir().unwrap();
        let keeper = TrustKeeper::new(TrustStore::new(dir.path()));
        let file = Path::new("/w/.airlock.toml");
        // A new file: airlock wrote all of it.
        keeper.saved(file, None, "allow = [\"ls\"]\n", Action::Allow, "ls");
        let r = keeper.store.get(file);
        assert!(r.trusts("allow = [\"ls\"]\n"));
        assert_eq!(r.rules, ["ls"]);
        // Trusted before: trusted after.
        keeper.saved(
            file,
            Some("allow = [\"ls\"]\n"),
            "allow = [\"ls\", \"pwd\"]\n",
            Action::Allow,
            "pwd",
        );
        assert!(keeper.store.get(file).trusts("allow = [\"ls\", \"pwd\"]\n"));
        // Changed behind airlock's back: the save trusts nothing new, but
        // the rule the human saved is kept.
        keeper.saved(
            file,
            Some("mode = \"trust-edits\"\n"),
            "mode = \"trust-edits\"\nallow = [\"x\"]\n",
            Action::Allow,
            "x",
        );
        let r = keeper.store.get(file);
        assert!(!r.trusts("mode = \"trust-edits\"\nallow = [\"x\"]\n"));
        assert_eq!(r.rules, ["ls", "pwd", "x"]);
    }

    #[test]
    fn a_record_in_a_directory_open_to_others_is_not_believed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::new(dir.path());
        let file = Path::new("/w/.airlock.toml");
        store.trust(file, "a").unwrap();
        let trust_dir = crate::dirs::trust_dir(dir.path());
        std::fs::set_permissions(&trust_dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(!store.get(file).trusts("a"));
    }
}
