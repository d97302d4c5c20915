//! Verifying a trail's sequence numbers and hash chain.

use std::io::BufRead;
use std::path::Path;

use sha2::{Digest, Sha256};

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
}

impl VerifyReport {
    /// True when every line verified and nothing is torn.
    pub fn is_ok(&self) -> bool {
        self.error.is_none() && !self.torn_tail
    }
}

const SUFFIX_LEN: usize = ",\"hash\":\"".len() + 64 + "\"}".len();

/// Verify the trail at `path`.
pub fn verify_file(path: &Path) -> std::io::Result<VerifyReport> {
    let f = std::fs::File::open(path)?;
    verify_reader(std::io::BufReader::new(f))
}

/// Verify a trail read from `r`. Stops at the first bad line.
pub fn verify_reader<R: BufRead>(mut r: R) -> std::io::Result<VerifyReport> {
    let mut prev = GENESIS.to_string();
    let mut verified = 0usize;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = r.read_until(b'\n', &mut buf)?;
        if n == 0 {
            return Ok(VerifyReport {
                verified,
                error: None,
                torn_tail: false,
            });
        }
        let line_no = verified + 1;
        if buf.last() != Some(&b'\n') {
            let error = VerifyError {
                line: line_no,
                message: format!(
                    "torn last line ({n} bytes without a newline): the writer was interrupted"
                ),
            };
            return Ok(VerifyReport {
                verified,
                error: Some(error),
                torn_tail: true,
            });
        }
        buf.pop();
        match check_line(&buf, verified as u64, &prev) {
            Ok(hash) => {
                prev = hash;
                verified += 1;
            }
            Err(message) => {
                let error = VerifyError {
                    line: line_no,
                    message,
                };
                return Ok(VerifyReport {
                    verified,
                    error: Some(error),
                    torn_tail: false,
                });
            }
        }
    }
}

/// Check one line (without its newline); returns its hash.
fn check_line(line: &[u8], want_seq: u64, want_prev: &str) -> Result<String, String> {
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
    Ok(actual)
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
