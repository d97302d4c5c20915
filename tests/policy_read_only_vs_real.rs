//! Auto-approval and allow rules checked against the real bash, coreutils
//! and git: a command the policy allows (by `bash.auto_approve_read_only`
//! or by rules such as `bash(test *)`) must change nothing when it runs,
//! and every attack below must be asked. Each attack's CONTROL runs it in
//! the real bash and shows that it really does run the substitution or
//! write the file, so the test can fail.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use airlock::call::{Subject, ToolKind, Verdict};
use airlock::policy::{Action, Mode, Policy, Rule};

/// Allow rules a user may plausibly write for "harmless" builtins and
/// read-only programs.
const RULES: &[&str] = &[
    "test *",
    "[ *",
    "printf *",
    "echo *",
    "read *",
    "declare *",
    "typeset *",
    "let *",
    "unset *",
    "mapfile *",
    "getopts *",
    "wait *",
    "sort *",
    "uniq *",
    "file *",
    "git log *",
    "git diff *",
];

/// (prelude run first in the same shell, the command judged, the file the
/// attack creates: `X` when it runs a command substitution). The prelude stands for an earlier command of the same
/// persistent session.
const ATTACKS: &[(&str, &str, &str)] = &[
    ("", "test -v 'a[$(touch X)]'", "X"),
    ("", "[ -v 'a[$(touch X)]' ]", "X"),
    ("", "[ ! -v 'a[$(touch X)]' ]", "X"),
    ("a=(1)", "test -v \"a[\\$(touch X)]\"", "X"),
    ("i='b[$(touch X)]'", "test -v 'a[i]'", "X"),
    ("v=-v; n='a[$(touch X)]'", "test $v \"$n\"", "X"),
    ("", "printf -v 'a[$(touch X)]' x", "X"),
    ("", "printf -v'a[$(touch X)]' x", "X"),
    ("f=-v", "printf $f 'a[$(touch X)]' x", "X"),
    ("", "read 'a[$(touch X)]' <<< x", "X"),
    ("declare -i n", "read n <<< 'a[$(touch X)]'", "X"),
    ("", "declare 'a[$(touch X)]=1'", "X"),
    ("", "typeset 'a[$(touch X)]=1'", "X"),
    ("", "let 'a[$(touch X)]'", "X"),
    ("i='a[$(touch X)]'", "let i", "X"),
    ("a=(1)", "unset 'a[$(touch X)]'", "X"),
    ("declare -ai arr", "mapfile arr <<< 'a[$(touch X)]'", "X"),
    ("declare -i n; a='b[$(touch X)]'", "getopts a n -a", "X"),
    ("x='a[$(touch X)]'", "echo $((x))", "X"),
    ("x='a[$(touch X)]'", "echo ${y[x]}", "X"),
    ("x='a[$(touch X)]'; y=abc", "echo ${y:x}", "X"),
    ("x='a[$(touch X)]'", "(( x ))", "X"),
    ("x='a[$(touch X)]'", "echo $[x]", "X"),
    ("x='a[$(touch X)]'", "echo \"$[x]\"", "X"),
    ("x='a[$(touch X)]'", "echo ${y:-$[x]}", "X"),
    ("", "sort --o=F in", "F"),
    ("", "sort --outp=F in", "F"),
    ("", "sort --output F in", "F"),
    ("", "sort -o F in", "F"),
    ("", "sort -uoF in", "F"),
    ("", "uniq in F", "F"),
    ("", "uniq - F < in", "F"),
    ("", "uniq -- in F", "F"),
    ("", "uniq -c in F", "F"),
    ("", "git log --output=F", "F"),
    (
        "echo a > t; git add t; echo b > t",
        "git diff --output=F",
        "F",
    ),
    ("printf '0 string AB ab\\n' > m", "file -C -m m", "m.mgc"),
    (
        "printf '0 string AB ab\\n' > m",
        "file --comp -m m",
        "m.mgc",
    ),
];

/// Commands that the policy allows and that must change nothing.
const BENIGN: &[&str] = &[
    "test -f in",
    "[ -d . ]",
    "printf '%s\\n' a b",
    "echo hi",
    "sort -r in",
    "sort --rev in",
    "uniq in",
    "uniq -c in",
    "git log --oneline",
    "git diff --stat",
    "file in",
    "find . -name in",
    "date +%Y",
    "cat in | wc -l",
];

