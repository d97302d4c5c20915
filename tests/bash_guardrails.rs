//! The guardrail corpus: commands that are always refused, and look-alikes
//! that are not.

use airlock::call::{Subject, ToolKind, Verdict};
use airlock::policy::Policy;
use airlock::policy::guardrails::{
    self, DISK_WRITE, FORK_BOMB, Guardrail, MISREAD_LOCALE, MKFS, RM_ROOT,
};

const BLOCKED: &[(&str, Guardrail)] = &[
    ("rm -rf /", RM_ROOT),
    ("rm -rf /*", RM_ROOT),
    ("rm -rf ~", RM_ROOT),
    ("rm -rf ~/", RM_ROOT),
    ("rm -rf ~/*", RM_ROOT),
    ("rm -rf $HOME", RM_ROOT),
    ("rm -rf \"$HOME\"", RM_ROOT),
    ("rm -rf ${HOME}/*", RM_ROOT),
    ("rm -fr /", RM_ROOT),
    ("rm -r -f /", RM_ROOT),
    ("rm -f -r /", RM_ROOT),
    ("rm --recursive --force /", RM_ROOT),
    ("rm -Rf /", RM_ROOT),
    ("rm -r /", RM_ROOT),
    ("rm -rf //", RM_ROOT),
    ("rm -rf /.", RM_ROOT),
    ("rm -rf '/'", RM_ROOT),
    ("rm -rf -- /", RM_ROOT),
    ("rm -rf --no-preserve-root /", RM_ROOT),
    ("rm -rf /usr", RM_ROOT),
    ("rm -rf /etc/", RM_ROOT),
    ("rm -rf /home/*", RM_ROOT),
    ("sudo rm -rf /", RM_ROOT),
    ("sudo -u root rm -rf /", RM_ROOT),
    ("sudo -E env PATH=/x rm -rf /", RM_ROOT),
    ("/bin/rm -rf /", RM_ROOT),
    ("\\rm -rf /", RM_ROOT),
    ("command rm -rf ~", RM_ROOT),
    ("nice -n 10 rm -rf /", RM_ROOT),
    ("timeout 10 rm -rf /", RM_ROOT),
    ("nohup rm -rf / &", RM_ROOT),
    ("X=1 rm -rf /", RM_ROOT),
    ("ls | xargs rm -rf /", RM_ROOT),
    ("cd /tmp && rm -rf /", RM_ROOT),
    ("echo start; rm -rf /*; echo end", RM_ROOT),
    ("true || rm -rf ~", RM_ROOT),
    ("make clean\nrm -rf ~\nmake", RM_ROOT),
    ("(rm -rf /)", RM_ROOT),
    ("{ rm -rf /; }", RM_ROOT),
    ("if true; then rm -rf /; fi", RM_ROOT),
    ("for d in a; do rm -rf /; done", RM_ROOT),
    ("bash -c \"rm -rf /\"", RM_ROOT),
    ("sh -c 'rm -rf ~'", RM_ROOT),
    ("bash -lc 'cd / && rm -rf /*'", RM_ROOT),
    ("eval \"rm -rf /\"", RM_ROOT),
    ("eval rm -rf /", RM_ROOT),
    ("echo \"$(rm -rf /)\"", RM_ROOT),
    ("echo `rm -rf ~`", RM_ROOT),
    ("x=$(rm -rf ~)", RM_ROOT),
    ("export LC_ALL=zh_TW.BIG5", MISREAD_LOCALE),
    ("export LANG=ja_JP.SJIS; echo hi", MISREAD_LOCALE),
    ("LC_ALL=zh_CN.GBK\necho \"中\\$(id)\"", MISREAD_LOCALE),
    ("LC_CTYPE=zh_CN.GB18030 bash -c 'echo hi'", MISREAD_LOCALE),
    ("LANG=zh_TW eval 'echo hi'", MISREAD_LOCALE),
    ("declare -x LC_ALL=zh_HK.BIG5-HKSCS", MISREAD_LOCALE),
    ("local LC_CTYPE=de_DE", MISREAD_LOCALE),
    ("typeset LANG+=.GBK", MISREAD_LOCALE),
    ("export LC_ALL=\"$L\"", MISREAD_LOCALE),
    ("export \"LC_ALL=$(cat f)\"", MISREAD_LOCALE),
    ("LC_ALL=$X ls", MISREAD_LOCALE),
    ("env LC_ALL=zh_TW.BIG5 bash -c 'echo hi'", MISREAD_LOCALE),
    ("sudo env LANG=ja_JP.SJIS make", MISREAD_LOCALE),
    ("read -r LC_ALL < locale.txt", MISREAD_LOCALE),
    ("printf -v LC_ALL %s zh_TW.BIG5", MISREAD_LOCALE),
    ("printf -vLANG %s x", MISREAD_LOCALE),
    ("declare -n r=LC_ALL; r=zh_TW.BIG5", MISREAD_LOCALE),
    ("bash -c 'export LC_ALL=zh_TW.BIG5; echo x'", MISREAD_LOCALE),
    (
        "for LC_ALL in zh_TW.BIG5; do echo \"中\\$(id)\"; done",
        MISREAD_LOCALE,
    ),
    (": \"${LC_ALL:=zh_TW.BIG5}\"; echo x", MISREAD_LOCALE),
    ("echo ${LANG:=ja_JP.SJIS}", MISREAD_LOCALE),
    ("mapfile -t LANG < f", MISREAD_LOCALE),
    ("mkfs /dev/sda1", MKFS),
    ("mkfs.ext4 /dev/sdb", MKFS),
    ("sudo mkfs.xfs -f /dev/nvme0n1p1", MKFS),
    ("/sbin/mke2fs /dev/sdc", MKFS),
    ("echo go && mkfs -t ext4 /dev/vdb", MKFS),
    ("dd if=/dev/zero of=/dev/sda", DISK_WRITE),
    (
        "dd if=image.iso of=/dev/sdb bs=4M status=progress",
        DISK_WRITE,
    ),
    ("sudo dd of=/dev/nvme0n1 if=disk.img", DISK_WRITE),
    ("dd if=/dev/urandom of=/dev/mapper/vg-root", DISK_WRITE),
    ("cat image > /dev/sda", DISK_WRITE),
    ("echo x >/dev/sdb1", DISK_WRITE),
    (
        "gunzip -c img.gz | sudo tee /dev/null > /dev/mmcblk0",
        DISK_WRITE,
    ),
    (":(){ :|:& };:", FORK_BOMB),
    (":(){ :|: & };:", FORK_BOMB),
    ("bomb(){ bomb|bomb& };bomb", FORK_BOMB),
    ("f() { f | f & }; f", FORK_BOMB),
    ("function boom { boom|boom & }; boom", FORK_BOMB),
    ("function boom() {\n  boom | boom &\n}\nboom", FORK_BOMB),
    (".(){ .|.& };.", FORK_BOMB),
    ("spawn() { spawn & spawn; }; spawn", FORK_BOMB),
];

