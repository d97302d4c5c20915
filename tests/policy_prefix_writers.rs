//! Prefix rules and options that run a command or write a file named on
//! the command line (review F2): `bash(git grep *)` does not admit `git
//! grep -O'cmd'`, nor `bash(sort *)` a `sort -o victim`, nor `bash(curl
//! *)` a `curl -o victim`, in any spelling (short letters in a cluster,
//! long names abbreviated, a glob or brace expansion that becomes the
//! option), and a session prefix grant is held to the same.
//! CONTROLS: the same rule allows the command without the option, and the
//! real git, sort, uniq, curl, wget, xxd, find and make do run the planted
//! program or change the victim file.

use std::path::Path;
use std::process::Command;

use airlock::call::{Subject, ToolKind, Verdict};
use airlock::policy::{Action, GrantScope, Mode, Policy, Rule};

fn verdict(p: &Policy, command: &str) -> Verdict {
    let subject = Subject::Command {
        command: command.to_owned(),
    };
    p.evaluate("bash", ToolKind::Exec, &subject).verdict
}

fn policy(rules: &[&str], ws: &Path) -> Policy {
    let rules = rules
        .iter()
        .map(|r| Rule::parse(Action::Allow, r, "test.toml").unwrap())
        .collect();
    Policy::with_rules(Mode::Default, rules, ws, false)
}

fn bash(dir: &Path, script: &str) {
    Command::new("bash")
        .args(["--norc", "--noprofile", "-c", script])
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .env("LC_ALL", "C")
        .output()
        .unwrap();
}

/// A program that leaves `X` next to itself and fails.
fn plant(dir: &Path) -> String {
    let evil = dir.join("evil.sh");
    std::fs::write(&evil, "#!/bin/sh\ntouch \"$(dirname \"$0\")/X\"\nexit 1\n").unwrap();
    bash(dir, "chmod +x evil.sh");
    evil.display().to_string()
}

/// A repository with one commit of `hello` (and files `a`, `b` that differ).
const REPO: &str = "git init -q . && git config user.name t && git config user.email t@t \
     && echo hello > hello && printf 'a\\n' > a && printf 'b\\n' > b \
     && git add hello && git commit -qm one";

/// `in`: two lines to sort. (Every workspace has `victim`, holding
/// [`KEEP`].)
const FILES: &str = "printf 'b\\na\\n' > in";

/// What `victim` holds until an attack changes it (a comment, so that it
/// is also a valid git config file).
const KEEP: &str = "# keep\n";

/// (setup, rule, benign command the rule allows, attack with the planted
/// program at EVIL and the workspace at WS). The attack either runs EVIL
/// (it leaves `X`) or changes `victim`.
const CASES: &[(&str, &str, &str, &str)] = &[
    (
        REPO,
        "bash(git grep *)",
        "git grep -n hello",
        "git grep -O'EVIL' hello",
    ),
    (
        REPO,
        "bash(git grep *)",
        "git grep -i hello",
        "git grep -iOEVIL hello",
    ),
    (
        REPO,
        "bash(git *)",
        "git --no-pager grep hello",
        "git --no-pager grep --open-f=EVIL hello",
    ),
    (
        REPO,
        "bash(git difftool *)",
        "git difftool -y --no-index a b",
        "git difftool -y -x EVIL --no-index a b",
    ),
    (
        REPO,
        "bash(git difftool *)",
        "git difftool -y --no-index a b",
        "git difftool -yx EVIL --no-index a b",
    ),
    (
        REPO,
        "bash(git clone *)",
        "git clone -q . y",
        "git clone -q -u 'EVIL; git-upload-pack' . y",
    ),
    (
        REPO,
        "bash(git clone *)",
        "git clone -q . y",
        "git clone -q -c core.sshCommand=EVIL ssh://h/r y",
    ),
    (
        REPO,
        "bash(git rebase *)",
        "git rebase -q --root",
        "git rebase -q -x EVIL --root",
    ),
    (
        REPO,
        "bash(git archive *)",
        "git archive HEAD",
        "git archive -o victim HEAD",
    ),
    (
        REPO,
        "bash(git config *)",
        "git config user.name x",
        "git config -f victim a.b c",
    ),
    (FILES, "bash(sort *)", "sort -u in", "sort -o victim in"),
    (FILES, "bash(sort *)", "sort -u in", "sort -uovictim in"),
    (FILES, "bash(sort *)", "sort -u in", "sort --outp=victim in"),
    (FILES, "bash(sort *)", "sort -u in", "sort {-o,victim} in"),
    (
        "printf 'b\\na\\n' > in && : > -ovictim",
        "bash(sort *)",
        "sort -u in",
        "sort *",
    ),
    (FILES, "bash(uniq *)", "uniq -c in", "uniq in victim"),
    (FILES, "bash(uniq *)", "uniq -c in", "uniq -f 0 in victim"),
    (FILES, "bash(xxd *)", "xxd -l 16 in", "xxd in victim"),
    (
        FILES,
        "bash(curl *)",
        "curl -s file://WS/in",
        "curl -s -o victim file://WS/in",
    ),
    (
        FILES,
        "bash(curl *)",
        "curl -s file://WS/in",
        "curl -sSLovictim file://WS/in",
    ),
    (
        FILES,
        "bash(wget *)",
        "wget -q -T 1 http://127.0.0.1:9/",
        "wget -q -T 1 -O victim http://127.0.0.1:9/",
    ),
    (
        FILES,
        "bash(find *)",
        "find . -name victim",
        "find . -name victim -delete",
    ),
    (
        "printf 'all:\\n\\ttrue\\n' > Makefile; printf 'test:\\n\\tEVIL\\n' > other.mk",
        "bash(make *)",
        "make -s",
        "make -sf other.mk test",
    ),
];

