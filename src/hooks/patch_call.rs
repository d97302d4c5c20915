//! Codex `apply_patch` as a native call: every file the patch adds,
//! updates, deletes or moves, each scope-checked like airlock's writes
//! (the same protected names) and diffed against the disk as Codex will
//! change it. When airlock cannot be sure what Codex writes, the prompt
//! shows the raw patch and says so instead of a diff.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::agent_path;
use super::change::{current, invalid, write_call};
use super::mapped::{Mapped, NativeCall, one_line};
use super::patch::{self, FileOp, PatchError};
use crate::call::{CallView, Proposal, Subject, WriteAction};
use crate::scope::Scope;
use crate::tools::ToolError;
use crate::tools::write::propose;

/// One file as the patch finds it: the name shown, its real path, its
/// bytes (None: it does not exist), and whether the patch names it through
/// a symbolic link (checked and shown as the file it points to).
struct Found {
    shown: String,
    real: PathBuf,
    old: Option<Vec<u8>>,
    link: bool,
}

impl Found {
    fn open(cwd: Option<&Path>, path: &str, scope: &Scope) -> Result<Self, ToolError> {
        let named = agent_path::resolve("apply_patch", cwd, path)?;
        let (shown, real, old) = current(scope, &named)?;
        let link = std::fs::symlink_metadata(scope.absolute(&named).unwrap_or_default())
            .is_ok_and(|m| m.file_type().is_symlink());
        Ok(Self {
            shown,
            real,
            old,
            link,
        })
    }

    /// Codex removes what the patch names: a link, not the file it points
    /// to, which is what airlock would show.
    fn removed_as_shown(&self) -> Result<(), NoDiff> {
        if self.link {
            return Err(NoDiff::Uncertain(format!(
                "{} is reached through a symbolic link, which Codex removes instead of the file",
                self.shown
            )));
        }
        Ok(())
    }
}

/// One operation's files: where it starts, and where a move ends.
struct Files {
    from: Found,
    to: Option<Found>,
}

/// Why one file's change is not shown as a diff.
enum NoDiff {
    /// Codex would refuse it too, or it cannot be checked: refused.
    Refuse(ToolError),
    /// It applies, but what Codex writes is not certain: the raw patch.
    Uncertain(String),
}

/// The patch in `text`, its relative paths against `cwd`.
pub fn patch(native: &str, text: &str, cwd: Option<&Path>, scope: &Scope) -> Mapped {
    let mut call = write_call(native);
    let ops = match patch::parse(text) {
        Ok(ops) => ops,
        Err(e) => {
            return Mapped::Refused {
                call,
                error: invalid(native, e.to_string()),
            };
        }
    };
    let files = match ops.iter().map(|op| files_of(op, cwd, scope)).collect() {
        Ok(files) => files,
        Err(error) => return Mapped::Refused { call, error },
    };
    let files: Vec<Files> = files;
    let paths: Vec<PathBuf> = files
        .iter()
        .flat_map(|f| std::iter::once(&f.from).chain(&f.to))
        .map(|f| f.real.clone())
        .collect();
    let verbs: Vec<String> = ops.iter().zip(&files).map(|(o, f)| verb(o, f)).collect();
    // A grant covers one file: only a patch of one file has one.
    if let ([one], [f]) = (paths.as_slice(), files.as_slice()) {
        call.grant = crate::tools::write::grant(one.clone(), &f.from.shown);
    }
    call.subject = Subject::Paths {
        paths: paths.clone(),
    };
    // Codex applies the operations one after the other: a file touched
    // twice changes under the second one.
    if let Some(twice) = paths
        .iter()
        .enumerate()
        .find_map(|(i, p)| paths[..i].contains(p).then(|| scope.display(p)))
    {
        return raw(call, &verbs, &format!("it touches {twice} more than once"));
    }
    let parts = ops.iter().zip(&files).map(|(op, f)| change(native, op, f));
    match parts.collect::<Result<Vec<_>, _>>() {
        Ok(parts) => {
            let proposal = combine(parts.into_iter().flatten().collect());
            call.summary = one_line(&format!(
                "apply_patch: {} ({})",
                verbs.join(", "),
                proposal.summary()
            ));
            call.proposal = Some(proposal);
            Mapped::Call(call)
        }
        Err(NoDiff::Uncertain(reason)) => raw(call, &verbs, &reason),
        Err(NoDiff::Refuse(error)) => Mapped::Refused { call, error },
    }
}

/// The call with the raw patch as its view (its arguments) and why.
fn raw(mut call: NativeCall, verbs: &[String], reason: &str) -> Mapped {
    call.view = CallView::Args;
    call.proposal = None;
    call.summary = one_line(&format!(
        "apply_patch: {} (no diff: airlock cannot be sure what Codex will write, {reason}; the raw patch is shown)",
        verbs.join(", ")
    ));
    Mapped::Call(call)
}