const ALLOWED: &[&str] = &[
    "rm -rf ./build",
    "rm -rf build/ dist/ node_modules",
    "rm -rf /tmp/foo",
    "rm -rf ~/project/build",
    "rm -rf \"$HOME/.cache/thing\"",
    "rm -rf -- ./-weird",
    "rm -f /tmp/x",
    "rm /",
    "rm -rf *",
    "rm -rf /usr/local/lib/myapp",
    "mkdir -p build && rm -rf ./build",
    "find . -name '*.o' -delete",
    "echo \"rm -rf /\"",
    "echo 'rm -rf /'",
    "printf '%s\\n' 'rm -rf ~'",
    "grep -rn \"rm -rf /\" .",
    "git commit -m \"guard against rm -rf /\"",
    "ls # rm -rf /",
    "cat <<'EOF' > notes.md\nrm -rf /\nmkfs /dev/sda\nEOF\necho written",
    "cat <<-EOF > notes.md\n\trm -rf ~\n\tEOF",
    "dd if=/dev/zero of=/dev/null bs=1M count=1",
    "dd if=/dev/urandom of=./random.bin count=1",
    "dd if=x of=/tmp/disk.img",
    "dd if=/dev/sda of=backup.img",
    "echo data | dd of=/dev/stdout",
    "ls -l /dev/sda",
    "head -c 512 /dev/sda | xxd",
    "echo x > /dev/stderr",
    "npm run build 2>/dev/null",
    "exec 3>/dev/tcp/127.0.0.1/80",
    "echo mkfs",
    "man mkfs",
    "which mkfs.ext4",
    "command -v mkfs",
    "f() { echo hi; }; f",
    "fact() { [ $1 -le 1 ] && echo 1 || fact $(($1-1)); }; fact 5",
    "printf ':(){ :|:& };:'",
    "echo ':(){ :|:& };:' > bomb.txt",
    "cargo test 2>&1 | tail -5 &",
    "sleep 1 & wait",
    "bash -c 'echo hi'",
    "export LC_ALL=C.UTF-8",
    "export LANG=de_DE.UTF-8 LC_CTYPE=C",
    "LC_ALL=C sort file",
    "LANG=en_US.utf8 date",
    "LC_ALL=POSIX ls",
    "unset LC_ALL LANG",
    "export LC_ALL",
    "echo LC_ALL=zh_TW.BIG5",
    "printf '%s\\n' LANG LC_ALL",
    "env LC_ALL=C.UTF-8 python3 x.py",
    "read -r name < f",
    "for lang in a b; do echo $lang; done",
    "echo ${LANG:-C}",
];

