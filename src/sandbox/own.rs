//! airlock's own paths: its user configuration directory, the config
//! files in force, its data directory (trails, logs, `init` records) and
//! runtime directories. One list, built once per session
//! ([`airlock_paths`]) and handed to both the write tools, which refuse
//! them, and the sandbox, which keeps those the shell could write
//! read-only ([`super::own_mounts`]): a write there would configure the
//! next session or rewrite its record.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use crate::scope::same_name;

/// What an own path is, for the placeholder the sandbox makes where it
/// is absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnKind {
    /// A directory (the config, data and runtime directories).
    Dir,
    /// A file (a config file in force).
    File,
}

/// One of airlock's own paths, absolute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnPath {
    /// The path, as airlock will open it (not resolved).
    pub path: PathBuf,
    /// A directory or a file.
    pub kind: OwnKind,
}

impl OwnPath {
    fn dir(path: PathBuf) -> Self {
        Self {
            path,
            kind: OwnKind::Dir,
        }
    }
}

/// airlock's own paths a write must never reach: the user configuration
/// directory (`~/.config/airlock/`, whether or not it exists yet), the
/// config files in force (`files`: `--config FILE` among them), the data
/// directory and the runtime directories. A directory that holds the
/// `workspace` is not listed whole (every write would be refused): the
/// data directory's trails, logs and `init` records are, then.
pub fn airlock_paths(workspace: &Path, data_dir: &Path, files: &[PathBuf]) -> Vec<OwnPath> {
    let data = std::path::absolute(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
    let config = crate::dirs::user_config_path().and_then(|p| p.parent().map(Path::to_path_buf));
    let mut dirs: Vec<PathBuf> = config.into_iter().collect();
    dirs.extend(crate::dirs::runtime_dir_candidates());
    let ws = canonical_or_lexical(workspace);
    let holds_ws = |d: &Path| below_folded(&ws, &canonical_or_lexical(d));
    let mut out: Vec<OwnPath> = dirs
        .into_iter()
        .filter(|d| !holds_ws(d))
        .map(OwnPath::dir)
        .collect();
    if holds_ws(&data) {
        out.extend(
            [
                crate::dirs::audit_dir(&data),
                crate::dirs::log_dir(&data),
                crate::dirs::init_record_dir(&data),
            ]
            .map(OwnPath::dir),
        );
    } else {
        out.push(OwnPath::dir(data));
    }
    out.extend(files.iter().map(|f| OwnPath {
        path: std::path::absolute(f).unwrap_or_else(|_| f.clone()),
        kind: OwnKind::File,
    }));
    out
}

/// Whether `path` is `prefix` or below it, component by component with
/// letter case ignored (a case-insensitive file system's other spelling
/// of the same directory).
pub fn below_folded(path: &Path, prefix: &Path) -> bool {
    if path.starts_with(prefix) {
        return true;
    }
    let (mut a, mut b) = (path.components(), prefix.components());
    loop {
        match (a.next(), b.next()) {
            (_, None) => return true,
            (None, Some(_)) => return false,
            (Some(x), Some(y)) => {
                let same = match y.as_os_str().to_str() {
                    Some(y) => same_name(x.as_os_str(), y),
                    None => x == y,
                };
                if !same {
                    return false;
                }
            }
        }
    }
}

/// `p` normalised without touching the disk (`..` and `.` removed).
pub fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `p` with its deepest existing ancestor canonicalised (what a canonical
/// target below it starts with), or as it is when nothing of it resolves.
pub fn canonical_or_lexical(p: &Path) -> PathBuf {
    let p = lexical(p);
    let mut base = p.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(c) = std::fs::canonicalize(base) {
            return rest
                .iter()
                .rev()
                .fold(c, |acc: PathBuf, n: &&OsStr| acc.join(n));
        }
        match (base.file_name(), base.parent()) {
            (Some(n), Some(parent)) => {
                rest.push(n);
                base = parent;
            }
            _ => return p.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_folded_ignores_case_per_component() {
        assert!(below_folded(
            Path::new("/h/.config/Airlock/c"),
            Path::new("/h/.config/airlock")
        ));
        assert!(below_folded(Path::new("/h/a"), Path::new("/h/a")));
        assert!(!below_folded(
            Path::new("/h/airlockx"),
            Path::new("/h/airlock")
        ));
        assert!(!below_folded(Path::new("/h"), Path::new("/h/a")));
    }

    #[test]
    fn a_data_directory_holding_the_workspace_is_listed_by_its_parts() {
        let d = tempfile::tempdir().unwrap();
        let data = std::fs::canonicalize(d.path()).unwrap();
        let ws = data.join("ws");
        std::fs::create_dir(&ws).unwrap();
        let own = airlock_paths(&ws, &data, &[PathBuf::from("/c/f.toml")]);
        let paths: Vec<&Path> = own.iter().map(|o| o.path.as_path()).collect();
        assert!(!paths.contains(&data.as_path()), "{paths:?}");
        for sub in ["audit", "logs", "init"] {
            assert!(paths.contains(&data.join(sub).as_path()), "{sub}");
        }
        assert_eq!(
            own.last(),
            Some(&OwnPath {
                path: PathBuf::from("/c/f.toml"),
                kind: OwnKind::File
            })
        );
        let elsewhere = airlock_paths(Path::new("/"), &data, &[]);
        assert!(elsewhere.contains(&OwnPath::dir(data)));
    }
}
