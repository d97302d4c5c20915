//! The walking tools (`grep`, `find`, `ls`) and what they must not show:
//! entries the policy's path rules cover (handed in as
//! [`EntryRules`]; the CONTROL is the same walk without them), and the
//! metadata of a start that is swapped for a link to outside after it was
//! checked (the CONTROL is the by-path look the tools used to make).

use std::os::unix::fs::symlink;
use std::path::Path;

use serde_json::json;

use super::find::Find;
use super::grep::Grep;
use super::ls::Ls;
use super::stat::Stat;
use super::testutil::{ctx, run_ctx, scope_in};
use crate::tools::{EntryRule, EntryRules, Tool, ToolOutput};

/// A workspace with a secret under `config/secrets`, a private note under
/// `notes/private` and a public file mentioning the same word.
fn tree(ws: &Path) {
    for (p, body) in [
        ("config/secrets/db.txt", "DBPASS=hunter2\n"),
        ("notes/private/note.txt", "DBPASS private note\n"),
        ("src/app.txt", "reads DBPASS from the environment\n"),
    ] {
        let p = ws.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    }
}

/// Rules as the supervisor hands them in: `secrets` denied, `private`
/// asked about (by the entry's path, as a path rule matches).
fn rules() -> EntryRules {
    EntryRules::new(|p| {
        let has = |name: &str| p.components().any(|c| c.as_os_str() == name);
        if has("secrets") {
            Some(EntryRule::Deny("read_file(**/secrets/**)".into()))
        } else if has("private") {
            Some(EntryRule::Ask("read_file(**/private/**)".into()))
        } else {
            None
        }
    })
}

fn walk(tool: &dyn Tool, ws: &Path, args: serde_json::Value, with: EntryRules) -> ToolOutput {
    run_ctx(tool, ws, args, |c| c.entry_rules = with)
}

#[test]
fn grep_find_and_ls_keep_back_what_path_rules_cover() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    let ws = dir.path();
    let grep = walk(&Grep::new(), ws, json!({"pattern": "DBPASS"}), rules());
    assert!(grep.text.contains("src/app.txt:1:"), "{}", grep.text);
    assert!(!grep.text.contains("hunter2"), "{}", grep.text);
    assert!(!grep.text.contains("private note"), "{}", grep.text);
    assert!(
        grep.text.contains(
            "[1 entries hidden by deny rules (such as read_file(**/secrets/**)); airlock never shows them]"
        ),
        "{}",
        grep.text
    );
    assert!(
        grep.text.contains(
            "[1 entries not shown or searched: ask rules (such as read_file(**/private/**)) cover them; \
             name one by its path to be asked]"
        ),
        "{}",
        grep.text
    );
    let find = walk(&Find::new(), ws, json!({"pattern": "*.txt"}), rules());
    assert_eq!(
        find.text.lines().next(),
        Some("src/app.txt (34 bytes)"),
        "{}",
        find.text
    );
    assert!(
        !find.text.contains("db.txt") && !find.text.contains("note.txt"),
        "{}",
        find.text
    );
    let ls = walk(&Ls::new(), ws, json!({"depth": 3}), rules());
    assert!(
        !ls.text.contains("db.txt") && !ls.text.contains("note.txt"),
        "{}",
        ls.text
    );
    assert!(ls.text.contains("app.txt"), "{}", ls.text);

    // CONTROL: the same walks without the rules handed in show them all.
    let grep = walk(
        &Grep::new(),
        ws,
        json!({"pattern": "DBPASS"}),
        EntryRules::none(),
    );
    assert!(
        grep.text.contains("config/secrets/db.txt:1:DBPASS=hunter2"),
        "{}",
        grep.text
    );
    assert!(
        grep.text.contains("notes/private/note.txt:1:"),
        "{}",
        grep.text
    );
    let find = walk(
        &Find::new(),
        ws,
        json!({"pattern": "*.txt"}),
        EntryRules::none(),
    );
    assert!(find.text.contains("config/secrets/db.txt"), "{}", find.text);
    let ls = walk(&Ls::new(), ws, json!({"depth": 3}), EntryRules::none());
    assert!(ls.text.contains("db.txt"), "{}", ls.text);
}

