//! Native writes in airlock's terms: the same scope checks as airlock's
//! write tools and a diff computed from the file on disk, so the prompt
//! shows exactly what the agent will change. Each path is the one the
//! agent's tool writes: a relative one against the event's `cwd`
//! ([`agent_path`]).

use std::path::Path;

use serde_json::{Map, Value};

use super::agent_path;
use super::mapped::{Mapped, NativeCall, airlock_tool, one_line, unreadable};
use crate::call::{CallView, Subject, ToolKind, WriteAction};
use crate::scope::Scope;
use crate::tools::ToolError;
use crate::tools::write::{
    EDIT_FILE, MAX_FILE_BYTES, WRITE_FILE, edit_file_args, propose, replace_text, resolve,
    write_file_args,
};

pub(super) fn write_call(native: &str) -> NativeCall {
    let mut call = NativeCall::new(ToolKind::Write, WRITE_FILE, one_line(native));
    call.view = CallView::Change;
    call
}

pub(super) fn invalid(native: &str, message: impl Into<String>) -> ToolError {
    ToolError::InvalidArguments {
        tool: native.to_string(),
        message: message.into(),
    }
}

fn text<'a>(input: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
}

/// Prepare airlock's `tool` with `args` and take its summary, subject and
/// proposal (its scope check and diff, the same messages).
fn through(native: &str, tool: &str, args: &Map<String, Value>, scope: &Scope) -> Mapped {
    let mut call = write_call(native);
    match airlock_tool(tool).prepare(args, scope) {
        Ok(inv) => {
            call.summary = one_line(&inv.summary());
            call.subject = inv.subject();
            call.proposal = inv.proposal().map(std::sync::Arc::unwrap_or_clone);
            call.grant = inv.grant();
            Mapped::Call(call)
        }
        Err(error) => Mapped::Refused { call, error },
    }
}

/// A write refused before it is judged (its path cannot be resolved).
fn refused(native: &str, error: ToolError) -> Mapped {
    Mapped::Refused {
        call: write_call(native),
        error,
    }
}

/// Claude `Edit`, Gemini `replace`: exact text replaced, like `edit_file`.
pub fn edit(native: &str, input: &Map<String, Value>, cwd: Option<&Path>, scope: &Scope) -> Mapped {
    let (Some(path), Some(old), Some(new)) = (
        text(input, &["file_path", "path"]),
        text(input, &["old_string"]),
        text(input, &["new_string"]),
    ) else {
        return unreadable(
            ToolKind::Write,
            WRITE_FILE,
            native,
            "no file_path, old_string or new_string",
        );
    };
    let path = match agent_path::resolve(native, cwd, path) {
        Ok(p) => p,
        Err(e) => return refused(native, e),
    };
    let path = path.as_str();
    if old.is_empty() {
        // Gemini creates a file with an empty old_string.
        return through(native, WRITE_FILE, &write_file_args(path, new), scope);
    }
    let replace_all = input
        .get("replace_all")
        .and_then(Value::as_bool)
        .unwrap_or(false)
        || input
            .get("expected_replacements")
            .and_then(Value::as_u64)
            .is_some_and(|n| n > 1);
    let a = edit_file_args(path, old, new, replace_all);
    through(native, EDIT_FILE, &a, scope)
}

/// Claude `Write`, Gemini `write_file`: the whole file, like `write_file`.
pub fn write(
    native: &str,
    input: &Map<String, Value>,
    cwd: Option<&Path>,
    scope: &Scope,
) -> Mapped {
    let (Some(path), Some(content)) = (
        text(input, &["file_path", "path"]),
        text(input, &["content"]),
    ) else {
        return unreadable(
            ToolKind::Write,
            WRITE_FILE,
            native,
            "no file_path or content",
        );
    };
    match agent_path::resolve(native, cwd, path) {
        Ok(path) => through(native, WRITE_FILE, &write_file_args(&path, content), scope),
        Err(e) => refused(native, e),
    }
}

