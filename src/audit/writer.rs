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

use super::anchor::{AnchorFile, Head};
use super::bound::{MAX_RECORD_BYTES, bounded_record};
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

/// A record as written: the event between the sequence number and time and
/// the chain. `anchored` is on the first record only (the trail has an
/// anchor file, so a missing one is noticed); `records` and `head` are on
/// `session_end` only (see [`Envelope::new`]).
#[derive(Serialize)]
struct Envelope<'a, E: Serialize + ?Sized> {
    v: u32,
    seq: u64,
    ts: &'a str,
    #[serde(flatten)]
    event: &'a E,
    #[serde(skip_serializing_if = "Option::is_none")]
    anchored: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    records: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    head: Option<&'a str>,
    prev: &'a str,
}

impl<'a, E: Serialize + ?Sized> Envelope<'a, E> {
    /// Record `seq` holding `event`: a `session_end` (`ends`) also says how
    /// many records the trail has with it and the hash of the one before
    /// it (its `prev`), what `airlock log --verify` checks it against.
    fn new(seq: u64, ts: &'a str, event: &'a E, ends: bool, prev: &'a str) -> Self {
        Self {
            v: FORMAT_VERSION,
            seq,
            ts,
            event,
            anchored: (seq == 0).then_some(true),
            records: ends.then_some(seq + 1),
            head: ends.then_some(prev),
            prev,
        }
    }
}

struct State {
    file: File,
    seq: u64,
    prev: String,
    /// The lines being written, kept between appends.
    buf: Vec<u8>,
    /// Where the trail's length and head are kept outside it.
    anchor: AnchorFile,
}

impl State {
    /// The trail as far as it was written.
    fn head(&self) -> Head {
        Head {
            records: self.seq,
            hash: self.prev.clone(),
        }
    }

