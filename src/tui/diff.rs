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

/// Read a unified diff. `--- `/`+++ ` lines are file headers only before
/// the first hunk, or once a hunk has all the lines its `@@` counts (the
/// next file's headers); inside a hunk `+++ b/x` is an added line `++ b/x`
/// and `--- x` a removed `-- x`. Lines are split at `\n` only, so a
/// carriage return stays in the text (and is shown as `\r`).
pub fn parse(diff: &str) -> Vec<DiffLine> {
    let (mut old, mut new) = (0usize, 0usize);
    // What the current hunk still holds (old side, new side); `None`
    // before the first hunk. Counts that cannot be read never run out.
    let mut left: Option<(usize, usize)> = None;
    let mut pieces: Vec<&str> = diff.split('\n').collect();
    if pieces.last() == Some(&"") {
        pieces.pop();
    }
    let mut out = Vec::with_capacity(pieces.len());
    for line in pieces {
        let mut l = DiffLine {
            kind: DiffKind::Context,
            old: None,
            new: None,
            text: String::new(),
        };
        let between_files = left.is_none_or(|(o, n)| o == 0 && n == 0);
        if between_files && (line.starts_with("--- ") || line.starts_with("+++ ")) {
            l.kind = DiffKind::Header;
            l.text = line.to_string();
        } else if line.starts_with("@@") {
            l.kind = DiffKind::Hunk;
            l.text = line.to_string();
            let counts = hunk_counts(line);
            if let Some((o, n)) = hunk_starts(line) {
                (old, new) = (o, n);
            }
            left = Some(counts.unwrap_or((usize::MAX, usize::MAX)));
        } else if let Some(t) = line.strip_prefix('+') {
            l.kind = DiffKind::Added;
            l.new = Some(new);
            new += 1;
            l.text = t.to_string();
            take(&mut left, 0, 1);
        } else if let Some(t) = line.strip_prefix('-') {
            l.kind = DiffKind::Removed;
            l.old = Some(old);
            old += 1;
            l.text = t.to_string();
            take(&mut left, 1, 0);
        } else if line.starts_with('\\') {
            l.kind = DiffKind::Note;
            l.text = line.to_string();
        } else {
            l.old = Some(old);
            l.new = Some(new);
            old += 1;
            new += 1;
            l.text = line.strip_prefix(' ').unwrap_or(line).to_string();
            take(&mut left, 1, 1);
        }
        out.push(l);
    }
    out
}

/// One line of the hunk read: `o` old and `n` new lines fewer left.
fn take(left: &mut Option<(usize, usize)>, o: usize, n: usize) {
    if let Some((lo, ln)) = left {
        *lo = lo.saturating_sub(o);
        *ln = ln.saturating_sub(n);
    }
}

/// `@@ -12,3 +12,4 @@` → (3, 4) lines; a missing count is 1.
fn hunk_counts(line: &str) -> Option<(usize, usize)> {
    let mut parts = line.split_whitespace().skip(1);
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    let count = |p: &str| match p.split_once(',') {
        Some((_, c)) => c.parse::<usize>().ok(),
        None => Some(1),
    };
    Some((count(old)?, count(new)?))
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

    #[test]
    fn header_lookalikes_inside_a_hunk_are_changes() {
        let d =
            "--- a/setup.sh\n+++ b/setup.sh\n@@ -1,2 +1,2 @@\n keep\n--- comment\n+++ b/setup.sh\n";
        let lines = parse(d);
        let got: Vec<(DiffKind, Option<usize>, Option<usize>, &str)> = lines
            .iter()
            .map(|l| (l.kind, l.old, l.new, l.text.as_str()))
            .collect();
        assert_eq!(got[0].0, DiffKind::Header);
        assert_eq!(got[1].0, DiffKind::Header);
        assert_eq!(got[4], (DiffKind::Removed, Some(2), None, "-- comment"));
        assert_eq!(got[5], (DiffKind::Added, None, Some(2), "++ b/setup.sh"));
        // A second file's headers, once the hunk has all its lines.
        let two = format!("{d}--- a/b\n+++ b/b\n@@ -1 +1 @@\n-x\n+y\n");
        let kinds: Vec<DiffKind> = parse(&two).iter().map(|l| l.kind).collect();
        assert_eq!(
            &kinds[6..9],
            [DiffKind::Header, DiffKind::Header, DiffKind::Hunk]
        );
        // The control: read as headers first (the old order), the same
        // lines lose their marker and their number.
        let old_order = |l: &str| l.starts_with("--- ") || l.starts_with("+++ ");
        assert!(old_order("--- comment") && old_order("+++ b/setup.sh"));
    }

    #[test]
    fn a_carriage_return_stays_in_the_line() {
        let lines = parse("@@ -1 +1 @@\r\n-a\r\n+a\n");
        assert_eq!(lines[1].text, "a\r");
        assert_eq!(lines[2].text, "a");
        let (spans, flags) =
            crate::tui::reveal::line(&lines[1].text, ratatui::style::Style::default());
        assert_eq!(flags.control, 1);
        assert!(spans.iter().any(|s| s.content == "\\r"));
        // The control: `str::lines` drops it, and the CRLF line reads clean.
        assert_eq!("-a\r\n".lines().next(), Some("-a"));
    }
}
