//! Reading trails: finding them in the data directory, splitting a file into
//! complete lines (a torn last line is held back and reported, never parsed)
//! and parsing lines into records.
//!
//! Readers are tolerant: a line that is not a record is reported as a
//! [`LineProblem`] and skipped, a record of a type this version does not
//! know is kept as [`RecordBody::Unknown`]. Only [`super::verify_file`]
//! judges whether a trail is intact.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Deserialize;

use super::record::AuditEvent;
use crate::call::CallId;

/// Most bytes read from a file in one go.
const CHUNK: usize = 1 << 20;

/// A line that could not be read as a record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct LineProblem {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl LineProblem {
    /// The problem for a file that ends in `bytes` bytes without a newline.
    pub fn torn(line: usize, bytes: usize) -> Self {
        Self {
            line,
            message: format!(
                "torn last line ({bytes} bytes without a newline): the writer was interrupted \
                 or is writing it now"
            ),
        }
    }
}

/// One record of a trail.
#[derive(Debug, Clone)]
pub struct TrailRecord {
    /// 1-based line number in the file.
    pub line: usize,
    /// The record's sequence number.
    pub seq: u64,
    /// When it was written.
    pub ts: DateTime<Utc>,
    /// The format version (`v`).
    pub version: u32,
    /// What it says.
    pub body: RecordBody,
}

/// The event a record holds.
#[expect(
    clippy::large_enum_variant,
    reason = "nearly every record is a known event; boxing it would cost an allocation per record for the rare unknown one"
)]
#[derive(Debug, Clone)]
pub enum RecordBody {
    /// A known event.
    Event(AuditEvent),
    /// A record of a type this version cannot read (a newer format, or
    /// fields of the wrong shape); kept so it can be shown and counted.
    Unknown {
        /// Its `type`.
        kind: String,
        /// Its call, if it names one (`call_id` or `call.id`).
        call_id: Option<CallId>,
    },
}

impl TrailRecord {
    /// The call this record belongs to, if any (`call.id` of a request,
    /// `call_id` of a decision or result).
    pub fn call_id(&self) -> Option<CallId> {
        match &self.body {
            RecordBody::Event(AuditEvent::CallRequested { call }) => Some(call.id),
            RecordBody::Event(
                AuditEvent::CallDecided { call_id, .. } | AuditEvent::CallFinished { call_id, .. },
            ) => Some(*call_id),
            RecordBody::Event(_) => None,
            RecordBody::Unknown { call_id, .. } => *call_id,
        }
    }

    /// The record's `type`.
    pub fn kind(&self) -> &str {
        match &self.body {
            RecordBody::Unknown { kind, .. } => kind,
            RecordBody::Event(e) => e.kind(),
        }
    }
}

#[derive(Deserialize)]
struct Envelope {
    v: u32,
    seq: u64,
    ts: DateTime<Utc>,
    #[serde(flatten)]
    event: AuditEvent,
}

#[derive(Deserialize)]
struct LooseEnvelope {
    #[serde(default)]
    v: u32,
    seq: u64,
    ts: DateTime<Utc>,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    call_id: Option<CallId>,
    #[serde(default)]
    call: Option<LooseCall>,
}

#[derive(Deserialize)]
struct LooseCall {
    id: CallId,
}

/// Parse one line (without its newline) into a record.
pub fn parse_record(line: usize, bytes: &[u8]) -> Result<TrailRecord, LineProblem> {
    match serde_json::from_slice::<Envelope>(bytes) {
        Ok(e) => Ok(TrailRecord {
            line,
            seq: e.seq,
            ts: e.ts,
            version: e.v,
            body: RecordBody::Event(e.event),
        }),
        Err(first) => match serde_json::from_slice::<LooseEnvelope>(bytes) {
            Ok(e) => Ok(TrailRecord {
                line,
                seq: e.seq,
                ts: e.ts,
                version: e.v,
                body: RecordBody::Unknown {
                    kind: e.kind,
                    call_id: e.call_id.or(e.call.map(|c| c.id)),
                },
            }),
            Err(_) => Err(LineProblem {
                line,
                message: format!("not an audit record: {first}"),
            }),
        },
    }
}

/// Reads the complete lines of a file as they appear: each call returns
/// what was appended since the last one. A last line without its newline
/// is held back until the newline arrives (see [`LineSource::pending`]).
#[derive(Debug)]
pub struct LineSource {
    path: PathBuf,
    file: Option<std::fs::File>,
    pos: u64,
    partial: Vec<u8>,
    line: usize,
}