#[test]
fn prefix_rules_do_not_admit_options_that_run_or_write() {
    for (setup, rule, benign, attack) in CASES {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        let evil = plant(&ws);
        bash(&ws, &setup.replace("EVIL", &evil));
        std::fs::write(ws.join("victim"), KEEP).unwrap();
        let fill = |c: &str| {
            c.replace("EVIL", &evil)
                .replace("WS", &ws.display().to_string())
        };
        let (benign, attack) = (fill(benign), fill(attack));
        let p = policy(&[rule], &ws);
        // CONTROL: the same rule allows the command without the option.
        assert_eq!(
            verdict(&p, &benign),
            Verdict::Allow,
            "{rule} allows {benign}"
        );
        assert_ne!(
            verdict(&p, &attack),
            Verdict::Allow,
            "{rule} admitted {attack}"
        );
        // A session prefix grant is held to the same.
        let words = rule
            .trim_start_matches("bash(")
            .trim_end_matches(')')
            .trim_end_matches('*')
            .trim();
        let g = policy(&[], &ws);
        g.grant(GrantScope::Prefix(words.to_owned()), &["bash"]);
        assert_eq!(
            verdict(&g, &benign),
            Verdict::Allow,
            "grant {words} allows {benign}"
        );
        assert_ne!(
            verdict(&g, &attack),
            Verdict::Allow,
            "grant {words} admitted {attack}"
        );
        // CONTROL: the real program runs the planted one or changes the
        // victim.
        assert!(!ws.join("X").exists(), "the setup ran {evil}");
        bash(&ws, &attack);
        let victim = std::fs::read_to_string(ws.join("victim")).ok();
        assert!(
            ws.join("X").exists() || victim.as_deref() != Some(KEEP),
            "control: {attack} should run {evil} or change victim"
        );
    }
}

/// Rules the fix leaves alone: exact rules match as written, and ordinary
/// use of the same programs is still covered by their prefix rules.
#[test]
fn ordinary_use_is_still_allowed() {
    let ws = Path::new("/ws");
    let p = policy(
        &[
            "bash(git *)",
            "bash(sort *)",
            "bash(uniq *)",
            "bash(curl *)",
            "bash(sort -o out in)",
        ],
        ws,
    );
    for c in [
        "git log -c",
        "git commit -c HEAD",
        "git push -u origin main",
        "git fetch -u origin",
        "git add *",
        "git log -- *",
        "git -P log --oneline",
        "sort -u -k 2 in",
        "sort src/*",
        "uniq -c in",
        "curl -s -H 'Accept: x' http://127.0.0.1/",
        "sort -o out in",
    ] {
        assert_eq!(verdict(&p, c), Verdict::Allow, "{c}");
    }
}