    /// After a flush to disk: the anchor records how far the trail got. A
    /// failure is logged, not returned: the trail itself is on disk, and a
    /// call must not be stopped by its check.
    fn anchor_flushed(&self, durable: bool) {
        let r = self
            .anchor
            .set(&self.head())
            .and_then(|()| if durable { self.anchor.sync() } else { Ok(()) });
        if let Err(e) = r {
            tracing::warn!(anchor = %self.anchor.path().display(), "cannot update the trail's anchor: {e}");
        }
    }
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
    /// Create a new trail at `path` (mode 0600; must not exist) and its
    /// anchor beside it (see [`super::anchor`]), locked while this log is
    /// open.
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
        let empty = Head {
            records: 0,
            hash: GENESIS.to_string(),
        };
        let anchor = AnchorFile::create(path, &empty).map_err(|source| {
            let _ = std::fs::remove_file(path);
            AuditError::Io {
                path: crate::dirs::anchor_path(path),
                source,
            }
        })?;
        Ok(Self {
            path: path.to_path_buf(),
            state: Mutex::new(State {
                file,
                seq: 0,
                prev: GENESIS.to_string(),
                buf: Vec::new(),
                anchor,
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
    /// counted in the chain. A record too large is cut first (see
    /// [`super::bound`]); a `session_end` is synced to disk and anchored
    /// before this returns.
    pub fn append_all(&self, events: &[&AuditEvent]) -> Result<u64, AuditError> {
        let mut guard = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let st = &mut *guard;
        let first = st.seq;
        let mut seq = first;
        let mut stamps = Vec::with_capacity(events.len());
        // The records cut before they were written, for the feed.
        let mut cut: Vec<(usize, AuditEvent)> = Vec::new();
        let mut ends = false;
        let mut prev = [0u8; 64];
        prev.copy_from_slice(st.prev.as_bytes());
        st.buf.clear();
        for (i, event) in events.iter().enumerate() {
            let start = st.buf.len();
            let now = Utc::now();
            stamps.push(now);
            let ts = Stamp::new(&now, Fraction::Micros);
            let is_end = matches!(event, AuditEvent::SessionEnd { .. });
            ends |= is_end;
            // Written by `hex::encode_to_slice` (or copied from a hex
            // string): always ASCII.
            let prev_str = std::str::from_utf8(&prev).unwrap_or(GENESIS);
            // `sonic-rs` writes the JSON `serde_json` writes (tested),
            // escaping strings faster; the hash is over these bytes.
            let env = Envelope::new(seq, ts.as_str(), *event, is_end, prev_str);
            sonic_rs::to_writer(&mut st.buf, &env)
                .map_err(|e| AuditError::Serialize(e.to_string()))?;
            if st.buf.len() - start > MAX_RECORD_BYTES {
                st.buf.truncate(start);
                let bounded =
                    bounded_record(event).map_err(|e| AuditError::Serialize(e.to_string()))?;
                let env = Envelope::new(seq, ts.as_str(), &bounded, is_end, prev_str);
                sonic_rs::to_writer(&mut st.buf, &env)
                    .map_err(|e| AuditError::Serialize(e.to_string()))?;
                if let Ok(e) = serde_json::from_value(bounded) {
                    cut.push((i, e));
                }
            }
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
        if ends {
            // The end is anchored: a trail cut back from here no longer
            // reaches its anchor.
            match st.file.sync_all() {
                Ok(()) => st.anchor_flushed(true),
                Err(e) => tracing::error!(path = %self.path.display(), "audit sync failed: {e}"),
            }
        }
        // Sent under the lock, so subscribers see records in trail order;
        // cloned only when someone listens.
        if self.feed.receiver_count() > 0 {
            for (i, ((event, ts), seq)) in events.iter().zip(stamps).zip(first..).enumerate() {
                let event = cut
                    .iter()
                    .find(|(at, _)| *at == i)
                    .map_or_else(|| (*event).clone(), |(_, e)| e.clone());
                let _ = self
                    .feed
                    .send(std::sync::Arc::new(Appended { seq, ts, event }));
            }
        }
        Ok(first)
    }

    /// Flush the data to stable storage (`fdatasync`): used before a write
    /// or a command runs, so its decision survives a power loss too. The
    /// anchor then records how far the trail got.
    pub fn sync_data(&self) -> Result<(), AuditError> {
        let st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        st.file.sync_data().map_err(|source| AuditError::Io {
            path: self.path.clone(),
            source,
        })?;
        st.anchor_flushed(false);
        Ok(())
    }

    /// Flush to stable storage (`fsync`), the anchor too; used at session
    /// end.
    pub fn sync(&self) -> Result<(), AuditError> {
        let st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        st.file.sync_all().map_err(|source| AuditError::Io {
            path: self.path.clone(),
            source,
        })?;
        st.anchor_flushed(true);
        Ok(())
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
            serde_json::json!({"type": "session_end", "reason": odd}),
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
            let seq = v["seq"].as_u64().unwrap();
            let ends = event.kind() == "session_end";
            let env = Envelope {
                v: FORMAT_VERSION,
                seq,
                ts,
                event,
                anchored: (seq == 0).then_some(true),
                records: ends.then_some(seq + 1),
                head: ends.then_some(prev.as_str()),
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

    /// A record too large is cut before it is written, whatever field the
    /// text is in: the line is small, reads as the same event, chains, and
    /// the feed gets what the file has. Control: as serialized before the
    /// cut, the record holds all of it.
    #[test]
    fn a_huge_record_is_cut_before_it_is_written() {
        let big = "r".repeat(5 * 1024 * 1024);
        let events: Vec<AuditEvent> = [
            serde_json::json!({"type": "call_decided", "call_id": 1, "approved": false,
                "by": "invalid_arguments", "reason": big}),
            serde_json::json!({"type": "agent_connected", "agent": {"id": 1, "name": big, "version": big}}),
            serde_json::json!({"type": "protocol_error", "error": big, "excerpt": big}),
            serde_json::json!({"type": "rule_saved", "action": "allow", "rule": big, "file": big}),
        ]
        .into_iter()
        .map(|v| serde_json::from_value(v).unwrap())
        .collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let log = AuditLog::create(&path).unwrap();
        let mut feed = log.subscribe();
        for e in &events {
            assert!(serde_json::to_vec(e).unwrap().len() > big.len(), "control");
            log.append(e).unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (line, e) in text.lines().zip(&events) {
            assert!(line.len() < 32 * 1024, "{}: {} bytes", e.kind(), line.len());
            let read: AuditEvent = serde_json::from_str(line).unwrap();
            assert_eq!(read.kind(), e.kind());
            let fed = feed.try_recv().unwrap();
            assert!(serde_json::to_vec(&fed.event).unwrap().len() < 32 * 1024);
        }
    }
}
