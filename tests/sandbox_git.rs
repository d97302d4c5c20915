//! What host-side git runs later cannot be planted from the sandbox: for
//! each attack (hooks, `core.hooksPath`, `core.fsmonitor`, `include.path`,
//! `commondir`, a `gitdir:` file, `git init` in a workspace that is not a
//! repository, a nested repository registered as a submodule, an existing
//! nested repository, a separate-git-dir submodule, a bare repository
//! shape, repositories whose `objects`/`refs` are executable files or
//! symlinks completed later, a `HEAD` made valid later, the workspace root
//! itself), host-side `git status` and `git commit` afterwards run nothing
//! the sandbox wrote. Each attack has its control: with
//! `protect_git = false` the same attack makes host git run the payload.

mod sandbox_support;

use std::path::Path;
use std::process::Command;

use sandbox_support::{Fixture, fixture, q};

/// Host-side git, without the machine's global config.
fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "protocol.file.allow=always",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap()
}

fn host_repo(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    assert!(git(dir, &["init", "-q"]).status.success());
    std::fs::write(dir.join("README"), "hi\n").unwrap();
    git(dir, &["add", "README"]);
    assert!(git(dir, &["commit", "-qm", "init"]).status.success());
}

/// What the workspace looks like before the shell starts.
#[derive(Clone, Copy)]
enum Setup {
    Repo,
    RepoWithoutHooks,
    NoRepo,
    NestedRepo,
    SeparateGitDir,
    /// `core.hooksPath = .husky` (husky): the hooks live in the work tree.
    Husky,
}

struct Attack {
    name: &'static str,
    setup: Setup,
    /// `{m}`: the marker's path (outside the workspace; the sandbox cannot
    /// write it); `$PWD/p` is an executable payload that touches it.
    command: &'static str,
    /// Where host-side git runs afterwards (relative to the workspace).
    host_dirs: &'static [&'static str],
}

const PAYLOAD: &str = "printf '#!/bin/sh\\ntouch %s\\n' {m} > p && chmod +x p";

