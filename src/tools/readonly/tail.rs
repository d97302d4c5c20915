//! `tail`: the last lines of a text file, read backwards from the end so a
//! big file is not read whole.

use std::os::unix::fs::FileExt;

use serde_json::{Map, Value};

use super::file_call;
use super::text::{self, Opened};
use crate::call::ToolKind;
use crate::scope::Scope;
use crate::tools::{Invocation, RunContext, Tool, ToolError, ToolOutput, ToolSpec};

/// Bytes read per step backwards.
const CHUNK: u64 = 64 * 1024;

/// The `tail` tool.
pub struct Tail {
    spec: ToolSpec,
}

impl Tail {
    /// Build it.
    pub fn new() -> Self {
        Self {
            spec: ToolSpec {
                name: "tail",
                title: "Last lines of a file",
                description: "Print the last `lines` lines of a text file, as they are (no line \
                    numbers); reads from the end, so it is cheap on big files such as logs. \
                    Binary files are refused (their size is given).",
                kind: ToolKind::Read,
                input_schema: file_call::lines_schema(),
            },
        }
    }
}

impl Tool for Tail {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn subject_args(&self) -> &'static [&'static str] {
        &["path"]
    }

    fn prepare(
        &self,
        a: &Map<String, Value>,
        scope: &Scope,
    ) -> Result<Box<dyn Invocation>, ToolError> {
        file_call::prepare_lines(self.spec.name, a, scope, tail)
    }
}

fn tail(f: &Opened, lines: u64, ctx: &RunContext) -> ToolOutput {
    let size = f.size();
    let max = ctx.limits.max_read_bytes;
    // The binary check looks at the file's start, like the other tools.
    let sniff_len = (text::BINARY_SNIFF as u64).min(size).min(max);
    #[expect(
        clippy::cast_possible_truncation,
        reason = "at most BINARY_SNIFF, a usize"
    )]
    let mut sniff = vec![0u8; sniff_len as usize];
    if let Err(e) = f.file.read_exact_at(&mut sniff, 0) {
        return f.read_error(&e);
    }
    if let Err(out) = f.refuse_binary(&sniff) {
        return out;
    }
    if lines == 0 || size == 0 {
        return ToolOutput::ok("");
    }
    let budget = max.saturating_sub(sniff_len);
    // Read chunks backwards until enough line breaks are found. A final
    // newline ends the last line rather than starting a new one.
    let mut tail: Vec<u8> = Vec::new();
    let mut pos = size;
    let mut read = 0u64;
    let mut cut = false;
    loop {
        let breaks = count_breaks(&tail);
        if breaks >= lines || pos == 0 {
            break;
        }
        if read >= budget {
            cut = true;
            break;
        }
        if ctx.should_stop() {
            cut = true;
            break;
        }
        let step = CHUNK.min(pos).min(budget - read);
        #[expect(clippy::cast_possible_truncation, reason = "at most CHUNK bytes")]
        let mut chunk = vec![0u8; step as usize];
        if let Err(e) = f.file.read_exact_at(&mut chunk, pos - step) {
            return f.read_error(&e);
        }
        pos -= step;
        read += step;
        chunk.extend_from_slice(&tail);
        tail = chunk;
    }
    // Keep the last `lines` lines.
    let body_end = if tail.ends_with(b"\n") {
        tail.len() - 1
    } else {
        tail.len()
    };
    let mut start = 0;
    let mut seen = 0;
    for (i, b) in tail[..body_end].iter().enumerate().rev() {
        if *b == b'\n' {
            seen += 1;
            if seen == lines {
                start = i + 1;
                break;
            }
        }
    }
    // Without enough breaks and the file's start not reached, the first
    // line in hand is partial: drop it unless it is all there is.
    if seen < lines
        && pos > 0
        && let Some(i) = tail[..body_end].iter().position(|b| *b == b'\n')
    {
        start = i + 1;
    }
    let mut buf = text::out_buf(ctx);
    buf.push(&String::from_utf8_lossy(&tail[start..]));
    let note = cut.then(|| {
        format!(
            "{}; fewer than {lines} lines were found in the last {read} bytes",
            text::read_limit_note(ctx, size),
        )
    });
    text::finish_hinted(
        buf,
        ctx,
        "use read_file with offset/limit for long lines",
        note,
    )
}

/// Line breaks in `tail` not counting a final one.
#[expect(
    clippy::naive_bytecount,
    reason = "the optimiser vectorises this; no bytecount dependency"
)]
fn count_breaks(tail: &[u8]) -> u64 {
    let body = tail.strip_suffix(b"\n").unwrap_or(tail);
    body.iter().filter(|b| **b == b'\n').count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::readonly::testutil::{numbered, run, run_with};
    use serde_json::json;

    #[test]
    fn last_lines() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), numbered(1..=30)).unwrap();
        let out = run(&Tail::new(), dir.path(), json!({"path": "a.txt"}));
        assert_eq!(out.text, numbered(21..=30));
        let out = run(
            &Tail::new(),
            dir.path(),
            json!({"path": "a.txt", "lines": 100}),
        );
        assert_eq!(out.text, numbered(1..=30));
        let out = run(
            &Tail::new(),
            dir.path(),
            json!({"path": "a.txt", "lines": 0}),
        );
        assert_eq!(out.text, "");
        std::fs::write(dir.path().join("b.txt"), "x\ny\nz").unwrap();
        let out = run(
            &Tail::new(),
            dir.path(),
            json!({"path": "b.txt", "lines": 2}),
        );
        assert_eq!(out.text, "y\nz");
    }

    #[test]
    fn big_file_reads_only_the_end() {
        let dir = tempfile::tempdir().unwrap();
        // ~9.5 MB: more than the default read limit, yet the tail works.
        std::fs::write(dir.path().join("big.log"), numbered(1..=1_300_000)).unwrap();
        let out = run(
            &Tail::new(),
            dir.path(),
            json!({"path": "big.log", "lines": 3}),
        );
        assert_eq!(out.text, "l1299998\nl1299999\nl1300000\n");
        assert!(!out.truncated);
        // With a tiny read budget the result says it was cut.
        let out = run_with(
            &Tail::new(),
            dir.path(),
            json!({"path": "big.log", "lines": 5000}),
            |l| l.max_read_bytes = 9000,
        );
        assert!(out.truncated);
        assert!(
            out.text.contains("read limit of 9000 bytes"),
            "{}",
            &out.text[out.text.len() - 300..]
        );
        assert!(out.text.contains("fewer than 5000 lines"), "{}", out.text);
        let body = out.text.split("\n[truncated").next().unwrap();
        assert!(
            body.lines()
                .all(|l| l.len() == 8 && (l.starts_with("l1299") || l == "l1300000")),
            "only whole lines: {body}"
        );
        assert!(body.ends_with("l1300000"));
    }

    #[test]
    fn binary_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b"), b"\0\0\0tail\n").unwrap();
        let out = run(&Tail::new(), dir.path(), json!({"path": "b"}));
        assert!(out.is_error && out.text.contains("binary file (8 bytes"));
    }
}
