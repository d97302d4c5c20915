//! `write_file` and `edit_file`: exact, atomic writes whose diff the human
//! sees before anything touches the disk.

mod apply;
mod chain;
mod edit;
mod keys;
mod proposal;
mod protect;
mod target;

use std::borrow::Cow;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

pub use crate::sandbox::own::airlock_paths;
pub use apply::{Staged, WriteError};
pub use edit::replace as replace_text;
pub use keys::{
    APPEND, CONTENT, NEW_TEXT, OLD_TEXT, PATH, REPLACE_ALL, edit_file_args, write_file_args,
};
pub use proposal::{is_binary, propose};
pub use protect::Protection;
pub use target::{PROTECTED, Target, resolve, resolve_with};

use super::readonly::{args, object_schema};
use chain::Identity;

use super::{
    Invocation, RunContext, RunFuture, Tool, ToolError, ToolOutput, ToolSpec, run_blocking,
};
use crate::call::{CallView, GrantShape, Proposal, Subject, ToolKind, WriteAction};
use crate::scope::Scope;

/// Largest file the write tools read or produce (64 MiB).
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// `write_file`'s name, as agents call it and rules name it.
pub const WRITE_FILE: &str = "write_file";
/// `edit_file`'s name, as agents call it and rules name it.
pub const EDIT_FILE: &str = "edit_file";

/// What a grant of a write to `path` (resolved; `shown` as people see it)
/// covers: writes to that file by either write tool, and an agent's own
/// writes, whose calls the write tools' rules and grants cover.
pub fn grant(path: std::path::PathBuf, shown: &str) -> GrantShape {
    GrantShape::File {
        path,
        shown: shown.to_string(),
        rule_tools: &[WRITE_FILE, EDIT_FILE],
    }
}

/// Both write tools, with the built-in [`Protection`].
pub fn all() -> Vec<Arc<dyn Tool>> {
    protected(&Protection::builtin())
}

/// Both write tools, refusing what `protection` protects.
pub fn protected(protection: &Arc<Protection>) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(WriteFile::with_protection(protection.clone())),
        Arc::new(EditFile::with_protection(protection.clone())),
    ]
}

/// `write_file`.
pub struct WriteFile {
    spec: ToolSpec,
    protection: Arc<Protection>,
}

/// `edit_file`.
pub struct EditFile {
    spec: ToolSpec,
    protection: Arc<Protection>,
}

/// `write_file`'s arguments, borrowed from the call's: `content` is copied
/// once, into the bytes the write will put on disk.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WriteArgs<'a> {
    path: String,
    #[serde(borrow)]
    content: Cow<'a, str>,
    #[serde(default)]
    append: bool,
}

/// `edit_file`'s arguments, borrowed from the call's: the texts are only
/// read (the new content is built from the file).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EditArgs<'a> {
    path: String,
    #[serde(borrow)]
    old_text: Cow<'a, str>,
    #[serde(borrow)]
    new_text: Cow<'a, str>,
    #[serde(default)]
    replace_all: bool,
}

/// Parse `a` for `tool` borrowing its strings where `T` lets it
/// ([`args::parse`] gives owned values: `T: DeserializeOwned`).
fn parse_borrowed<'a, T: Deserialize<'a>>(
    tool: &str,
    a: &'a Map<String, Value>,
) -> Result<T, ToolError> {
    T::deserialize(a).map_err(|e| args::invalid(tool, e.to_string()))
}

impl WriteFile {
    /// Build it, with the built-in [`Protection`].
    pub fn new() -> Self {
        Self::with_protection(Protection::builtin())
    }

    /// Build it, refusing what `protection` protects.
    pub fn with_protection(protection: Arc<Protection>) -> Self {
        let schema = object_schema(
            json!({
                PATH: {"type": "string", "description": "File to write, relative to the workspace. Parent directories are created."},
                CONTENT: {"type": "string", "description": "The full new content (or the text to append)."},
                APPEND: {"type": "boolean", "default": false, "description": "Append content to the end instead of replacing the file."}
            }),
            &[PATH, CONTENT],
        );
        Self {
            spec: ToolSpec {
                name: WRITE_FILE,
                title: "Write file",
                description: "Create or overwrite a file in the workspace (or append to it). The user sees a diff and approves it before anything is written; the write is atomic. Use edit_file to change part of an existing file.",
                kind: ToolKind::Write,
                input_schema: schema,
            },
            protection,
        }
    }
}