const ATTACKS: &[Attack] = &[
    Attack {
        name: "a hook in core.hooksPath in the work tree (husky)",
        setup: Setup::Husky,
        command: "cp p .husky/pre-commit",
        host_dirs: &["."],
    },
    Attack {
        name: "hook in an existing hooks dir",
        setup: Setup::Repo,
        command: "cp p .git/hooks/pre-commit",
        host_dirs: &["."],
    },
    Attack {
        name: "hooks dir created",
        setup: Setup::RepoWithoutHooks,
        command: "mkdir -p .git/hooks && cp p .git/hooks/pre-commit",
        host_dirs: &["."],
    },
    Attack {
        name: "core.hooksPath",
        setup: Setup::Repo,
        command: "mkdir h && cp p h/pre-commit && git config core.hooksPath \"$PWD/h\"",
        host_dirs: &["."],
    },
    Attack {
        name: "core.fsmonitor",
        setup: Setup::Repo,
        command: "printf '[core]\\n\\tfsmonitor = %s\\n' \"$PWD/p\" >> .git/config",
        host_dirs: &["."],
    },
    Attack {
        name: "config.worktree",
        setup: Setup::Repo,
        command: "printf '[extensions]\\n\\tworktreeConfig = true\\n' >> .git/config; printf '[core]\\n\\tfsmonitor = %s\\n' \"$PWD/p\" > .git/config.worktree",
        host_dirs: &["."],
    },
    Attack {
        name: "include.path",
        setup: Setup::Repo,
        command: "printf '[core]\\n\\tfsmonitor = %s\\n' \"$PWD/p\" > inc && git config include.path \"$PWD/inc\"",
        host_dirs: &["."],
    },
    Attack {
        name: "commondir",
        setup: Setup::Repo,
        command: "cp -r .git evil && chmod -R u+w evil && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = %s\\n' \"$PWD/p\" > evil/config && mkdir -p evil/hooks && cp p evil/hooks/pre-commit && echo \"$PWD/evil\" > .git/commondir",
        host_dirs: &["."],
    },
    Attack {
        name: "gitdir: file in a subdirectory",
        setup: Setup::Repo,
        command: "cp -r .git planted && chmod -R u+w planted && rm -rf planted/hooks && mkdir planted/hooks && cp p planted/hooks/pre-commit && printf '[core]\\n\\tfsmonitor = %s\\n' \"$PWD/p\" >> planted/config && mkdir sub && echo \"gitdir: $PWD/planted\" > sub/.git",
        host_dirs: &["sub"],
    },
    Attack {
        name: ".git symlink in a subdirectory",
        setup: Setup::Repo,
        command: "cp -r .git planted && chmod -R u+w planted && printf '[core]\\n\\tfsmonitor = %s\\n' \"$PWD/p\" >> planted/config && mkdir -p planted/hooks && cp p planted/hooks/pre-commit && mkdir sub && ln -s \"$PWD/planted\" sub/.git",
        host_dirs: &["sub"],
    },
    Attack {
        name: "a local clone into a subdirectory",
        setup: Setup::Repo,
        command: "git clone -q . cl && git -C cl config core.fsmonitor \"$PWD/p\" && cp p cl/.git/hooks/pre-commit",
        host_dirs: &["cl"],
    },
    Attack {
        name: "git init in a workspace that is not a repository",
        setup: Setup::NoRepo,
        command: "git init -q && cp p .git/hooks/pre-commit && git config core.fsmonitor \"$PWD/p\"",
        host_dirs: &["."],
    },
    Attack {
        name: "nested repository registered as a submodule",
        setup: Setup::Repo,
        command: "mkdir sub && cd sub && git init -q && git config core.fsmonitor \"$PWD/../p\" && cp ../p .git/hooks/pre-commit && git -c user.name=a -c user.email=a@b commit -q --no-verify --allow-empty -m x && cd .. && git add sub",
        host_dirs: &[".", "sub"],
    },
    Attack {
        name: "an existing nested repository's hooks and config",
        setup: Setup::NestedRepo,
        command: "cp p lib/.git/hooks/pre-commit; git -C lib config core.fsmonitor \"$PWD/p\"; printf '[core]\\n\\tfsmonitor = %s\\n' \"$PWD/p\" >> lib/.git/config",
        host_dirs: &["lib"],
    },
    Attack {
        name: "a submodule's gitdir (separate git dir) and its .git file",
        setup: Setup::SeparateGitDir,
        command: "cp p gd/sub/hooks/pre-commit; git -C sub config core.fsmonitor \"$PWD/p\"; cp -r gd/sub evil && chmod -R u+w evil && printf '[core]\\n\\tfsmonitor = %s\\n' \"$PWD/p\" >> evil/config; echo \"gitdir: $PWD/evil\" > sub/.git",
        host_dirs: &["sub"],
    },
    Attack {
        name: "bare repository shape in a subdirectory",
        setup: Setup::Repo,
        command: "mkdir -p b/objects b/refs && echo 'ref: refs/heads/main' > b/HEAD && printf '[core]\\n\\tbare = true\\n\\tfsmonitor = %s\\n[alias]\\n\\tst = !%s\\n' \"$PWD/p\" \"$PWD/p\" > b/config && mkdir b/hooks && cp p b/hooks/pre-commit",
        host_dirs: &["b"],
    },
    // git counts a directory as a repository when HEAD is valid and
    // `objects` and `refs` pass access(X_OK), whatever their type, and
    // whenever that becomes true. (`mkdir sub &&`: the background re-run
    // must not plant anew, which a check made only as names appear sees.)
    Attack {
        name: "a repository of executable files (objects, refs) in a subdirectory",
        setup: Setup::Repo,
        command: "mkdir -p sub && printf 'ref: refs/heads/main\\n' > sub/HEAD && printf '#!/bin/sh\\n' > sub/objects && cp sub/objects sub/refs && chmod +x sub/objects sub/refs && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = %s\\n' \"$PWD/p\" > sub/config",
        host_dirs: &["sub"],
    },
    Attack {
        name: "the workspace root made a repository of executable files",
        setup: Setup::NoRepo,
        command: "printf 'ref: refs/heads/main\\n' > HEAD && printf '#!/bin/sh\\n' > objects && cp objects refs && chmod +x objects refs && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = %s\\n' \"$PWD/p\" > config",
        host_dirs: &["."],
    },
    Attack {
        name: "objects and refs symlinks dangling when made, their targets made beside them",
        setup: Setup::Repo,
        command: "mkdir sub && printf 'ref: refs/heads/main\\n' > sub/HEAD && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = %s\\n' \"$PWD/p\" > sub/config && ln -sfn o sub/objects && ln -sfn r sub/refs && sleep 0.2 && mkdir -p sub/o sub/r",
        host_dirs: &["sub"],
    },
    Attack {
        name: "objects and refs symlinks dangling when made, their targets made elsewhere",
        setup: Setup::Repo,
        command: "mkdir sub && printf 'ref: refs/heads/main\\n' > sub/HEAD && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = %s\\n' \"$PWD/p\" > sub/config && ln -sfn ../far/o sub/objects && ln -sfn ../far/r sub/refs && sleep 0.2 && mkdir -p far/o far/r",
        host_dirs: &["sub"],
    },
    Attack {
        name: "objects and refs files made executable later",
        setup: Setup::Repo,
        command: "mkdir -p sub && printf 'ref: refs/heads/main\\n' > sub/HEAD && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = %s\\n' \"$PWD/p\" > sub/config && : > sub/objects && : > sub/refs && sleep 0.2 && chmod +x sub/objects sub/refs",
        host_dirs: &["sub"],
    },
    Attack {
        name: "HEAD made valid later",
        setup: Setup::Repo,
        command: "mkdir -p sub/objects sub/refs && : > sub/HEAD && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = %s\\n' \"$PWD/p\" > sub/config && sleep 0.2 && printf 'ref: refs/heads/main\\n' > sub/HEAD",
        host_dirs: &["sub"],
    },
];

