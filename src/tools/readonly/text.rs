//! Shared helpers for the read-only tools: the opened file a call reads,
//! bounded reads, binary detection, lossy text and output buffers sized to
//! the call's limits.

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::call::Subject;
use crate::scope::Scope;
use crate::tools::{OutputBuf, RunContext, ToolError, ToolOutput};

/// How much of a file's start is checked for a NUL byte.
pub(crate) const BINARY_SNIFF: usize = 8 * 1024;

/// Bytes kept free in the output for the closing notes.
const NOTE_ROOM: usize = 512;

/// A regular file opened and checked by the scope when the call was
/// prepared; the call reads exactly this object.
pub(crate) struct Opened {
    /// The path as the agent gave it (control characters escaped).
    pub shown: String,
    /// Its canonical path.
    pub real: PathBuf,
    /// The open file.
    pub file: File,
    /// `fstat` at open time.
    pub meta: Metadata,
}

impl Opened {
    /// Resolve, check and open `path` (refuses directories, FIFOs, devices,
    /// sockets, excluded and out-of-scope paths).
    pub fn open(scope: &Scope, path: &str) -> Result<Self, ToolError> {
        let (file, real, meta) = scope.open_file(path)?;
        Ok(Self {
            shown: escape(path).into_owned(),
            real,
            file,
            meta,
        })
    }

    /// The policy subject: this file.
    pub fn subject(&self) -> Subject {
        Subject::Paths {
            paths: vec![self.real.clone()],
        }
    }

    /// The file's size from `fstat`.
    pub fn size(&self) -> u64 {
        self.meta.len()
    }

    /// The error result for a failed read of this file.
    pub fn read_error(&self, e: &io::Error) -> ToolOutput {
        ToolOutput::error(format!("{}: cannot read: {e}", self.shown))
    }

    /// Read at most `max` bytes from the current position; a failed read
    /// is the error result.
    pub fn read_up_to(&self, max: u64) -> Result<Bounded, ToolOutput> {
        read_bounded(&self.file, self.size(), max).map_err(|e| self.read_error(&e))
    }

    /// Refuse the file when `start` (its first bytes) shows it is binary.
    pub fn refuse_binary(&self, start: &[u8]) -> Result<(), ToolOutput> {
        if is_binary(start) {
            return Err(ToolOutput::error(binary_message(&self.shown, self.size())));
        }
        Ok(())
    }

    /// Read the file up to the read limit, refusing a binary one.
    pub fn read_text(&self, ctx: &RunContext) -> Result<Bounded, ToolOutput> {
        let read = self.read_up_to(ctx.limits.max_read_bytes)?;
        self.refuse_binary(&read.bytes)?;
        Ok(read)
    }
}

/// What a bounded read got.
pub(crate) struct Bounded {
    /// The bytes read.
    pub bytes: Vec<u8>,
    /// True when the file has more than was read (the read limit was hit).
    pub cut: bool,
}

/// Read at most `max` bytes of `file` from its current position (`size`
/// is its length from `fstat`).
fn read_bounded(file: &File, size: u64, max: u64) -> io::Result<Bounded> {
    let cap = usize::try_from(size.min(max).min(1 << 20)).unwrap_or(1 << 20);
    let mut bytes = Vec::with_capacity(cap + 1);
    let r: &File = file;
    let mut r = r.take(max);
    if size > 0 && size < max && cap == usize::try_from(size).unwrap_or(0) {
        // One read asking for a byte more than the file held when it was
        // opened: when exactly that many come, the file has been read as
        // it was (no read that returns nothing is needed to find its end).
        bytes.resize(cap + 1, 0);
        let n = match r.read(&mut bytes) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => 0,
            Err(e) => return Err(e),
        };
        bytes.truncate(n);
        if n == cap {
            return Ok(Bounded { bytes, cut: false });
        }
    }
    r.read_to_end(&mut bytes)?;
    let cut = bytes.len() as u64 >= max && size > max;
    Ok(Bounded { bytes, cut })
}

