//! `wc`: line, word and byte counts of a file.

use serde_json::{Map, Value, json};

use super::file_call;
use super::object_schema;
use super::text::{self, Opened};
use crate::call::ToolKind;
use crate::scope::Scope;
use crate::tools::{Invocation, RunContext, Tool, ToolError, ToolOutput, ToolSpec};

/// The `wc` tool.
pub struct Wc {
    spec: ToolSpec,
}

impl Wc {
    /// Build it.
    pub fn new() -> Self {
        Self {
            spec: ToolSpec {
                name: "wc",
                title: "Count lines, words and bytes",
                description: "Count a file's lines (newline characters, like `wc -l`), words \
                    (runs of non-whitespace) and bytes. Also returned as structuredContent \
                    {path, lines, words, bytes}. Files bigger than the read limit are counted \
                    up to it and the result says so.",
                kind: ToolKind::Read,
                input_schema: object_schema(
                    json!({
                        "path": text::path_prop("File to count, relative to the workspace."),
                    }),
                    &["path"],
                ),
            },
        }
    }
}

impl Tool for Wc {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn subject_args(&self) -> &'static [&'static str] {
        &["path"]
    }

    fn output_schema(&self) -> Option<Map<String, Value>> {
        Some(output_schema())
    }

    fn prepare(
        &self,
        a: &Map<String, Value>,
        scope: &Scope,
    ) -> Result<Box<dyn Invocation>, ToolError> {
        file_call::prepare_path(self.spec.name, a, scope, wc)
    }
}

/// Lines (newlines) and words (runs of non-whitespace) in `bytes`.
#[expect(
    clippy::naive_bytecount,
    reason = "the optimiser vectorises this; no bytecount dependency"
)]
fn count(bytes: &[u8]) -> (u64, u64) {
    let lines = bytes.iter().filter(|b| **b == b'\n').count() as u64;
    let words = bytes
        .split(u8::is_ascii_whitespace)
        .filter(|w| !w.is_empty())
        .count() as u64;
    (lines, words)
}

fn wc(f: &Opened, ctx: &RunContext) -> ToolOutput {
    let size = f.size();
    let read = match f.read_up_to(ctx.limits.max_read_bytes) {
        Ok(r) => r,
        Err(out) => return out,
    };
    let (lines, words) = count(&read.bytes);
    let bytes = if read.cut {
        size
    } else {
        read.bytes.len() as u64
    };
    let shown = text::escape(&f.shown).into_owned();
    let note = read.cut.then(|| {
        format!(
            "truncated: lines and words count only the first {} bytes ({}); bytes is the full size",
            read.bytes.len(),
            text::read_limit_note(ctx, size)
        )
    });
    // The text and the structured form carry the same counts and note.
    let mut structured = json!({
        "path": f.shown,
        "lines": lines,
        "words": words,
        "bytes": bytes,
        "truncated": read.cut,
    });
    if let Some(n) = &note {
        structured["note"] = json!(n);
    }
    let mut out = ToolOutput::ok(format!(
        "{shown}: {lines} lines, {words} words, {bytes} bytes\n"
    ))
    .with_structured(structured);
    if let Some(n) = &note {
        out.truncated = true;
        text::append_note(&mut out, n);
    }
    out
}

/// The `outputSchema` of `wc`.
fn output_schema() -> Map<String, Value> {
    crate::tools::output::with_error_alternative(json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "lines": {"type": "integer", "minimum": 0},
            "words": {"type": "integer", "minimum": 0},
            "bytes": {"type": "integer", "minimum": 0},
            "truncated": {"type": "boolean", "description": "Only the first bytes were counted (read limit)."},
            "note": {"type": "string", "description": "What was not counted, when truncated."},
        },
        "required": ["path", "lines", "words", "bytes", "truncated"],
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::readonly::testutil::{run, run_with};

    #[test]
    fn counts_like_wc() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one two\n  three\tfour\nfive").unwrap();
        let out = run(&Wc::new(), dir.path(), json!({"path": "a.txt"}));
        assert_eq!(out.text, "a.txt: 2 lines, 5 words, 25 bytes\n");
        assert_eq!(
            out.structured,
            Some(json!({"path": "a.txt", "lines": 2, "words": 5, "bytes": 25, "truncated": false}))
        );
        std::fs::write(dir.path().join("e"), "").unwrap();
        let out = run(&Wc::new(), dir.path(), json!({"path": "e"}));
        assert_eq!(out.text, "e: 0 lines, 0 words, 0 bytes\n");
    }

    #[test]
    fn read_limit_counts_partially_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "w\n".repeat(100)).unwrap();
        let out = run_with(&Wc::new(), dir.path(), json!({"path": "a.txt"}), |l| {
            l.max_read_bytes = 10;
        });
        assert!(out.truncated);
        assert!(
            out.text
                .starts_with("a.txt: 5 lines, 5 words, 200 bytes\n[truncated:"),
            "{}",
            out.text
        );
        assert_eq!(out.structured.unwrap()["bytes"], 200);
    }
}
