//! Known-safe commands (`bash.auto_approve_read_only`) in the sandboxed
//! shell are judged in the directory the shell is really in (red-team F4):
//! the bash process's own, read from the kernel (in a PID namespace it is
//! not the process airlock started), both when the call is decided and
//! again when the command is sent. CONTROLS: judged as if the shell were
//! in the workspace the command is allowed, and where the shell is it
//! reads the secret.

mod sandbox_support;

use airlock::call::{Subject, ToolKind, Verdict};
use sandbox_support::{Fixture, fixture, q};
use serde_json::Value;

fn sandboxed() -> Fixture {
    let f = fixture("\n[bash]\nauto_approve_read_only = true");
    std::fs::create_dir(f.ws.join("sub")).unwrap();
    std::fs::write(f.ws.join("sub/plain.txt"), "plain\n").unwrap();
    std::fs::write(f.outside.join("secret.txt"), "OUTSIDE-SECRET\n").unwrap();
    f
}

/// Who decided each call, in order: `rule` (here: known-safe) or
/// `approve_all` (asked, and the confirmer approved).
fn deciders(f: &Fixture) -> Vec<String> {
    std::fs::read_to_string(&f.session.audit_path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["type"] == "call_decided")
        .map(|r| match r["source"].as_str() {
            Some(source) => format!("{} {source}", r["by"].as_str().unwrap_or_default()),
            None => r["by"].as_str().unwrap_or_default().to_string(),
        })
        .collect()
}

const KNOWN_SAFE: &str = "rule bash.auto_approve_read_only";

#[tokio::test]
async fn a_read_after_a_cd_out_of_the_workspace_is_asked() {
    let f = sandboxed();
    f.ok("cd sub").await;
    assert_eq!(f.ok("cat plain.txt").await.trim(), "plain");
    f.ok(&format!("cd {}", q(&f.outside))).await;
    let out = f.bash("cat secret.txt").await;
    // CONTROL: the shell is there and reads the secret; judged as if it
    // were in the workspace, the command is allowed.
    assert!(out.text.contains("OUTSIDE-SECRET"), "{}", out.text);
    let subject = Subject::Command {
        command: "cat secret.txt".into(),
    };
    let v = f
        .session
        .supervisor
        .policy()
        .evaluate("bash", ToolKind::Exec, &subject);
    assert_eq!(v.verdict, Verdict::Allow);
    // Back in the workspace, a walk is known-safe in the sandbox (where
    // excluded files are hidden).
    f.ok(&format!("cd {}", q(&f.ws))).await;
    f.bash("grep -r plain .").await;
    assert_eq!(
        deciders(&f),
        [
            "approve_all",
            KNOWN_SAFE,
            "approve_all",
            "approve_all",
            "approve_all",
            KNOWN_SAFE
        ]
    );
}

#[tokio::test]
async fn a_cd_made_while_a_known_safe_call_waited_for_the_shell_stops_it() {
    let f = sandboxed();
    let cd = format!("sleep 1; cd {}", q(&f.outside));
    let (moved, read) = tokio::join!(f.bash(&cd), async {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        f.bash("cat secret.txt").await
    });
    assert!(!moved.is_error, "{}", moved.text);
    assert_eq!(
        deciders(&f),
        ["approve_all", KNOWN_SAFE],
        "decided in the workspace"
    );
    assert!(
        read.is_error && read.text.starts_with("not run:"),
        "{}",
        read.text
    );
    assert!(!read.text.contains("OUTSIDE-SECRET"), "{}", read.text);
    // CONTROL: where the shell is now, the same command reads the secret.
    let out = f.bash("cat secret.txt").await;
    assert!(out.text.contains("OUTSIDE-SECRET"), "{}", out.text);
}
