//! `grep`: search file contents, ripgrep-style (the walk honours
//! `.gitignore`, binary files are skipped), `path:line:text` output.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::find::NameGlob;
use super::text::{self, Opened};
use super::walk::{
    Flow, MAX_SEARCH_DEPTH, STOPPED_EARLY, Start, WalkOptions, WalkStats, Walker, skipped_notes,
};
use super::{args, object_schema};
use crate::call::{Subject, ToolKind};
use crate::scope::{FileKind, Scope};
use crate::tools::{
    Invocation, OutputBuf, RunContext, RunFuture, Tool, ToolError, ToolOutput, ToolSpec,
    run_blocking,
};

/// Default and largest `max_results`.
const DEFAULT_RESULTS: u64 = 100;
const MAX_RESULTS: u64 = 10_000;
/// Longest matching line shown in full, in bytes.
const MAX_LINE: usize = 500;

/// The tool's name.
pub const NAME: &str = "grep";

/// The `grep` tool.
pub struct Grep {
    spec: ToolSpec,
}

impl Grep {
    /// Build it.
    pub fn new() -> Self {
        Self {
            spec: ToolSpec {
                name: NAME,
                title: "Search file contents",
                description: "Search text files for a pattern, like ripgrep. The pattern is a \
                    literal string unless regex is true (then Rust regex syntax: `fn \\w+\\(`). \
                    Prints one `path:line:text` per matching line (path relative to the \
                    workspace, 1-based line number, lines longer than 500 bytes cut), in path \
                    order, at most max_results lines; a final note says when there are more. \
                    Searching a directory honours .gitignore and .ignore files, skips `.git`, \
                    binary files, symlinks and excluded (secret) files.",
                kind: ToolKind::Read,
                input_schema: object_schema(
                    json!({
                        "pattern": {
                            "type": "string",
                            "description": "What to search for: literal text, or a regular expression when regex is true.",
                        },
                        "path": {
                            "type": "string",
                            "description": "File or directory to search, relative to the workspace.",
                            "default": ".",
                        },
                        "regex": {
                            "type": "boolean",
                            "description": "Treat pattern as a regular expression.",
                            "default": false,
                        },
                        "ignore_case": {
                            "type": "boolean",
                            "description": "Match case-insensitively.",
                            "default": false,
                        },
                        "include": {
                            "type": "string",
                            "description": "Only search files whose name matches this glob (`*.rs`); with a `/` it is matched against the path relative to `path`.",
                        },
                        "max_depth": text::int_prop("Deepest directory level searched (1: only the directory's own files).", MAX_SEARCH_DEPTH, 1, MAX_SEARCH_DEPTH),
                        "max_results": text::int_prop("Most matching lines returned.", DEFAULT_RESULTS, 1, MAX_RESULTS),
                    }),
                    &["pattern"],
                ),
            },
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    pattern: String,
    #[serde(default = "args::dot")]
    path: String,
    #[serde(default)]
    regex: bool,
    #[serde(default)]
    ignore_case: bool,
    #[serde(default)]
    include: Option<String>,
    #[serde(default = "max_depth")]
    max_depth: u64,
    #[serde(default = "max_results")]
    max_results: u64,
}

fn max_depth() -> u64 {
    MAX_SEARCH_DEPTH
}
fn max_results() -> u64 {
    DEFAULT_RESULTS
}

/// What is searched: one file opened at prepare time, or a directory walk.
enum Target {
    File(Opened),
    Dir(Start),
}

impl Tool for Grep {
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
        if a.pattern.is_empty() {
            return Err(args::invalid(name, "pattern must not be empty"));
        }
        let max_depth = args::check_range(name, "max_depth", a.max_depth, 1, MAX_SEARCH_DEPTH)?;
        let max_results = args::check_range(name, "max_results", a.max_results, 1, MAX_RESULTS)?;
        let matcher = RegexMatcherBuilder::new()
            .case_insensitive(a.ignore_case)
            .fixed_strings(!a.regex)
            .line_terminator(Some(b'\n'))
            .build(&a.pattern)
            .map_err(|e| args::invalid(name, format!("pattern is not a valid regex: {e}")))?;
        let include = match &a.include {
            Some(g) => Some(NameGlob::new(name, "include", g)?),
            None => None,
        };
        let start = Start::resolve(scope, &a.path)?;
        let target = if start.kind == FileKind::Directory {
            Target::Dir(start)
        } else {
            Target::File(Opened::open(scope, &a.path)?)
        };
        Ok(Box::new(GrepCall {
            pattern: a.pattern,
            regex: a.regex,
            shown: a.path,
            matcher,
            include,
            max_depth: usize::try_from(max_depth).unwrap_or(usize::MAX),
            max_results,
            target,
        }))
    }
}

struct GrepCall {
    pattern: String,
    regex: bool,
    shown: String,
    matcher: RegexMatcher,
    include: Option<NameGlob>,
    max_depth: usize,
    max_results: u64,
    target: Target,
}

impl Invocation for GrepCall {
    fn summary(&self) -> String {
        format!("grep {:?} in {}", self.pattern, self.shown)
    }