impl Default for WriteFile {
    fn default() -> Self {
        Self::new()
    }
}

impl EditFile {
    /// Build it, with the built-in [`Protection`].
    pub fn new() -> Self {
        Self::with_protection(Protection::builtin())
    }

    /// Build it, refusing what `protection` protects.
    pub fn with_protection(protection: Arc<Protection>) -> Self {
        let schema = object_schema(
            json!({
                PATH: {"type": "string", "description": "File to edit, relative to the workspace."},
                OLD_TEXT: {"type": "string", "description": "Exact text to replace, including indentation; must occur exactly once unless replace_all is set."},
                NEW_TEXT: {"type": "string", "description": "The replacement text."},
                REPLACE_ALL: {"type": "boolean", "default": false, "description": "Replace every occurrence of old_text."}
            }),
            &[PATH, OLD_TEXT, NEW_TEXT],
        );
        Self {
            spec: ToolSpec {
                name: EDIT_FILE,
                title: "Edit file",
                description: "Replace exact text in an existing file. old_text must match the file exactly (copy it from read_file, without line-number prefixes) and occur once unless replace_all is true. Line endings and the final newline are preserved. The user sees a diff and approves it before anything is written.",
                kind: ToolKind::Write,
                input_schema: schema,
            },
            protection,
        }
    }
}

impl Default for EditFile {
    fn default() -> Self {
        Self::new()
    }
}

fn failed(tool: &str, e: impl std::fmt::Display) -> ToolError {
    args::invalid(tool, e.to_string())
}

/// What a write tool found before computing its change: the target, the
/// identity of its directory (as far as it exists) and the file, if any.
struct Found {
    target: Target,
    dir: Identity,
    file: Option<apply::Current>,
}

/// The target, its directory's identity and its current content, mode and
/// identity (None: no such file), all read through the directories opened
/// from the root.
fn current(
    scope: &Scope,
    protection: &Arc<Protection>,
    tool: &str,
    path: &str,
) -> Result<Found, ToolError> {
    let target = resolve_with(scope, protection, path)?;
    let chain = apply::open_existing(scope, &target).map_err(|e| to_tool_error(tool, e))?;
    let dir = chain.identity(path).map_err(|e| to_tool_error(tool, e))?;
    if target.existing_ancestor != target.dir {
        return Ok(Found {
            target,
            dir,
            file: None,
        });
    }
    let real = target.path();
    let file = apply::read_current(
        scope,
        chain.dir(),
        &target.name,
        &real,
        path,
        MAX_FILE_BYTES,
    )
    .map_err(|e| to_tool_error(tool, e))?;
    Ok(Found { target, dir, file })
}

/// The content of `target` (None: no such file), read as the write tools
/// read it: through its directory opened from the root without following
/// a link, the hard-link check made on the opened file first. For the
/// diff of an agent's own write (which the agent makes itself).
pub fn read_target(scope: &Scope, target: &Target) -> Result<Option<Vec<u8>>, ToolError> {
    let tool = "write";
    let chain = apply::open_existing(scope, target).map_err(|e| to_tool_error(tool, e))?;
    if target.existing_ancestor != target.dir {
        return Ok(None);
    }
    let real = target.path();
    let file = apply::read_current(
        scope,
        chain.dir(),
        &target.name,
        &real,
        &target.shown,
        MAX_FILE_BYTES,
    )
    .map_err(|e| to_tool_error(tool, e))?;
    Ok(file.map(|c| c.bytes))
}

/// The `outputSchema` of both write tools: the confirmation (`message`,
/// the same as the text content) and what changed.
fn output_schema() -> Map<String, Value> {
    super::output::with_error_alternative(json!({
        "type": "object",
        "properties": {
            "message": {"type": "string", "description": "What was done, the same as the text content."},
            "path": {"type": "string"},
            "action": {"type": "string", "enum": ["create", "overwrite", "append", "edit"]},
            "bytes": {"type": "integer", "minimum": 0, "description": "The file's size now."},
            "added": {"type": "integer", "minimum": 0, "description": "Lines added."},
            "removed": {"type": "integer", "minimum": 0, "description": "Lines removed."},
            "binary": {"type": "boolean"},
        },
        "required": ["message", "path", "action", "bytes", "added", "removed", "binary"],
    }))
}

