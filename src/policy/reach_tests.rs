//! Known-safe commands judged where they run (red-team F4): the shell's
//! real directory, symbolic links in any component, the scope's
//! exclusions and hard-link rules, input redirections, option values,
//! and walks of directories. CONTROLS: each refused command really reads
//! what it must not in the real bash, and a command of the same shape that
//! stays in the scope is allowed (so the refusal is the protection's).

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use super::{Mode, Policy};
use crate::call::{ShellEnv, ShellSite, Subject, ToolKind, Verdict, VerdictSource};
use crate::scope::{DEFAULT_EXCLUDED, Scope};

/// A workspace with a secret outside it and links that lead there:
///
/// ```text
/// outside/secret.txt        OUTSIDE-SECRET
/// ws/notes.txt              hello
/// ws/.env                   SECRET=env
/// ws/sub/plain.txt          plain
/// ws/sub/link     -> outside/secret.txt
/// ws/sub/envlink  -> ws/.env
/// ws/sub/dangling -> outside/nothing
/// ws/linkdir      -> outside
/// ws/lnk          -> outside/secret.txt
/// ws/hard                   (a hard link of ws/.env)
/// ```
struct Fixture {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    outside: PathBuf,
    policy: Policy,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let (ws, outside) = (root.join("ws"), root.join("outside"));
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "OUTSIDE-SECRET\n").unwrap();
    std::fs::write(ws.join("notes.txt"), "hello\n").unwrap();
    std::fs::write(ws.join(".env"), "SECRET=env\n").unwrap();
    std::fs::write(ws.join("sub/plain.txt"), "plain\n").unwrap();
    symlink(outside.join("secret.txt"), ws.join("sub/link")).unwrap();
    symlink(ws.join(".env"), ws.join("sub/envlink")).unwrap();
    symlink(outside.join("nothing"), ws.join("sub/dangling")).unwrap();
    symlink(&outside, ws.join("linkdir")).unwrap();
    symlink(outside.join("secret.txt"), ws.join("lnk")).unwrap();
    std::fs::hard_link(ws.join(".env"), ws.join("hard")).unwrap();
    let excluded: Vec<String> = DEFAULT_EXCLUDED.iter().map(ToString::to_string).collect();
    let scope = Scope::new(&ws, &[], &excluded).unwrap();
    let policy =
        Policy::with_rules(Mode::Default, Vec::new(), &ws, true).with_scope(Arc::new(scope));
    Fixture {
        _dir: dir,
        ws,
        outside,
        policy,
    }
}

/// Airlock's sandboxed shell (excluded files hidden) in `cwd`.
fn sandboxed(cwd: &Path) -> ShellSite {
    ShellSite {
        cwd: Some(cwd.to_path_buf()),
        hides_excluded: true,
        env: ShellEnv::Filtered,
    }
}

/// A command the agent runs itself (a hook) in `cwd`.
fn hook(cwd: &Path) -> ShellSite {
    ShellSite {
        cwd: Some(cwd.to_path_buf()),
        hides_excluded: false,
        env: ShellEnv::Agents,
    }
}

impl Fixture {
    fn verdict(&self, command: &str, site: &ShellSite) -> Verdict {
        let subject = Subject::Command {
            command: command.to_string(),
        };
        let v = self
            .policy
            .evaluate_at("bash", ToolKind::Exec, &subject, site);
        if v.verdict == Verdict::Allow {
            assert_eq!(v.source, VerdictSource::KnownSafe, "{command}");
        }
        v.verdict
    }

    fn refused(&self, commands: &[&str], site: &ShellSite) {
        for c in commands {
            assert_eq!(self.verdict(c, site), Verdict::Ask, "{c} at {site:?}");
        }
    }

    fn allowed(&self, commands: &[&str], site: &ShellSite) {
        for c in commands {
            assert_eq!(self.verdict(c, site), Verdict::Allow, "{c} at {site:?}");
        }
    }
}

