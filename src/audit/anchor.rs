//! A trail's anchor: a small file beside it (`<id>.anchor`, see
//! [`crate::dirs::anchor_path`]) that says how many records the trail had
//! and the hash of the last one, each time the writer flushed the trail to
//! disk (before a write or a command runs, and at `session_end`). A trail
//! cut short, or rewritten with a recomputed chain, no longer reaches its
//! anchor: [`super::verify_file`] says so.
//!
//! The writer also holds an exclusive `flock` on the anchor for as long as
//! it runs (the kernel drops it when the process ends, however it ends), so
//! a reader can tell a session still being written from one whose
//! supervisor is gone.
//!
//! The anchor is one fixed-width line, rewritten in place:
//! `airlock-anchor v1 records=00000000000000000011 head=<64 hex> check=<16 hex>`.
//! `check` is a plain sha256 of the rest: it catches a line read while it
//! was being rewritten, not a forgery (see README, "What --verify proves").

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::{FlockOperation, flock};
use sha2::{Digest, Sha256};

/// How far a trail had got: `records` records, the last one's hash `hash`
/// (the chain's genesis, 64 zeros, when there were none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// Records written and flushed.
    pub records: u64,
    /// The hash of record `records - 1`.
    pub hash: String,
}

const MAGIC: &str = "airlock-anchor v1";

impl Head {
    /// The anchor line (fixed width, so a rewrite in place replaces all of
    /// it).
    fn line(&self) -> String {
        let body = format!("records={:020} head={}", self.records, self.hash);
        format!("{MAGIC} {body} check={}\n", check(&body))
    }

    /// Read an anchor line back.
    fn parse(text: &str) -> Result<Self, String> {
        let bad = || format!("not an anchor line: {:?}", super::excerpt(text, 200));
        let rest = text.strip_prefix(MAGIC).ok_or_else(bad)?.trim();
        let (body, sum) = rest.rsplit_once(" check=").ok_or_else(bad)?;
        if check(body) != sum {
            return Err(format!(
                "the anchor's check does not match: {:?}",
                super::excerpt(text, 200)
            ));
        }
        let (records, hash) = body.split_once(" head=").ok_or_else(bad)?;
        let records = records
            .strip_prefix("records=")
            .and_then(|n| n.parse().ok())
            .ok_or_else(bad)?;
        if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        Ok(Self {
            records,
            hash: hash.to_string(),
        })
    }
}

/// The first 16 hex digits of the sha256 of `body`.
fn check(body: &str) -> String {
    hex::encode(&Sha256::digest(body.as_bytes())[..8])
}

/// The writer's side: the open, locked anchor file.
pub(super) struct AnchorFile {
    file: File,
    path: PathBuf,
}

impl AnchorFile {
    /// Create the anchor of the trail at `trail` (mode 0600; must not
    /// exist), lock it for this process and record `head` (the empty
    /// trail's).
    pub(super) fn create(trail: &Path, head: &Head) -> std::io::Result<Self> {
        let path = crate::dirs::anchor_path(trail);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_CLOEXEC)
            .open(&path)?;
        // Where `flock` is not supported the anchor still counts records;
        // a reader then goes by the supervisor's pid.
        if let Err(e) = flock(&file, FlockOperation::NonBlockingLockExclusive) {
            tracing::warn!(path = %path.display(), "cannot lock the trail's anchor: {e}");
        }
        let anchor = Self { file, path };
        anchor.set(head)?;
        Ok(anchor)
    }

    /// Record `head` (one `pwrite` over the whole line).
    pub(super) fn set(&self, head: &Head) -> std::io::Result<()> {
        self.file.write_all_at(head.line().as_bytes(), 0)
    }

    /// Flush the anchor to stable storage.
    pub(super) fn sync(&self) -> std::io::Result<()> {
        self.file.sync_data()
    }

    /// The anchor file.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }
}

/// What the anchor at `path` says: `Ok(None)` when there is none.
pub(super) fn read(path: &Path) -> Result<Option<Head>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Head::parse(&text).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// Whether a writer holds the anchor at `path`: `Some(true)` while its
/// supervisor runs, `Some(false)` once it is gone, `None` when that cannot
/// be told (no anchor, or no `flock` here).
pub(super) fn held(path: &Path) -> Option<bool> {
    let file = File::open(path).ok()?;
    match flock(&file, FlockOperation::NonBlockingLockShared) {
        // Dropping the file releases the shared lock at once.
        Ok(()) => Some(false),
        Err(rustix::io::Errno::WOULDBLOCK) => Some(true),
        Err(_) => None,
    }
}

/// True when a process with this id exists (how a trail without an anchor,
/// from an older airlock, is known to be still written: its
/// `session_start` pid).
pub(super) fn pid_alive(pid: u32) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_anchor_line_reads_back_and_has_one_width() {
        let h = Head {
            records: 11,
            hash: "ab".repeat(32),
        };
        assert_eq!(Head::parse(&h.line()), Ok(h.clone()));
        let max = Head {
            records: u64::MAX,
            hash: h.hash.clone(),
        };
        assert_eq!(max.line().len(), h.line().len());
        // A line read half rewritten does not pass as an anchor.
        let torn = h.line().replace("0011", "0012");
        assert!(Head::parse(&torn).unwrap_err().contains("check"));
        assert!(Head::parse("hello").is_err());
    }

    #[test]
    fn the_writer_holds_its_anchor_until_it_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let trail = dir.path().join("t.jsonl");
        let empty = Head {
            records: 0,
            hash: "0".repeat(64),
        };
        let a = AnchorFile::create(&trail, &empty).unwrap();
        assert_eq!(held(a.path()), Some(true));
        assert_eq!(read(a.path()).unwrap().unwrap().records, 0);
        // A second writer for the same trail is refused.
        assert!(AnchorFile::create(&trail, &empty).is_err());
        let path = a.path().to_path_buf();
        drop(a);
        assert_eq!(held(&path), Some(false));
        assert_eq!(held(&dir.path().join("none.anchor")), None);
        assert_eq!(read(&dir.path().join("none.anchor")), Ok(None));
    }
}
