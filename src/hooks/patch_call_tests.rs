//! Codex patches as calls: a move onto an existing file shows that file
//! overwritten; a patch whose result airlock cannot be sure of shows the
//! raw patch, never a guess; every file a patch touches (a move's both
//! ends, a deletion) is checked like `write_file`'s target, protected names
//! included.

use std::path::Path;

use super::mapped::{Mapped, NativeCall, airlock_tool};
use super::patch_call::patch;
use crate::call::{CallView, Subject, WriteAction};
use crate::scope::Scope;
use crate::tools::write::{WRITE_FILE, write_file_args};

fn workspace() -> (tempfile::TempDir, std::path::PathBuf, Scope) {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(ws.join("src.txt"), "moved line\n").unwrap();
    let scope = Scope::new(&ws, &[], &[]).unwrap();
    (dir, ws, scope)
}

fn run(text: &str, ws: &Path, scope: &Scope) -> Mapped {
    patch("apply_patch", text, Some(ws), scope)
}

fn call_of(m: Mapped) -> NativeCall {
    match m {
        Mapped::Call(c) => c,
        other => panic!("not a call: {other:?}"),
    }
}

const MOVE: &str = "*** Begin Patch\n*** Update File: src.txt\n*** Move to: dest.txt\n@@\n-moved line\n+moved line 2\n*** End Patch";

#[test]
fn a_move_onto_an_existing_file_shows_it_overwritten() {
    let (_d, ws, scope) = workspace();
    std::fs::write(ws.join("dest.txt"), "precious content here\n").unwrap();
    let c = call_of(run(MOVE, &ws, &scope));
    let p = c.proposal.unwrap();
    assert_eq!(p.action, WriteAction::Overwrite);
    let diff = p.diff.unwrap();
    assert!(diff.contains("--- a/dest.txt\n+++ b/dest.txt"), "{diff}");
    assert!(diff.contains("-precious content here"), "{diff}");
    assert!(diff.contains("--- a/src.txt\n+++ /dev/null"), "{diff}");
    assert_eq!(p.old_bytes, 22 + 11, "both files' bytes before");
    assert!(c.summary.contains("overwriting it"), "{}", c.summary);
    // Control: onto no file, a new file diffed against the old one.
    std::fs::remove_file(ws.join("dest.txt")).unwrap();
    let p = call_of(run(MOVE, &ws, &scope)).proposal.unwrap();
    assert_eq!(p.action, WriteAction::Create);
    let diff = p.diff.unwrap();
    assert!(diff.contains("--- a/src.txt\n+++ b/dest.txt"), "{diff}");
    assert!(!diff.contains("precious"), "{diff}");
}

#[test]
fn an_add_onto_an_existing_file_says_overwrite() {
    let (_d, ws, scope) = workspace();
    let add = "*** Begin Patch\n*** Add File: src.txt\n+new\n*** End Patch";
    let c = call_of(run(add, &ws, &scope));
    assert!(
        c.summary.starts_with("apply_patch: overwrite src.txt"),
        "{}",
        c.summary
    );
    assert_eq!(c.proposal.unwrap().action, WriteAction::Overwrite);
}

/// The call shows the raw patch (its arguments), no diff, and says why.
fn is_raw(c: &NativeCall) -> bool {
    c.view == CallView::Args && c.proposal.is_none() && c.summary.contains("no diff")
}

