//! Appending hash-chained records.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use chrono::{DateTime, Utc};
use serde::Serialize;
use sha2::{Digest, Sha256};
use tokio::sync::broadcast;

use super::record::{AuditEvent, FORMAT_VERSION};
use crate::call::{Fraction, Stamp};

/// The `prev` of the first record.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Writing the trail failed. A call whose decision cannot be recorded is
/// not run.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// Creating or writing the file failed.
    #[error("audit trail {path}: {source}")]
    Io {
        /// The trail.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A record could not be serialized.
    #[error("audit record could not be serialized: {0}")]
    Serialize(String),
}

#[derive(Serialize)]
struct Envelope<'a> {
    v: u32,
    seq: u64,
    ts: &'a str,
    #[serde(flatten)]
    event: &'a AuditEvent,
    prev: &'a str,
}

struct State {
    file: File,
    seq: u64,
    prev: String,
    /// The lines being written, kept between appends.
    buf: Vec<u8>,
}

/// A record as it was appended, for front ends that show the trail as it
/// is written (the TUI's audit pane) without reading the file back.
#[derive(Debug, Clone)]
pub struct Appended {
    /// Its sequence number.
    pub seq: u64,
    /// When it was written.
    pub ts: DateTime<Utc>,
    /// What it says.
    pub event: AuditEvent,
}

/// Records buffered per subscriber before a slow one misses some.
const FEED: usize = 4096;
/// Largest line buffer kept for the next append.
const MAX_KEPT_BUF: usize = 64 * 1024;

/// An open audit trail. Appends are serialized and each record is written
/// with one `write` call straight to the file (no user-space buffer), so a
/// record is in the kernel before `append` returns.
pub struct AuditLog {
    path: PathBuf,
    state: Mutex<State>,
    feed: broadcast::Sender<std::sync::Arc<Appended>>,
}