    fn subject(&self) -> Subject {
        match &self.target {
            Target::File(f) => f.subject(),
            Target::Dir(d) => d.subject(),
        }
    }

    fn run(self: Box<Self>, ctx: RunContext) -> RunFuture {
        run_blocking(ctx, move |ctx| grep(&self, ctx))
    }
}

/// State shared across the files of one search.
struct Search<'a> {
    ctx: &'a RunContext,
    matcher: &'a RegexMatcher,
    searcher: Searcher,
    buf: OutputBuf,
    results: u64,
    max_results: u64,
    more: bool,
    files: u64,
    binary: u64,
    unreadable: u64,
    read_left: u64,
    read_cut: bool,
    stopped: bool,
}

impl Search<'_> {
    /// Whether the search must end (results, output, read budget, time).
    fn done(&self) -> bool {
        self.more || self.buf.is_truncated() || self.read_cut || self.stopped
    }

    /// Search one opened file, shown as `shown`.
    fn file(&mut self, shown: &str, file: &File, size: u64) {
        self.files += 1;
        let mut reader = Bounded {
            file,
            left: &mut self.read_left,
            read: 0,
            ctx: self.ctx,
            stopped: false,
        };
        let mut sink = GrepSink {
            shown,
            buf: &mut self.buf,
            results: &mut self.results,
            max: self.max_results,
            more: &mut self.more,
            binary: false,
            ctx: self.ctx,
        };
        let res = self
            .searcher
            .search_reader(self.matcher, &mut reader, &mut sink);
        let binary = sink.binary;
        if reader.stopped {
            self.stopped = true;
        } else if *reader.left == 0 && reader.read < size {
            self.read_cut = true;
        }
        if binary {
            self.binary += 1;
        }
        if let Err(e) = res {
            tracing::debug!("grep: {shown}: {e}");
            self.unreadable += 1;
        }
    }
}

/// Reads the opened file, counting against the call's read budget and
/// ending early when the call must stop.
struct Bounded<'a> {
    file: &'a File,
    left: &'a mut u64,
    read: u64,
    ctx: &'a RunContext,
    stopped: bool,
}

impl Read for Bounded<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if *self.left == 0 || out.is_empty() {
            return Ok(0);
        }
        if self.ctx.should_stop() {
            self.stopped = true;
            return Ok(0);
        }
        let want = out
            .len()
            .min(usize::try_from(*self.left).unwrap_or(usize::MAX));
        let n = (&mut &*self.file).read(&mut out[..want])?;
        *self.left -= n as u64;
        self.read += n as u64;
        Ok(n)
    }
}

struct GrepSink<'a> {
    shown: &'a str,
    buf: &'a mut OutputBuf,
    results: &'a mut u64,
    max: u64,
    more: &'a mut bool,
    binary: bool,
    ctx: &'a RunContext,
}

impl Sink for GrepSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _s: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        if *self.results >= self.max {
            *self.more = true;
            return Ok(false);
        }
        let line = String::from_utf8_lossy(mat.bytes());
        let line = line.trim_end_matches('\n').trim_end_matches('\r');
        let n = mat.line_number().unwrap_or(0);
        *self.results += 1;
        let ok = self.buf.line(&format!(
            "{}:{n}:{}",
            self.shown,
            text::clip_line(line, MAX_LINE)
        ));
        Ok(ok && !self.ctx.should_stop())
    }

    fn binary_data(&mut self, _s: &Searcher, _offset: u64) -> Result<bool, io::Error> {
        self.binary = true;
        Ok(false)
    }
}

fn grep(call: &GrepCall, ctx: &RunContext) -> ToolOutput {
    let scope = ctx.scope.clone();
    let mut s = Search {
        ctx,
        matcher: &call.matcher,
        searcher: SearcherBuilder::new()
            .line_number(true)
            .binary_detection(BinaryDetection::quit(0))
            .build(),
        buf: text::out_buf(ctx),
        results: 0,
        max_results: call.max_results,
        more: false,
        files: 0,
        binary: 0,
        unreadable: 0,
        read_left: ctx.limits.max_read_bytes,
        read_cut: false,
        stopped: false,
    };
    let mut stats = None;
    match &call.target {
        Target::File(f) => s.file(&text::shown(&scope, &f.real), &f.file, f.size()),
        Target::Dir(start) => {
            let opts = WalkOptions::search(call.max_depth, true);
            let mut walker = Walker::new(ctx, &scope, opts);
            walker.walk(&start.real, &mut |e| {
                if e.kind != FileKind::File {
                    return Flow::Continue;
                }
                if let Some(g) = &call.include
                    && !g.is_match(&start.real, &e.path)
                {
                    return Flow::Continue;
                }
                search_walked(&mut s, &scope, &e.path);
                if s.done() { Flow::Stop } else { Flow::Continue }
            });
            stats = Some(walker.stats);
        }
    }
    finish(call, s, stats.as_ref(), ctx)
}