/// What the real bash prints for `command` in `cwd` (stdout and stderr).
fn real(cwd: &Path, command: &str) -> String {
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", command])
        .current_dir(cwd)
        .env("GIT_PAGER", "cat")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// CONTROL helper: the real bash in `cwd` prints `secret` for `command`.
fn leaks(cwd: &Path, command: &str, secret: &str) {
    let out = real(cwd, command);
    assert!(
        out.contains(secret),
        "control: {command:?} in {cwd:?} should print {secret:?}, printed {out:?}"
    );
}

#[test]
fn words_resolve_against_the_shells_real_directory() {
    let f = fixture();
    let attacks = [
        "cat secret.txt",
        "head -n 1 secret.txt",
        "ls -la",
        "wc -l secret.txt",
    ];
    // CONTROL: where the shell really is, these read the secret; judged
    // as if the shell were in the workspace (the words alone), they pass.
    leaks(&f.outside, "cat secret.txt", "OUTSIDE-SECRET");
    f.allowed(&attacks, &sandboxed(&f.ws));
    f.refused(&attacks, &sandboxed(&f.outside));
    f.refused(&attacks, &hook(&f.outside));
    // A directory inside by name, outside in fact.
    leaks(&f.ws.join("linkdir"), "cat secret.txt", "OUTSIDE-SECRET");
    f.refused(&attacks, &sandboxed(&f.ws.join("linkdir")));
    // An excluded directory, and a directory nobody knows.
    std::fs::create_dir(f.ws.join(".ssh")).unwrap();
    std::fs::write(f.ws.join(".ssh/id"), "KEY\n").unwrap();
    leaks(&f.ws.join(".ssh"), "cat id", "KEY");
    f.refused(&["cat id", "ls"], &sandboxed(&f.ws.join(".ssh")));
    f.refused(&["cat notes.txt", "ls"], &ShellSite::default());
    f.refused(&["ls"], &sandboxed(Path::new("ws")));
    // Inside, relative words resolve against the real directory.
    f.allowed(&["cat plain.txt", "ls -la"], &sandboxed(&f.ws.join("sub")));
    f.refused(&["cat ../notes.txt"], &sandboxed(&f.ws.join("sub")));
}

#[test]
fn symbolic_links_are_followed_in_every_component() {
    let f = fixture();
    let site = sandboxed(&f.ws);
    // CONTROL: each of these reads the secret outside the workspace.
    for c in [
        "cat sub/link",
        "cat linkdir/secret.txt",
        "cat < sub/link",
        "grep -h -f sub/link sub/link",
        "grep -hfsub/link sub/link",
        "grep -hflnk lnk",
        "grep -h --file=sub/link sub/link",
        "diff --from-file=sub/link notes.txt",
    ] {
        leaks(&f.ws, c, "OUTSIDE-SECRET");
    }
    f.refused(
        &[
            "cat sub/link",
            "cat linkdir/secret.txt",
            "head -c 100 linkdir/secret.txt",
            "cat < sub/link",
            "wc -c < linkdir/secret.txt",
            "grep -f sub/link x notes.txt",
            "grep -fsub/link notes.txt",
            "grep -nfsub/link notes.txt",
            "grep -flnk notes.txt",
            "grep -nflnk notes.txt",
            "grep --file=sub/link notes.txt",
            "diff --from-file=sub/link notes.txt",
            "cat sub/envlink",
            "cat sub/dangling",
            "stat linkdir",
        ],
        &site,
    );
    // CONTROL: the same shapes on files that stay inside are allowed.
    f.allowed(
        &[
            "cat sub/plain.txt",
            "cat < sub/plain.txt",
            "grep -fnotes.txt notes.txt",
            "grep --file=sub/plain.txt notes.txt",
            "diff --from-file=sub/plain.txt notes.txt",
            "stat sub",
        ],
        &site,
    );
}

#[test]
fn exclusions_fold_case_and_a_second_name_of_a_secret_is_refused() {
    let f = fixture();
    let site = sandboxed(&f.ws);
    // CONTROL: the hard link and the input redirection read the secret.
    leaks(&f.ws, "cat hard", "SECRET=env");
    leaks(&f.ws, "cat < .env", "SECRET=env");
    f.refused(
        &["cat hard", "cat < .env", "cat .ENV", "cat sub/.Env.local"],
        &site,
    );
    std::fs::write(f.ws.join("single"), "one link\n").unwrap();
    f.allowed(
        &[
            "cat single",
            "cat < single",
            "wc -l < /dev/null",
            "diff single /dev/null",
        ],
        &site,
    );
    f.refused(&["cat < /dev/zero", "cat < /etc/hostname"], &site);
}

#[test]
fn walks_are_known_safe_only_where_excluded_files_are_hidden() {
    let f = fixture();
    std::fs::create_dir(f.ws.join("other")).unwrap();
    let walks = [
        "grep -r SECRET .",
        "grep -rn SECRET",
        "grep -R SECRET sub",
        "egrep -r SECRET .",
        "grep -d recurse SECRET .",
        "grep --directories=recurse SECRET .",
        "grep --recursive SECRET",
        "ls -R",
        "ls -laR .",
        "du -a",
        "du",
        "find . -name .env",
        "find",
        "git diff --no-index sub other",
    ];
    // CONTROL: on the agent's own shell (no sandbox) a walk reads the
    // excluded file; where the sandbox hides it, the walk is allowed.
    leaks(&f.ws, "grep -r SECRET .", "SECRET=env");
    leaks(&f.ws, "grep -r SECRET", "SECRET=env");
    leaks(&f.ws, "find . -name .env", "./.env");
    f.allowed(&walks[..2], &sandboxed(&f.ws));
    f.allowed(
        &["ls -R", "du -a", "find . -name x", "grep -r x sub"],
        &sandboxed(&f.ws),
    );
    f.refused(&walks, &hook(&f.ws));
    f.allowed(
        &["grep -n SECRET notes.txt", "ls -la", "ls sub"],
        &hook(&f.ws),
    );
}

#[test]
fn walks_that_follow_links_are_never_known_safe() {
    let f = fixture();
    std::fs::create_dir(f.ws.join("d1")).unwrap();
    std::fs::create_dir(f.ws.join("d2")).unwrap();
    symlink(f.outside.join("secret.txt"), f.ws.join("d1/x")).unwrap();
    std::fs::write(f.ws.join("d2/x"), "other\n").unwrap();
    // CONTROL: these follow linkdir (or d1/x) out of the workspace; the
    // same walks that do not follow links do not.
    leaks(&f.ws, "grep -R OUTSIDE .", "OUTSIDE-SECRET");
    leaks(&f.ws, "find -L . -name secret.txt", "secret.txt");
    leaks(&f.ws, "diff d1 d2", "OUTSIDE-SECRET");
    leaks(&f.ws, "diff -r d1 d2", "OUTSIDE-SECRET");
    assert!(!real(&f.ws, "grep -r OUTSIDE .").contains("OUTSIDE-SECRET"));
    f.allowed(
        &["grep -r OUTSIDE .", "find . -name secret.txt"],
        &sandboxed(&f.ws),
    );
    f.refused(
        &[
            "grep -R OUTSIDE .",
            "grep -rR OUTSIDE",
            "grep --dereference-recursive OUTSIDE .",
            "find -L . -name secret.txt",
            "find . -follow -name secret.txt",
            "du -L",
            "du --dereference .",
            "ls -RL",
            "diff d1 d2",
            "diff -r d1 d2",
            "diff -ru d1 d2",
        ],
        &sandboxed(&f.ws),
    );
    f.allowed(&["diff d2/x notes.txt"], &sandboxed(&f.ws));
}

#[test]
fn names_read_from_a_file_are_never_known_safe() {
    let f = fixture();
    let secret = f.outside.join("secret.txt");
    let list = format!("{}\0", secret.display());
    std::fs::write(f.ws.join("list"), list).unwrap();
    let sums = real(&f.outside, "sha256sum secret.txt");
    std::fs::write(
        f.ws.join("sums"),
        sums.replace("secret.txt", &secret.display().to_string()),
    )
    .unwrap();
    // CONTROL: the names in the file lead outside, and are read.
    leaks(&f.ws, "sort --files0-from=list", "OUTSIDE-SECRET");
    leaks(&f.ws, "sha256sum -c sums", "OK");
    f.refused(
        &[
            "sort --files0-from=list",
            "sort --files0=list",
            "wc -c --files0-from=list",
            "du --files0-from=list",
            "sha256sum -c sums",
            "md5sum --check sums",
            "file -f list",
            "file --files-from list",
            "find -files0-from list",
        ],
        &sandboxed(&f.ws),
    );
    f.allowed(
        &["sort list", "wc -c list", "sha256sum list", "file list"],
        &sandboxed(&f.ws),
    );
}

#[test]
fn paths_after_a_git_revision_and_response_files_are_judged() {
    let f = fixture();
    let git = "git init -q . && git add -f .env notes.txt && \
               git -c user.email=a@b -c user.name=a commit -qm x";
    real(&f.ws, git);
    // CONTROL: git prints the committed excluded file.
    leaks(&f.ws, "git show HEAD:.env", "SECRET=env");
    f.refused(
        &[
            "git show HEAD:.env",
            "git show :0:.env",
            "git log -p -- .env",
            "cat @sub/link",
        ],
        &sandboxed(&f.ws),
    );
    f.allowed(
        &["git show HEAD:notes.txt", "git status"],
        &sandboxed(&f.ws),
    );
}

#[test]
fn the_recheck_judges_the_directory_the_shell_is_in_when_it_runs() {
    let f = fixture();
    let subject = Subject::Command {
        command: "cat secret.txt".into(),
    };
    let site = sandboxed(&f.ws);
    // Allowed where the shell was when it was decided …
    assert_eq!(
        f.policy
            .evaluate_at("bash", ToolKind::Exec, &subject, &site)
            .verdict,
        Verdict::Allow
    );
    let recheck = f.policy.known_safe_recheck(&subject, &site).unwrap();
    assert!(recheck.check(&f.ws).is_ok());
    // … refused where it is when the command is sent (CONTROL: there it
    // reads the secret).
    leaks(&f.outside, "cat secret.txt", "OUTSIDE-SECRET");
    assert!(recheck.check(&f.outside).is_err());
    // A link made since the decision is seen too.
    let later = Subject::Command {
        command: "cat sub/later".into(),
    };
    assert_eq!(
        f.policy
            .evaluate_at("bash", ToolKind::Exec, &later, &site)
            .verdict,
        Verdict::Allow
    );
    let recheck = f.policy.known_safe_recheck(&later, &site).unwrap();
    symlink(f.outside.join("secret.txt"), f.ws.join("sub/later")).unwrap();
    leaks(&f.ws, "cat sub/later", "OUTSIDE-SECRET");
    assert!(recheck.check(&f.ws).is_err());
}
