//! A unified diff read into numbered lines for the diff view.

/// What a diff line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffKind {
    /// `--- a/…`, `+++ b/…`.
    Header,
    /// `@@ -a,b +c,d @@`.
    Hunk,
    /// Unchanged.
    Context,
    /// Added.
    Added,
    /// Removed.
    Removed,
    /// `\ No newline at end of file` and the like.
    Note,
}

/// One line of a diff, with its line numbers in the old and new file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    /// What it is.
    pub kind: DiffKind,
    /// Line number in the old file.
    pub old: Option<usize>,
    /// Line number in the new file.
    pub new: Option<usize>,
    /// The text, without the leading marker.
    pub text: String,
}

/// Read a unified diff.
pub fn parse(diff: &str) -> Vec<DiffLine> {
    let (mut old, mut new) = (0usize, 0usize);
    let mut out = Vec::new();
    for line in diff.lines() {
        let mut l = DiffLine {
            kind: DiffKind::Context,
            old: None,
            new: None,
            text: String::new(),
        };
        if line.starts_with("--- ") || line.starts_with("+++ ") {
            l.kind = DiffKind::Header;
            l.text = line.to_string();
        } else if line.starts_with("@@") {
            l.kind = DiffKind::Hunk;
            l.text = line.to_string();
            if let Some((o, n)) = hunk_starts(line) {
                (old, new) = (o, n);
            }
        } else if let Some(t) = line.strip_prefix('+') {
            l.kind = DiffKind::Added;
            l.new = Some(new);
            new += 1;
            l.text = t.to_string();
        } else if let Some(t) = line.strip_prefix('-') {
            l.kind = DiffKind::Removed;
            l.old = Some(old);
            old += 1;
            l.text = t.to_string();
        } else if line.starts_with('\\') {
            l.kind = DiffKind::Note;
            l.text = line.to_string();
        } else {
            l.old = Some(old);
            l.new = Some(new);
            old += 1;
            new += 1;
            l.text = line.strip_prefix(' ').unwrap_or(line).to_string();
        }
        out.push(l);
    }
    out
}

/// `@@ -12,3 +12,4 @@` → (12, 12).
fn hunk_starts(line: &str) -> Option<(usize, usize)> {
    let mut parts = line.split_whitespace().skip(1);
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    let start = |p: &str| p.split(',').next()?.parse::<usize>().ok();
    Some((start(old)?, start(new)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_follow_the_hunks() {
        let d = "--- a/x\n+++ b/x\n@@ -3,3 +3,4 @@\n one\n-two\n+TWO\n+2b\n three\n\\ No newline at end of file\n";
        let lines = parse(d);
        let nums: Vec<(DiffKind, Option<usize>, Option<usize>, &str)> = lines
            .iter()
            .map(|l| (l.kind, l.old, l.new, l.text.as_str()))
            .collect();
        assert_eq!(nums[2].0, DiffKind::Hunk);
        assert_eq!(nums[3], (DiffKind::Context, Some(3), Some(3), "one"));
        assert_eq!(nums[4], (DiffKind::Removed, Some(4), None, "two"));
        assert_eq!(nums[5], (DiffKind::Added, None, Some(4), "TWO"));
        assert_eq!(nums[6], (DiffKind::Added, None, Some(5), "2b"));
        assert_eq!(nums[7], (DiffKind::Context, Some(5), Some(6), "three"));
        assert_eq!(nums[8].0, DiffKind::Note);
    }
}
