//! What an update writes, computed the way Codex computes it
//! (`compute_replacements` and `seek_sequence` in `codex-rs/apply-patch`):
//!
//! * the file is split at `\n`, without the empty piece after a final
//!   newline;
//! * each chunk's `@@` line is looked for from where the previous chunk
//!   ended, and its old lines after that, exactly, then ignoring trailing
//!   whitespace, then surrounding whitespace, then with typographic
//!   punctuation read as ASCII; an end-of-file chunk is only tried at the
//!   very end; old lines ending in an empty line are tried again without it;
//! * a chunk without old lines (a pure insertion) goes to the end of the
//!   file, before a last empty line, whatever its `@@` line says;
//! * every replacement is found in the original lines, then all are applied,
//!   and the result ends with a newline.
//!
//! Codex's releases write some files differently: older ones join the lines
//! with `\n` (dropping a blank last line, keeping the `\r` of CRLF lines
//! and writing new lines without it), newer ones keep each line's own
//! ending. Airlock computes both and, when they differ, or when the file
//! has CRLF lines or two replacements overlap, says it cannot be sure
//! ([`PatchError::Uncertain`]) instead of showing a guess.

use super::{Chunk, PatchError};

/// One replacement: where in the original lines, how many lines, and the
/// lines that take their place.
type Replacement = (usize, usize, Vec<String>);

/// `content` with `chunks` applied, as Codex writes it.
pub fn apply(path: &str, content: &str, chunks: &[Chunk]) -> Result<String, PatchError> {
    let uncertain = |reason: &str| PatchError::Uncertain {
        path: path.to_string(),
        reason: reason.to_string(),
    };
    if content.contains("\r\n") {
        return Err(uncertain(
            "the file has CRLF line endings, which Codex's releases write back differently",
        ));
    }
    let lines = split(content);
    let replacements = replacements(path, &lines, chunks)?;
    if overlap(&replacements) {
        return Err(uncertain("two of the patch's changes overlap"));
    }
    let joined = joined(lines.clone(), &replacements);
    let kept = line_by_line(&lines, &replacements);
    if joined != kept {
        return Err(uncertain(
            "the result ends with a blank line, which Codex's releases write differently",
        ));
    }
    Ok(kept)
}

/// The file's lines, without the empty piece after a final newline.
fn split(content: &str) -> Vec<String> {
    let mut lines: Vec<String> = content.split('\n').map(str::to_string).collect();
    if lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

/// Every chunk's replacement in the original lines, in file order.
fn replacements(
    path: &str,
    lines: &[String],
    chunks: &[Chunk],
) -> Result<Vec<Replacement>, PatchError> {
    let fail = |message: String| PatchError::DoesNotApply {
        path: path.to_string(),
        message,
    };
    let mut out: Vec<Replacement> = Vec::new();
    let mut at = 0;
    for chunk in chunks {
        if let Some(anchor) = &chunk.anchor {
            let found = seek(lines, std::slice::from_ref(anchor), at, false)
                .ok_or_else(|| fail(format!("context line {anchor:?} not found")))?;
            at = found + 1;
        }
        if chunk.old.is_empty() {
            // A pure insertion: at the end, before a last empty line. Codex
            // does not move on from here.
            let end = if lines.last().is_some_and(String::is_empty) {
                lines.len() - 1
            } else {
                lines.len()
            };
            out.push((end, 0, chunk.new.clone()));
            continue;
        }
        let mut old: &[String] = &chunk.old;
        let mut new: &[String] = &chunk.new;
        let mut found = seek(lines, old, at, chunk.at_eof);
        if found.is_none() && old.last().is_some_and(String::is_empty) {
            // The empty last line stands for the file's final newline.
            old = &old[..old.len() - 1];
            if new.last().is_some_and(String::is_empty) {
                new = &new[..new.len() - 1];
            }
            found = seek(lines, old, at, chunk.at_eof);
        }
        let start = found.ok_or_else(|| {
            fail(format!(
                "expected lines not found: {:?}",
                crate::audit::excerpt(&chunk.old.join("\n"), 200)
            ))
        })?;
        out.push((start, old.len(), new.to_vec()));
        at = start + old.len();
    }
    // Stable: insertions at one place keep the patch's order.
    out.sort_by_key(|r| r.0);
    Ok(out)
}

/// Two replacements (in file order) cover a common line, or one starts
/// inside another: Codex's releases apply that differently.
fn overlap(replacements: &[Replacement]) -> bool {
    replacements
        .windows(2)
        .any(|w| w[1].0 < w[0].0 + w[0].1 || (w[1].0 == w[0].0 && w[0].1 > 0))
}

/// The result as older Codex releases build it: replacements from the last
/// to the first, the lines joined with `\n`, a final newline added unless
/// the last line is empty.
fn joined(mut lines: Vec<String>, replacements: &[Replacement]) -> String {
    for (start, len, new) in replacements.iter().rev() {
        let end = (start + len).min(lines.len());
        let start = (*start).min(end);
        lines.splice(start..end, new.iter().cloned());
    }
    if !lines.last().is_some_and(String::is_empty) {
        lines.push(String::new());
    }
    lines.join("\n")
}

/// The result as newer Codex releases build it: every line, kept or new,
/// ends with a newline.
fn line_by_line(lines: &[String], replacements: &[Replacement]) -> String {
    let mut out = String::new();
    let mut next = 0;
    for (start, len, new) in replacements {
        for line in lines[next..*start].iter().chain(new) {
            out.push_str(line);
            out.push('\n');
        }
        next = start + len;
    }
    for line in &lines[next..] {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Where `pattern` starts in `lines`, at or after `from` (for an
/// end-of-file chunk: only at the very end), trying Codex's four passes in
/// order. An empty pattern is found at `from`.
fn seek(lines: &[String], pattern: &[String], from: usize, eof: bool) -> Option<usize> {
    if pattern.is_empty() {
        return Some(from);
    }
    let last = lines.len().checked_sub(pattern.len())?;
    let first = if eof { last } else { from };
    let passes: [fn(&str, &str) -> bool; 4] = [
        |a, b| a == b,
        |a, b| a.trim_end() == b.trim_end(),
        |a, b| a.trim() == b.trim(),
        |a, b| normalised(a) == normalised(b),
    ];
    passes.iter().find_map(|same| {
        (first..=last).find(|&i| {
            lines[i..i + pattern.len()]
                .iter()
                .zip(pattern)
                .all(|(a, b)| same(a, b))
        })
    })
}

/// `s` trimmed, with typographic dashes, quotes and spaces read as their
/// ASCII counterparts (Codex's last, most lenient pass).
fn normalised(s: &str) -> String {
    s.trim()
        .chars()
        .map(|c| match c {
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '\u{2018}'..='\u{201B}' => '\'',
            '\u{201C}'..='\u{201F}' => '"',
            '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
            other => other,
        })
        .collect()
}
