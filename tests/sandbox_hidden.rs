//! Excluded files read as absent inside the sandbox wherever they live
//! (`target/`, `node_modules/`, `.git/` included), whether they existed
//! when the shell started or appeared later (made on the host, moved into
//! place, a new directory holding one), and under any other name that is a
//! hard link to one, in any letter case (`.ENV`, `SERVER.PEM`). Controls: with `deny_excluded = false` the same files
//! are readable, so each check can fail.

mod sandbox_support;

use sandbox_support::{Fixture, fixture};

/// Excluded files that exist before the shell starts, in the directories
/// the old start-up scan skipped, and hard links to them.
fn before(f: &Fixture) -> Vec<&'static str> {
    let ws = &f.ws;
    for d in ["target/debug", "node_modules/pkg", ".git/objects", "app"] {
        std::fs::create_dir_all(ws.join(d)).unwrap();
    }
    std::fs::write(ws.join("target/debug/.env"), "SECRET-target").unwrap();
    std::fs::write(ws.join("node_modules/pkg/key.pem"), "SECRET-nm").unwrap();
    std::fs::write(ws.join(".git/deploy.key"), "SECRET-git").unwrap();
    std::fs::write(ws.join("app/.env"), "SECRET-app").unwrap();
    // Other letter case: a case-folding filesystem opens these as the
    // excluded names.
    std::fs::write(ws.join("app/.ENV"), "SECRET-app-upper").unwrap();
    std::fs::write(ws.join("target/SERVER.PEM"), "SECRET-pem-upper").unwrap();
    std::fs::hard_link(ws.join("app/.env"), ws.join("app/notes.txt")).unwrap();
    std::fs::hard_link(
        ws.join("node_modules/pkg/key.pem"),
        ws.join("target/cache.bin"),
    )
    .unwrap();
    vec![
        "target/debug/.env",
        "node_modules/pkg/key.pem",
        ".git/deploy.key",
        "app/.env",
        "app/notes.txt",
        "target/cache.bin",
        "app/.ENV",
        "target/SERVER.PEM",
    ]
}

/// Excluded files that appear on the host after the shell started.
fn after(f: &Fixture) -> Vec<&'static str> {
    let ws = &f.ws;
    std::fs::write(ws.join(".env"), "SECRET-late").unwrap();
    std::fs::write(ws.join(".Env.Local"), "SECRET-late-case").unwrap();
    std::fs::create_dir_all(ws.join("deep/er/still")).unwrap();
    std::fs::write(ws.join("deep/er/still/server.pem"), "SECRET-deep").unwrap();
    std::fs::write(ws.join("plain.txt"), "SECRET-renamed").unwrap();
    std::fs::rename(ws.join("plain.txt"), ws.join("renamed.key")).unwrap();
    // A directory prepared elsewhere and moved in whole.
    let staging = f.outside.join("staging");
    std::fs::create_dir_all(staging.join(".ssh")).unwrap();
    std::fs::write(staging.join(".ssh/id_rsa"), "SECRET-moved").unwrap();
    std::fs::rename(&staging, ws.join("moved-in")).unwrap_or_else(|_| {
        // Another filesystem: copy instead.
        std::fs::create_dir_all(ws.join("moved-in/.ssh")).unwrap();
        std::fs::write(ws.join("moved-in/.ssh/id_rsa"), "SECRET-moved").unwrap();
    });
    // A new hard link to a file that was excluded at start.
    std::fs::hard_link(ws.join("app/.env"), ws.join("late-link.txt")).unwrap();
    vec![
        ".env",
        ".Env.Local",
        "deep/er/still/server.pem",
        "renamed.key",
        "moved-in/.ssh/id_rsa",
        "late-link.txt",
    ]
}

/// The paths whose secret the shell can read.
async fn readable(f: &Fixture, paths: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for p in paths {
        let o = f.bash(&format!("cat '{p}'")).await;
        if o.text.contains("SECRET") {
            out.push(p.to_string());
        }
    }
    out
}

async fn run(hide: bool) -> (Vec<String>, Vec<String>, usize) {
    let f = fixture(&format!("deny_excluded = {hide}"));
    let early = before(&f);
    f.ok("true").await;
    let late = after(&f);
    (
        readable(&f, &early).await,
        readable(&f, &late).await,
        early.len() + late.len(),
    )
}

#[tokio::test]
async fn excluded_files_are_absent_wherever_and_whenever_they_appear() {
    let (early, late, _) = run(true).await;
    assert!(
        early.is_empty(),
        "readable though excluded at start: {early:?}"
    );
    assert!(
        late.is_empty(),
        "readable though excluded after start: {late:?}"
    );
}

#[tokio::test]
async fn control_without_hiding_every_secret_is_readable() {
    let (early, late, n) = run(false).await;
    assert_eq!(early.len() + late.len(), n, "{early:?} {late:?}");
}

#[tokio::test]
async fn a_hard_link_to_a_denied_file_outside_is_hidden_too() {
    let f = fixture("deny_read = [\"{outside}/creds\"]");
    std::fs::write(f.outside.join("creds"), "SECRET-outside").unwrap();
    std::fs::hard_link(f.outside.join("creds"), f.ws.join("innocent.txt")).unwrap();
    std::fs::write(f.ws.join("ordinary.txt"), "fine").unwrap();
    std::fs::hard_link(f.ws.join("ordinary.txt"), f.ws.join("ordinary2.txt")).unwrap();
    let e = f.fails("cat innocent.txt").await;
    assert!(e.contains("No such file"), "{e}");
    assert_eq!(f.ok("cat ordinary2.txt").await, "fine");
}

#[tokio::test]
async fn control_a_hard_link_to_an_undenied_file_outside_is_readable() {
    let f = fixture("");
    std::fs::write(f.outside.join("creds"), "SECRET-outside").unwrap();
    std::fs::hard_link(f.outside.join("creds"), f.ws.join("innocent.txt")).unwrap();
    assert_eq!(f.ok("cat innocent.txt").await, "SECRET-outside");
}
