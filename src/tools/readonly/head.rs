//! `head`: the first lines of a text file.

use std::io::{BufRead, BufReader, Read};

use serde_json::{Map, Value};

use super::file_call;
use super::text::{self, Opened};
use crate::call::ToolKind;
use crate::scope::Scope;
use crate::tools::{Invocation, RunContext, Tool, ToolError, ToolOutput, ToolSpec};

/// The `head` tool.
pub struct Head {
    spec: ToolSpec,
}

impl Head {
    /// Build it.
    pub fn new() -> Self {
        Self {
            spec: ToolSpec {
                name: "head",
                title: "First lines of a file",
                description: "Print the first `lines` lines of a text file, as they are (no line \
                    numbers). Binary files are refused (their size is given).",
                kind: ToolKind::Read,
                input_schema: file_call::lines_schema(),
            },
        }
    }
}

impl Tool for Head {
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
        file_call::prepare_lines(self.spec.name, a, scope, head)
    }
}

fn head(f: &Opened, lines: u64, ctx: &RunContext) -> ToolOutput {
    let size = f.size();
    let max = ctx.limits.max_read_bytes;
    let mut first = Vec::new();
    let mut r: &std::fs::File = &f.file;
    if let Err(e) = r
        .by_ref()
        .take((text::BINARY_SNIFF as u64).min(max))
        .read_to_end(&mut first)
    {
        return f.read_error(&e);
    }
    if let Err(out) = f.refuse_binary(&first) {
        return out;
    }
    let rest = max.saturating_sub(first.len() as u64);
    let mut reader = BufReader::new(std::io::Cursor::new(first).chain(r.take(rest)));
    let mut buf = text::out_buf(ctx);
    let mut line = Vec::new();
    let mut read_total: u64 = 0;
    let mut shown = 0;
    while shown < lines {
        if shown % 512 == 511 && ctx.should_stop() {
            break;
        }
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(n) => read_total += n as u64,
            Err(e) => return f.read_error(&e),
        }
        shown += 1;
        if !buf.push(&String::from_utf8_lossy(&line)) {
            break;
        }
    }
    let hit_limit = read_total >= max && size > max;
    let cut = (hit_limit && (shown < lines || !line.ends_with(b"\n")))
        .then(|| text::read_limit_note(ctx, size));
    text::finish(buf, ctx, cut)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::readonly::testutil::{numbered, prepare_err, run, run_with};
    use serde_json::json;

    #[test]
    fn first_lines() {
        let dir = tempfile::tempdir().unwrap();
        let body = numbered(1..=30);
        std::fs::write(dir.path().join("a.txt"), &body).unwrap();
        let out = run(&Head::new(), dir.path(), json!({"path": "a.txt"}));
        assert_eq!(out.text, numbered(1..=10));
        let out = run(
            &Head::new(),
            dir.path(),
            json!({"path": "a.txt", "lines": 0}),
        );
        assert_eq!(out.text, "");
        let out = run(
            &Head::new(),
            dir.path(),
            json!({"path": "a.txt", "lines": 100}),
        );
        assert_eq!(out.text, body);
        assert!(!out.truncated);
        let e = prepare_err(
            &Head::new(),
            dir.path(),
            json!({"path": "a.txt", "lines": 10001}),
        );
        assert!(e.to_string().contains("between 0 and 10000"), "{e}");
    }

    #[test]
    fn read_limit_and_binary() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("long.txt"), "y".repeat(50_000)).unwrap();
        let out = run_with(
            &Head::new(),
            dir.path(),
            json!({"path": "long.txt", "lines": 1}),
            |l| l.max_read_bytes = 20_000,
        );
        assert!(out.truncated, "{}", out.text);
        assert!(out.text.contains("read limit of 20000 bytes"));
        std::fs::write(dir.path().join("b"), b"a\nb\0").unwrap();
        let out = run(&Head::new(), dir.path(), json!({"path": "b"}));
        assert!(out.is_error && out.text.contains("binary"));
    }
}