/// True when `bytes` (a file's start) has a NUL byte in its first 8 KiB.
pub(crate) fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_SNIFF)].contains(&0)
}

/// The message for a binary file a text tool will not dump.
fn binary_message(shown: &str, size: u64) -> String {
    format!(
        "{shown}: binary file ({size} bytes; a NUL byte in its first 8 KiB); its content is not shown. \
         Use stat or wc for its size."
    )
}

/// An output buffer sized to the call's output limit, with room for notes.
pub(crate) fn out_buf(ctx: &RunContext) -> OutputBuf {
    OutputBuf::new(
        ctx.limits
            .max_output_bytes
            .saturating_sub(NOTE_ROOM)
            .max(256),
    )
}

/// That the read limit was reached, naming it.
pub(crate) fn read_limit_reached(ctx: &RunContext) -> String {
    format!(
        "read limit of {} bytes reached (limits.max_read_bytes)",
        ctx.limits.max_read_bytes
    )
}

/// The note for a cut caused by the read limit.
pub(crate) fn read_limit_note(ctx: &RunContext, size: u64) -> String {
    format!("{}; the file is {size} bytes", read_limit_reached(ctx))
}

/// The note for a cut caused by the output limit.
fn output_limit_note(ctx: &RunContext) -> String {
    format!(
        "output limit of {} bytes reached (limits.max_output_bytes)",
        ctx.limits.max_output_bytes
    )
}

/// Add a closing note in brackets on its own line (after the output
/// buffer was finished; the buffer kept room for it).
pub(crate) fn append_note(out: &mut ToolOutput, note: &str) {
    if !out.text.is_empty() && !out.text.ends_with('\n') {
        out.text.push('\n');
    }
    out.text.push('[');
    out.text.push_str(note);
    out.text.push_str("]\n");
}

/// Finish a buffer: the output-limit note wins, else `cut_note` when the
/// read was cut; the result is marked truncated in both cases.
pub(crate) fn finish(buf: OutputBuf, ctx: &RunContext, cut_note: Option<String>) -> ToolOutput {
    finish_inner(buf, ctx, None, cut_note)
}

/// Like [`finish`], with `hint` (what to do instead) after the
/// output-limit note.
pub(crate) fn finish_hinted(
    buf: OutputBuf,
    ctx: &RunContext,
    hint: &str,
    cut_note: Option<String>,
) -> ToolOutput {
    finish_inner(buf, ctx, Some(hint), cut_note)
}

fn finish_inner(
    mut buf: OutputBuf,
    ctx: &RunContext,
    hint: Option<&str>,
    cut_note: Option<String>,
) -> ToolOutput {
    if buf.is_truncated() {
        let mut note = output_limit_note(ctx);
        if let Some(hint) = hint {
            note.push_str("; ");
            note.push_str(hint);
        }
        return buf.finish(&note);
    }
    match cut_note {
        Some(note) => {
            buf.mark_truncated();
            buf.finish(&note)
        }
        None => buf.finish(""),
    }
}

/// Cut a line for display at `max` bytes (on a character boundary), saying
/// how much was left out.
pub(crate) fn clip_line(line: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if line.len() <= max {
        return line.into();
    }
    let mut cut = max;
    while !line.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{} …[{} more bytes on this line]",
        &line[..cut],
        line.len() - cut
    )
    .into()
}

/// `bytes` as text, invalid UTF-8 replaced by U+FFFD: what
/// `String::from_utf8_lossy` gives, with the fast validation first (the
/// common case, valid UTF-8, is then not walked chunk by chunk).
pub(crate) fn lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// The lines of `text` without their `\n` terminators (a final newline
/// does not start another line).
pub(crate) fn lines(text: &str) -> impl Iterator<Item = &str> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let empty = text.is_empty();
    let mut start = 0;
    memchr::memchr_iter(b'\n', body.as_bytes())
        .chain(std::iter::once(body.len()))
        .filter(move |_| !empty)
        .map(move |end| {
            // `\n` is one byte and never inside a character: both ends are
            // character boundaries.
            let line = body.get(start..end).unwrap_or_default();
            start = end + 1;
            line
        })
}

