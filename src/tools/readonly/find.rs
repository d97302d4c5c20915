//! `find`: entries whose name (or relative path) matches a glob.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::text;
use super::walk::{
    Entry, Flow, MAX_SEARCH_DEPTH, Start, WalkOptions, WalkStats, Walker, cut_note, skipped_notes,
};
use super::{args, object_schema};
use crate::call::{Subject, ToolKind};
use crate::scope::{FileKind, Scope};
use crate::tools::{
    Invocation, OutputBuf, RunContext, RunFuture, Tool, ToolError, ToolOutput, ToolSpec,
    run_blocking,
};

/// Default `max_depth`.
const DEFAULT_DEPTH: u64 = 20;
/// Longest name glob an agent may give (`find`'s `pattern`, `grep`'s
/// `include`): far beyond any real one, and short enough that compiling it
/// takes no noticeable time (a 1 MiB glob held the call for minutes).
pub(crate) const MAX_GLOB_BYTES: usize = 4096;

/// The tool's name.
pub const NAME: &str = "find";

/// The `find` tool.
pub struct Find {
    spec: ToolSpec,
}

impl Find {
    /// Build it.
    pub fn new() -> Self {
        Self {
            spec: ToolSpec {
                name: NAME,
                title: "Find files by name",
                description: "Find entries under a directory whose name matches a glob \
                    (`*.rs`, `test_*`, `{Cargo.toml,*.lock}`); a pattern containing `/` is \
                    matched against the path relative to `path` instead (`src/**/*.rs`). \
                    Prints one path per line, relative to the workspace, in name order; \
                    directories end with `/`, symlinks show `-> target`. Lists everything, \
                    .gitignored files and dot files included, except excluded entries \
                    (secrets) and the inside of `.git`. Never follows symlinks.",
                kind: ToolKind::Read,
                input_schema: object_schema(
                    json!({
                        "path": {
                            "type": "string",
                            "description": "Directory to search, relative to the workspace.",
                            "default": ".",
                        },
                        "pattern": {
                            "type": "string",
                            "description": "Glob matched against each entry's name (or, if it contains `/`, its path relative to `path`). Case-sensitive.",
                            "default": "*",
                        },
                        "file_type": {
                            "type": "string",
                            "enum": ["all", "file", "directory"],
                            "description": "Which entries: regular files, directories, or all (also symlinks and special files).",
                            "default": "all",
                        },
                        "max_depth": text::int_prop("Deepest level searched: 1 is the directory's own entries; 0 only tests `path` itself.", DEFAULT_DEPTH, 0, MAX_SEARCH_DEPTH),
                    }),
                    &[],
                ),
            },
        }
    }
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum FileType {
    All,
    File,
    Directory,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    #[serde(default = "args::dot")]
    path: String,
    #[serde(default = "star")]
    pattern: String,
    #[serde(default = "all")]
    file_type: FileType,
    #[serde(default = "default_depth")]
    max_depth: u64,
}

fn star() -> String {
    "*".into()
}
fn all() -> FileType {
    FileType::All
}
fn default_depth() -> u64 {
    DEFAULT_DEPTH
}

/// A glob for names, or for relative paths when it contains `/`.
pub(crate) struct NameGlob {
    /// The one glob (a set, whose compilation reports errors where a
    /// single glob's matcher would panic).
    matcher: GlobSet,
    on_path: bool,
}

impl NameGlob {
    /// Compile `pattern`, naming `param` in the error.
    pub fn new(tool: &str, param: &str, pattern: &str) -> Result<Self, ToolError> {
        if pattern.len() > MAX_GLOB_BYTES {
            return Err(args::invalid(
                tool,
                format!(
                    "{param} is too long: {} bytes (the limit is {MAX_GLOB_BYTES})",
                    pattern.len()
                ),
            ));
        }
        let invalid =
            |e: globset::Error| args::invalid(tool, format!("{param} is not a valid glob: {e}"));
        let glob = GlobBuilder::new(pattern)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(invalid)?;
        let matcher = GlobSetBuilder::new().add(glob).build().map_err(invalid)?;
        Ok(Self {
            matcher,
            on_path: pattern.contains('/'),
        })
    }

    /// Whether `path` (below `base`) matches.
    pub fn is_match(&self, base: &std::path::Path, path: &std::path::Path) -> bool {
        if self.on_path {
            path.strip_prefix(base)
                .is_ok_and(|rel| self.matcher.is_match(rel))
        } else {
            path.file_name().is_some_and(|n| self.matcher.is_match(n))
        }
    }
}

impl Tool for Find {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn subject_args(&self) -> &'static [&'static str] {
        &["path", "pattern"]
    }