/// `d/f` (2 bytes) is checked; then `d` is swapped for a link to a
/// directory outside whose `f` is 15 bytes.
fn swap_after_check(ws: &Path, out: &Path) {
    std::fs::rename(ws.join("d"), ws.join("moved")).unwrap();
    symlink(out, ws.join("d")).unwrap();
}

fn swap_fixture() -> (tempfile::TempDir, tempfile::TempDir) {
    let ws = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    std::fs::create_dir(ws.path().join("d")).unwrap();
    std::fs::write(ws.path().join("d/f"), "in").unwrap();
    std::fs::write(out.path().join("f"), "outside, longer").unwrap();
    (ws, out)
}

/// Prepare `tool` on `args`, swap `d`, then run it.
fn prepared_then_swapped(tool: &dyn Tool, args: serde_json::Value) -> (ToolOutput, u64) {
    let (ws, out) = swap_fixture();
    let scope = scope_in(ws.path());
    let serde_json::Value::Object(args) = args else {
        unreachable!()
    };
    let inv = tool.prepare(&args, &scope).unwrap();
    swap_after_check(ws.path(), out.path());
    // CONTROL: by path, `d/f` is now the outside file.
    let by_path = std::fs::symlink_metadata(scope.workspace().join("d/f"))
        .unwrap()
        .len();
    let run = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(inv.run(ctx(&scope)));
    (run, by_path)
}

#[test]
fn a_single_file_start_is_never_looked_at_by_path_again() {
    for (tool, args) in [
        (&Ls::new() as &dyn Tool, json!({"path": "d/f"})),
        (&Find::new(), json!({"path": "d/f", "max_depth": 0})),
    ] {
        let (out, by_path) = prepared_then_swapped(tool, args);
        assert_eq!(by_path, 15, "control: by path it is the outside file");
        assert!(!out.text.contains("15 bytes"), "{}", out.text);
    }
    let (ls, _) = prepared_then_swapped(&Ls::new(), json!({"path": "d/f"}));
    assert!(ls.text.contains("outside the allowed roots"), "{}", ls.text);
}

#[test]
fn a_symlinks_target_type_is_looked_at_through_its_parent() {
    let (ws, out) = swap_fixture();
    std::fs::remove_file(out.path().join("f")).unwrap();
    std::fs::create_dir(out.path().join("f")).unwrap();
    let scope = scope_in(ws.path());
    let resolved = scope.workspace().join("d/f");
    assert!(scope.lstat_real("d/f", &resolved).unwrap().is_file());
    swap_after_check(ws.path(), out.path());
    // CONTROL: by path, the target is now the outside directory.
    assert!(std::fs::metadata(&resolved).unwrap().is_dir());
    let e = scope.lstat_real("d/f", &resolved).unwrap_err();
    assert!(e.to_string().contains("outside the allowed roots"), "{e}");
}

#[test]
fn stat_shows_a_link_targets_type_from_the_checked_parent() {
    let (ws, _out) = swap_fixture();
    symlink("d/f", ws.path().join("l")).unwrap();
    let out = run_ctx(&Stat::new(), ws.path(), json!({"path": "l"}), |_| {});
    assert!(out.text.contains("target type: file\n"), "{}", out.text);
}

#[test]
fn a_walked_file_swapped_away_says_nothing_of_what_is_outside() {
    let (ws, out) = swap_fixture();
    std::fs::remove_file(out.path().join("f")).unwrap();
    std::fs::create_dir(out.path().join("f")).unwrap();
    let scope = scope_in(ws.path());
    let walked = scope.workspace().join("d/f");
    swap_after_check(ws.path(), out.path());
    // CONTROL: by path it is the outside directory.
    assert!(std::fs::symlink_metadata(&walked).unwrap().is_dir());
    let e = scope.open_walked_file(&walked).unwrap_err();
    assert!(e.to_string().contains("outside the allowed roots"), "{e}");
    std::fs::remove_dir(out.path().join("f")).unwrap();
    let e = scope.open_walked_file(&walked).unwrap_err();
    assert!(e.to_string().contains("outside the allowed roots"), "{e}");
}
