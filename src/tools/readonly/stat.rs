//! `stat`: type, size, permissions and modification time of a path; a
//! symlink is shown as a symlink (its target must be in scope too).

use std::fmt::Write as _;
use std::fs::Metadata;
use std::os::unix::fs::PermissionsExt;

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value, json};

use super::args::{self, PathArgs};
use super::object_schema;
use super::text;
use crate::call::{Subject, ToolKind};
use crate::scope::{FileKind, Scope};
use crate::tools::{
    Invocation, RunContext, RunFuture, Tool, ToolError, ToolOutput, ToolSpec, run_blocking,
};

/// The `stat` tool.
pub struct Stat {
    spec: ToolSpec,
}

impl Stat {
    /// Build it.
    pub fn new() -> Self {
        Self {
            spec: ToolSpec {
                name: "stat",
                title: "File status",
                description: "Show a path's type (file, directory, symlink, FIFO …), size in \
                    bytes, permissions (octal and rwx) and modification time (RFC 3339, UTC). \
                    A symlink is described itself, with its target and the target's type. \
                    Also returned as structuredContent {path, type, size, permissions, mode, \
                    modified, target?, target_type?}.",
                kind: ToolKind::Read,
                input_schema: object_schema(
                    json!({
                        "path": text::path_prop("Path to describe, relative to the workspace."),
                    }),
                    &["path"],
                ),
            },
        }
    }
}

impl Tool for Stat {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn subject_args(&self) -> &'static [&'static str] {
        &["path"]
    }

    fn output_schema(&self) -> Option<Map<String, Value>> {
        Some(output_schema())
    }

    fn prepare(
        &self,
        a: &Map<String, Value>,
        scope: &Scope,
    ) -> Result<Box<dyn Invocation>, ToolError> {
        let a: PathArgs = args::parse(self.spec.name, a)?;
        let l = scope.lstat(&a.path)?;
        Ok(Box::new(StatCall {
            path: a.path,
            resolved: l.resolved,
        }))
    }
}

struct StatCall {
    path: String,
    resolved: std::path::PathBuf,
}

impl Invocation for StatCall {
    fn summary(&self) -> String {
        format!("stat {}", self.path)
    }

    fn subject(&self) -> Subject {
        Subject::Paths {
            paths: vec![self.resolved.clone()],
        }
    }

    fn run(self: Box<Self>, ctx: RunContext) -> RunFuture {
        run_blocking(ctx, move |ctx| stat(&self.path, ctx))
    }
}

/// `rwxr-xr-x` with the setuid, setgid and sticky bits, after a type letter.
fn mode_string(kind: FileKind, mode: u32) -> String {
    let t = match kind {
        FileKind::File => '-',
        FileKind::Directory => 'd',
        FileKind::Symlink => 'l',
        FileKind::Fifo => 'p',
        FileKind::Socket => 's',
        FileKind::CharDevice => 'c',
        FileKind::BlockDevice => 'b',
    };
    let mut s = String::with_capacity(10);
    s.push(t);
    for (shift, special, lower, upper) in [
        (6, 0o4000, 's', 'S'),
        (3, 0o2000, 's', 'S'),
        (0, 0o1000, 't', 'T'),
    ] {
        let bits = (mode >> shift) & 0o7;
        s.push(if bits & 4 != 0 { 'r' } else { '-' });
        s.push(if bits & 2 != 0 { 'w' } else { '-' });
        let x = bits & 1 != 0;
        s.push(match (mode & special != 0, x) {
            (true, true) => lower,
            (true, false) => upper,
            (false, true) => 'x',
            (false, false) => '-',
        });
    }
    s
}

fn modified(meta: &Metadata) -> Option<String> {
    let t: DateTime<Utc> = meta.modified().ok()?.into();
    Some(t.to_rfc3339_opts(SecondsFormat::Secs, true))
}

/// The `outputSchema` of `stat`.
fn output_schema() -> Map<String, Value> {
    let kinds = json!([
        "file",
        "directory",
        "symlink",
        "fifo",
        "socket",
        "char_device",
        "block_device"
    ]);
    crate::tools::output::with_error_alternative(json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "type": {"type": "string", "enum": kinds},
            "size": {"type": "integer", "minimum": 0},
            "permissions": {"type": "string", "description": "Octal, e.g. 0644."},
            "mode": {"type": "string", "description": "rwx form, e.g. -rw-r--r--."},
            "modified": {"type": ["string", "null"], "description": "RFC 3339, UTC."},
            "target": {"type": "string", "description": "A symlink's target."},
            "target_type": {"anyOf": [{"type": "string", "enum": kinds}, {"type": "null"}]},
        },
        "required": ["path", "type", "size", "permissions", "mode", "modified"],
    }))
}