fn to_tool_error(tool: &str, e: WriteError) -> ToolError {
    match e {
        WriteError::Scope(s) => ToolError::Scope(s),
        other @ WriteError::Io { .. } => failed(tool, other),
    }
}

impl Tool for WriteFile {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn subject_args(&self) -> &'static [&'static str] {
        &[PATH]
    }

    fn change_args(&self) -> &'static [&'static str] {
        &[CONTENT]
    }

    fn output_schema(&self) -> Option<Map<String, Value>> {
        Some(output_schema())
    }

    fn prepare(
        &self,
        a: &Map<String, Value>,
        scope: &Scope,
    ) -> Result<Box<dyn Invocation>, ToolError> {
        let name = self.spec.name;
        let a: WriteArgs = parse_borrowed(name, a)?;
        let found = current(scope, &self.protection, name, &a.path)?;
        let (old, mode, file) = match found.file {
            Some(c) => (Some(c.bytes), Some(c.mode), Some(c.id)),
            None => (None, None, None),
        };
        // The one copy of `content`: the bytes to write.
        let (action, new) = match (&old, a.append) {
            (None, _) => (WriteAction::Create, a.content.into_owned().into_bytes()),
            (Some(o), true) => {
                let mut n = Vec::with_capacity(o.len() + a.content.len());
                n.extend_from_slice(o);
                n.extend_from_slice(a.content.as_bytes());
                (WriteAction::Append, n)
            }
            (Some(_), false) => (WriteAction::Overwrite, a.content.into_owned().into_bytes()),
        };
        let change = Change {
            action,
            old: old.as_deref(),
            new,
            mode,
            note: None,
        };
        let at = Pinned {
            target: found.target,
            dir: found.dir,
            file,
            protection: self.protection.clone(),
        };
        WriteCall::prepared(name, scope, at, change)
    }
}

impl Tool for EditFile {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn subject_args(&self) -> &'static [&'static str] {
        &[PATH]
    }

    fn change_args(&self) -> &'static [&'static str] {
        &[OLD_TEXT, NEW_TEXT]
    }

    fn output_schema(&self) -> Option<Map<String, Value>> {
        Some(output_schema())
    }

    fn prepare(
        &self,
        a: &Map<String, Value>,
        scope: &Scope,
    ) -> Result<Box<dyn Invocation>, ToolError> {
        let name = self.spec.name;
        let a: EditArgs = parse_borrowed(name, a)?;
        let found = current(scope, &self.protection, name, &a.path)?;
        let Some(apply::Current {
            bytes: old,
            mode,
            id,
        }) = found.file
        else {
            return Err(failed(
                name,
                format!("{}: not found; use write_file to create a new file", a.path),
            ));
        };
        if is_binary(&old) {
            return Err(failed(
                name,
                format!("{}: binary file; edit_file changes text files only", a.path),
            ));
        }
        let text = String::from_utf8_lossy(&old);
        let (new, count) = edit::replace(&text, &a.old_text, &a.new_text, a.replace_all)
            .map_err(|m| failed(name, format!("{}: {m}", a.path)))?;
        let note = if count == 1 {
            "replaced 1 occurrence".to_string()
        } else {
            format!("replaced {count} occurrences")
        };
        let change = Change {
            action: WriteAction::Edit,
            old: Some(&old),
            new: new.into_bytes(),
            mode: Some(mode),
            note: Some(note),
        };
        let at = Pinned {
            target: found.target,
            dir: found.dir,
            file: Some(id),
            protection: self.protection.clone(),
        };
        WriteCall::prepared(name, scope, at, change)
    }
}

fn digest(b: &[u8]) -> [u8; 32] {
    Sha256::digest(b).into()
}

/// Where a prepared write goes: the target, the identity of its directory
/// (as far as it existed) and of the file (if it existed) when the change
/// was computed, and what it must not touch.
struct Pinned {
    target: Target,
    dir: Identity,
    file: Option<Identity>,
    protection: Arc<Protection>,
}