#[test]
fn a_result_airlock_cannot_be_sure_of_shows_the_raw_patch() {
    let (_d, ws, scope) = workspace();
    let update = "*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+b\n*** End Patch";
    std::fs::write(ws.join("f.txt"), "a\r\nz\r\n").unwrap();
    let c = call_of(run(update, &ws, &scope));
    assert!(is_raw(&c), "{c:?}");
    // Still checked and decided as a write of that file.
    assert_eq!(
        c.subject,
        Subject::Paths {
            paths: vec![ws.join("f.txt")]
        }
    );
    // A file touched twice, or moved onto itself.
    let twice = "*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+b\n*** Update File: f.txt\n@@\n-b\n+c\n*** End Patch";
    std::fs::write(ws.join("f.txt"), "a\n").unwrap();
    assert!(is_raw(&call_of(run(twice, &ws, &scope))));
    let onto_itself =
        "*** Begin Patch\n*** Update File: f.txt\n*** Move to: f.txt\n@@\n-a\n+b\n*** End Patch";
    assert!(is_raw(&call_of(run(onto_itself, &ws, &scope))));
    // Control: the same update of an LF file is a diff.
    let c = call_of(run(update, &ws, &scope));
    assert_eq!(c.view, CallView::Change);
    assert!(c.proposal.unwrap().diff.unwrap().contains("+b"));
}

/// Refused like `write_file` would refuse `path`?
fn write_file_refuses(path: &Path, scope: &Scope) -> bool {
    let args = write_file_args(&path.display().to_string(), "x");
    airlock_tool(WRITE_FILE).prepare(&args, scope).is_err()
}

#[test]
fn every_file_a_patch_touches_is_checked_like_write_file() {
    let (_d, ws, scope) = workspace();
    let protected = [
        ".git/config",
        ".airlock.toml",
        "sub/.airlock.toml",
        ".claude/settings.json",
        ".mcp.json",
        ".codex/config.toml",
        ".gemini/settings.json",
        "ok.txt",
    ];
    for rel in protected {
        let p = ws.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "a\n").unwrap();
    }
    for rel in protected {
        let ops = [
            format!("*** Add File: {rel}\n+x"),
            format!("*** Delete File: {rel}"),
            format!("*** Update File: {rel}\n@@\n-a\n+b"),
            format!("*** Update File: src.txt\n*** Move to: {rel}\n@@\n-moved line\n+x"),
            format!("*** Update File: {rel}\n*** Move to: elsewhere.txt\n@@\n-a\n+b"),
        ];
        let want = write_file_refuses(&ws.join(rel), &scope);
        for op in &ops {
            let text = format!("*** Begin Patch\n{op}\n*** End Patch");
            let refused = matches!(run(&text, &ws, &scope), Mapped::Refused { .. });
            assert_eq!(refused, want, "{op:?}: write_file refuses {rel}: {want}");
        }
    }
    // What write_file refuses today: git's files and airlock's config.
    for rel in [".git/config", ".airlock.toml", "sub/.airlock.toml"] {
        assert!(write_file_refuses(&ws.join(rel), &scope), "{rel}");
    }
    // Control: an ordinary file is written.
    assert!(!write_file_refuses(&ws.join("ok.txt"), &scope));
}

#[test]
fn deleting_or_moving_away_a_symlink_is_not_shown_as_the_file_it_points_to() {
    let (_d, ws, scope) = workspace();
    std::fs::write(ws.join("real.txt"), "a\n").unwrap();
    std::os::unix::fs::symlink(ws.join("real.txt"), ws.join("link.txt")).unwrap();
    // Codex removes link.txt; real.txt stays.
    let delete = "*** Begin Patch\n*** Delete File: link.txt\n*** End Patch";
    let away =
        "*** Begin Patch\n*** Update File: link.txt\n*** Move to: b.txt\n@@\n-a\n+b\n*** End Patch";
    for text in [delete, away] {
        let c = call_of(run(text, &ws, &scope));
        assert!(is_raw(&c), "{text}: {c:?}");
    }
    // Control: the same through the file's own name is a diff; an update
    // through the link writes the file it points to, as shown.
    let direct = "*** Begin Patch\n*** Delete File: real.txt\n*** End Patch";
    assert_eq!(call_of(run(direct, &ws, &scope)).view, CallView::Change);
    let update = "*** Begin Patch\n*** Update File: link.txt\n@@\n-a\n+b\n*** End Patch";
    let c = call_of(run(update, &ws, &scope));
    assert_eq!(c.view, CallView::Change);
    assert_eq!(
        c.subject,
        Subject::Paths {
            paths: vec![ws.join("real.txt")]
        }
    );
}
