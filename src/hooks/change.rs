//! Native writes (and reads of many files) in airlock's terms: the same
//! scope checks as airlock's write tools and a diff computed from the file
//! on disk, so the prompt shows exactly what the agent will change.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Map, Value};

use super::mapped::{Mapped, NativeCall, airlock_tool, one_line, unreadable};
use super::patch::{self, FileOp};
use crate::call::{CallView, Proposal, Subject, ToolKind, WriteAction};
use crate::scope::Scope;
use crate::tools::ToolError;
use crate::tools::readonly::READ_FILE;
use crate::tools::write::{
    EDIT_FILE, MAX_FILE_BYTES, WRITE_FILE, edit_file_args, propose, replace_text, resolve,
    write_file_args,
};

fn write_call(native: &str) -> NativeCall {
    let mut call = NativeCall::new(ToolKind::Write, WRITE_FILE, one_line(native));
    call.view = CallView::Change;
    call
}

fn invalid(native: &str, message: impl Into<String>) -> ToolError {
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

/// Claude `Edit`, Gemini `replace`: exact text replaced, like `edit_file`.
pub fn edit(native: &str, input: &Map<String, Value>, scope: &Scope) -> Mapped {
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
pub fn write(native: &str, input: &Map<String, Value>, scope: &Scope) -> Mapped {
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
    through(native, WRITE_FILE, &write_file_args(path, content), scope)
}

/// The file at `path` for writing (scope-checked like airlock's writes:
/// a file the hard-link check refuses gives no content, size or match)
/// and its current content, if it exists.
fn current(
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
pub fn multi_edit(native: &str, input: &Map<String, Value>, scope: &Scope) -> Mapped {
    let (Some(path), Some(Value::Array(edits))) = (text(input, &["file_path"]), input.get("edits"))
    else {
        return unreadable(ToolKind::Write, WRITE_FILE, native, "no file_path or edits");
    };
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
pub fn notebook(native: &str, input: &Map<String, Value>, scope: &Scope) -> Mapped {
    let Some(path) = text(input, &["notebook_path"]) else {
        return unreadable(ToolKind::Write, WRITE_FILE, native, "no notebook_path");
    };
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

/// Gemini `read_many_files`: every literal path (the part of each pattern
/// before its first wildcard) is checked like a read.
pub fn read_many(native: &str, input: &Map<String, Value>, scope: &Scope) -> Mapped {
    let patterns: Vec<&str> = ["include", "paths"]
        .iter()
        .filter_map(|k| input.get(*k).and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut call = NativeCall::new(
        ToolKind::Read,
        READ_FILE,
        one_line(&format!("{native} {}", patterns.join(" "))),
    );
    let mut paths = Vec::new();
    for pattern in &patterns {
        let literal: String = pattern
            .chars()
            .take_while(|c| !matches!(c, '*' | '?' | '[' | '{'))
            .collect();
        let literal = if literal.is_empty() {
            "."
        } else {
            literal.as_str()
        };
        let checked = scope.absolute(literal).and_then(|abs| {
            scope.check_excluded(pattern, &abs)?;
            match std::fs::canonicalize(&abs) {
                Ok(real) => scope.check_real(pattern, &real).map(|()| real),
                // A prefix that does not exist yet: checked lexically.
                Err(_) => scope.check_real(pattern, &abs).map(|()| abs),
            }
        });
        match checked {
            Ok(p) => paths.push(p),
            Err(e) => {
                return Mapped::Refused {
                    call,
                    error: e.into(),
                };
            }
        }
    }
    call.subject = Subject::Paths { paths };
    Mapped::Call(call)
}

/// Codex `apply_patch`: every file the patch adds, updates, deletes or
/// moves, each scope-checked like a write and diffed against the disk.
pub fn patch(native: &str, text: &str, cwd: Option<&Path>, scope: &Scope) -> Mapped {
    let mut call = write_call(native);
    let result = patch::parse(text)
        .map_err(|e| invalid(native, e.to_string()))
        .and_then(|ops| {
            ops.iter()
                .map(|op| file_change(native, op, cwd, scope))
                .collect::<Result<Vec<_>, _>>()
        });
    match result {
        Ok(changes) => {
            let paths: Vec<_> = changes.iter().flat_map(|c| c.0.clone()).collect();
            let parts: Vec<(String, Proposal)> = changes.into_iter().map(|c| (c.1, c.2)).collect();
            let verbs: Vec<String> = parts
                .iter()
                .map(|(verb, p)| format!("{verb} {}", p.path))
                .collect();
            let proposal = combine(parts.into_iter().map(|p| p.1).collect());
            call.summary = one_line(&format!(
                "apply_patch: {} ({})",
                verbs.join(", "),
                proposal.summary()
            ));
            // A grant covers one file: only a patch of one file has one.
            if let [one] = paths.as_slice() {
                call.grant = crate::tools::write::grant(one.clone(), &proposal.path);
            }
            call.subject = Subject::Paths { paths };
            call.proposal = Some(proposal);
            Mapped::Call(call)
        }
        Err(error) => Mapped::Refused { call, error },
    }
}

type Change = (Vec<std::path::PathBuf>, String, Proposal);

fn file_change(
    native: &str,
    op: &FileOp,
    cwd: Option<&Path>,
    scope: &Scope,
) -> Result<Change, ToolError> {
    let (shown, real, old) = current(scope, &at(cwd, op.path()))?;
    match op {
        FileOp::Add { content, .. } => {
            let p = propose(
                &shown,
                if old.is_some() {
                    WriteAction::Overwrite
                } else {
                    WriteAction::Create
                },
                old.as_deref(),
                content.as_bytes(),
            );
            Ok((vec![real], "add".into(), p))
        }
        FileOp::Delete { .. } => {
            let old = old
                .ok_or_else(|| invalid(native, format!("{shown}: cannot delete it: not found")))?;
            let mut p = propose(&shown, WriteAction::Overwrite, Some(&old), b"");
            p.diff = p
                .diff
                .map(|d| d.replacen(&format!("+++ b/{shown}"), "+++ /dev/null", 1));
            Ok((vec![real], "delete".into(), p))
        }
        FileOp::Update {
            move_to, chunks, ..
        } => {
            let old = old
                .ok_or_else(|| invalid(native, format!("{shown}: cannot update it: not found")))?;
            let before = std::str::from_utf8(&old)
                .map_err(|_| invalid(native, format!("{shown}: not a text file")))?;
            let after =
                patch::apply(&shown, before, chunks).map_err(|e| invalid(native, e.to_string()))?;
            match move_to {
                None => Ok((
                    vec![real],
                    "update".into(),
                    propose(&shown, WriteAction::Edit, Some(&old), after.as_bytes()),
                )),
                Some(to) => {
                    let (to_shown, to_real, _) = current(scope, &at(cwd, to))?;
                    let mut p =
                        propose(&to_shown, WriteAction::Create, Some(&old), after.as_bytes());
                    p.diff = p.diff.map(|d| {
                        d.replacen(&format!("--- a/{to_shown}"), &format!("--- a/{shown}"), 1)
                    });
                    Ok((vec![real, to_real], format!("move {shown} →"), p))
                }
            }
        }
    }
}

/// One proposal for several files: the diffs one after the other.
fn combine(mut parts: Vec<Proposal>) -> Proposal {
    if parts.len() == 1 {
        return parts.remove(0);
    }
    let mut diff = String::new();
    for p in &parts {
        match &p.diff {
            Some(d) => diff.push_str(d),
            None => {
                let _ = writeln!(
                    diff,
                    "Binary files a/{0} and b/{0} differ ({1} → {2} bytes)",
                    p.path, p.old_bytes, p.new_bytes
                );
            }
        }
    }
    let names: Vec<&str> = parts.iter().map(|p| p.path.as_str()).collect();
    Proposal {
        path: crate::audit::excerpt(&names.join(", "), 200),
        action: WriteAction::Edit,
        diff: Some(diff),
        added: parts.iter().map(|p| p.added).sum(),
        removed: parts.iter().map(|p| p.removed).sum(),
        binary: false,
        old_bytes: parts.iter().map(|p| p.old_bytes).sum(),
        new_bytes: parts.iter().map(|p| p.new_bytes).sum(),
    }
}

/// `path` made absolute against the agent's `cwd` (agents may work in a
/// directory below the workspace).
pub fn at(cwd: Option<&Path>, path: &str) -> String {
    match cwd {
        Some(c) if !Path::new(path).is_absolute() => c.join(path).display().to_string(),
        _ => path.to_string(),
    }
}
