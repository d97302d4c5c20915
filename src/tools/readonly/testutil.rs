//! Helpers for the read-only tools' unit tests: a scope over a temp dir
//! with the default exclusions, a run context, and running a tool.

use std::fmt::Write as _;
use std::ops::RangeInclusive;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::scope::{DEFAULT_EXCLUDED, Scope};
use crate::tools::{Limits, RunContext, Tool, ToolError, ToolOutput};

/// A line `l<i>` for each `i` in `range`: `numbered(1..=2)` is `"l1\nl2\n"`.
pub(crate) fn numbered(range: RangeInclusive<usize>) -> String {
    let mut s = String::new();
    for i in range {
        let _ = writeln!(s, "l{i}");
    }
    s
}

/// A scope of `dir` with the default exclusions.
pub(crate) fn scope_in(dir: &Path) -> Scope {
    let excluded: Vec<String> = DEFAULT_EXCLUDED.iter().map(ToString::to_string).collect();
    Scope::new(dir, &[], &excluded).unwrap()
}

/// A run context with the default limits.
pub(crate) fn ctx(scope: &Scope) -> RunContext {
    RunContext {
        call_id: 1,
        agent_id: 1,
        scope: Arc::new(scope.clone()),
        limits: Limits::default(),
        cancel: CancellationToken::new(),
        deadline: Instant::now() + Duration::from_secs(10),
        output: crate::tools::OutputSink::discard(),
        entry_rules: crate::tools::EntryRules::none(),
        shell_check: None,
    }
}

/// Prepare and run `tool` in `dir` with `args`, the limits adjusted by `f`.
pub(crate) fn run_with(
    tool: &dyn Tool,
    dir: &Path,
    args: Value,
    f: impl FnOnce(&mut Limits),
) -> ToolOutput {
    run_ctx(tool, dir, args, |c| f(&mut c.limits))
}

/// Prepare and run `tool` in `dir` with `args`, the context adjusted by `f`.
pub(crate) fn run_ctx(
    tool: &dyn Tool,
    dir: &Path,
    args: Value,
    f: impl FnOnce(&mut RunContext),
) -> ToolOutput {
    let Value::Object(args) = args else {
        panic!("tool arguments must be a JSON object: {args}")
    };
    let scope = scope_in(dir);
    let inv = match tool.prepare(&args, &scope) {
        Ok(inv) => inv,
        Err(e) => panic!("prepare failed: {e}"),
    };
    let mut c = ctx(&scope);
    f(&mut c);
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(inv.run(c))
}

/// Prepare and run `tool` in `dir` with `args` and the default limits.
pub(crate) fn run(tool: &dyn Tool, dir: &Path, args: Value) -> ToolOutput {
    run_with(tool, dir, args, |_| {})
}

/// The error `prepare` returns for `args` (panics if it succeeds).
pub(crate) fn prepare_err(tool: &dyn Tool, dir: &Path, args: Value) -> ToolError {
    let Value::Object(args) = args else {
        panic!("tool arguments must be a JSON object: {args}")
    };
    let scope = scope_in(dir);
    match tool.prepare(&args, &scope) {
        Ok(inv) => panic!("prepare succeeded: {}", inv.summary()),
        Err(e) => e,
    }
}
