//! `read_file`: a text file's lines, numbered, a window at a time.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::file_call::FileCall;
use super::text::{self, Opened};
use super::{args, object_schema};
use crate::call::ToolKind;
use crate::scope::Scope;
use crate::tools::{Invocation, RunContext, Tool, ToolError, ToolOutput, ToolSpec};

/// Lines shown when no `limit` is given.
pub(crate) const DEFAULT_LINES: u64 = 2000;
/// Most lines one call may ask for.
const MAX_LIMIT: u64 = 100_000;
/// Longest line shown in full, in bytes.
const MAX_LINE: usize = 2000;

/// The tool's name.
pub const NAME: &str = "read_file";
/// The argument naming the file to read.
pub const PATH: &str = "path";

/// The arguments of a call that reads `path` from its start.
pub fn args(path: &str) -> Map<String, Value> {
    Map::from_iter([(PATH.to_string(), Value::String(path.to_string()))])
}

/// The `read_file` tool.
pub struct ReadFile {
    spec: ToolSpec,
}

impl ReadFile {
    /// Build it.
    pub fn new() -> Self {
        Self {
            spec: ToolSpec {
                name: NAME,
                title: "Read a text file",
                description: "Read a text file from the workspace. Each line is shown as its \
                    1-based line number, right-aligned in 6 columns, a tab, then the line \
                    (`    12\\tfn main() {`); the numbers are not part of the file. Without \
                    `limit`, at most the first 2000 lines (from `offset`) are shown and a final \
                    note says how many lines the file has and which `offset` reads on. Lines \
                    longer than 2000 bytes are cut. Binary files are refused (their size is \
                    given). Paths are relative to the workspace.",
                kind: ToolKind::Read,
                input_schema: object_schema(
                    json!({
                        PATH: text::path_prop("File to read, relative to the workspace (or absolute inside it)."),
                        "offset": text::int_prop("1-based line number to start at.", 1, 1, u64::from(u32::MAX)),
                        "limit": {
                            "type": "integer",
                            "description": "Number of lines to show (default: up to 2000).",
                            "minimum": 1,
                            "maximum": MAX_LIMIT,
                        },
                    }),
                    &[PATH],
                ),
            },
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    path: String,
    #[serde(default = "one")]
    offset: u64,
    #[serde(default)]
    limit: Option<u64>,
}

fn one() -> u64 {
    1
}

impl Tool for ReadFile {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn subject_args(&self) -> &'static [&'static str] {
        &[PATH]
    }

    fn prepare(
        &self,
        a: &Map<String, Value>,
        scope: &Scope,
    ) -> Result<Box<dyn Invocation>, ToolError> {
        let name = self.spec.name;
        let a: Args = args::parse(name, a)?;
        let offset = args::check_range(name, "offset", a.offset, 1, u64::from(u32::MAX))?;
        let limit = match a.limit {
            Some(l) => Some(args::check_range(name, "limit", l, 1, MAX_LIMIT)?),
            None => None,
        };
        let file = Opened::open(scope, &a.path)?;
        let window = Window { offset, limit };
        Ok(FileCall::boxed(
            window.summary(&file.shown),
            file,
            move |f, ctx| read(f, window, ctx),
        ))
    }
}

/// Which lines a call asks for.
#[derive(Clone, Copy)]
struct Window {
    offset: u64,
    limit: Option<u64>,
}

impl Window {
    fn summary(&self, shown: &str) -> String {
        match self.limit {
            Some(l) => format!(
                "read_file {shown} (lines {}–{})",
                self.offset,
                self.offset.saturating_add(l - 1)
            ),
            None if self.offset > 1 => format!("read_file {shown} (from line {})", self.offset),
            None => format!("read_file {shown}"),
        }
    }
}

fn read(f: &Opened, asked: Window, ctx: &RunContext) -> ToolOutput {
    let size = f.size();
    let read = match f.read_text(ctx) {
        Ok(r) => r,
        Err(out) => return out,
    };
    let content = text::lossy(&read.bytes);
    let total = u64::try_from(text::line_count(&content)).unwrap_or(u64::MAX);
    let at_least = if read.cut { "at least " } else { "" };
    if total == 0 {
        return ToolOutput::ok(format!("[{} is empty]", f.shown));
    }
    if asked.offset > total {
        return ToolOutput::error(format!(
            "{}: offset {} is past the end of the file, which has {at_least}{total} lines",
            f.shown, asked.offset
        ));
    }
    let window = asked.limit.unwrap_or(DEFAULT_LINES);
    let mut buf = text::out_buf(ctx);
    // Each line gains at most its number (6 columns or more), a tab and a
    // newline.
    let shown_lines = usize::try_from(window.min(total)).unwrap_or(usize::MAX);
    buf.reserve(content.len().saturating_add(shown_lines.saturating_mul(8)));
    let mut last_full = asked.offset - 1;
    let mut stopped = false;
    let mut num = LineNumber::default();
    for (i, line) in text::lines(&content)
        .enumerate()
        .skip(usize::try_from(asked.offset - 1).unwrap_or(usize::MAX))
        .take(usize::try_from(window).unwrap_or(usize::MAX))
    {
        let n = i as u64 + 1;
        if n.is_multiple_of(512) && ctx.should_stop() {
            stopped = true;
            break;
        }
        if !buf.line_after(num.format(n), &text::clip_line(line, MAX_LINE)) {
            break;
        }
        last_full = n;
    }
    if buf.is_truncated() || read.cut {
        let hint = format!(
            "line {} was cut; call read_file with offset={} to read on",
            last_full + 1,
            last_full + 1
        );
        let cut = read.cut.then(|| {
            format!(
                "{}; lines past that point are not shown or counted; call read_file with offset={} to read on",
                text::read_limit_note(ctx, size),
                last_full + 1
            )
        });
        return text::finish_hinted(buf, ctx, &hint, cut);
    }
    let mut out = text::finish(buf, ctx, None);
    if stopped {
        out.truncated = true;
        text::append_note(
            &mut out,
            &format!(
                "truncated: stopped early (cancelled or out of time) after line {last_full}; offset={} reads on",
                last_full + 1
            ),
        );
    } else if last_full < total {
        text::append_note(
            &mut out,
            &format!(
                "showing lines {}–{last_full} of {total}; call read_file with offset={} to read on",
                asked.offset,
                last_full + 1
            ),
        );
    }
    out
}

/// A line's prefix, `format!("{n:>6}\t")` without the formatting
/// machinery: the number right-aligned in at least 6 columns, then a tab.
/// Written as characters into a reused string, so it never needs checking
/// as UTF-8.
#[derive(Default)]
struct LineNumber {
    text: String,
}

impl LineNumber {
    fn format(&mut self, mut n: u64) -> &str {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.text.clear();
        for _ in (digits.len() - at)..6 {
            self.text.push(' ');
        }
        self.text
            .extend(digits[at..].iter().map(|&d| char::from(d)));
        self.text.push('\t');
        &self.text
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::*;
    use crate::tools::readonly::testutil::{prepare_err, run, run_with};

    #[test]
    fn line_number_matches_format() {
        let mut num = LineNumber::default();
        for n in [
            0,
            1,
            9,
            10,
            99_999,
            999_999,
            1_000_000,
            12_345_678,
            u64::MAX,
        ] {
            assert_eq!(num.format(n), format!("{n:>6}\t"));
        }
    }

    fn numbered(n: usize) -> String {
        (1..=n).fold(String::new(), |mut s, i| {
            let _ = writeln!(s, "line {i}");
            s
        })
    }

    #[test]
    fn numbers_lines_and_windows() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "alpha\nbeta\ngamma\n").unwrap();
        let out = run(&ReadFile::new(), dir.path(), json!({"path": "a.txt"}));
        assert_eq!(out.text, "     1\talpha\n     2\tbeta\n     3\tgamma\n");
        assert!(!out.is_error && !out.truncated);
        let out = run(
            &ReadFile::new(),
            dir.path(),
            json!({"path": "a.txt", "offset": 2, "limit": 1}),
        );
        assert!(out.text.starts_with("     2\tbeta\n"), "{}", out.text);
        assert!(out.text.contains("showing lines 2–2 of 3"), "{}", out.text);
        assert!(out.text.contains("offset=3"), "{}", out.text);
    }