/// The file at `path` for writing (scope-checked like airlock's writes:
/// a file the hard-link check refuses gives no content, size or match)
/// and its current content, if it exists.
pub(super) fn current(
    scope: &Scope,
    path: &str,
) -> Result<(String, std::path::PathBuf, Option<Vec<u8>>), ToolError> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let target = resolve(scope, path)?;
    let real = target.path();
    let shown = scope.display(&real);
    let unreadable = |e: std::io::Error| ToolError::InvalidArguments {
        tool: "write".into(),
        message: format!("{shown}: cannot read it to show the change: {e}"),
    };
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(&real)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((shown, real, None)),
        Err(e) => return Err(unreadable(e)),
    };
    let meta = file.metadata().map_err(unreadable)?;
    if !meta.is_file() {
        return Err(unreadable(std::io::Error::other("not a regular file")));
    }
    scope.check_links(&shown, &real, &meta)?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(ToolError::InvalidArguments {
            tool: "write".into(),
            message: format!(
                "{shown}: larger than {MAX_FILE_BYTES} bytes; airlock cannot show the change"
            ),
        });
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    Ok((shown, real, Some(bytes)))
}

/// Claude `MultiEdit`: several exact replacements in one file, in order.
pub fn multi_edit(
    native: &str,
    input: &Map<String, Value>,
    cwd: Option<&Path>,
    scope: &Scope,
) -> Mapped {
    let (Some(path), Some(Value::Array(edits))) = (text(input, &["file_path"]), input.get("edits"))
    else {
        return unreadable(ToolKind::Write, WRITE_FILE, native, "no file_path or edits");
    };
    let path = match agent_path::resolve(native, cwd, path) {
        Ok(p) => p,
        Err(e) => return refused(native, e),
    };
    let path = path.as_str();
    let mut call = write_call(native);
    let result = (|| {
        let (shown, real, old) = current(scope, path)?;
        let old = old.ok_or_else(|| invalid(native, format!("{shown}: not found")))?;
        let mut now = String::from_utf8(old.clone())
            .map_err(|_| invalid(native, format!("{shown}: not a text file")))?;
        for (i, e) in edits.iter().enumerate() {
            let field = |k: &str| e.get(k).and_then(Value::as_str);
            let (Some(o), Some(n)) = (field("old_string"), field("new_string")) else {
                return Err(invalid(
                    native,
                    format!("edit {} has no old_string or new_string", i + 1),
                ));
            };
            let all = e
                .get("replace_all")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            now = replace_text(&now, o, n, all)
                .map_err(|m| invalid(native, format!("{shown}: edit {}: {m}", i + 1)))?
                .0;
        }
        let p = propose(&shown, WriteAction::Edit, Some(&old), now.as_bytes());
        Ok((real, p))
    })();
    match result {
        Ok((real, p)) => {
            call.summary = one_line(&format!(
                "edit {} ({}, {} edits)",
                p.path,
                p.summary(),
                edits.len()
            ));
            call.grant = crate::tools::write::grant(real.clone(), &p.path);
            call.subject = Subject::Paths { paths: vec![real] };
            call.proposal = Some(p);
            Mapped::Call(call)
        }
        Err(error) => Mapped::Refused { call, error },
    }
}

/// Claude `NotebookEdit`: scope-checked; the prompt shows the arguments.
pub fn notebook(
    native: &str,
    input: &Map<String, Value>,
    cwd: Option<&Path>,
    scope: &Scope,
) -> Mapped {
    let Some(path) = text(input, &["notebook_path"]) else {
        return unreadable(ToolKind::Write, WRITE_FILE, native, "no notebook_path");
    };
    let path = match agent_path::resolve(native, cwd, path) {
        Ok(p) => p,
        Err(e) => return refused(native, e),
    };
    let path = path.as_str();
    let mut call = write_call(native);
    call.view = CallView::Args;
    match resolve(scope, path) {
        Ok(t) => {
            call.summary = one_line(&format!("{native} {}", scope.display(&t.path())));
            call.subject = Subject::Paths {
                paths: vec![t.path()],
            };
            Mapped::Call(call)
        }
        Err(e) => Mapped::Refused {
            call,
            error: e.into(),
        },
    }
}