#[test]
fn blocked_commands_trip_the_named_guardrail() {
    for (cmd, want) in BLOCKED {
        assert_eq!(guardrails::check(cmd), Some(*want), "{cmd:?}");
    }
}

#[test]
fn look_alikes_pass() {
    for cmd in ALLOWED {
        assert_eq!(guardrails::check(cmd), None, "{cmd:?}");
    }
}

#[test]
fn policy_denies_with_the_guardrail_named() {
    let policy = Policy::new();
    let subject = |c: &str| Subject::Command {
        command: c.to_string(),
    };
    let v = policy.evaluate("bash", ToolKind::Exec, &subject("sudo rm -rf /"));
    assert_eq!(v.verdict, Verdict::Deny);
    assert_eq!(v.source.describe(), "built-in guardrail");
    assert!(v.rule.contains("rm-root"), "{}", v.rule);
    let v = policy.evaluate("bash", ToolKind::Exec, &subject(":(){ :|:& };:"));
    assert_eq!(v.verdict, Verdict::Deny);
    assert!(v.rule.contains("fork-bomb"), "{}", v.rule);
    let v = policy.evaluate("bash", ToolKind::Exec, &subject("rm -rf ./build"));
    assert_ne!(v.verdict, Verdict::Deny, "{}", v.rule);
    assert_ne!(v.source.describe(), "built-in guardrail");
}

#[test]
fn odd_input_does_not_panic() {
    for cmd in [
        "",
        "\"",
        "'",
        "$(",
        "`",
        "<<",
        "<<EOF",
        "a() {",
        "rm -rf \"",
        "\\",
        "((((",
        "}}}",
        "&&&",
        "rm -rf $(",
        "eval",
        "bash -c",
        "function",
        "dd of=",
    ] {
        let _ = guardrails::check(cmd);
    }
    let deep = "bash -c ".repeat(50) + "'rm -rf /'";
    let _ = guardrails::check(&deep);
}

/// Spellings of the same catastrophes (issue 13): option abbreviations,
/// `..`, ANSI-C quoting, `--` after `-c`, `${HOME:?}`, braces, doubled
/// slashes, globs at the top level, and every wrapper of the policy's one
/// wrapper table.
const SPELLINGS: &[(&str, Guardrail)] = &[
    ("rm --r -f /*", RM_ROOT),
    ("rm --rec --force /", RM_ROOT),
    ("rm -f / --recursive", RM_ROOT),
    ("rm -rf /..", RM_ROOT),
    ("rm -rf /usr/..", RM_ROOT),
    ("rm -rf /./", RM_ROOT),
    ("rm -rf $'/'", RM_ROOT),
    ("rm -rf $'\\x2f'", RM_ROOT),
    ("rm -rf \"/\"\"\"", RM_ROOT),
    ("bash -c -- 'rm -rf /'", RM_ROOT),
    ("sh -ec -- 'rm -rf ~'", RM_ROOT),
    ("rm -rf \"${HOME:?}\"", RM_ROOT),
    ("rm -rf \"${HOME:?}\"/*", RM_ROOT),
    ("rm -rf ${HOME%/}/", RM_ROOT),
    ("rm -rf \"$dir/\"", RM_ROOT),
    ("rm -rf /$empty", RM_ROOT),
    ("rm -rf ${X:-/}", RM_ROOT),
    ("rm -rf /{usr,etc}", RM_ROOT),
    ("rm -rf /{tmp/x,boot}", RM_ROOT),
    ("rm -rf /u?r", RM_ROOT),
    ("rm -rf /[e]tc/", RM_ROOT),
    ("rm -rf //usr//", RM_ROOT),
    ("dd of=//dev/sda if=/dev/zero", DISK_WRITE),
    ("dd of=/dev/./sda", DISK_WRITE),
    ("dd of=/dev/../dev/nvme0n1", DISK_WRITE),
    ("dd of=\"/dev/sda\"", DISK_WRITE),
    ("echo x > //dev/sda", DISK_WRITE),
    ("cat img | tee /dev/sdb >/dev/null", DISK_WRITE),
    ("strace -f rm -rf /", RM_ROOT),
    ("ltrace -f rm -rf /", RM_ROOT),
    ("watch -n 1 'rm -rf /'", RM_ROOT),
    ("watch rm -rf /", RM_ROOT),
    ("pkexec rm -rf /", RM_ROOT),
    ("runuser -u root -- rm -rf /", RM_ROOT),
    ("parallel rm -rf ::: /", RM_ROOT),
    ("taskset -c 0 rm -rf /", RM_ROOT),
    ("chrt -o 0 rm -rf /", RM_ROOT),
    ("prlimit --nofile=1024 rm -rf /", RM_ROOT),
    ("sudo -u root nice -n 1 timeout 5 rm -rf /", RM_ROOT),
    ("echo / | xargs rm -rf /", RM_ROOT),
    ("sh <<< 'rm -rf /'", RM_ROOT),
    ("bash -s <<'EOF'\nrm -rf /\nEOF", RM_ROOT),
    ("eval 'rm -rf /'", RM_ROOT),
    ("find . -exec rm -rf / \\;", RM_ROOT),
    ("mk{fs,}.ext4 /dev/sda", MKFS),
    ("strace mkfs.ext4 /dev/sda", MKFS),
    ("taskset -c 0 dd of=//dev/sda", DISK_WRITE),
    ("g() { g | g & }; g", FORK_BOMB),
    // Unparseable input still goes through the tokenizer.
    ("rm -rf / ; (", RM_ROOT),
    ("bash -c 'rm -rf / ; ('", RM_ROOT),
];

