//! Verifying a trail: its sequence numbers and hash chain ([`verify_reader`]),
//! then how it ends and what its anchor says ([`verify_file`]).
//!
//! The chain alone shows that no line was edited, removed or moved *within*
//! the chain; it cannot show that lines were cut off the end, or that the
//! whole chain was recomputed after an edit (it has no key). The anchor, kept
//! outside the trail by the writer (see [`super::anchor`]), and
//! `session_end` do: a trail that no longer reaches its anchor, or ends
//! without `session_end` while no supervisor writes it, does not verify.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::anchor::{self, Head};
use super::writer::GENESIS;

/// The first problem found in a trail.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct VerifyError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// The result of verifying a trail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    /// Complete lines that verified, in order.
    pub verified: usize,
    /// The first line that did not verify, if any.
    pub error: Option<VerifyError>,
    /// The file ends in a partial line (a write torn by a crash).
    pub torn_tail: bool,
    /// The hash of the last line that verified ([`GENESIS`] for none): the
    /// trail's head, which a reader may keep elsewhere to check it later.
    pub head: String,
    /// How the trail ends.
    pub end: TrailEnd,
    /// What its anchor says.
    pub anchor: AnchorCheck,
}

/// How a trail ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrailEnd {
    /// Not looked at ([`verify_reader`] checks the chain alone).
    NotChecked,
    /// The session ended: a `session_end` record on this line.
    Ended {
        /// Its 1-based line.
        line: usize,
    },
    /// No `session_end` yet, and its supervisor is still writing the trail.
    Running,
    /// No `session_end`, and no supervisor writes the trail any more: the
    /// supervisor was killed or crashed, or the end of the trail was cut off.
    Unfinished,
}

/// What a trail's anchor says about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnchorCheck {
    /// Not looked at ([`verify_reader`]).
    NotChecked,
    /// No anchor, and the trail does not claim one: an older airlock's.
    NotKept,
    /// The anchored record is in the trail, with the anchored hash.
    Matches {
        /// Records the anchor counts.
        records: u64,
    },
    /// The trail claims an anchor (on its first line) that is not there.
    Missing {
        /// Where it should be.
        path: PathBuf,
    },
    /// The anchor cannot be read, or is not an anchor.
    Unreadable {
        /// The anchor.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// Fewer records verify than the anchor counts: cut short (or cut and
    /// the chain recomputed).
    Short {
        /// The anchor.
        path: PathBuf,
        /// Records the anchor counts.
        anchored: u64,
    },
    /// The anchored record has another hash: the trail was rewritten up to
    /// it with a recomputed chain.
    Differs {
        /// The anchor.
        path: PathBuf,
        /// Records the anchor counts (the record is on this line).
        anchored: u64,
    },
    /// A `session_end` after the last anchored record (the writer anchors
    /// every `session_end`): the end of the trail was rewritten.
    EndAfter {
        /// The anchor.
        path: PathBuf,
        /// Records the anchor counts.
        anchored: u64,
        /// The `session_end`'s line.
        line: usize,
    },
}

impl AnchorCheck {
    /// True unless the anchor shows a problem.
    pub fn is_ok(&self) -> bool {
        matches!(
            self,
            Self::NotChecked | Self::NotKept | Self::Matches { .. }
        )
    }
}

impl VerifyReport {
    /// True when every line verified, nothing is torn, the trail reaches
    /// its anchor and it ended (or is still being written).
    pub fn is_ok(&self) -> bool {
        self.error.is_none()
            && !self.torn_tail
            && self.end != TrailEnd::Unfinished
            && self.anchor.is_ok()
    }
}

const SUFFIX_LEN: usize = ",\"hash\":\"".len() + 64 + "\"}".len();

/// How often a check of a trail still being written is repeated when its
/// anchor was read while the writer rewrote it.
const ATTEMPTS: usize = 3;

