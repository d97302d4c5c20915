//! Where airlock keeps things and what its files are called: the config
//! files (user and project), audit trails, logs and the trust store (data
//! directory), the per-workspace socket (private runtime directory).

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The project config file's name as a literal, for text put together at
/// compile time (`concat!(…, crate::dirs::project_config!())`, as the TUI's
/// help is): the one place the name is spelled; [`PROJECT_CONFIG`] is it.
macro_rules! project_config {
    () => {
        ".airlock.toml"
    };
}
pub(crate) use project_config;

/// The project config file's name, in the workspace.
pub const PROJECT_CONFIG: &str = project_config!();

/// The user config file's name, in the user config directory.
pub const USER_CONFIG: &str = "config.toml";

/// The log file's name, in [`log_dir`].
pub const LOG_FILE: &str = "airlock.log";

/// The extension of an audit trail file (`<session-id>.jsonl`).
pub const TRAIL_EXTENSION: &str = "jsonl";

/// The extension of a trail's anchor file, beside the trail
/// ([`anchor_path`]).
pub const ANCHOR_EXTENSION: &str = "anchor";

/// The extension of a session file in the runtime directory
/// ([`session_info_path`]).
pub const SESSION_INFO_EXTENSION: &str = "json";

/// The user config file (`~/.config/airlock/config.toml` on Linux).
pub fn user_config_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "airlock").map(|d| d.config_dir().join(USER_CONFIG))
}

/// The data directory: `--data-dir`/`AIRLOCK_DATA_DIR`, else the platform's
/// (`~/.local/share/airlock` on Linux).
pub fn data_dir(explicit: Option<&Path>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    directories::ProjectDirs::from("", "", "airlock").map_or_else(
        || std::env::temp_dir().join(format!("airlock-data-{}", uid())),
        |d| d.data_dir().to_path_buf(),
    )
}

/// Where audit trails go inside the data directory.
pub fn audit_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("audit")
}

/// The file name of the trail of session `id`: `<id>.jsonl`.
pub fn trail_file_name(id: &str) -> String {
    format!("{id}.{TRAIL_EXTENSION}")
}

/// The session id a trail file name stands for (`<id>.jsonl` → `<id>`);
/// `None` when `name` is not named like a trail. Matched as written (the
/// extension is lower case).
pub fn trail_id(name: &str) -> Option<&str> {
    name.strip_suffix(TRAIL_EXTENSION)?.strip_suffix('.')
}

/// The anchor of the trail at `trail`: beside it, `<id>.anchor` (the
/// trail's length and last hash, kept outside the trail; see
/// `audit::anchor`).
pub fn anchor_path(trail: &Path) -> PathBuf {
    trail.with_extension(ANCHOR_EXTENSION)
}

/// Where `airlock init` keeps its records inside the data directory.
pub fn init_record_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("init")
}

/// The record `airlock init` keeps in `record_dir` for the configuration
/// file `file`: `<digest of the path>.json`.
pub fn init_record_path(record_dir: &Path, file: &Path) -> PathBuf {
    let digest = Sha256::digest(file.as_os_str().as_encoded_bytes());
    record_dir.join(format!("{}.json", &hex::encode(digest)[..16]))
}

/// Where the trust store (which project config files the user trusts,
/// `airlock trust`) is kept inside the data directory: hidden from the
/// sandboxed shell and refused to the write tools like the rest of it.
pub fn trust_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("trust")
}

/// The trust record in `trust_dir` of the project config file `file` (its
/// canonical path): `<digest of the path>.json`.
pub fn trust_record_path(trust_dir: &Path, file: &Path) -> PathBuf {
    let digest = Sha256::digest(file.as_os_str().as_encoded_bytes());
    trust_dir.join(format!("{}.json", &hex::encode(digest)[..32]))
}

/// Where the log file goes inside the data directory.
pub fn log_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("logs")
}

/// The current user's id.
pub fn uid() -> u32 {
    rustix::process::getuid().as_raw()
}

/// The private runtime directory (`$XDG_RUNTIME_DIR/airlock`, else
/// `/tmp/airlock-<uid>`), created `0700`. An existing directory that is not
/// ours or is open to others is refused.
pub fn runtime_dir() -> std::io::Result<PathBuf> {
    let base = explicit_runtime_dir()
        .or_else(xdg_runtime_dir)
        .unwrap_or_else(temp_runtime_dir);
    ensure_private_dir(&base)?;
    Ok(base)
}

