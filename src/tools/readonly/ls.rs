//! `ls`: a directory's entries, optionally as a tree a few levels deep.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::text;
use super::walk::{Flow, Start, WalkOptions, Walker, cut_note, skipped_notes};
use super::{args, object_schema};
use crate::call::{Subject, ToolKind};
use crate::scope::{FileKind, Scope};
use crate::tools::{
    Invocation, RunContext, RunFuture, Tool, ToolError, ToolOutput, ToolSpec, run_blocking,
};

/// Deepest tree `ls` shows.
const MAX_DEPTH: u64 = 3;

/// The tool's name.
pub const NAME: &str = "ls";

/// The `ls` tool.
pub struct Ls {
    spec: ToolSpec,
}

impl Ls {
    /// Build it.
    pub fn new() -> Self {
        Self {
            spec: ToolSpec {
                name: NAME,
                title: "List a directory",
                description: "List a directory's entries in name order, one per line: \
                    directories end with `/`, files show their size (`main.rs (1234 bytes)`), \
                    symlinks show their target (`link -> target`; never followed), other \
                    special files say what they are. With depth 2 or 3 the listing is a tree, \
                    each level indented by two spaces. Names starting with `.` are hidden \
                    unless show_hidden is true. Excluded entries (secrets such as .env) are \
                    never shown; a final note counts them.",
                kind: ToolKind::Read,
                input_schema: object_schema(
                    json!({
                        "path": {
                            "type": "string",
                            "description": "Directory to list, relative to the workspace.",
                            "default": ".",
                        },
                        "show_hidden": {
                            "type": "boolean",
                            "description": "Also list names starting with `.`.",
                            "default": false,
                        },
                        "depth": text::int_prop("Levels to list: 1 is the directory's own entries, up to 3 (a tree).", 1, 1, MAX_DEPTH),
                    }),
                    &[],
                ),
            },
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    #[serde(default = "args::dot")]
    path: String,
    #[serde(default)]
    show_hidden: bool,
    #[serde(default = "one")]
    depth: u64,
}

fn one() -> u64 {
    1
}

impl Tool for Ls {
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
        let name = self.spec.name;
        let a: Args = args::parse(name, a)?;
        let depth = args::check_range(name, "depth", a.depth, 1, MAX_DEPTH)?;
        Ok(Box::new(LsCall {
            start: Start::resolve(scope, &a.path)?,
            show_hidden: a.show_hidden,
            depth: usize::try_from(depth).unwrap_or(usize::MAX),
        }))
    }
}

struct LsCall {
    start: Start,
    show_hidden: bool,
    depth: usize,
}

impl Invocation for LsCall {
    fn summary(&self) -> String {
        format!("ls {}", self.start.shown)
    }

    fn subject(&self) -> Subject {
        self.start.subject()
    }

    fn run(self: Box<Self>, ctx: RunContext) -> RunFuture {
        run_blocking(ctx, move |ctx| ls(&self, ctx))
    }
}

fn ls(call: &LsCall, ctx: &RunContext) -> ToolOutput {
    let scope = ctx.scope.clone();
    let start = &call.start;
    if start.kind != FileKind::Directory {
        // A single file: its own line, like `ls FILE`.
        return match start.entry(&scope) {
            Ok(entry) => ToolOutput::ok(entry.describe(&text::escape(&start.shown), &scope) + "\n"),
            Err(e) => ToolOutput::error(e.to_string()),
        };
    }
    let mut buf = text::out_buf(ctx);
    let mut shown = 0usize;
    let opts = WalkOptions {
        max_depth: call.depth,
        show_hidden: call.show_hidden,
        gitignore: false,
        skip_vcs: false,
    };
    let mut walker = Walker::new(ctx, &scope, opts);
    walker.walk(&start.real, &mut |e| {
        let name = e
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let indent = "  ".repeat(e.depth.saturating_sub(1));
        shown += 1;
        if buf.line(&format!(
            "{indent}{}",
            e.describe(&text::escape(&name), &scope)
        )) {
            Flow::Continue
        } else {
            Flow::Stop
        }
    });
    let stats = walker.stats;
    if shown == 0 && !buf.is_truncated() {
        buf.line("(empty directory)");
    }
    let mut out = text::finish(buf, ctx, cut_note(&stats, ctx));
    if stats.hidden > 0 {
        text::append_note(
            &mut out,
            &format!(
                "{} hidden entries (names starting with '.') not shown; use show_hidden=true",
                stats.hidden
            ),
        );
    }
    if !stats.cut_short() {
        for note in skipped_notes(&stats, ctx) {
            text::append_note(&mut out, &note);
        }
    } else if stats.excluded > 0 {
        text::append_note(
            &mut out,
            &format!("{} excluded entries hidden", stats.excluded),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::readonly::testutil::{prepare_err, run, run_with};
    use std::os::unix::fs::symlink;

    fn tree(dir: &std::path::Path) {
        std::fs::create_dir_all(dir.join("src/deep/deeper/deepest")).unwrap();
        std::fs::write(dir.join("src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(dir.join("src/deep/deeper/deepest/x"), "x").unwrap();
        std::fs::write(dir.join("README.md"), "hello").unwrap();
        std::fs::write(dir.join(".hidden"), "").unwrap();
        std::fs::write(dir.join(".env"), "SECRET=1").unwrap();
        std::fs::write(dir.join("server.pem"), "KEY").unwrap();
        symlink("/etc", dir.join("etc-link")).unwrap();
    }

    #[test]
    fn lists_kinds_sizes_and_hides() {
        let dir = tempfile::tempdir().unwrap();
        tree(dir.path());
        let out = run(&Ls::new(), dir.path(), json!({}));
        assert!(!out.is_error, "{}", out.text);
        assert_eq!(
            out.text,
            "README.md (5 bytes)\netc-link -> (outside the workspace)\nsrc/\n\
             [1 hidden entries (names starting with '.') not shown; use show_hidden=true]\n\
             [2 excluded entries hidden (airlock never shows them)]\n"
        );
        let out = run(&Ls::new(), dir.path(), json!({"show_hidden": true}));
        assert!(out.text.starts_with(".hidden (0 bytes)\n"), "{}", out.text);
        assert!(!out.text.contains(".env") && !out.text.contains("server.pem"));
    }

    #[test]
    fn tree_depth_and_single_file() {
        let dir = tempfile::tempdir().unwrap();
        tree(dir.path());
        let out = run(&Ls::new(), dir.path(), json!({"path": "src", "depth": 3}));
        assert_eq!(
            out.text,
            "deep/\n  deeper/\n    deepest/\nmain.rs (13 bytes)\n"
        );
        let out = run(&Ls::new(), dir.path(), json!({"path": "src/main.rs"}));
        assert_eq!(out.text, "src/main.rs (13 bytes)\n");
        let e = prepare_err(&Ls::new(), dir.path(), json!({"depth": 4}));
        assert!(e.to_string().contains("between 1 and 3"), "{e}");
        let e = prepare_err(&Ls::new(), dir.path(), json!({"path": "etc-link"}));
        assert!(e.to_string().contains("outside the allowed roots"), "{e}");
    }

    #[test]
    fn entry_limit_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..50 {
            std::fs::write(dir.path().join(format!("f{i:02}")), "").unwrap();
        }
        let out = run_with(&Ls::new(), dir.path(), json!({}), |l| l.max_entries = 10);
        assert!(out.truncated);
        assert!(
            out.text.contains("stopped after visiting 10 entries"),
            "{}",
            out.text
        );
        assert_eq!(out.text.lines().filter(|l| l.starts_with('f')).count(), 10);
    }
}