#[test]
fn spellings_trip_the_guardrail() {
    for (cmd, want) in SPELLINGS {
        assert_eq!(guardrails::check(cmd), Some(*want), "{cmd:?}");
    }
}

/// Top-level system directories, as the guardrail names them.
const SYSTEM: &[&str] = &[
    "/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/opt", "/proc",
    "/root", "/sbin", "/srv", "/sys", "/usr", "/var",
];

/// A path with `.`, `..` and repeated slashes resolved lexically.
fn lexical(p: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    format!("/{}", out.join("/"))
}

/// CONTROL: the real bash (and the real wrappers installed here) hand
/// `rm`/`dd` a catastrophic operand for these spellings. `rm` and `dd`
/// are stubs first on PATH that record their argv, so nothing is harmed.
#[test]
fn control_real_bash_passes_the_catastrophic_operand() {
    let scratch = tempfile::tempdir().unwrap();
    let bin = scratch.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let log = scratch.path().join("argv");
    for stub in ["rm", "dd"] {
        let path = bin.join(stub);
        std::fs::write(
            &path,
            "#!/bin/sh\nprintf '%s\\n' \"$0\" \"$@\" > \"$AIRLOCK_ARGV\"\n",
        )
        .unwrap();
        std::process::Command::new("chmod")
            .arg("+x")
            .arg(&path)
            .status()
            .unwrap();
    }
    let home = scratch.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let path = format!("{}:/usr/sbin:/usr/bin:/sbin:/bin", bin.display());
    let mut checked = 0;
    for (cmd, _) in SPELLINGS {
        let program = cmd.split_whitespace().next().unwrap_or("");
        let wrapper_missing = std::process::Command::new("bash")
            .args(["-c", &format!("PATH='{path}' command -v {program}")])
            .output()
            .map_or(true, |o| !o.status.success());
        // Skip what cannot run harmlessly here: missing wrappers, watch
        // (needs a terminal), the unparseable ones, mkfs and fork bombs.
        let skip = wrapper_missing
            || cmd.contains("watch")
            || cmd.contains('(')
            || cmd.contains("mk")
            || cmd.contains("> //dev")
            || cmd.contains("tee")
            || cmd.contains("parallel")
            || cmd.starts_with("sudo");
        if skip {
            continue;
        }
        let _ = std::fs::remove_file(&log);
        std::process::Command::new("bash")
            .args(["--norc", "--noprofile", "-c", cmd])
            .env("PATH", &path)
            .env("HOME", &home)
            .env("AIRLOCK_ARGV", &log)
            .env_remove("empty")
            .env_remove("dir")
            .env_remove("X")
            .current_dir(scratch.path())
            .output()
            .unwrap();
        let argv = std::fs::read_to_string(&log)
            .unwrap_or_else(|_| panic!("control: {cmd:?} did not run the stub"));
        let args: Vec<&str> = argv.lines().skip(1).collect();
        let home = home.display().to_string();
        let catastrophic = args.iter().any(|a| {
            let a = a.strip_prefix("of=").unwrap_or(a);
            let p = lexical(a);
            a.starts_with('/')
                && (SYSTEM.contains(&p.as_str())
                    || p.starts_with("/dev/sd")
                    || p.starts_with("/dev/nvme"))
                || p == lexical(&home)
                || p.starts_with(&format!("{home}/"))
        });
        assert!(catastrophic, "control: {cmd:?} gave {args:?}");
        checked += 1;
    }
    eprintln!("{checked} spellings checked against bash");
    assert!(
        checked >= 25,
        "only {checked} spellings checked against bash"
    );
}
