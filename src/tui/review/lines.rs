//! A trail's lines held in memory: split once, parsed into the timeline
//! once, and described for the audit pane only when in view.

use chrono::FixedOffset;

use crate::audit::{LineProblem, Timeline};
use crate::tui::records::{self, AuditLine};

/// Where each line starts in `text` (a last line without its newline
/// included).
pub(super) fn line_starts(text: &[u8]) -> Vec<usize> {
    let mut starts = Vec::with_capacity(text.len() / 256 + 1);
    let mut at = 0;
    while at < text.len() {
        starts.push(at);
        at = match text[at..].iter().position(|&b| b == b'\n') {
            Some(nl) => at + nl + 1,
            None => text.len(),
        };
    }
    starts
}

/// The timeline of the complete lines; a last line without its newline is
/// its torn tail, as [`Timeline::load`] reads a file.
pub(super) fn timeline(text: &[u8], starts: &[usize]) -> Timeline {
    let mut t = Timeline::default();
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        match text[start..end].strip_suffix(b"\n") {
            Some(line) => {
                t.push_line(i + 1, line);
            }
            None => t.torn_tail = Some(LineProblem::torn(i + 1, end - start)),
        }
    }
    t
}

/// The trail's text and where its lines start.
pub struct TrailLines {
    text: Vec<u8>,
    starts: Vec<usize>,
}

impl std::fmt::Debug for TrailLines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrailLines")
            .field("bytes", &self.text.len())
            .field("lines", &self.starts.len())
            .finish()
    }
}

impl TrailLines {
    pub(super) fn new(text: Vec<u8>, starts: Vec<usize>) -> Self {
        Self { text, starts }
    }

    /// Lines in the trail (a torn last line counts).
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// True for an empty file.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Line `i` (0-based), without its newline.
    pub fn line(&self, i: usize) -> Option<&[u8]> {
        let start = *self.starts.get(i)?;
        let end = self.starts.get(i + 1).copied().unwrap_or(self.text.len());
        let line = &self.text[start..end];
        Some(line.strip_suffix(b"\n").unwrap_or(line))
    }

    /// Line `i` for the audit pane, times at `tz`.
    pub fn describe(&self, i: usize, tz: FixedOffset) -> Option<AuditLine> {
        Some(records::describe_line(i + 1, self.line(i)?, tz))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_with_a_torn_tail() {
        let text = b"one\n\ntwo\nthr".to_vec();
        let starts = line_starts(&text);
        assert_eq!(starts, [0, 4, 5, 9]);
        let t = timeline(&text, &starts);
        assert_eq!(t.torn_tail.as_ref().map(|p| p.line), Some(4));
        assert_eq!(t.problems.len(), 2, "one and two are not records");
        let l = TrailLines::new(text, starts);
        assert_eq!(l.len(), 4);
        assert_eq!(l.line(0), Some(&b"one"[..]));
        assert_eq!(l.line(1), Some(&b""[..]));
        assert_eq!(l.line(3), Some(&b"thr"[..]));
        assert_eq!(l.line(4), None);
        assert!(line_starts(b"").is_empty());
    }
}