/// A prepared write: what to write, where, and what the file held when
/// the diff was computed.
struct WriteCall {
    tool: &'static str,
    target: Target,
    dir: Identity,
    file: Option<Identity>,
    protection: Arc<Protection>,
    shown: String,
    base: Option<[u8; 32]>,
    new: Vec<u8>,
    mode: Option<u32>,
    proposal: Arc<Proposal>,
    note: Option<String>,
}

impl Invocation for WriteCall {
    fn summary(&self) -> String {
        let verb = match self.proposal.action {
            WriteAction::Create => "create",
            WriteAction::Overwrite => "overwrite",
            WriteAction::Append => "append to",
            WriteAction::Edit => "edit",
        };
        format!("{verb} {} ({})", self.shown, self.proposal.summary())
    }

    fn subject(&self) -> Subject {
        Subject::Paths {
            paths: vec![self.target.path()],
        }
    }

    fn proposal(&self) -> Option<Arc<Proposal>> {
        Some(Arc::clone(&self.proposal))
    }

    fn view(&self) -> CallView {
        CallView::Change
    }

    fn grant(&self) -> GrantShape {
        grant(self.target.path(), &self.shown)
    }

    fn run(self: Box<Self>, ctx: RunContext) -> RunFuture {
        run_blocking(ctx, move |ctx| match self.write(&ctx.scope) {
            Ok(out) => out,
            Err(e) => ToolOutput::error(format!("{}: nothing was written: {e}", self.tool)),
        })
    }
}

/// The change a write tool computed: `new` over `old`.
struct Change<'a> {
    action: WriteAction,
    /// The file's content now (None: no file yet).
    old: Option<&'a [u8]>,
    /// The content to write.
    new: Vec<u8>,
    /// The file's mode bits, kept by the write.
    mode: Option<u32>,
    /// Said after the confirmation (`replaced 2 occurrences`).
    note: Option<String>,
}

impl WriteCall {
    /// A prepared write of `change` to `target`, with the proposal the
    /// human will see. Refuses results over [`MAX_FILE_BYTES`].
    fn prepared(
        tool: &'static str,
        scope: &Scope,
        at: Pinned,
        change: Change<'_>,
    ) -> Result<Box<dyn Invocation>, ToolError> {
        let Pinned {
            target,
            dir,
            file,
            protection,
        } = at;
        let Change {
            action,
            old,
            new,
            mode,
            note,
        } = change;
        if new.len() as u64 > MAX_FILE_BYTES {
            return Err(failed(
                tool,
                format!(
                    "the result would be {} bytes; airlock writes files up to {MAX_FILE_BYTES} bytes",
                    new.len()
                ),
            ));
        }
        let shown = scope.display(&target.path());
        let proposal = Arc::new(propose(&shown, action, old, &new));
        Ok(Box::new(WriteCall {
            tool,
            target,
            dir,
            file,
            protection,
            shown,
            base: old.map(digest),
            new,
            mode,
            proposal,
            note,
        }))
    }

