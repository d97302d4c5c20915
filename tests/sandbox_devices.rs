//! The shell gets a private /dev: the host's disks and kernel interfaces
//! (`/dev/vda`, `/dev/kmsg`, …) are absent, the devices a shell needs and
//! its own terminals work. Control: with the private /dev reported
//! unavailable, the host's disk is readable from the shell (as root).

mod sandbox_support;

use sandbox_support::{fixture, rerun_forcing};

/// A block device of this host, if it has one.
fn host_disk() -> Option<&'static str> {
    [
        "/dev/vda",
        "/dev/sda",
        "/dev/nvme0n1",
        "/dev/xvda",
        "/dev/loop0",
    ]
    .into_iter()
    .find(|d| std::path::Path::new(d).exists())
}

/// Which host devices the shell can open (read-only; a disk's raw blocks
/// bypass every hidden path, the kernel log and consoles leak the host's
/// state, /dev/kvm and /dev/fuse are kernel interfaces).
const OPEN_DEVICES: &str = "for d in /dev/vda /dev/sda /dev/nvme0n1 /dev/loop0 /dev/kmsg /dev/vcs /dev/kvm /dev/fuse /dev/mem; do \
     [ -e $d ] && (exec 3<$d) 2>/dev/null && echo open:$d; done; true";

#[tokio::test]
async fn host_devices_are_absent_and_the_shells_own_work() {
    let f = fixture("");
    let ls = f.ok("ls -A /dev | sort | tr '\\n' ' '").await;
    for absent in ["kmsg", "mem", "vda", "sda", "loop0", "kvm", "console"] {
        assert!(!ls.split(' ').any(|e| e == absent), "{absent} in {ls}");
    }
    for present in ["null", "zero", "urandom", "tty", "pts", "ptmx", "shm", "fd"] {
        assert!(ls.split(' ').any(|e| e == present), "{present} not in {ls}");
    }
    if let Some(d) = host_disk() {
        let out = f.fails(&format!("head -c 512 {d}")).await;
        assert!(out.contains("No such file"), "{out}");
    }
    assert_eq!(f.ok(OPEN_DEVICES).await, "");
    let o = f
        .ok("echo x > /dev/null && head -c 4 /dev/urandom | wc -c && head -c 3 /dev/zero | wc -c \
             && echo shm > /dev/shm/a && cat /dev/shm/a && ls /dev/fd/ >/dev/null && echo fd \
             && python3 -c 'import os; m,s=os.openpty(); os.write(s,b\"pty\\n\"); print(os.read(m,10).decode().strip())' \
             && test -t 1 && echo tty")
        .await;
    assert_eq!(
        o.split_whitespace().collect::<Vec<_>>(),
        ["4", "3", "shm", "fd", "pty", "tty"]
    );
    // Nothing new appears in it.
    f.fails("touch /dev/new").await;
}

#[tokio::test]
async fn control_with_the_private_dev_unavailable_host_devices_open() {
    if host_disk().is_none() && !std::path::Path::new("/dev/kmsg").exists() {
        println!("skipped: this machine has no host device to open");
        return;
    }
    if rerun_forcing(
        "control_with_the_private_dev_unavailable_host_devices_open",
        "dev",
    ) {
        return;
    }
    let f = fixture("");
    let out = f.ok(OPEN_DEVICES).await;
    assert!(out.contains("open:"), "{out}");
    let st = f.session.sandbox_status();
    assert!(
        st.missing.iter().any(|m| m.contains("host's devices")),
        "{st:?}"
    );
}