fn files_of(op: &FileOp, cwd: Option<&Path>, scope: &Scope) -> Result<Files, ToolError> {
    let from = Found::open(cwd, op.path(), scope)?;
    let to = match op {
        FileOp::Update {
            move_to: Some(to), ..
        } => Some(Found::open(cwd, to, scope)?),
        _ => None,
    };
    Ok(Files { from, to })
}

/// What the operation does to its files, in words.
fn verb(op: &FileOp, f: &Files) -> String {
    let from = &f.from.shown;
    match (op, &f.to) {
        (FileOp::Add { .. }, _) if f.from.old.is_some() => format!("overwrite {from}"),
        (FileOp::Add { .. }, _) => format!("add {from}"),
        (FileOp::Delete { .. }, _) => format!("delete {from}"),
        (FileOp::Update { .. }, Some(to)) if to.old.is_some() => {
            format!("move {from} → {} (overwriting it)", to.shown)
        }
        (FileOp::Update { .. }, Some(to)) => format!("move {from} → {}", to.shown),
        (FileOp::Update { .. }, None) => format!("update {from}"),
    }
}

/// The diffs of one operation.
fn change(native: &str, op: &FileOp, f: &Files) -> Result<Vec<Proposal>, NoDiff> {
    let refuse = |m: String| NoDiff::Refuse(invalid(native, m));
    let from = &f.from;
    match op {
        FileOp::Add { content, .. } => {
            let action = if from.old.is_some() {
                WriteAction::Overwrite
            } else {
                WriteAction::Create
            };
            let p = propose(&from.shown, action, from.old.as_deref(), content.as_bytes());
            Ok(vec![p])
        }
        FileOp::Delete { .. } => {
            from.removed_as_shown()?;
            let old = from
                .old
                .as_deref()
                .ok_or_else(|| refuse(format!("{}: cannot delete it: not found", from.shown)))?;
            Ok(vec![deletion(&from.shown, old)])
        }
        FileOp::Update { chunks, .. } => {
            let old = from
                .old
                .as_deref()
                .ok_or_else(|| refuse(format!("{}: cannot update it: not found", from.shown)))?;
            let before = std::str::from_utf8(old)
                .map_err(|_| refuse(format!("{}: not a text file", from.shown)))?;
            let after = patch::apply(&from.shown, before, chunks).map_err(|e| match e {
                PatchError::Uncertain { .. } => NoDiff::Uncertain(e.to_string()),
                other => refuse(other.to_string()),
            })?;
            Ok(match &f.to {
                None => vec![propose(
                    &from.shown,
                    WriteAction::Edit,
                    Some(old),
                    after.as_bytes(),
                )],
                Some(to) => {
                    from.removed_as_shown()?;
                    moved(from, to, after.as_bytes())
                }
            })
        }
    }
}

/// A move of `from` to `to` with `new` as the content: a new file diffed
/// against the old one, or, onto an existing file, that file overwritten
/// and the old one deleted.
fn moved(from: &Found, to: &Found, new: &[u8]) -> Vec<Proposal> {
    let old = from.old.as_deref().unwrap_or_default();
    match &to.old {
        None => {
            let mut p = propose(&to.shown, WriteAction::Create, Some(old), new);
            p.diff = p.diff.map(|d| {
                d.replacen(
                    &format!("--- a/{}", to.shown),
                    &format!("--- a/{}", from.shown),
                    1,
                )
            });
            vec![p]
        }
        Some(existing) => vec![
            propose(&to.shown, WriteAction::Overwrite, Some(existing), new),
            deletion(&from.shown, old),
        ],
    }
}

/// `shown` deleted.
fn deletion(shown: &str, old: &[u8]) -> Proposal {
    let mut p = propose(shown, WriteAction::Overwrite, Some(old), b"");
    p.diff = p
        .diff
        .map(|d| d.replacen(&format!("+++ b/{shown}"), "+++ /dev/null", 1));
    p
}

/// One proposal for several files: the diffs one after the other; it
/// overwrites if any part does.
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
    let action = if parts.iter().any(|p| p.action == WriteAction::Overwrite) {
        WriteAction::Overwrite
    } else {
        WriteAction::Edit
    };
    Proposal {
        path: crate::audit::excerpt(&names.join(", "), 200),
        action,
        diff: Some(diff),
        added: parts.iter().map(|p| p.added).sum(),
        removed: parts.iter().map(|p| p.removed).sum(),
        binary: false,
        old_bytes: parts.iter().map(|p| p.old_bytes).sum(),
        new_bytes: parts.iter().map(|p| p.new_bytes).sum(),
    }
}
