//! With the network off, the shell cannot reach the host's System V IPC
//! (message queues, shared memory, semaphores): it has its own IPC
//! namespace with the network one. A queue the test makes on the host is
//! absent in the shell. Control: with the network namespace reported
//! unavailable, the shell sees the host's queue.

mod sandbox_support;

use sandbox_support::{fixture, rerun_forcing};

/// A host message queue; its id. `None` where `ipcmk` is missing.
fn host_queue() -> Option<String> {
    let out = std::process::Command::new("ipcmk")
        .arg("-Q")
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let id = text.trim().rsplit(' ').next()?.to_string();
    (out.status.success() && id.parse::<u64>().is_ok()).then_some(id)
}

fn has_ipcmk() -> bool {
    std::process::Command::new("ipcmk")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn remove(id: &str) {
    let _ = std::process::Command::new("ipcrm")
        .args(["-q", id])
        .status();
}

/// `ipcs` in the shell: the ids of the message queues it sees.
fn seen(id: &str) -> String {
    format!("ipcs -q | awk '{{print $2}}' | grep -qx {id} && echo seen || echo absent")
}

#[tokio::test]
async fn a_host_message_queue_is_absent_in_the_shell() {
    let Some(id) = host_queue() else {
        println!("skipped: no ipcmk here");
        return;
    };
    let f = fixture("");
    // The test's own check sees it on the host.
    let host = std::process::Command::new("ipcs")
        .arg("-q")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&host.stdout).contains(&id));
    let out = f.ok(&seen(&id)).await;
    remove(&id);
    assert_eq!(out.trim(), "absent");
}

#[tokio::test]
async fn control_without_the_namespace_the_host_queue_is_seen() {
    if std::env::var_os("AIRLOCK_SANDBOX_FORCE_UNAVAILABLE").is_none() && !has_ipcmk() {
        println!("skipped: no ipcmk here");
        return;
    }
    if rerun_forcing(
        "control_without_the_namespace_the_host_queue_is_seen",
        "netns",
    ) {
        return;
    }
    let id = host_queue().unwrap();
    let f = fixture("");
    let out = f.ok(&seen(&id)).await;
    remove(&id);
    assert_eq!(out.trim(), "seen");
}
