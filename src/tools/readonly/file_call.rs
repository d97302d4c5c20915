//! The call shared by the tools that read one file opened through the
//! scope when the call is prepared (`cat`, `wc`, `head`, `tail`,
//! `read_file`): their common arguments, their prepare step, and the
//! invocation that runs their work on the opened file.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::args::{self, PathArgs};
use super::object_schema;
use super::text::{self, Opened};
use crate::call::Subject;
use crate::scope::Scope;
use crate::tools::{Invocation, RunContext, RunFuture, ToolError, ToolOutput, run_blocking};

/// Lines `head` and `tail` show by default.
pub(crate) const DEFAULT_LINES: u64 = 10;
/// Most lines one `head` or `tail` call may ask for.
pub(crate) const MAX_LINES: u64 = 10_000;

/// Files up to this size are read on the async task itself.
const INLINE_BYTES: u64 = 256 * 1024;

/// A call that runs `work` on one file opened at prepare time; the policy
/// subject is that file.
pub(crate) struct FileCall<F> {
    summary: String,
    file: Opened,
    work: F,
}

impl<F> FileCall<F>
where
    F: FnOnce(&Opened, &RunContext) -> ToolOutput + Send + 'static,
{
    /// The invocation for `file`, summarised as `summary`.
    pub fn boxed(summary: String, file: Opened, work: F) -> Box<dyn Invocation> {
        Box::new(Self {
            summary,
            file,
            work,
        })
    }
}

impl<F> Invocation for FileCall<F>
where
    F: FnOnce(&Opened, &RunContext) -> ToolOutput + Send + 'static,
{
    fn summary(&self) -> String {
        self.summary.clone()
    }

    fn subject(&self) -> Subject {
        self.file.subject()
    }

    fn runs_inline(&self) -> bool {
        self.file.size() <= INLINE_BYTES
    }

    fn run(self: Box<Self>, ctx: RunContext) -> RunFuture {
        let inline = self.runs_inline();
        let Self { file, work, .. } = *self;
        if inline {
            // A small regular file (never a FIFO or device: those are refused
            // when opened) is read faster here than via a thread hand-off.
            return Box::pin(async move { work(&file, &ctx) });
        }
        run_blocking(ctx, move |ctx| work(&file, ctx))
    }
}

/// Prepare a tool whose only argument is `path`: open it and run `work`
/// on it; the summary is `TOOL PATH`.
pub(crate) fn prepare_path<F>(
    tool: &str,
    a: &Map<String, Value>,
    scope: &Scope,
    work: F,
) -> Result<Box<dyn Invocation>, ToolError>
where
    F: FnOnce(&Opened, &RunContext) -> ToolOutput + Send + 'static,
{
    let a: PathArgs = args::parse(tool, a)?;
    let file = Opened::open(scope, &a.path)?;
    Ok(FileCall::boxed(
        format!("{tool} {}", file.shown),
        file,
        work,
    ))
}

/// The schema of `head` and `tail`: a file and how many lines.
pub(crate) fn lines_schema() -> Map<String, Value> {
    object_schema(
        json!({
            "path": text::path_prop("File to read, relative to the workspace."),
            "lines": text::int_prop("How many lines.", DEFAULT_LINES, 0, MAX_LINES),
        }),
        &["path"],
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LinesArgs {
    path: String,
    #[serde(default = "default_lines")]
    lines: u64,
}

fn default_lines() -> u64 {
    DEFAULT_LINES
}

/// Prepare `head` or `tail`: check `lines`, open `path` and run `work`
/// with the line count; the summary is `TOOL -n LINES PATH`.
pub(crate) fn prepare_lines(
    tool: &str,
    a: &Map<String, Value>,
    scope: &Scope,
    work: fn(&Opened, u64, &RunContext) -> ToolOutput,
) -> Result<Box<dyn Invocation>, ToolError> {
    let a: LinesArgs = args::parse(tool, a)?;
    let lines = args::check_range(tool, "lines", a.lines, 0, MAX_LINES)?;
    let file = Opened::open(scope, &a.path)?;
    Ok(FileCall::boxed(
        format!("{tool} -n {lines} {}", file.shown),
        file,
        move |f, ctx| work(f, lines, ctx),
    ))
}