impl LineSource {
    /// Read `path` from its start. The file is opened on the first read.
    pub fn new(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            file: None,
            pos: 0,
            partial: Vec::new(),
            line: 0,
        }
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Call `f(line_number, bytes)` for every complete line appended since
    /// the last call (bytes without the newline). Returns how many lines
    /// were passed on.
    pub fn read_new(&mut self, mut f: impl FnMut(usize, &[u8])) -> std::io::Result<usize> {
        if self.file.is_none() {
            self.file = Some(std::fs::File::open(&self.path)?);
        }
        let Some(file) = self.file.as_mut() else {
            return Ok(0);
        };
        file.seek(SeekFrom::Start(self.pos))?;
        let mut chunk = vec![0u8; CHUNK];
        let mut count = 0;
        loop {
            let n = match file.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.pos += n as u64;
            let data = &chunk[..n];
            let mut start = 0;
            for nl in memchr_all(data) {
                self.line += 1;
                count += 1;
                if self.partial.is_empty() {
                    f(self.line, &data[start..nl]);
                } else {
                    self.partial.extend_from_slice(&data[start..nl]);
                    f(self.line, &self.partial);
                    self.partial.clear();
                }
                start = nl + 1;
            }
            self.partial.extend_from_slice(&data[start..]);
        }
        Ok(count)
    }

    /// The bytes after the last newline read so far (a line being written,
    /// or torn by a crash).
    pub fn pending(&self) -> &[u8] {
        &self.partial
    }

    /// The torn last line, if the file ends without a newline.
    pub fn torn_tail(&self) -> Option<LineProblem> {
        (!self.partial.is_empty()).then(|| LineProblem::torn(self.line + 1, self.partial.len()))
    }

    /// Complete lines read so far.
    pub fn lines_read(&self) -> usize {
        self.line
    }
}

/// Positions of every `\n` in `data`.
fn memchr_all(data: &[u8]) -> impl Iterator<Item = usize> + '_ {
    data.iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i)
}

/// A trail file in the data directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrailRef {
    /// The session id (the file's stem).
    pub id: String,
    /// The file.
    pub path: PathBuf,
}

impl TrailRef {
    /// The trail at `path`; its id is the file's stem.
    pub fn from_path(path: &Path) -> Self {
        let id = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Self {
            id,
            path: path.to_path_buf(),
        }
    }
}