    fn prepare(
        &self,
        a: &Map<String, Value>,
        scope: &Scope,
    ) -> Result<Box<dyn Invocation>, ToolError> {
        let name = self.spec.name;
        let a: Args = args::parse(name, a)?;
        let max_depth = args::check_range(name, "max_depth", a.max_depth, 0, MAX_SEARCH_DEPTH)?;
        let glob = NameGlob::new(name, "pattern", &a.pattern)?;
        Ok(Box::new(FindCall {
            start: Start::resolve(scope, &a.path)?,
            pattern: a.pattern,
            glob,
            file_type: a.file_type,
            max_depth: usize::try_from(max_depth).unwrap_or(usize::MAX),
        }))
    }
}

struct FindCall {
    start: Start,
    pattern: String,
    glob: NameGlob,
    file_type: FileType,
    max_depth: usize,
}

impl Invocation for FindCall {
    fn summary(&self) -> String {
        format!("find {} -name {}", self.start.shown, self.pattern)
    }

    fn subject(&self) -> Subject {
        self.start.subject()
    }

    fn run(self: Box<Self>, ctx: RunContext) -> RunFuture {
        run_blocking(ctx, move |ctx| find(&self, ctx))
    }
}

fn wanted(t: FileType, kind: FileKind) -> bool {
    match t {
        FileType::All => true,
        FileType::File => kind == FileKind::File,
        FileType::Directory => kind == FileKind::Directory,
    }
}

fn find(call: &FindCall, ctx: &RunContext) -> ToolOutput {
    let scope = ctx.scope.clone();
    let start = &call.start;
    let mut buf = text::out_buf(ctx);
    let mut found = 0usize;
    let mut report = |e: &Entry, buf: &mut OutputBuf| -> bool {
        found += 1;
        buf.line(&e.describe(&text::shown(&scope, &e.path), &scope))
    };
    if start.kind != FileKind::Directory || call.max_depth == 0 {
        // Only the start itself is tested.
        if let Ok(e) = start.entry(&scope) {
            let base = start.real.parent().unwrap_or(&start.real);
            if wanted(call.file_type, e.kind) && call.glob.is_match(base, &e.path) {
                report(&e, &mut buf);
            }
        }
        return done(call, buf, found, None, ctx);
    }
    let mut walker = Walker::new(ctx, &scope, WalkOptions::search(call.max_depth, false));
    walker.walk(&start.real, &mut |e| {
        if !wanted(call.file_type, e.kind) || !call.glob.is_match(&start.real, &e.path) {
            return Flow::Continue;
        }
        if report(e, &mut buf) {
            Flow::Continue
        } else {
            Flow::Stop
        }
    });
    done(call, buf, found, Some(walker.stats), ctx)
}