fn stat(path: &str, ctx: &RunContext) -> ToolOutput {
    // Looked at again now (the call may have waited): the same scope checks.
    let l = match ctx.scope.lstat(path) {
        Ok(l) => l,
        Err(e) => return ToolOutput::error(e.to_string()),
    };
    let kind = FileKind::of(&l.meta);
    let mode = l.meta.permissions().mode();
    let octal = format!("{:04o}", mode & 0o7777);
    let rwx = mode_string(kind, mode);
    let when = modified(&l.meta);
    let shown = text::escape(path).into_owned();
    let mut text = format!("path: {shown}\ntype: {}\n", kind.as_str());
    let mut structured = json!({
        "path": path,
        "type": kind,
        "size": l.meta.len(),
        "permissions": octal,
        "mode": rwx,
        "modified": when,
    });
    if l.link_target.is_some() {
        // Through the target's checked parent, not by path.
        let target_kind = ctx
            .scope
            .lstat_real(path, &l.resolved)
            .map(|m| FileKind::of(&m))
            .ok();
        // Shown only when it stays in scope (the resolved target is
        // checked already; the text as stored may name more).
        let t = ctx.scope.link_target(&l.location).display();
        let _ = writeln!(text, "target: {}", text::escape(&t));
        if let Some(k) = target_kind {
            let _ = writeln!(text, "target type: {}", k.as_str());
        }
        structured["target"] = json!(t);
        structured["target_type"] = json!(target_kind);
    }
    let _ = write!(
        text,
        "size: {} bytes\npermissions: {octal} ({rwx})\nmodified: {}\n",
        l.meta.len(),
        when.as_deref().unwrap_or("unknown")
    );
    ToolOutput::ok(text).with_structured(structured)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::readonly::testutil::{prepare_err, run};
    use std::os::unix::fs::symlink;

    #[test]
    fn file_directory_and_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.txt");
        std::fs::write(&f, "hello").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o640)).unwrap();
        let out = run(&Stat::new(), dir.path(), json!({"path": "a.txt"}));
        assert!(
            out.text.starts_with(
                "path: a.txt\ntype: file\nsize: 5 bytes\npermissions: 0640 (-rw-r-----)\nmodified: "
            ),
            "{}",
            out.text
        );
        let s = out.structured.unwrap();
        assert_eq!(s["type"], "file");
        assert_eq!(s["size"], 5);
        assert_eq!(s["permissions"], "0640");
        let modified = s["modified"].as_str().unwrap();
        assert!(DateTime::parse_from_rfc3339(modified).is_ok(), "{modified}");

        std::fs::create_dir(dir.path().join("d")).unwrap();
        let out = run(&Stat::new(), dir.path(), json!({"path": "d"}));
        assert!(out.text.contains("type: directory\n"), "{}", out.text);
        assert!(out.text.contains("(drwx"), "{}", out.text);

        symlink("a.txt", dir.path().join("l")).unwrap();
        let out = run(&Stat::new(), dir.path(), json!({"path": "l"}));
        assert!(
            out.text
                .contains("type: symlink\ntarget: a.txt\ntarget type: file\n"),
            "{}",
            out.text
        );
        let s = out.structured.unwrap();
        assert_eq!(s["type"], "symlink");
        assert_eq!(s["target_type"], "file");
    }

    #[test]
    fn symlinks_out_of_scope_dangling_and_to_secrets_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".env"), "S=1").unwrap();
        symlink("/etc/passwd", dir.path().join("out")).unwrap();
        symlink("nowhere", dir.path().join("dangling")).unwrap();
        symlink(".env", dir.path().join("innocent")).unwrap();
        let e = prepare_err(&Stat::new(), dir.path(), json!({"path": "out"}));
        assert!(e.to_string().contains("outside the allowed roots"), "{e}");
        let e = prepare_err(&Stat::new(), dir.path(), json!({"path": "dangling"}));
        assert!(e.to_string().contains("not found"), "{e}");
        let e = prepare_err(&Stat::new(), dir.path(), json!({"path": "innocent"}));
        assert!(e.to_string().contains("excluded"), "{e}");
    }

    #[test]
    fn fifo_is_described_not_opened() {
        let dir = tempfile::tempdir().unwrap();
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            dir.path().join("p"),
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        let out = run(&Stat::new(), dir.path(), json!({"path": "p"}));
        assert!(out.text.contains("type: FIFO"), "{}", out.text);
        assert!(out.text.contains("(prw-------)"), "{}", out.text);
    }

    #[test]
    fn mode_strings() {
        assert_eq!(mode_string(FileKind::File, 0o4755), "-rwsr-xr-x");
        assert_eq!(mode_string(FileKind::Directory, 0o1777), "drwxrwxrwt");
        assert_eq!(mode_string(FileKind::File, 0o2644), "-rw-r-Sr--");
    }
}
