//! `cat`: a whole text file, as is.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::text::{self, Opened};
use super::{args, object_schema};
use crate::scope::Scope;
use crate::supervisor::{Subject, ToolKind};
use crate::tools::{
    Invocation, RunContext, RunFuture, Tool, ToolError, ToolOutput, ToolSpec, run_blocking,
};

/// The `cat` tool.
pub struct Cat {
    spec: ToolSpec,
}

impl Cat {
    /// Build it.
    pub fn new() -> Self {
        Self {
            spec: ToolSpec {
                name: "cat",
                title: "Print a file",
                description: "Print a whole text file exactly as it is (no line numbers). \
                    Output is capped by the output limit (the result then ends with a \
                    [truncated: …] note); for big files prefer read_file with offset/limit. \
                    Binary files are refused (their size is given).",
                kind: ToolKind::Read,
                input_schema: object_schema(
                    json!({
                        "path": text::path_prop("File to print, relative to the workspace."),
                    }),
                    &["path"],
                ),
            },
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    path: String,
}

impl Tool for Cat {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn prepare(
        &self,
        a: &Map<String, Value>,
        scope: &Scope,
    ) -> Result<Box<dyn Invocation>, ToolError> {
        let a: Args = args::parse(self.spec.name, a)?;
        Ok(Box::new(CatCall {
            file: Opened::open(scope, &a.path)?,
        }))
    }
}

struct CatCall {
    file: Opened,
}

impl Invocation for CatCall {
    fn summary(&self) -> String {
        format!("cat {}", self.file.shown)
    }

    fn subject(&self) -> Subject {
        self.file.subject()
    }

    fn run(self: Box<Self>, ctx: RunContext) -> RunFuture {
        run_blocking(ctx, move |ctx| cat(&self.file, ctx))
    }
}

fn cat(f: &Opened, ctx: &RunContext) -> ToolOutput {
    let size = f.size();
    let read = match text::read_bounded(&f.file, size, ctx.limits.max_read_bytes) {
        Ok(r) => r,
        Err(e) => return ToolOutput::error(format!("{}: cannot read: {e}", f.shown)),
    };
    if text::is_binary(&read.bytes) {
        return ToolOutput::error(text::binary_message(&f.shown, size));
    }
    let mut buf = text::out_buf(ctx);
    buf.push(&String::from_utf8_lossy(&read.bytes));
    if buf.is_truncated() {
        let note = format!(
            "{}; the file is {size} bytes; use read_file with offset/limit to read the rest",
            text::output_limit_note(ctx)
        );
        return buf.finish(&note);
    }
    let cut = read.cut.then(|| text::read_limit_note(ctx, size));
    text::finish(buf, ctx, cut)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::readonly::testutil::{prepare_err, run, run_with};

    #[test]
    fn prints_the_file_verbatim() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one\n\ttwo\nno newline").unwrap();
        let out = run(&Cat::new(), dir.path(), json!({"path": "a.txt"}));
        assert_eq!(out.text, "one\n\ttwo\nno newline");
        assert!(!out.is_error && !out.truncated);
    }

    #[test]
    fn limits_cut_and_say_so() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("big.txt"), "x".repeat(100_000)).unwrap();
        let out = run(&Cat::new(), dir.path(), json!({"path": "big.txt"}));
        assert!(out.truncated);
        assert!(
            out.text.contains("[truncated: output limit of 32768 bytes"),
            "{}",
            &out.text[out.text.len() - 300..]
        );
        assert!(out.text.len() <= 32768);
        let out = run_with(&Cat::new(), dir.path(), json!({"path": "big.txt"}), |l| {
            l.max_read_bytes = 10
        });
        assert!(out.truncated);
        assert!(
            out.text
                .starts_with("xxxxxxxxxx\n[truncated: read limit of 10 bytes"),
            "{}",
            out.text
        );
    }

    #[test]
    fn refuses_binary_directories_and_fifos() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.bin"), b"PK\x03\x04\0\0").unwrap();
        let out = run(&Cat::new(), dir.path(), json!({"path": "b.bin"}));
        assert!(
            out.is_error && out.text.contains("binary file (6 bytes"),
            "{}",
            out.text
        );
        std::fs::create_dir(dir.path().join("d")).unwrap();
        let e = prepare_err(&Cat::new(), dir.path(), json!({"path": "d"}));
        assert!(
            e.to_string()
                .contains("not a regular file (it is a directory)"),
            "{e}"
        );
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = prepare_err(&Cat::new(), dir.path(), json!({"path": "pipe"}));
        assert!(e.to_string().contains("FIFO"), "{e}");
    }
}