/// Open a walked file through the scope and search what was opened.
fn search_walked(s: &mut Search<'_>, scope: &Scope, path: &Path) {
    match scope.open_walked_file(path) {
        Ok((file, meta)) => s.file(&text::shown(scope, path), &file, meta.len()),
        Err(e) => {
            tracing::debug!("grep: skipping {}: {e}", path.display());
            s.unreadable += 1;
        }
    }
}

fn finish(
    call: &GrepCall,
    s: Search<'_>,
    stats: Option<&WalkStats>,
    ctx: &RunContext,
) -> ToolOutput {
    let mut buf = s.buf;
    let mut notes: Vec<String> = Vec::new();
    let mut cut: Vec<String> = Vec::new();
    if s.more {
        notes.push(format!(
            "showing the first {} matching lines; there are more (max_results={}). Narrow the pattern, path or include, or raise max_results",
            s.results, call.max_results
        ));
    }
    if s.read_cut {
        cut.push(format!(
            "{}; later files were not searched",
            text::read_limit_reached(ctx)
        ));
    }
    if s.stopped {
        cut.push(STOPPED_EARLY.into());
    }
    if let Some(st) = stats {
        if st.cut_short() {
            cut.extend(
                skipped_notes(st, ctx)
                    .into_iter()
                    .filter(|n| n.starts_with("stopped")),
            );
        }
        notes.extend(
            skipped_notes(st, ctx)
                .into_iter()
                .filter(|n| !n.starts_with("stopped")),
        );
    }
    if s.binary > 0 {
        notes.push(format!("{} binary files skipped", s.binary));
    }
    if s.unreadable > 0 {
        notes.push(format!(
            "{} files could not be opened or read",
            s.unreadable
        ));
    }
    if s.results == 0 && !buf.is_truncated() {
        let what = if call.regex { "regex" } else { "text" };
        buf.line(&format!(
            "no matches for {what} {:?} in {} ({} files searched{})",
            call.pattern,
            text::escape(&call.shown),
            s.files,
            stats
                .filter(|st| st.ignored > 0)
                .map(|st| format!(", {} entries skipped by .gitignore/.git", st.ignored))
                .unwrap_or_default()
        ));
    }
    let cut = (!cut.is_empty()).then(|| cut.join("; "));
    let mut out = text::finish(buf, ctx, cut);
    for n in notes {
        text::append_note(&mut out, &n);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::readonly::testutil::{prepare_err, run, run_ctx, run_with};
    use std::fmt::Write as _;
    use std::os::unix::fs::symlink;

    fn tree(dir: &Path) {
        std::fs::create_dir_all(dir.join("src/sub")).unwrap();
        std::fs::create_dir_all(dir.join("target")).unwrap();
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        std::fs::write(dir.join(".gitignore"), "target/\n*.log\n").unwrap();
        std::fs::write(dir.join("src/main.rs"), "fn main() {\n    // TODO: x\n}\n").unwrap();
        std::fs::write(dir.join("src/sub/lib.rs"), "// todo lower\n// TODO upper\n").unwrap();
        std::fs::write(dir.join("src/notes.txt"), "TODO in text\n").unwrap();
        std::fs::write(dir.join("target/gen.rs"), "// TODO generated\n").unwrap();
        std::fs::write(dir.join("run.log"), "TODO log\n").unwrap();
        std::fs::write(dir.join(".git/config"), "TODO git\n").unwrap();
        std::fs::write(dir.join(".env"), "TODO=secret-env\n").unwrap();
        std::fs::write(dir.join("bin.dat"), b"TODO\0\x01\x02").unwrap();
        symlink("/etc/hostname", dir.join("src/link")).unwrap();
    }

    #[test]
    fn literal_search_honours_gitignore_and_skips_secrets() {
        let dir = tempfile::tempdir().unwrap();
        tree(dir.path());
        let out = run(&Grep::new(), dir.path(), json!({"pattern": "TODO"}));
        assert!(!out.is_error, "{}", out.text);
        assert_eq!(
            out.text,
            "src/main.rs:2:    // TODO: x\nsrc/notes.txt:1:TODO in text\nsrc/sub/lib.rs:2:// TODO upper\n\
             [1 excluded entries hidden (airlock never shows them)]\n[1 binary files skipped]\n"
        );
        let out = run(
            &Grep::new(),
            dir.path(),
            json!({"pattern": "todo", "ignore_case": true, "include": "*.rs"}),
        );
        let lines: Vec<&str> = out.text.lines().filter(|l| !l.starts_with('[')).collect();
        assert_eq!(
            lines,
            [
                "src/main.rs:2:    // TODO: x",
                "src/sub/lib.rs:1:// todo lower",
                "src/sub/lib.rs:2:// TODO upper"
            ]
        );
        // An explicitly named ignored directory is searched.
        let out = run(
            &Grep::new(),
            dir.path(),
            json!({"pattern": "TODO", "path": "target"}),
        );
        assert!(out.text.starts_with("target/gen.rs:1:"), "{}", out.text);
        // A single file.
        let out = run(
            &Grep::new(),
            dir.path(),
            json!({"pattern": "main", "path": "src/main.rs"}),
        );
        assert_eq!(out.text, "src/main.rs:1:fn main() {\n");
    }

    #[test]
    fn regex_mode_and_literal_metacharacters() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.rs"),
            "fn foo(x: u8)\nfn bar()\nlet y = a.b;\n",
        )
        .unwrap();
        let out = run(
            &Grep::new(),
            dir.path(),
            json!({"pattern": "fn \\w+\\(", "regex": true}),
        );
        assert_eq!(out.text, "a.rs:1:fn foo(x: u8)\na.rs:2:fn bar()\n");
        let out = run(&Grep::new(), dir.path(), json!({"pattern": "a.b"}));
        assert_eq!(out.text, "a.rs:3:let y = a.b;\n");
        let out = run(&Grep::new(), dir.path(), json!({"pattern": "a.b("}));
        assert!(
            out.text
                .starts_with("no matches for text \"a.b(\" in . (1 files searched)"),
            "{}",
            out.text
        );
        let e = prepare_err(
            &Grep::new(),
            dir.path(),
            json!({"pattern": "(", "regex": true}),
        );
        assert!(e.to_string().contains("not a valid regex"), "{e}");
        let e = prepare_err(&Grep::new(), dir.path(), json!({"pattern": ""}));
        assert!(e.to_string().contains("must not be empty"), "{e}");
        let long = "*".repeat(super::super::find::MAX_GLOB_BYTES + 1);
        let e = prepare_err(
            &Grep::new(),
            dir.path(),
            json!({"pattern": "a", "include": long}),
        );
        assert!(
            e.to_string().contains("include is too long: 4097 bytes"),
            "{e}"
        );
    }

    #[test]
    fn max_results_and_read_limit() {
        let dir = tempfile::tempdir().unwrap();
        let body = (0..500).fold(String::new(), |mut b, i| {
            let _ = writeln!(b, "match {i}");
            b
        });
        std::fs::write(dir.path().join("a.txt"), &body).unwrap();
        std::fs::write(dir.path().join("b.txt"), &body).unwrap();
        let out = run(
            &Grep::new(),
            dir.path(),
            json!({"pattern": "match", "max_results": 5}),
        );
        assert_eq!(
            out.text.lines().filter(|l| l.starts_with("a.txt:")).count(),
            5
        );
        assert!(
            out.text.contains("there are more (max_results=5)"),
            "{}",
            out.text
        );
        let out = run_with(
            &Grep::new(),
            dir.path(),
            json!({"pattern": "match", "max_results": 10000}),
            |l| l.max_read_bytes = 4000,
        );
        assert!(out.truncated, "{}", out.text);
        assert!(out.text.contains("read limit of 4000 bytes"));
        assert!(!out.text.contains("b.txt:"));
    }

    #[test]
    fn hostile_ignore_files_do_not_hang_or_leak() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a")).unwrap();
        std::fs::create_dir_all(dir.path().join("b")).unwrap();
        // A FIFO as .gitignore would block a naive walker forever, and
        // /dev/zero would be read without end.
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            dir.path().join("a/.gitignore"),
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        symlink("/dev/zero", dir.path().join("b/.gitignore")).unwrap();
        std::fs::write(dir.path().join("a/x.txt"), "needle a\n").unwrap();
        std::fs::write(dir.path().join("b/y.txt"), "needle b\n").unwrap();
        let out = run(&Grep::new(), dir.path(), json!({"pattern": "needle"}));
        assert_eq!(out.text, "a/x.txt:1:needle a\nb/y.txt:1:needle b\n");
    }

    #[test]
    fn a_cancelled_call_stops_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..20 {
            std::fs::write(dir.path().join(format!("f{i}")), "needle\n").unwrap();
        }
        let out = run_ctx(
            &Grep::new(),
            dir.path(),
            json!({"pattern": "needle"}),
            |c| c.cancel.cancel(),
        );
        assert!(out.truncated, "{}", out.text);
        assert!(out.text.contains("stopped early"), "{}", out.text);
        assert!(!out.text.contains("f19:1:needle"), "{}", out.text);
    }
}