/// `AIRLOCK_RUNTIME_DIR`: when set, the only runtime directory used.
fn explicit_runtime_dir() -> Option<PathBuf> {
    std::env::var_os("AIRLOCK_RUNTIME_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// `$XDG_RUNTIME_DIR/airlock`, when the variable is set.
fn xdg_runtime_dir() -> Option<PathBuf> {
    directories::BaseDirs::new().and_then(|b| b.runtime_dir().map(|p| p.join("airlock")))
}

/// `$TMPDIR/airlock-<uid>` (`/tmp` without TMPDIR).
fn temp_runtime_dir() -> PathBuf {
    std::env::temp_dir().join(format!("airlock-{}", uid()))
}

/// Where a supervisor that uses `runtime` also registers its session (an
/// info file naming its socket), so that `airlock connect` started with a
/// reduced environment (no `XDG_RUNTIME_DIR`, as Codex starts MCP servers)
/// finds it: the temp-dir location, unless that is `runtime` itself or
/// `AIRLOCK_RUNTIME_DIR` pins one directory.
pub fn also_register_in(runtime: &Path) -> Option<PathBuf> {
    if explicit_runtime_dir().is_some() {
        return None;
    }
    let temp = temp_runtime_dir();
    (temp != runtime).then_some(temp)
}

/// Every runtime directory a supervisor of this user may have registered
/// in, most specific first: `AIRLOCK_RUNTIME_DIR` alone when set; else
/// `$XDG_RUNTIME_DIR/airlock`, `/run/user/<uid>/airlock` (the usual
/// `XDG_RUNTIME_DIR`, for a process started without the variable),
/// `$TMPDIR/airlock-<uid>` and `/tmp/airlock-<uid>`. Only directories that
/// exist, are ours and are private (no access for group or others) are
/// returned; nothing is created.
pub fn runtime_dir_candidates() -> Vec<PathBuf> {
    let all: Vec<PathBuf> = match explicit_runtime_dir() {
        Some(d) => vec![d],
        None => xdg_runtime_dir()
            .into_iter()
            .chain([
                PathBuf::from(format!("/run/user/{}/airlock", uid())),
                temp_runtime_dir(),
                PathBuf::from(format!("/tmp/airlock-{}", uid())),
            ])
            .collect(),
    };
    let mut out: Vec<PathBuf> = Vec::new();
    for d in all {
        if !out.contains(&d) && is_private_dir(&d) {
            out.push(d);
        }
    }
    out
}

/// True when `dir` is a real directory (not a symlink) owned by us with no
/// access for group or others.
#[expect(
    clippy::verbose_bit_mask,
    reason = "`mode & 0o077 == 0` says \"no group or other bits\"; trailing_zeros() would hide it"
)]
pub fn is_private_dir(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir)
        .is_ok_and(|m| m.is_dir() && m.uid() == uid() && m.mode() & 0o077 == 0)
}

/// Create `dir` with mode 0700 (parents as needed) and check it is a real
/// directory owned by us with no access for group or others.
pub fn ensure_private_dir(dir: &Path) -> std::io::Result<()> {
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = std::fs::symlink_metadata(dir)?;
    if !meta.is_dir() {
        return Err(std::io::Error::other(format!(
            "{} is not a directory",
            dir.display()
        )));
    }
    if meta.uid() != uid() {
        return Err(std::io::Error::other(format!(
            "{} belongs to another user; refusing to use it",
            dir.display()
        )));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// A short stable id for a workspace path (used to name its socket).
pub fn workspace_id(workspace: &Path) -> String {
    let digest = Sha256::digest(workspace.as_os_str().as_encoded_bytes());
    hex::encode(&digest[..8])
}

/// The socket path of the supervisor for `workspace` (canonical).
pub fn socket_path(runtime: &Path, workspace: &Path) -> PathBuf {
    runtime.join(format!("{}.sock", workspace_id(workspace)))
}

/// The hook socket of the supervisor whose MCP socket is `mcp_socket`:
/// beside it, `<workspace-id>.hooks.sock`.
pub fn hook_socket_path(mcp_socket: &Path) -> PathBuf {
    let stem = mcp_socket
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    mcp_socket.with_file_name(format!("{stem}.hooks.sock"))
}

/// The session file describing the supervisor for `workspace`.
pub fn session_info_path(runtime: &Path, workspace: &Path) -> PathBuf {
    runtime.join(format!(
        "{}.{SESSION_INFO_EXTENSION}",
        workspace_id(workspace)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trail_is_named_by_its_session_id() {
        let name = trail_file_name("20260101T000000.000Z-ab12");
        assert_eq!(name, "20260101T000000.000Z-ab12.jsonl");
        assert_eq!(trail_id(&name), Some("20260101T000000.000Z-ab12"));
        assert_eq!(trail_id("x.json"), None);
        assert_eq!(trail_id("xjsonl"), None);
        assert_eq!(trail_id("x.JSONL"), None);
        assert_eq!(
            anchor_path(Path::new("/d/audit/20260101T000000.000Z-ab12.jsonl")),
            Path::new("/d/audit/20260101T000000.000Z-ab12.anchor")
        );
    }

    #[test]
    fn the_hook_socket_sits_beside_the_mcp_socket() {
        assert_eq!(
            hook_socket_path(Path::new("/run/user/1/airlock/ab12.sock")),
            Path::new("/run/user/1/airlock/ab12.hooks.sock")
        );
    }

    #[test]
    fn the_session_file_sits_beside_the_socket() {
        let ws = Path::new("/w");
        let rt = Path::new("/rt");
        assert_eq!(
            session_info_path(rt, ws).file_stem(),
            socket_path(rt, ws).file_stem()
        );
        assert_eq!(
            session_info_path(rt, ws).extension(),
            Some(std::ffi::OsStr::new(SESSION_INFO_EXTENSION))
        );
    }

    #[test]
    fn init_records_are_named_by_the_file_path() {
        let a = init_record_path(Path::new("/d"), Path::new("/p/.mcp.json"));
        let b = init_record_path(Path::new("/d"), Path::new("/q/.mcp.json"));
        assert_ne!(a, b);
        assert_eq!(a.parent(), Some(Path::new("/d")));
        assert_eq!(a.extension(), Some(std::ffi::OsStr::new("json")));
    }
}