fn rules() -> Vec<Rule> {
    RULES
        .iter()
        .map(|r| Rule::parse(Action::Allow, &format!("bash({r})"), "test.toml").unwrap())
        .collect()
}

fn verdict(policy: &Policy, command: &str) -> Verdict {
    let subject = Subject::Command {
        command: command.to_owned(),
    };
    policy.evaluate("bash", ToolKind::Exec, &subject).verdict
}

/// A scratch git repository with one commit and a file `in`.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in"), "b\na\na\n").unwrap();
    let ok = Command::new("bash")
        .args([
            "--norc",
            "-c",
            "git init -q . && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x",
        ])
        .current_dir(dir.path())
        .status()
        .unwrap()
        .success();
    assert!(ok, "git init");
    dir
}

fn run(dir: &Path, prelude: &str, command: &str) {
    let script = format!("{prelude}\n{command}\n");
    Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &script])
        .current_dir(dir)
        .env("GIT_PAGER", "cat")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("bash runs");
}

/// Every file outside `.git` and its contents.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if name != ".git" {
            out.insert(name, std::fs::read(e.path()).unwrap_or_default());
        }
    }
    out
}

#[test]
fn attacks_really_run_and_are_never_allowed() {
    for (prelude, command, marker) in ATTACKS {
        let dir = scratch();
        // CONTROL: the real bash runs the substitution or writes the file.
        run(dir.path(), prelude, command);
        assert!(
            dir.path().join(marker).exists(),
            "control: {command:?} (after {prelude:?}) should create {marker} in real bash"
        );
        let ws = dir.path();
        // Code run through arithmetic (the `X` attacks) is refused under
        // the allow rules too; an explicit `bash(sort *)` does allow
        // `sort -o` (a write the user allowed, inside the sandbox).
        if *marker == "X" {
            let by_rules = Policy::with_rules(Mode::Default, rules(), ws, false);
            assert_ne!(
                verdict(&by_rules, command),
                Verdict::Allow,
                "{command:?} allowed by rules"
            );
        }
        let by_auto = Policy::with_rules(Mode::Default, Vec::new(), ws, true);
        assert_ne!(
            verdict(&by_auto, command),
            Verdict::Allow,
            "{command:?} auto-approved as read-only"
        );
    }
}

#[test]
fn allowed_commands_change_nothing_in_real_bash() {
    for command in BENIGN {
        let dir = scratch();
        let ws = dir.path();
        let by_rules = Policy::with_rules(Mode::Default, rules(), ws, false);
        let by_auto = Policy::with_rules(Mode::Default, Vec::new(), ws, true);
        let allowed = [&by_rules, &by_auto]
            .iter()
            .any(|p| verdict(p, command) == Verdict::Allow);
        assert!(
            allowed,
            "{command:?} should be allowed (else this proves nothing)"
        );
        let before = snapshot(ws);
        run(ws, "", command);
        assert_eq!(before, snapshot(ws), "{command:?} changed files");
    }
}

#[test]
fn auto_approval_allows_the_read_only_list() {
    let dir = scratch();
    let policy = Policy::with_rules(Mode::Default, Vec::new(), dir.path(), true);
    for command in [
        "test -f in",
        "sort -r in",
        "uniq in",
        "git log --oneline",
        "file in",
    ] {
        assert_eq!(verdict(&policy, command), Verdict::Allow, "{command}");
    }
}

/// Auto-approved commands read only inside the workspace: a path attached
/// to a short option (`-f/etc/passwd`) or given to a long one counts too.
/// CONTROL: the real grep does read the file named that way.
#[test]
fn option_values_stay_in_the_workspace() {
    let dir = scratch();
    let out = Command::new("grep")
        .args(["-c", "-f/etc/passwd", "/etc/passwd"])
        .output()
        .unwrap();
    let count: u64 = String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or(0);
    assert!(count > 0, "control: grep -f/etc/passwd reads /etc/passwd");
    let policy = Policy::with_rules(Mode::Default, Vec::new(), dir.path(), true);
    for command in [
        "grep -f/etc/passwd x in",
        "grep -cf/etc/passwd in",
        "du --files0-from=/etc/passwd",
        "cat -A ../x",
        "wc -L~/x",
    ] {
        assert_ne!(verdict(&policy, command), Verdict::Allow, "{command}");
    }
    assert_eq!(verdict(&policy, "grep -rn foo ."), Verdict::Allow);
}