/// Verify the trail at `path`: the chain ([`verify_reader`]), then its end
/// (`session_end`, or a supervisor still writing it) and its anchor.
pub fn verify_file(path: &Path) -> std::io::Result<VerifyReport> {
    let anchor_path = crate::dirs::anchor_path(path);
    let mut attempt = 1;
    loop {
        // In this order: a writer seen gone writes nothing more, and the
        // anchor, read before the trail, never counts more than it holds.
        let writing = anchor::held(&anchor_path);
        let anchor = anchor::read(&anchor_path);
        let want = anchor
            .as_ref()
            .ok()
            .and_then(|a| a.as_ref().map(|h| h.records));
        let f = std::fs::File::open(path)?;
        let walk = walk(std::io::BufReader::new(f), want)?;
        let report = judge(walk, writing, anchor, anchor_path.clone());
        if report.anchor.is_ok() || report.end != TrailEnd::Running || attempt == ATTEMPTS {
            return Ok(report);
        }
        attempt += 1;
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Verify the chain of a trail read from `r` (sequence numbers and hashes;
/// not its end or anchor). Stops at the first bad line.
pub fn verify_reader<R: BufRead>(r: R) -> std::io::Result<VerifyReport> {
    Ok(walk(r, None)?.report)
}

/// What one pass over a trail found.
struct Walk {
    /// The chain's verdict (end and anchor not checked).
    report: VerifyReport,
    /// The hash of the record the anchor names, when it verified.
    anchored_hash: Option<String>,
    /// The first line says the trail has an anchor.
    claims_anchor: bool,
    /// The `session_start` pid.
    pid: Option<u32>,
    /// The last `session_end`: its line and sequence number.
    last_end: Option<(usize, u64)>,
}

/// Check the chain of `r`, noting what [`judge`] needs; `want`: the
/// records the anchor counts.
fn walk<R: BufRead>(mut r: R, want: Option<u64>) -> std::io::Result<Walk> {
    let mut w = Walk {
        report: VerifyReport {
            verified: 0,
            error: None,
            torn_tail: false,
            head: GENESIS.to_string(),
            end: TrailEnd::NotChecked,
            anchor: AnchorCheck::NotChecked,
        },
        anchored_hash: None,
        claims_anchor: false,
        pid: None,
        last_end: None,
    };
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = r.read_until(b'\n', &mut buf)?;
        if n == 0 {
            return Ok(w);
        }
        let line_no = w.report.verified + 1;
        if buf.last() != Some(&b'\n') {
            w.report.error = Some(VerifyError {
                line: line_no,
                message: format!(
                    "torn last line ({n} bytes without a newline): the writer was interrupted"
                ),
            });
            w.report.torn_tail = true;
            return Ok(w);
        }
        buf.pop();
        let seq = w.report.verified as u64;
        match check_line(&buf, seq, &w.report.head) {
            Ok((hash, v)) => {
                if seq == 0 {
                    w.claims_anchor = v.get("anchored") == Some(&serde_json::Value::Bool(true));
                }
                match v.get("type").and_then(serde_json::Value::as_str) {
                    Some("session_start") => {
                        w.pid = v
                            .get("pid")
                            .and_then(serde_json::Value::as_u64)
                            .and_then(|p| u32::try_from(p).ok());
                    }
                    Some("session_end") => w.last_end = Some((line_no, seq)),
                    _ => {}
                }
                if want == Some(seq + 1) {
                    w.anchored_hash = Some(hash.clone());
                }
                w.report.head = hash;
                w.report.verified += 1;
            }
            Err(message) => {
                w.report.error = Some(VerifyError {
                    line: line_no,
                    message,
                });
                return Ok(w);
            }
        }
    }
}

/// The report for `w`, given whether a writer holds the anchor and what the
/// anchor (at `path`) says.
fn judge(
    w: Walk,
    writing: Option<bool>,
    anchor: Result<Option<Head>, String>,
    path: PathBuf,
) -> VerifyReport {
    let mut report = w.report;
    report.end = match w.last_end {
        Some((line, _)) => TrailEnd::Ended { line },
        // Without an anchor lock (an older trail, or no `flock` here): the
        // supervisor's pid.
        None if writing.unwrap_or_else(|| w.pid.is_some_and(anchor::pid_alive)) => {
            TrailEnd::Running
        }
        None => TrailEnd::Unfinished,
    };
    report.anchor = match anchor {
        Err(message) => AnchorCheck::Unreadable { path, message },
        Ok(None) if w.claims_anchor => AnchorCheck::Missing { path },
        Ok(None) => AnchorCheck::NotKept,
        Ok(Some(head)) if head.records == 0 => AnchorCheck::Matches { records: 0 },
        Ok(Some(head)) if (report.verified as u64) < head.records => AnchorCheck::Short {
            path,
            anchored: head.records,
        },
        Ok(Some(head)) if w.anchored_hash.as_deref() != Some(head.hash.as_str()) => {
            AnchorCheck::Differs {
                path,
                anchored: head.records,
            }
        }
        Ok(Some(head)) => match w.last_end {
            Some((line, seq)) if seq >= head.records => AnchorCheck::EndAfter {
                path,
                anchored: head.records,
                line,
            },
            _ => AnchorCheck::Matches {
                records: head.records,
            },
        },
    };
    report
}

/// Check one line (without its newline) as record `want_seq` after
/// `want_prev`; returns its hash and the record.
fn check_line(
    line: &[u8],
    want_seq: u64,
    want_prev: &str,
) -> Result<(String, serde_json::Value), String> {
    if line.len() < SUFFIX_LEN + 2 || !line.ends_with(b"\"}") {
        return Err("not an audit record (no hash at the end)".into());
    }
    let split = line.len() - SUFFIX_LEN;
    let (body, suffix) = line.split_at(split);
    if !suffix.starts_with(b",\"hash\":\"") {
        return Err("not an audit record (no hash at the end)".into());
    }
    let stored =
        std::str::from_utf8(&suffix[9..9 + 64]).map_err(|_| "hash is not hex".to_string())?;
    let mut hashed = body.to_vec();
    hashed.push(b'}');
    let actual = hex::encode(Sha256::digest(&hashed));
    if actual != stored {
        return Err("hash mismatch: the line was edited".into());
    }
    let v: serde_json::Value =
        serde_json::from_slice(&hashed).map_err(|e| format!("not valid JSON: {e}"))?;
    let seq = v
        .get("seq")
        .and_then(serde_json::Value::as_u64)
        .ok_or("no seq")?;
    if seq != want_seq {
        return Err(format!(
            "sequence number {seq} where {want_seq} was expected: a line was deleted, inserted or moved"
        ));
    }
    let prev = v.get("prev").and_then(|s| s.as_str()).ok_or("no prev")?;
    if prev != want_prev {
        return Err("prev does not match the previous line's hash: the chain is broken".into());
    }
    check_end(&v, seq, prev)?;
    Ok((actual, v))
}

/// A `session_end`'s own count and head (older trails have neither) must
/// be its place in the chain.
fn check_end(v: &serde_json::Value, seq: u64, prev: &str) -> Result<(), String> {
    if v.get("type").and_then(serde_json::Value::as_str) != Some("session_end") {
        return Ok(());
    }
    if let Some(records) = v.get("records")
        && records.as_u64() != Some(seq + 1)
    {
        return Err(format!(
            "session_end counts {records} records where the trail has {}: records were removed or inserted",
            seq + 1
        ));
    }
    if let Some(head) = v.get("head")
        && head.as_str() != Some(prev)
    {
        return Err(
            "session_end's head is not the previous line's hash: the chain was rewritten".into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::{AuditEvent, AuditLog};

    fn trail(n: usize) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let log = AuditLog::create(&path).unwrap();
        for i in 0..n {
            log.append(&AuditEvent::SessionEnd {
                reason: format!("r{i}"),
            })
            .unwrap();
        }
        (dir, path)
    }

    fn lines(p: &Path) -> Vec<String> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .map(String::from)
            .collect()
    }

    fn write(p: &Path, ls: &[String]) {
        let text: String = ls.iter().flat_map(|l| [l.as_str(), "\n"]).collect();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn intact_trail_verifies() {
        let (_d, p) = trail(5);
        let r = verify_file(&p).unwrap();
        assert!(r.is_ok(), "{r:?}");
        assert_eq!(r.verified, 5);
    }

    #[test]
    fn edited_line_is_found() {
        let (_d, p) = trail(5);
        let mut ls = lines(&p);
        ls[2] = ls[2].replace("r2", "r9");
        write(&p, &ls);
        let r = verify_file(&p).unwrap();
        assert_eq!(r.error.unwrap().line, 3);
        assert_eq!(r.verified, 2);
    }

    #[test]
    fn deleted_and_swapped_lines_are_found() {
        let (_d, p) = trail(5);
        let mut ls = lines(&p);
        ls.remove(1);
        write(&p, &ls);
        assert_eq!(verify_file(&p).unwrap().error.unwrap().line, 2);

        let (_d2, p2) = trail(5);
        let mut ls = lines(&p2);
        ls.swap(3, 4);
        write(&p2, &ls);
        assert_eq!(verify_file(&p2).unwrap().error.unwrap().line, 4);
    }

    #[test]
    fn torn_tail_is_reported() {
        let (_d, p) = trail(3);
        let mut text = std::fs::read_to_string(&p).unwrap();
        text.push_str("{\"v\":1,\"seq\":3,\"ts");
        std::fs::write(&p, text).unwrap();
        let r = verify_file(&p).unwrap();
        assert!(r.torn_tail);
        assert_eq!(r.verified, 3);
        assert_eq!(r.error.unwrap().line, 4);
    }

    #[test]
    fn truncated_file_with_recomputed_hash_still_breaks_chain() {
        // Forging a line requires recomputing its hash, but then the next
        // line's prev no longer matches.
        let (_d, p) = trail(4);
        let mut ls = lines(&p);
        let body = &ls[1][..ls[1].len() - SUFFIX_LEN];
        let forged_body = format!("{}}}", body.replace("r1", "rX"));
        let h = hex::encode(Sha256::digest(forged_body.as_bytes()));
        ls[1] = format!(
            "{},\"hash\":\"{h}\"}}",
            &forged_body[..forged_body.len() - 1]
        );
        write(&p, &ls);
        let r = verify_file(&p).unwrap();
        assert_eq!(
            r.error.unwrap().line,
            3,
            "the forged line verifies alone, the next does not"
        );
    }
}