impl std::fmt::Debug for AuditLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditLog")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl AuditLog {
    /// Create a new trail at `path` (mode 0600; must not exist).
    pub fn create(path: &Path) -> Result<Self, AuditError> {
        let io = |source| AuditError::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent() {
            crate::dirs::ensure_private_dir(dir).map_err(io)?;
        }
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_CLOEXEC)
            .open(path)
            .map_err(io)?;
        Ok(Self {
            path: path.to_path_buf(),
            state: Mutex::new(State {
                file,
                seq: 0,
                prev: GENESIS.to_string(),
                buf: Vec::new(),
            }),
            feed: broadcast::channel(FEED).0,
        })
    }

    /// A new trail in `dir`, named from the start time and a random suffix.
    /// Returns the log and the session id (the file stem).
    pub fn create_in(dir: &Path) -> Result<(Self, String), AuditError> {
        let now = chrono::Utc::now();
        let id = format!(
            "{}-{:04x}",
            now.format("%Y%m%dT%H%M%S%.3fZ"),
            rand::random::<u16>()
        );
        let log = Self::create(&dir.join(crate::dirs::trail_file_name(&id)))?;
        Ok((log, id))
    }

    /// The trail's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every record appended from now on, typed, in order (a subscriber
    /// that falls more than a few thousand records behind misses some and
    /// is told so; the file is the record).
    pub fn subscribe(&self) -> broadcast::Receiver<std::sync::Arc<Appended>> {
        self.feed.subscribe()
    }

    /// Append one record; returns its sequence number. When this returns
    /// `Ok`, the line has been handed to the kernel in full.
    pub fn append(&self, event: &AuditEvent) -> Result<u64, AuditError> {
        self.append_all(&[event])
    }

    /// Append several records, chained in order, with one `write` call;
    /// returns the first one's sequence number. When this returns `Ok`,
    /// every line has been handed to the kernel in full; on `Err` none is
    /// counted in the chain.
    pub fn append_all(&self, events: &[&AuditEvent]) -> Result<u64, AuditError> {
        let mut guard = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let st = &mut *guard;
        let first = st.seq;
        let mut seq = first;
        let mut stamps = Vec::with_capacity(events.len());
        let mut prev = [0u8; 64];
        prev.copy_from_slice(st.prev.as_bytes());
        st.buf.clear();
        for event in events {
            let start = st.buf.len();
            let now = Utc::now();
            stamps.push(now);
            let ts = Stamp::new(&now, Fraction::Micros);
            let env = Envelope {
                v: FORMAT_VERSION,
                seq,
                ts: ts.as_str(),
                event,
                // Written by `hex::encode_to_slice` (or copied from a hex
                // string): always ASCII.
                prev: std::str::from_utf8(&prev).unwrap_or(GENESIS),
            };
            // `sonic-rs` writes the JSON `serde_json` writes (tested),
            // escaping strings faster; the hash is over these bytes.
            sonic_rs::to_writer(&mut st.buf, &env)
                .map_err(|e| AuditError::Serialize(e.to_string()))?;
            // The record is `{…}`; hash the bytes as they are, then splice
            // the hash in.
            let digest = Sha256::digest(&st.buf[start..]);
            // 32 bytes always fill the 64 hex digits.
            hex::encode_to_slice(digest, &mut prev).map_err(|e| AuditError::Io {
                path: self.path.clone(),
                source: std::io::Error::other(e),
            })?;
            st.buf.pop();
            st.buf.extend_from_slice(b",\"hash\":\"");
            st.buf.extend_from_slice(&prev);
            st.buf.extend_from_slice(b"\"}\n");
            seq += 1;
        }
        st.file
            .write_all(&st.buf)
            .map_err(|source| AuditError::Io {
                path: self.path.clone(),
                source,
            })?;
        st.seq = seq;
        st.prev.clear();
        st.prev
            .push_str(std::str::from_utf8(&prev).unwrap_or(GENESIS));
        if st.buf.capacity() > MAX_KEPT_BUF {
            st.buf = Vec::new();
        }
        // Sent under the lock, so subscribers see records in trail order;
        // cloned only when someone listens.
        if self.feed.receiver_count() > 0 {
            for ((event, ts), seq) in events.iter().zip(stamps).zip(first..) {
                let _ = self.feed.send(std::sync::Arc::new(Appended {
                    seq,
                    ts,
                    event: (*event).clone(),
                }));
            }
        }
        Ok(first)
    }

    /// Flush the data to stable storage (`fdatasync`): used before a write
    /// or a command runs, so its decision survives a power loss too.
    pub fn sync_data(&self) -> Result<(), AuditError> {
        let st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        st.file.sync_data().map_err(|source| AuditError::Io {
            path: self.path.clone(),
            source,
        })
    }

    /// Flush to stable storage (`fsync`); used at session end.
    pub fn sync(&self) -> Result<(), AuditError> {
        let st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        st.file.sync_all().map_err(|source| AuditError::Io {
            path: self.path.clone(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// Each line is what `serde_json` writes for the same record (the
    /// trail's bytes do not depend on the faster serializer), chained.
    #[test]
    fn records_are_written_as_serde_json_writes_them() {
        let odd = "\u{0}\u{1f}\"\\\n\t é 𝄞 \u{7f} \u{2028} </script>";
        let agent = serde_json::json!({"id": 1, "name": odd, "version": "1"});
        let lines = [
            serde_json::json!({"type": "agent_connected", "agent": agent}),
            serde_json::json!({"type": "call_requested", "call": {"id": 1, "agent": agent,
                "tool": "bash", "kind": "exec", "args": {"command": odd, "n": -1.5e300,
                "list": [null, true, 9_007_199_254_740_993_u64]},
                "summary": odd, "received_at": "2026-01-02T03:04:05.123456789Z"}}),
            serde_json::json!({"type": "call_decided", "call_id": 1, "approved": true, "by": "user"}),
            serde_json::json!({"type": "call_finished", "call_id": 1, "status": "ok",
                "duration_ms": 1, "is_error": false, "truncated": false, "output_bytes": 3,
                "output_sha256": "ab", "excerpt": odd}),
            serde_json::json!({"type": "protocol_error", "error": odd, "excerpt": odd}),
        ];
        let events: Vec<AuditEvent> = lines
            .iter()
            .map(|l| serde_json::from_value(l.clone()).unwrap())
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let log = AuditLog::create(&path).unwrap();
        log.append(&events[0]).unwrap();
        log.append_all(&events[1..].iter().collect::<Vec<_>>())
            .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut prev = GENESIS.to_string();
        for (line, event) in text.lines().zip(&events) {
            let v: Value = serde_json::from_str(line).unwrap();
            // The stamp is chrono's own microsecond form.
            let ts = v["ts"].as_str().unwrap();
            let at = DateTime::parse_from_rfc3339(ts)
                .unwrap()
                .with_timezone(&Utc);
            assert_eq!(ts, at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true));
            let env = Envelope {
                v: FORMAT_VERSION,
                seq: v["seq"].as_u64().unwrap(),
                ts,
                event,
                prev: &prev,
            };
            let mut want = serde_json::to_string(&env).unwrap();
            want.pop();
            let hash = v["hash"].as_str().unwrap().to_string();
            assert_eq!(line, format!("{want},\"hash\":\"{hash}\"}}"));
            prev = hash;
        }
        assert_eq!(text.lines().count(), events.len());
    }
}