fn prepare(f: &Fixture, setup: Setup) {
    let ws = &f.ws;
    match setup {
        Setup::Repo => host_repo(ws),
        Setup::RepoWithoutHooks => {
            host_repo(ws);
            std::fs::remove_dir_all(ws.join(".git/hooks")).unwrap();
        }
        Setup::NoRepo => {}
        Setup::NestedRepo => {
            host_repo(ws);
            host_repo(&ws.join("lib"));
        }
        Setup::Husky => {
            host_repo(ws);
            std::fs::create_dir_all(ws.join(".husky")).unwrap();
            assert!(
                git(ws, &["config", "core.hooksPath", ".husky"])
                    .status
                    .success()
            );
        }
        Setup::SeparateGitDir => {
            host_repo(ws);
            std::fs::create_dir_all(ws.join("gd")).unwrap();
            let gd = ws.join("gd/sub");
            let out = git(
                ws,
                &[
                    "init",
                    "-q",
                    "--separate-git-dir",
                    gd.to_str().unwrap(),
                    "sub",
                ],
            );
            assert!(out.status.success(), "{out:?}");
            std::fs::write(ws.join("sub/f"), "x").unwrap();
            git(&ws.join("sub"), &["add", "f"]);
            assert!(
                git(&ws.join("sub"), &["commit", "-qm", "s"])
                    .status
                    .success()
            );
        }
    }
}

/// Run the attack in a fresh sandbox, then host-side git where it says:
/// whether the payload ran.
async fn payload_ran(a: &Attack, protect: bool) -> bool {
    let f = fixture(&format!("protect_git = {protect}"));
    prepare(&f, a.setup);
    let marker = f.outside.join("marker");
    let payload = PAYLOAD.replace("{m}", &q(&marker));
    f.ok(&payload).await;
    let out = f.bash(a.command).await;
    // A background process keeps trying after the call too.
    f.bash(&format!("(sleep 0.3; {}) >/dev/null 2>&1 &", a.command))
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    host_git(a, &f.ws, &out.text);
    // And once the session ended (its placeholders gone).
    let ws = f.ws.clone();
    let _dirs = f.end();
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    if std::env::var_os("DEBUG_GIT").is_some() {
        eprintln!(
            "{}: after the session, .git exists: {}",
            a.name,
            ws.join(".git").exists()
        );
    }
    host_git(a, &ws, &out.text);
    let ran = marker.exists();
    if ran && protect {
        eprintln!("{}: the payload ran; sandbox said: {}", a.name, out.text);
    }
    ran
}

/// Host-side git where the attack says.
fn host_git(a: &Attack, ws: &Path, said: &str) {
    for d in a.host_dirs {
        let dir = ws.join(d);
        if !dir.is_dir() {
            continue;
        }
        let a1 = git(&dir, &["status"]);
        git(&dir, &["st"]);
        let a2 = git(&dir, &["commit", "-q", "--allow-empty", "-m", "host"]);
        if std::env::var_os("DEBUG_GIT").is_some() {
            eprintln!("{}: {:?} {:?} {}", a.name, a1, a2, said);
        }
    }
}

#[tokio::test]
async fn host_git_runs_nothing_the_sandbox_planted() {
    let mut failed = Vec::new();
    for a in ATTACKS {
        if payload_ran(a, true).await {
            failed.push(a.name);
        }
    }
    assert!(
        failed.is_empty(),
        "host git ran planted code after: {failed:?}"
    );
}

#[tokio::test]
async fn control_without_protection_every_attack_runs_on_the_host() {
    let mut missed = Vec::new();
    for a in ATTACKS {
        if !payload_ran(a, false).await {
            missed.push(a.name);
        }
    }
    assert!(
        missed.is_empty(),
        "these attacks do not work even unprotected (the test could not fail): {missed:?}"
    );
}

