//! Computing what a write would change: the unified diff and `+a −b`.

use std::time::{Duration, Instant};

use similar::{Algorithm, ChangeTag, TextDiff};

use crate::call::{Proposal, WriteAction};

/// Bytes scanned for NUL when deciding whether content is binary.
const SNIFF: usize = 8192;

/// Longest a diff may take before it falls back to a coarser one.
const DIFF_DEADLINE: Duration = Duration::from_millis(500);

/// True for content that is not text: a NUL byte near the start, or not
/// valid UTF-8.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(SNIFF)].contains(&0) || std::str::from_utf8(bytes).is_err()
}

/// The proposal for changing `old` (None: the file does not exist) into
/// `new`.
pub fn propose(shown: &str, action: WriteAction, old: Option<&[u8]>, new: &[u8]) -> Proposal {
    let old_bytes = old.map_or(0, |o| o.len() as u64);
    let new_bytes = new.len() as u64;
    let binary = old.is_some_and(is_binary) || is_binary(new);
    if binary {
        return Proposal {
            path: shown.into(),
            action,
            diff: None,
            added: 0,
            removed: 0,
            binary,
            old_bytes,
            new_bytes,
        };
    }
    let old_text = old
        .map(|o| std::str::from_utf8(o).unwrap_or_default())
        .unwrap_or_default();
    let new_text = std::str::from_utf8(new).unwrap_or_default();
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .deadline(Instant::now() + DIFF_DEADLINE)
        .diff_lines(old_text, new_text);
    let (mut added, mut removed) = (0, 0);
    for op in diff.ops() {
        for change in diff.iter_changes(op) {
            match change.tag() {
                ChangeTag::Insert => added += 1,
                ChangeTag::Delete => removed += 1,
                ChangeTag::Equal => {}
            }
        }
    }
    let from = if old.is_some() {
        format!("a/{shown}")
    } else {
        "/dev/null".to_string()
    };
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(&from, &format!("b/{shown}"))
        .to_string();
    Proposal {
        path: shown.into(),
        action,
        diff: Some(text),
        added,
        removed,
        binary,
        old_bytes,
        new_bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_headers() {
        let p = propose(
            "src/a.rs",
            WriteAction::Edit,
            Some(b"a\nb\nc\n"),
            b"a\nB\nc\nd\n",
        );
        assert_eq!((p.added, p.removed), (2, 1));
        let d = p.diff.unwrap();
        assert!(
            d.starts_with("--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,3 +1,4 @@"),
            "{d}"
        );
        assert!(d.contains("-b\n+B\n"), "{d}");
        assert_eq!(p.old_bytes, 6);
    }

    #[test]
    fn new_file_diff_is_from_dev_null() {
        let p = propose("n.txt", WriteAction::Create, None, b"x\ny\n");
        assert_eq!((p.added, p.removed), (2, 0));
        assert!(p.diff.unwrap().starts_with("--- /dev/null\n+++ b/n.txt"));
    }

    #[test]
    fn binary_has_no_diff() {
        let p = propose(
            "img.png",
            WriteAction::Overwrite,
            Some(b"\x89PNG\0\0"),
            b"text",
        );
        assert!(p.binary);
        assert!(p.diff.is_none());
        assert_eq!(p.summary(), "binary, 6 → 4 bytes");
        assert!(propose("x", WriteAction::Create, None, &[0xff, 0xfe, 0x41]).binary);
    }
}