/// The trails in `audit_dir`, newest first (session ids sort by start
/// time). A missing directory has none.
pub fn list_trails(audit_dir: &Path) -> std::io::Result<Vec<TrailRef>> {
    let entries = match std::fs::read_dir(audit_dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for entry in entries {
        let path = entry?.path();
        if path
            .extension()
            .is_some_and(|x| x == crate::dirs::TRAIL_EXTENSION)
        {
            out.push(TrailRef::from_path(&path));
        }
    }
    out.sort_by(|a, b| b.id.cmp(&a.id));
    Ok(out)
}

/// Why a `SESSION` argument does not name one trail.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// The data directory has no trails.
    #[error("no audit trails in {0}")]
    NoTrails(PathBuf),
    /// Nothing matches.
    #[error("no session {spec:?} in {dir} (airlock sessions lists them)")]
    NotFound {
        /// What was asked for.
        spec: String,
        /// Where we looked.
        dir: PathBuf,
    },
    /// More than one session id starts with it.
    #[error("{spec:?} matches {} sessions: {}", candidates.len(), candidates.join(", "))]
    Ambiguous {
        /// What was asked for.
        spec: String,
        /// The matching ids.
        candidates: Vec<String>,
    },
    /// The directory could not be listed.
    #[error("cannot list {dir}: {source}")]
    Io {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// The trail `spec` names: a path to a `.jsonl` file, a session id, or a
/// unique prefix of one, or a unique part of one. `None` is the newest trail.
pub fn resolve_trail(audit_dir: &Path, spec: Option<&str>) -> Result<TrailRef, ResolveError> {
    if let Some(s) = spec {
        let p = Path::new(s);
        let named_as_trail = s.contains('/') || crate::dirs::trail_id(s).is_some();
        if named_as_trail && p.is_file() {
            return Ok(TrailRef::from_path(p));
        }
    }
    let all = list_trails(audit_dir).map_err(|source| ResolveError::Io {
        dir: audit_dir.to_path_buf(),
        source,
    })?;
    let Some(spec) = spec else {
        return all
            .into_iter()
            .next()
            .ok_or_else(|| ResolveError::NoTrails(audit_dir.to_path_buf()));
    };
    let wanted = crate::dirs::trail_id(spec).unwrap_or(spec);
    if let Some(exact) = all.iter().find(|t| t.id == wanted) {
        return Ok(exact.clone());
    }
    // A unique prefix, else a unique part anywhere (`70c2`, the id's
    // distinctive suffix).
    let prefixed: Vec<TrailRef> = all
        .iter()
        .filter(|t| !wanted.is_empty() && t.id.starts_with(wanted))
        .cloned()
        .collect();
    let mut hits = if prefixed.is_empty() {
        all.into_iter()
            .filter(|t| !wanted.is_empty() && t.id.contains(wanted))
            .collect()
    } else {
        prefixed
    };
    match hits.len() {
        0 => Err(ResolveError::NotFound {
            spec: spec.to_string(),
            dir: audit_dir.to_path_buf(),
        }),
        1 => Ok(hits.remove(0)),
        _ => Err(ResolveError::Ambiguous {
            spec: spec.to_string(),
            candidates: hits.into_iter().map(|t| t.id).collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::AuditLog;

    #[test]
    fn partial_lines_wait_for_their_newline() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        std::fs::write(&p, "one\ntw").unwrap();
        let mut src = LineSource::new(&p);
        let mut got = Vec::new();
        src.read_new(|n, l| got.push((n, String::from_utf8_lossy(l).into_owned())))
            .unwrap();
        assert_eq!(got, vec![(1, "one".to_string())]);
        assert_eq!(src.torn_tail().unwrap().line, 2);
        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        std::io::Write::write_all(&mut f, b"o\nthree\n").unwrap();
        got.clear();
        src.read_new(|n, l| got.push((n, String::from_utf8_lossy(l).into_owned())))
            .unwrap();
        assert_eq!(got, vec![(2, "two".into()), (3, "three".into())]);
        assert!(src.torn_tail().is_none());
    }

    #[test]
    fn records_parse_and_unknown_types_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        let log = AuditLog::create(&p).unwrap();
        log.append(&AuditEvent::SessionEnd { reason: "x".into() })
            .unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let r = parse_record(1, text.trim_end().as_bytes()).unwrap();
        assert_eq!((r.seq, r.kind()), (0, "session_end"));
        let future =
            br#"{"v":2,"seq":4,"ts":"2030-01-01T00:00:00Z","type":"call_paused","call_id":7}"#;
        let r = parse_record(5, future).unwrap();
        assert_eq!(
            (r.kind(), r.call_id(), r.version),
            ("call_paused", Some(7), 2)
        );
        let e = parse_record(9, b"{\"seq\":").unwrap_err();
        assert_eq!(e.line, 9);
    }

    /// A newer airlock's `session_start` (a mode, a confirmer and a policy
    /// mode this one does not know) is still read as the session's start.
    #[test]
    fn a_newer_session_start_is_a_session_start() {
        let line = br#"{"v":1,"seq":0,"ts":"2030-01-01T00:00:00Z","type":"session_start","session":"s","workspace":"/w","version":"9.0.0","pid":3,"mode":"serve-unix","confirmer":"slack","config_digest":"d","config_files":[],"roots":["/w"],"excluded":[],"tools":["read_file"],"policy_mode":"lenient","rules":[]}"#;
        let r = parse_record(1, line).unwrap();
        let RecordBody::Event(AuditEvent::SessionStart {
            mode,
            confirmer,
            policy_mode,
            workspace,
            ..
        }) = &r.body
        else {
            panic!("not read as a session start: {:?}", r.body);
        };
        assert_eq!(
            (mode.describe(), confirmer.describe(), workspace.as_str()),
            ("unknown", "unknown", "/w")
        );
        assert_eq!(
            policy_mode.map(crate::call::PolicyMode::describe),
            Some("unknown")
        );
    }

    #[test]
    fn sessions_resolve_by_id_prefix_and_path() {
        let dir = tempfile::tempdir().unwrap();
        for id in [
            "20260101T000000.000Z-aaaa",
            "20260102T000000.000Z-bbbb",
            "20260102T000000.000Z-bbbc",
        ] {
            std::fs::write(dir.path().join(format!("{id}.jsonl")), "").unwrap();
        }
        std::fs::write(dir.path().join("notes.txt"), "").unwrap();
        let newest = resolve_trail(dir.path(), None).unwrap();
        assert_eq!(newest.id, "20260102T000000.000Z-bbbc");
        assert_eq!(
            resolve_trail(dir.path(), Some("20260101")).unwrap().id,
            "20260101T000000.000Z-aaaa"
        );
        assert!(matches!(
            resolve_trail(dir.path(), Some("20260102")),
            Err(ResolveError::Ambiguous { .. })
        ));
        assert_eq!(
            resolve_trail(dir.path(), Some("bbbc")).unwrap().id,
            "20260102T000000.000Z-bbbc",
            "a unique part of the id"
        );
        assert!(matches!(
            resolve_trail(dir.path(), Some("bbb")),
            Err(ResolveError::Ambiguous { .. })
        ));
        assert!(matches!(
            resolve_trail(dir.path(), Some("2027")),
            Err(ResolveError::NotFound { .. })
        ));
        let path = dir.path().join("20260101T000000.000Z-aaaa.jsonl");
        let by_path = resolve_trail(Path::new("/nonexistent"), path.to_str()).unwrap();
        assert_eq!(by_path.path, path);
        assert!(matches!(
            resolve_trail(&dir.path().join("none"), None),
            Err(ResolveError::NoTrails(_))
        ));
    }
}
