//! `cat`: a whole text file, as is.

use serde_json::{Map, Value, json};

use super::file_call;
use super::object_schema;
use super::text::{self, Opened};
use crate::call::ToolKind;
use crate::scope::Scope;
use crate::tools::{Invocation, RunContext, Tool, ToolError, ToolOutput, ToolSpec};

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

impl Tool for Cat {
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
        file_call::prepare_path(self.spec.name, a, scope, cat)
    }
}

fn cat(f: &Opened, ctx: &RunContext) -> ToolOutput {
    let size = f.size();
    let read = match f.read_text(ctx) {
        Ok(r) => r,
        Err(out) => return out,
    };
    let mut buf = text::out_buf(ctx);
    buf.push(&String::from_utf8_lossy(&read.bytes));
    let hint =
        format!("the file is {size} bytes; use read_file with offset/limit to read the rest");
    let cut = read.cut.then(|| text::read_limit_note(ctx, size));
    text::finish_hinted(buf, ctx, &hint, cut)
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
            l.max_read_bytes = 10;
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
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        let e = prepare_err(&Cat::new(), dir.path(), json!({"path": "pipe"}));
        assert!(e.to_string().contains("FIFO"), "{e}");
    }
}