/// How many lines [`lines`] gives, counted without splitting.
pub(crate) fn line_count(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    memchr::memchr_iter(b'\n', body.as_bytes()).count() + 1
}

/// A path or name for display on one line: control characters (a newline
/// in a file name could fake further output) are escaped.
pub(crate) fn escape(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return s.into();
    }
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

/// How to show a path to the agent: relative to the workspace when inside
/// it, escaped.
pub(crate) fn shown(scope: &Scope, path: &std::path::Path) -> String {
    escape(&scope.display(path)).into_owned()
}

/// A JSON schema property for a path.
pub(crate) fn path_prop(description: &str) -> Value {
    json!({ "type": "string", "description": description })
}

/// A JSON schema property for a bounded integer with a default.
pub(crate) fn int_prop(description: &str, default: u64, min: u64, max: u64) -> Value {
    json!({
        "type": "integer",
        "description": description,
        "default": default,
        "minimum": min,
        "maximum": max,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_like_a_text_file() {
        assert_eq!(lines("").count(), 0);
        assert_eq!(lines("a").collect::<Vec<_>>(), ["a"]);
        assert_eq!(lines("a\n").collect::<Vec<_>>(), ["a"]);
        assert_eq!(lines("a\n\nb").collect::<Vec<_>>(), ["a", "", "b"]);
        assert_eq!(lines("\n").collect::<Vec<_>>(), [""]);
        assert_eq!(lines("é\nü\n\n").collect::<Vec<_>>(), ["é", "ü", ""]);
        for t in ["", "a", "a\n", "a\n\nb", "\n", "\n\n", "x\ny\n"] {
            assert_eq!(line_count(t), lines(t).count(), "{t:?}");
            assert_eq!(
                lines(t).collect::<Vec<_>>(),
                t.lines().collect::<Vec<_>>(),
                "{t:?}"
            );
        }
    }

    #[test]
    fn clip_line_cuts_on_char_boundary() {
        assert_eq!(clip_line("short", 10), "short");
        let s = clip_line("ééé", 3);
        assert!(s.starts_with("é …[4 more bytes"), "{s}");
    }

    #[test]
    fn escape_control_characters() {
        assert_eq!(escape("a b/ü.txt"), "a b/ü.txt");
        assert_eq!(escape("evil\nfake:1:line"), "evil\\nfake:1:line");
    }

    #[test]
    fn a_bounded_read_gets_the_whole_file_whatever_fstat_said() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let body: Vec<u8> = (0..5000u32)
            .map(|i| b'a' + u8::try_from(i % 26).unwrap())
            .collect();
        std::fs::write(&p, &body).unwrap();
        let f = File::open(&p).unwrap();
        // fstat's size, a stale smaller one (the file grew: more than that
        // came, so the read goes on), a larger one, zero (as procfs says),
        // and a limit below the size.
        let got = |size, max| {
            use std::io::Seek;
            (&f).seek(io::SeekFrom::Start(0)).unwrap();
            read_bounded(&f, size, max).unwrap()
        };
        for size in [5000, 4096, 4999, 5001, 9000, 0] {
            let r = got(size, 1 << 20);
            assert!(
                r.bytes == body && !r.cut,
                "size {size}: {} bytes",
                r.bytes.len()
            );
        }
        let cut = got(5000, 100);
        assert!(
            cut.bytes == body[..100] && cut.cut,
            "{} bytes",
            cut.bytes.len()
        );
    }

    #[test]
    fn binary_sniff_only_looks_at_the_start() {
        assert!(is_binary(b"ab\0c"));
        let mut late = vec![b'a'; BINARY_SNIFF];
        late.push(0);
        assert!(!is_binary(&late));
    }
}
