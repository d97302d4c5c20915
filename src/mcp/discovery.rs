//! Session info files: how `airlock connect` finds the supervisor whose
//! workspace contains the current directory.
//!
//! Each running supervisor writes `<runtime>/<workspace-id>.json` (mode
//! 0600) next to its socket and removes both when it stops.

use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What a running supervisor publishes about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionInfo {
    /// The canonical workspace.
    pub workspace: PathBuf,
    /// The socket agents connect to.
    pub socket: PathBuf,
    /// The supervisor's process id.
    pub pid: u32,
    /// The session's audit trail.
    pub audit: PathBuf,
    /// airlock's version.
    pub version: String,
    /// The Streamable HTTP capability URL (secret included; this file is
    /// 0600 in the 0700 runtime directory), when HTTP is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_url: Option<String>,
}

impl SessionInfo {
    /// Write the info file atomically (0600).
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let json = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        let tmp = path.with_extension(format!("json.{}.tmp", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(&json)?;
        f.write_all(b"\n")?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }

    /// Read an info file; `None` when it is missing or not one of ours
    /// (another user's file, or one others may write, is ignored).
    pub fn read(path: &Path) -> Option<Self> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        if !meta.is_file() || meta.uid() != crate::dirs::uid() || meta.mode() & 0o022 != 0 {
            return None;
        }
        let bytes = std::fs::read(path).ok()?;
        serde_json::from_slice(&bytes).ok()
    }
}

/// True when a process with this id exists.
pub fn pid_alive(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    // Signal 0 only checks that the process exists; EPERM: it does, as
    // another user's.
    match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        Err(e) => e == rustix::io::Errno::PERM,
    }
}

/// The live supervisor whose workspace contains `dir` (the innermost one
/// when workspaces nest), from the info files in `runtime`.
pub fn find_session(runtime: &Path, dir: &Path) -> Option<SessionInfo> {
    find_sessions(&[runtime.to_path_buf()], dir)
        .into_iter()
        .next()
}

/// Every live supervisor whose workspace contains `dir`, from the info
/// files in all of `runtimes`: the innermost workspace first, then in the
/// order of `runtimes`; one entry per socket.
pub fn find_sessions(runtimes: &[PathBuf], dir: &Path) -> Vec<SessionInfo> {
    let mut found: Vec<SessionInfo> = Vec::new();
    for runtime in runtimes {
        let Ok(entries) = std::fs::read_dir(runtime) else {
            continue;
        };
        let mut here: Vec<SessionInfo> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.extension()
                    .is_some_and(|x| x == crate::dirs::SESSION_INFO_EXTENSION)
            })
            .filter_map(|p| SessionInfo::read(&p))
            .filter(|info| dir.starts_with(&info.workspace) && pid_alive(info.pid))
            .collect();
        here.sort_by(|a, b| a.socket.cmp(&b.socket));
        for info in here {
            if !found.iter().any(|f| f.socket == info.socket) {
                found.push(info);
            }
        }
    }
    // Stable: equally deep workspaces keep the order of `runtimes`.
    found.sort_by_key(|info| std::cmp::Reverse(info.workspace.components().count()));
    found
}

/// Why no HTTP URL can be told.
#[derive(Debug, thiserror::Error)]
pub enum NoHttpUrl {
    /// No supervisor's workspace contains the directory.
    #[error("no airlock supervisor is running for {0}; start one with `airlock --http`")]
    NotRunning(PathBuf),
    /// The supervisor does not listen on HTTP.
    #[error(
        "the airlock supervisor for {0} does not serve HTTP; start it with `airlock --http`, \
         or set `[http] listen = \"127.0.0.1:0\"` in its config"
    )]
    NoHttp(PathBuf),
}

/// The Streamable HTTP URL (secret included) of the supervisor whose
/// workspace contains `dir`.
pub fn http_url_for(dir: &Path) -> Result<String, NoHttpUrl> {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let sessions = find_sessions(&crate::dirs::runtime_dir_candidates(), &dir);
    let Some(first) = sessions.first() else {
        return Err(NoHttpUrl::NotRunning(dir));
    };
    sessions
        .iter()
        .find_map(|s| s.http_url.clone())
        .ok_or_else(|| NoHttpUrl::NoHttp(first.workspace.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(workspace: &Path, pid: u32) -> SessionInfo {
        SessionInfo {
            workspace: workspace.to_path_buf(),
            socket: workspace.join("s.sock"),
            pid,
            audit: workspace.join("a.jsonl"),
            version: "0".into(),
            http_url: None,
        }
    }

    #[test]
    fn finds_the_innermost_live_workspace() {
        let rt = tempfile::tempdir().unwrap();
        let me = std::process::id();
        info(Path::new("/w"), me)
            .write(&rt.path().join("a.json"))
            .unwrap();
        info(Path::new("/w/inner"), me)
            .write(&rt.path().join("b.json"))
            .unwrap();
        info(Path::new("/w/inner/dead"), u32::MAX - 1)
            .write(&rt.path().join("c.json"))
            .unwrap();
        std::fs::write(rt.path().join("junk.json"), "not json").unwrap();

        let found = find_session(rt.path(), Path::new("/w/inner/dead/x")).unwrap();
        assert_eq!(found.workspace, Path::new("/w/inner"));
        let found = find_session(rt.path(), Path::new("/w/other")).unwrap();
        assert_eq!(found.workspace, Path::new("/w"));
        assert!(find_session(rt.path(), Path::new("/elsewhere")).is_none());
        // A sibling whose name merely starts with the workspace's is not inside it.
        assert!(find_session(rt.path(), Path::new("/wx")).is_none());
    }

    #[test]
    fn searches_every_runtime_dir_and_skips_files_others_may_write() {
        use std::os::unix::fs::PermissionsExt;
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let me = std::process::id();
        info(Path::new("/w"), me)
            .write(&b.path().join("w.json"))
            .unwrap();
        let dirs = [a.path().to_path_buf(), b.path().to_path_buf()];
        let found = find_sessions(&dirs, Path::new("/w/x"));
        assert_eq!(found.len(), 1);
        // The same session registered twice is one entry.
        info(Path::new("/w"), me)
            .write(&a.path().join("w.json"))
            .unwrap();
        assert_eq!(find_sessions(&dirs, Path::new("/w/x")).len(), 1);
        // An inner workspace in the later directory comes first.
        info(Path::new("/w/x"), me)
            .write(&b.path().join("x.json"))
            .unwrap();
        let found = find_sessions(&dirs, Path::new("/w/x/y"));
        assert_eq!(found[0].workspace, Path::new("/w/x"));
        // A file others may write is not trusted.
        let p = b.path().join("x.json");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o622)).unwrap();
        let found = find_sessions(&dirs, Path::new("/w/x/y"));
        assert_eq!(found[0].workspace, Path::new("/w"));
    }

    #[test]
    fn info_file_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let rt = tempfile::tempdir().unwrap();
        let p = rt.path().join("x.json");
        info(Path::new("/w"), 1).write(&p).unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(SessionInfo::read(&p).unwrap().workspace, Path::new("/w"));
    }
}