    fn write(&self, scope: &Scope) -> Result<ToolOutput, WriteError> {
        let real = self.target.path();
        // Opened again after approval, from the root and never through a
        // link; the directory the change was computed in, or nothing is
        // written. Every check is made again on what was opened: a shell
        // may have brought the directory one step short of a repository
        // while the prompt waited.
        let dir = apply::open_for_write(scope, &self.protection, &self.target, self.dir)?;
        let now = apply::read_current(
            scope,
            &dir,
            &self.target.name,
            &real,
            &self.shown,
            MAX_FILE_BYTES,
        )?;
        let found = now.as_ref().map(|c| (digest(&c.bytes), c.id));
        if found.map(|f| f.0) != self.base || found.map(|f| f.1) != self.file {
            return Ok(ToolOutput::error(format!(
                "{} changed after the change was proposed (while it waited for approval); nothing was written. \
                 Read the file again and redo the {}.",
                self.shown,
                if self.tool == "edit_file" {
                    "edit"
                } else {
                    "write"
                }
            )));
        }
        apply::Staged::write(dir, &self.target.name, &self.shown, &self.new, self.mode)?
            .commit()?;
        let p = &self.proposal;
        let what = match p.action {
            WriteAction::Create => "created",
            WriteAction::Overwrite => "overwrote",
            WriteAction::Append => "appended to",
            WriteAction::Edit => "edited",
        };
        let note = self
            .note
            .as_deref()
            .map(|n| format!(", {n}"))
            .unwrap_or_default();
        let text = format!(
            "{what} {} ({} bytes, {}{note})",
            self.shown,
            self.new.len(),
            p.summary()
        );
        // The confirmation is the text, and the structured form carries it.
        Ok(ToolOutput::ok(text.clone()).with_structured(json!({
            "message": text,
            "path": self.shown,
            "action": p.action,
            "bytes": self.new.len(),
            "added": p.added,
            "removed": p.removed,
            "binary": p.binary,
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(tool: &dyn Tool, a: &Value) -> String {
        let scope = Scope::new(&std::env::temp_dir(), &[], &[]).unwrap();
        let Value::Object(a) = a else { unreachable!() };
        match tool.prepare(a, &scope) {
            Err(ToolError::InvalidArguments { tool, message }) => format!("{tool}: {message}"),
            Err(e) => panic!("not an argument error: {e}"),
            Ok(_) => panic!("prepared {a:?}"),
        }
    }

    #[test]
    fn read_target_reads_the_checked_directory_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("other")).unwrap();
        std::fs::write(root.join("src/f"), "inside").unwrap();
        std::fs::write(root.join("other/f"), "other").unwrap();
        let scope = Scope::new(&root, &[], &[]).unwrap();
        let t = resolve(&scope, "src/f").unwrap();
        assert_eq!(read_target(&scope, &t).unwrap().unwrap(), b"inside");
        std::fs::rename(root.join("src"), root.join("src.old")).unwrap();
        std::os::unix::fs::symlink("other", root.join("src")).unwrap();
        assert!(
            read_target(&scope, &t).is_err(),
            "read through the swapped link"
        );
        // Control: by path, the same target now reads other/f.
        assert_eq!(std::fs::read(t.path()).unwrap(), b"other");
    }

    #[test]
    fn borrowed_arguments_are_refused_with_serdes_words() {
        let (w, e) = (WriteFile::new(), EditFile::new());
        let r = refusal(&w, &json!({"path": "a", "content": 1}));
        assert!(
            r.starts_with("write_file: invalid type: integer `1`, expected a string"),
            "{r}"
        );
        let r = refusal(&w, &json!({"path": "a"}));
        assert_eq!(r, "write_file: missing field `content`");
        let r = refusal(&w, &json!({"path": "a", "content": "", "mode": 1}));
        assert!(r.starts_with("write_file: unknown field `mode`"), "{r}");
        let r = refusal(&e, &json!({"path": "a", "old_text": "x", "new_text": []}));
        assert!(
            r.starts_with("edit_file: invalid type: sequence, expected a string"),
            "{r}"
        );
    }

    #[test]
    fn parsed_texts_borrow_from_the_arguments() {
        let a = json!({"path": "a", "old_text": "o\"ld", "new_text": "n\\ew"});
        let Value::Object(a) = a else { unreachable!() };
        let e: EditArgs = parse_borrowed("edit_file", &a).unwrap();
        assert!(matches!(e.old_text, Cow::Borrowed("o\"ld")));
        assert!(matches!(e.new_text, Cow::Borrowed("n\\ew")));
        let a = json!({"path": "a", "content": "c\u{e9}"});
        let Value::Object(a) = a else { unreachable!() };
        let w: WriteArgs = parse_borrowed("write_file", &a).unwrap();
        assert!(matches!(w.content, Cow::Borrowed("cé")));
    }

    #[test]
    fn built_arguments_are_the_ones_the_tools_parse() {
        let a = write_file_args("a/b", "c\n");
        let w: WriteArgs = parse_borrowed(WRITE_FILE, &a).unwrap();
        assert_eq!(
            (w.path.as_str(), &*w.content, w.append),
            ("a/b", "c\n", false)
        );
        let a = edit_file_args("a", "old", "new", true);
        let e: EditArgs = parse_borrowed(EDIT_FILE, &a).unwrap();
        assert_eq!(
            (e.path.as_str(), &*e.old_text, &*e.new_text, e.replace_all),
            ("a", "old", "new", true)
        );
        let mut a = write_file_args("a", "");
        a.insert(APPEND.into(), Value::Bool(true));
        let w: WriteArgs = parse_borrowed(WRITE_FILE, &a).unwrap();
        assert!(w.append);
    }
}
