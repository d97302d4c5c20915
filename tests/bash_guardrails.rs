//! The guardrail corpus: commands that are always refused, and look-alikes
//! that are not.

use airlock::policy::Policy;
use airlock::policy::guardrails::{self, DISK_WRITE, FORK_BOMB, Guardrail, MKFS, RM_ROOT};
use airlock::supervisor::{Subject, ToolKind, Verdict};

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
    assert_eq!(v.source, "built-in guardrail");
    assert!(v.rule.contains("rm-root"), "{}", v.rule);
    let v = policy.evaluate("bash", ToolKind::Exec, &subject(":(){ :|:& };:"));
    assert_eq!(v.verdict, Verdict::Deny);
    assert!(v.rule.contains("fork-bomb"), "{}", v.rule);
    let v = policy.evaluate("bash", ToolKind::Exec, &subject("rm -rf ./build"));
    assert_ne!(v.verdict, Verdict::Deny, "{}", v.rule);
    assert_ne!(v.source, "built-in guardrail");
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
