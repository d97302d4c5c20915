//! `diff`: a unified diff of two text files.

use serde::Deserialize;
use serde_json::{Map, Value, json};
use similar::{ChangeTag, TextDiff};

use super::text::{self, Opened};
use super::{args, object_schema};
use crate::call::{Subject, ToolKind};
use crate::scope::Scope;
use crate::tools::{
    Invocation, RunContext, RunFuture, Tool, ToolError, ToolOutput, ToolSpec, run_blocking,
};

/// Largest `context_lines`.
const MAX_CONTEXT: u64 = 100;

/// The `diff` tool.
pub struct Diff {
    spec: ToolSpec,
}

impl Diff {
    /// Build it.
    pub fn new() -> Self {
        Self {
            spec: ToolSpec {
                name: "diff",
                title: "Compare two files",
                description: "Compare two text files line by line and print a unified diff \
                    (`--- a/PATH_A`, `+++ b/PATH_B`, `@@` hunks with context_lines lines of \
                    context), then a summary of lines added and removed. Identical files are \
                    reported as identical; binary files are only compared for equality.",
                kind: ToolKind::Read,
                input_schema: object_schema(
                    json!({
                        "path_a": text::path_prop("The old file (shown as a/…), relative to the workspace."),
                        "path_b": text::path_prop("The new file (shown as b/…), relative to the workspace."),
                        "context_lines": text::int_prop("Unchanged lines shown around each change.", 3, 0, MAX_CONTEXT),
                    }),
                    &["path_a", "path_b"],
                ),
            },
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    path_a: String,
    path_b: String,
    #[serde(default = "three")]
    context_lines: u64,
}

fn three() -> u64 {
    3
}

impl Tool for Diff {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn subject_args(&self) -> &'static [&'static str] {
        &["path_a"]
    }

    fn prepare(
        &self,
        a: &Map<String, Value>,
        scope: &Scope,
    ) -> Result<Box<dyn Invocation>, ToolError> {
        let name = self.spec.name;
        let a: Args = args::parse(name, a)?;
        let context = args::check_range(name, "context_lines", a.context_lines, 0, MAX_CONTEXT)?;
        Ok(Box::new(DiffCall {
            a: Opened::open(scope, &a.path_a)?,
            b: Opened::open(scope, &a.path_b)?,
            context: usize::try_from(context).unwrap_or(usize::MAX),
        }))
    }
}

struct DiffCall {
    a: Opened,
    b: Opened,
    context: usize,
}

impl Invocation for DiffCall {
    fn summary(&self) -> String {
        format!("diff {} {}", self.a.shown, self.b.shown)
    }

    fn subject(&self) -> Subject {
        Subject::Paths {
            paths: vec![self.a.real.clone(), self.b.real.clone()],
        }
    }

    fn run(self: Box<Self>, ctx: RunContext) -> RunFuture {
        run_blocking(ctx, move |ctx| diff(&self, ctx))
    }
}

fn diff(call: &DiffCall, ctx: &RunContext) -> ToolOutput {
    let (a, b) = (&call.a, &call.b);
    let max = ctx.limits.max_read_bytes;
    let too_big = || {
        ToolOutput::error(format!(
            "{} and {} are {} and {} bytes: together more than the read limit of {max} bytes \
             (limits.max_read_bytes), so they cannot be compared in full",
            a.shown,
            b.shown,
            a.size(),
            b.size()
        ))
    };
    let read_a = match a.read_up_to(max) {
        Ok(r) if !r.cut => r.bytes,
        Ok(_) => return too_big(),
        Err(out) => return out,
    };
    let left = max - read_a.len() as u64;
    let read_b = match b.read_up_to(left) {
        Ok(r) if !r.cut => r.bytes,
        Ok(_) => return too_big(),
        Err(out) => return out,
    };
    let (sa, sb) = (text::escape(&a.shown), text::escape(&b.shown));
    if text::is_binary(&read_a) || text::is_binary(&read_b) {
        return ToolOutput::ok(if read_a == read_b {
            format!(
                "binary files {sa} and {sb} are identical ({} bytes)\n",
                read_a.len()
            )
        } else {
            format!(
                "binary files {sa} and {sb} differ ({} and {} bytes); binary content is not shown\n",
                read_a.len(),
                read_b.len()
            )
        });
    }
    if read_a == read_b {
        return ToolOutput::ok(format!("{sa} and {sb} are identical\n"));
    }
    let (ta, tb) = (
        String::from_utf8_lossy(&read_a),
        String::from_utf8_lossy(&read_b),
    );
    let d = TextDiff::configure()
        .deadline(ctx.deadline)
        .diff_lines(ta.as_ref(), tb.as_ref());
    let (mut added, mut removed) = (0usize, 0usize);
    for change in d.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    let header = |s: &str| s.trim_start_matches('/').to_string();
    let unified = d
        .unified_diff()
        .context_radius(call.context)
        .header(&format!("a/{}", header(&sa)), &format!("b/{}", header(&sb)))
        .to_string();
    let mut buf = text::out_buf(ctx);
    buf.push(&unified);
    let mut out = text::finish(buf, ctx, None);
    if out.truncated {
        text::append_note(
            &mut out,
            "narrow the comparison, or read the files with read_file",
        );
    }
    text::append_note(
        &mut out,
        &format!("{added} lines added, {removed} lines removed"),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::readonly::testutil::{prepare_err, run, run_with};

    #[test]
    fn unified_diff_with_headers_and_summary() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("old.txt"), "a\nb\nc\nd\ne\nf\ng\n").unwrap();
        std::fs::write(dir.path().join("new.txt"), "a\nb\nc\nD\ne\nf\ng\nh\n").unwrap();
        let out = run(
            &Diff::new(),
            dir.path(),
            json!({"path_a": "old.txt", "path_b": "new.txt", "context_lines": 1}),
        );
        assert_eq!(
            out.text,
            "--- a/old.txt\n+++ b/new.txt\n@@ -3,3 +3,3 @@\n c\n-d\n+D\n e\n@@ -7 +7,2 @@\n g\n+h\n\
             [2 lines added, 1 lines removed]\n"
        );
    }

    #[test]
    fn identical_binary_and_too_big() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), "same\n").unwrap();
        std::fs::write(dir.path().join("b"), "same\n").unwrap();
        let out = run(
            &Diff::new(),
            dir.path(),
            json!({"path_a": "a", "path_b": "b"}),
        );
        assert_eq!(out.text, "a and b are identical\n");
        std::fs::write(dir.path().join("x.bin"), b"\0\x01").unwrap();
        let out = run(
            &Diff::new(),
            dir.path(),
            json!({"path_a": "a", "path_b": "x.bin"}),
        );
        assert!(
            out.text
                .starts_with("binary files a and x.bin differ (5 and 2 bytes)"),
            "{}",
            out.text
        );
        let out = run_with(
            &Diff::new(),
            dir.path(),
            json!({"path_a": "a", "path_b": "b"}),
            |l| l.max_read_bytes = 8,
        );
        assert!(
            out.is_error && out.text.contains("read limit of 8 bytes"),
            "{}",
            out.text
        );
        let e = prepare_err(
            &Diff::new(),
            dir.path(),
            json!({"path_a": "a", "path_b": "b", "context_lines": 101}),
        );
        assert!(e.to_string().contains("between 0 and 100"), "{e}");
        let e = prepare_err(
            &Diff::new(),
            dir.path(),
            json!({"path_a": "a", "path_b": "../../etc/passwd"}),
        );
        assert!(e.to_string().contains("outside the allowed roots"), "{e}");
    }
}