fn done(
    call: &FindCall,
    mut buf: OutputBuf,
    found: usize,
    stats: Option<WalkStats>,
    ctx: &RunContext,
) -> ToolOutput {
    if found == 0 && !buf.is_truncated() {
        buf.line(&format!(
            "no entries matching {:?} under {}",
            call.pattern,
            text::escape(&call.start.shown)
        ));
    }
    let Some(stats) = stats else {
        return text::finish(buf, ctx, None);
    };
    let mut out = text::finish(buf, ctx, cut_note(&stats, ctx));
    if !stats.cut_short() {
        for note in skipped_notes(&stats, ctx) {
            text::append_note(&mut out, &note);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::readonly::testutil::{prepare_err, run, run_ctx, run_with};
    use std::os::unix::fs::symlink;

    fn tree(dir: &std::path::Path) {
        std::fs::create_dir_all(dir.join("src/a/b")).unwrap();
        std::fs::create_dir_all(dir.join(".git/objects")).unwrap();
        std::fs::create_dir_all(dir.join("target")).unwrap();
        std::fs::write(dir.join(".gitignore"), "target/\n").unwrap();
        std::fs::write(dir.join("target/out.rs"), "").unwrap();
        std::fs::write(dir.join("src/main.rs"), "").unwrap();
        std::fs::write(dir.join("src/a/lib.rs"), "").unwrap();
        std::fs::write(dir.join("src/a/b/deep.rs"), "").unwrap();
        std::fs::write(dir.join("src/a/notes.txt"), "").unwrap();
        std::fs::write(dir.join(".git/objects/x.rs"), "").unwrap();
        std::fs::write(dir.join("src/.env"), "").unwrap();
        std::fs::write(dir.join("src/key.pem"), "").unwrap();
        symlink("/usr", dir.join("src/usr-link")).unwrap();
    }

    #[test]
    fn globs_names_and_paths() {
        let dir = tempfile::tempdir().unwrap();
        tree(dir.path());
        let out = run(&Find::new(), dir.path(), json!({"pattern": "*.rs"}));
        assert_eq!(
            out.text,
            "src/a/b/deep.rs (0 bytes)\nsrc/a/lib.rs (0 bytes)\nsrc/main.rs (0 bytes)\n\
             target/out.rs (0 bytes)\n[2 excluded entries hidden (airlock never shows them)]\n"
        );
        let out = run(
            &Find::new(),
            dir.path(),
            json!({"path": "src", "pattern": "a/*.rs"}),
        );
        assert!(
            out.text.starts_with("src/a/lib.rs (0 bytes)\n"),
            "{}",
            out.text
        );
        assert!(!out.text.contains("deep.rs"));
        let out = run(
            &Find::new(),
            dir.path(),
            json!({"pattern": "*", "file_type": "directory", "max_depth": 2}),
        );
        assert!(
            out.text.starts_with("src/\nsrc/a/\ntarget/\n"),
            "{}",
            out.text
        );
        let out = run(&Find::new(), dir.path(), json!({"pattern": "usr*"}));
        assert!(
            out.text
                .starts_with("src/usr-link -> (outside the workspace)\n"),
            "{}",
            out.text
        );
        let out = run(&Find::new(), dir.path(), json!({"pattern": "*.none"}));
        assert!(
            out.text.starts_with("no entries matching \"*.none\""),
            "{}",
            out.text
        );
    }

    #[test]
    fn start_file_depth_zero_and_bad_args() {
        let dir = tempfile::tempdir().unwrap();
        tree(dir.path());
        let out = run(
            &Find::new(),
            dir.path(),
            json!({"path": "src/main.rs", "pattern": "*.rs"}),
        );
        assert_eq!(out.text, "src/main.rs (0 bytes)\n");
        let out = run(
            &Find::new(),
            dir.path(),
            json!({"path": "src", "max_depth": 0}),
        );
        assert_eq!(out.text, "src/\n");
        let e = prepare_err(&Find::new(), dir.path(), json!({"pattern": "[oops"}));
        assert!(e.to_string().contains("not a valid glob"), "{e}");
        // The longest glob allowed is taken; one byte more is refused.
        let longest = format!("{}*", "a".repeat(MAX_GLOB_BYTES - 1));
        let out = run(&Find::new(), dir.path(), json!({"pattern": longest}));
        assert!(!out.is_error, "{}", out.text);
        let long = "a".repeat(MAX_GLOB_BYTES + 1);
        let e = prepare_err(&Find::new(), dir.path(), json!({"pattern": long}));
        assert!(
            e.to_string()
                .contains("pattern is too long: 4097 bytes (the limit is 4096)"),
            "{e}"
        );
        let e = prepare_err(&Find::new(), dir.path(), json!({"file_type": "link"}));
        assert!(e.to_string().contains("unknown variant"), "{e}");
        let e = prepare_err(&Find::new(), dir.path(), json!({"max_depth": 101}));
        assert!(e.to_string().contains("between 0 and 100"), "{e}");
    }

    #[test]
    fn output_and_entry_limits() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..3000 {
            std::fs::write(
                dir.path().join(format!("file-with-a-long-name-{i:04}.txt")),
                "",
            )
            .unwrap();
        }
        let out = run(&Find::new(), dir.path(), json!({}));
        assert!(out.truncated);
        assert!(
            out.text.contains("[truncated: output limit"),
            "{}",
            &out.text[out.text.len() - 200..]
        );
        let out = run_with(&Find::new(), dir.path(), json!({}), |l| l.max_entries = 100);
        assert!(out.truncated);
        assert!(out.text.contains("stopped after visiting 100 entries"));
    }

    #[test]
    fn a_call_past_its_deadline_stops_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        tree(dir.path());
        let out = run_ctx(&Find::new(), dir.path(), json!({}), |c| {
            c.deadline = std::time::Instant::now();
        });
        assert!(out.truncated, "{}", out.text);
        assert!(out.text.contains("stopped early"), "{}", out.text);
        assert!(!out.text.contains("main.rs"), "{}", out.text);
    }
}