/// A shell leaves `sub` one step short of a repository (dangling `objects`
/// and `refs` symlinks to `far/`) and ends; then `write_file` (outside the
/// sandbox, no shell running) makes `far/o/` and `far/r/`: whether host git
/// in `sub` runs the payload.
async fn completed_after_the_shell(protect: bool) -> bool {
    let f = fixture(&format!("protect_git = {protect}"));
    host_repo(&f.ws);
    let marker = f.outside.join("marker");
    f.ok(&PAYLOAD.replace("{m}", &q(&marker))).await;
    f.ok("mkdir sub && printf 'ref: refs/heads/main\\n' > sub/HEAD && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = %s\\n' \"$PWD/p\" > sub/config && ln -s ../far/o sub/objects && ln -s ../far/r sub/refs")
        .await;
    f.disconnect();
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    for p in ["far/o/.keep", "far/r/.keep"] {
        let out = f
            .call_as_another("write_file", serde_json::json!({"path": p, "content": ""}))
            .await;
        assert!(!out.is_error, "{p}: {}", out.text);
    }
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    git(&f.ws.join("sub"), &["status"]);
    marker.exists()
}

#[tokio::test]
async fn a_write_completing_what_a_shell_left_is_caught_after_the_shell_ended() {
    assert!(!completed_after_the_shell(true).await);
}

#[tokio::test]
async fn control_a_write_completing_what_a_shell_left_runs_unprotected() {
    assert!(completed_after_the_shell(false).await);
}

#[tokio::test]
async fn git_still_commits_inside_the_sandbox_and_the_result_reports_what_was_removed() {
    let f = fixture("");
    host_repo(&f.ws);
    let o = f
        .ok("echo more >> README && git add README && git -c user.name=a -c user.email=a@b commit -qm second && git checkout -q -b topic && git log --oneline | wc -l")
        .await;
    assert_eq!(o.trim(), "2");
    let out = f.bash("mkdir n && git -C n init -q; true").await;
    assert!(
        out.text.contains("[sandbox: airlock moved n/.git aside"),
        "{}",
        out.text
    );
    assert!(!f.ws.join("n/.git").exists());
    // Refused writes, no placeholders lost.
    f.fails("echo /x > .git/objects/info/alternates").await;
    f.fails("echo x > .git/info/exclude").await;
    f.fails("mv .git .git2").await;
    f.fails("mv .git/objects .git/objects2").await;
    f.fails("mv .git/hooks .git/hooks2").await;
    assert!(f.ws.join(".git/HEAD").exists());
}

/// A plant completed between sessions: a shell leaves `sub` with a valid
/// `HEAD`, a `config` and dangling `objects`/`refs` symlinks; the session
/// ends (what it kept in memory about `sub` is gone); the host then makes
/// the symlinks' targets (as a build would). The next session's walk sees a
/// shape git never makes outside a `.git` and moves its control files
/// aside instead of trusting it. Control: with `protect_git = false` host
/// git runs the payload.
async fn completed_between_sessions(protect: bool) -> bool {
    let cfg = format!("protect_git = {protect}");
    let f = fixture(&cfg);
    host_repo(&f.ws);
    // Outside the workspace, and not under the shell's private /tmp.
    let marker = f.ws.parent().unwrap().join("marker");
    f.ok(&PAYLOAD.replace("{m}", &q(&marker))).await;
    f.ok("mkdir sub && printf 'ref: refs/heads/main\\n' > sub/HEAD && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = %s\\n' \"$PWD/p\" > sub/config && ln -s ../later/o sub/objects && ln -s ../later/r sub/refs")
        .await;
    let ws = f.ws.clone();
    let (dir, _outside) = f.end();
    std::fs::create_dir_all(ws.join("later/o")).unwrap();
    std::fs::create_dir_all(ws.join("later/r")).unwrap();
    let f = sandbox_support::fixture_in(dir, &cfg, airlock::sandbox::SandboxOverrides::default());
    f.ok("true").await;
    git(&f.ws.join("sub"), &["status"]);
    marker.exists()
}

#[tokio::test]
async fn a_plant_completed_between_sessions_is_moved_aside() {
    assert!(
        !completed_between_sessions(true).await,
        "host git ran the payload"
    );
}

#[tokio::test]
async fn control_a_plant_completed_between_sessions_runs_unprotected() {
    assert!(
        completed_between_sessions(false).await,
        "the attack does not work"
    );
}