    #[test]
    fn long_file_shows_2000_lines_and_says_how_to_read_on() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("big.txt"), numbered(2500)).unwrap();
        let out = run_with(
            &ReadFile::new(),
            dir.path(),
            json!({"path": "big.txt"}),
            |l| l.max_output_bytes = 1 << 20,
        );
        assert!(out.text.contains("  2000\tline 2000\n"));
        assert!(!out.text.contains("line 2001\n"));
        assert!(
            out.text.contains("of 2500"),
            "{}",
            &out.text[out.text.len() - 200..]
        );
        assert!(out.text.contains("offset=2001"));
    }

    #[test]
    fn output_limit_marks_truncated_and_names_offset() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("big.txt"), numbered(20_000)).unwrap();
        let out = run(
            &ReadFile::new(),
            dir.path(),
            json!({"path": "big.txt", "limit": 20000}),
        );
        assert!(out.truncated);
        assert!(
            out.text.contains("[truncated: output limit"),
            "{}",
            out.text
        );
        assert!(out.text.contains("offset="));
        assert!(out.text.len() <= crate::tools::Limits::default().max_output_bytes);
    }

    #[test]
    fn read_limit_marks_truncated() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("big.txt"), numbered(1000)).unwrap();
        let out = run_with(
            &ReadFile::new(),
            dir.path(),
            json!({"path": "big.txt"}),
            |l| l.max_read_bytes = 100,
        );
        assert!(out.truncated);
        assert!(out.text.contains("read limit of 100 bytes"), "{}", out.text);
        assert!(!out.text.contains("line 50"));
    }

    #[test]
    fn offset_past_end_binary_empty_and_lossy() {
        let dir = tempfile::tempdir().unwrap();
        let t = ReadFile::new();
        std::fs::write(dir.path().join("a.txt"), "x\n").unwrap();
        let out = run(&t, dir.path(), json!({"path": "a.txt", "offset": 5}));
        assert!(
            out.is_error && out.text.contains("has 1 lines"),
            "{}",
            out.text
        );
        std::fs::write(dir.path().join("b.bin"), b"\x7fELF\0\0\x01").unwrap();
        let out = run(&t, dir.path(), json!({"path": "b.bin"}));
        assert!(
            out.is_error && out.text.contains("binary file (7 bytes"),
            "{}",
            out.text
        );
        std::fs::write(dir.path().join("e.txt"), "").unwrap();
        let out = run(&t, dir.path(), json!({"path": "e.txt"}));
        assert!(!out.is_error && out.text.contains("empty"));
        std::fs::write(dir.path().join("l.txt"), b"caf\xe9\n").unwrap();
        let out = run(&t, dir.path(), json!({"path": "l.txt"}));
        assert_eq!(out.text, "     1\tcaf\u{fffd}\n");
    }

    #[test]
    fn bad_arguments_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "x\n").unwrap();
        let t = ReadFile::new();
        for a in [
            json!({"path": "a.txt", "offset": 0}),
            json!({"path": "a.txt", "limit": 0}),
            json!({"path": "a.txt", "bogus": 1}),
            json!({"path": 3}),
            json!({}),
        ] {
            let e = prepare_err(&t, dir.path(), a.clone());
            assert!(matches!(e, ToolError::InvalidArguments { .. }), "{a}: {e}");
        }
        let e = prepare_err(&t, dir.path(), json!({"path": "."}));
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }
}
