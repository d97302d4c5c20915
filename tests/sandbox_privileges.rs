//! A sandboxed shell keeps no privilege that lets it leave the sandbox,
//! also as root (this machine and CI): it ends with no capabilities and
//! `no_new_privs`, and cannot undo the mounts that hide paths, keep files
//! read-only and make `/tmp` private (capabilities dropped, mounts locked
//! in any namespace it makes, mount and namespace calls filtered) even
//! where Landlock is missing. Each protection has a control with exactly
//! it reported unavailable, in which the same attack succeeds.

mod sandbox_support;

use sandbox_support::{Fixture, fixture, q, rerun_forcing};

/// The capability lines of a process the shell starts.
async fn caps(f: &Fixture) -> String {
    f.ok("grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status")
        .await
}

#[tokio::test]
async fn the_shell_ends_with_no_capabilities_and_no_new_privs() {
    let f = fixture("");
    let c = caps(&f).await;
    for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
        assert!(
            c.contains(&format!("{set}:\t0000000000000000")),
            "{set}: {c}"
        );
    }
    assert!(c.contains("NoNewPrivs:\t1"), "{c}");
    // Not regained through exec of a setuid-root or file-capable binary.
    let again = f.ok("sh -c 'grep CapEff /proc/self/status'").await;
    assert!(again.contains("0000000000000000"), "{again}");
    assert!(f.session.sandbox_status().missing.is_empty());
}

#[tokio::test]
async fn control_with_caps_unavailable_the_shell_keeps_its_capabilities() {
    if rerun_forcing(
        "control_with_caps_unavailable_the_shell_keeps_its_capabilities",
        "caps",
    ) {
        return;
    }
    let f = fixture("");
    let c = caps(&f).await;
    assert!(!c.contains("CapEff:\t0000000000000000"), "{c}");
    let st = f.session.sandbox_status();
    assert!(
        st.missing
            .iter()
            .any(|m| m.contains("keeps its capabilities")),
        "{st:?}"
    );
}

/// A secret hidden by `deny_read`, a host file under /tmp, and the
/// attacks on the mounts that hide them: plain umount, a lazy one, a
/// remount, and the same from a new user and mount namespace. The output
/// holds whatever leaked.
async fn undo_mounts(f: &Fixture) -> String {
    let secret = f.outside.join("secret");
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::write(secret.join("key"), "LEAKED-secret").unwrap();
    let marker = format!("airlock-privileges-{}", std::process::id());
    std::fs::write(std::path::Path::new("/tmp").join(&marker), "LEAKED-tmp").unwrap();
    let s = q(&secret);
    let cmd = format!(
        "umount {s}; umount -l {s}; umount -l /tmp; \
         unshare -Urm sh -c 'umount -l {s}; umount -l /tmp; cat {s}/key /tmp/{marker}'; \
         mount -o remount,rw {ws}; \
         cat {s}/key /tmp/{marker}; true",
        ws = q(&f.ws.join(".git")),
    );
    let out = f.bash(&cmd).await.text;
    let _ = std::fs::remove_file(std::path::Path::new("/tmp").join(&marker));
    out
}

fn config() -> String {
    "deny_read = [\"{outside}/secret\"]".to_string()
}

async fn mounts_hold(name: &str, forced: &str) {
    if rerun_forcing(name, forced) {
        return;
    }
    let f = fixture(&config());
    let out = undo_mounts(&f).await;
    assert!(!out.contains("LEAKED"), "{out}");
    // The probe names what is missing (never a silent skip).
    let st = f.session.sandbox_status();
    assert!(
        st.missing
            .iter()
            .any(|m| m.contains("writes are not confined")),
        "{st:?}"
    );
}

#[tokio::test]
async fn without_landlock_mounts_cannot_be_undone() {
    mounts_hold("without_landlock_mounts_cannot_be_undone", "landlock").await;
}

#[tokio::test]
async fn without_landlock_or_seccomp_dropped_capabilities_and_locked_mounts_hold() {
    mounts_hold(
        "without_landlock_or_seccomp_dropped_capabilities_and_locked_mounts_hold",
        "landlock,seccomp",
    )
    .await;
}

#[tokio::test]
async fn without_landlock_or_dropped_capabilities_seccomp_holds() {
    mounts_hold(
        "without_landlock_or_dropped_capabilities_seccomp_holds",
        "landlock,caps",
    )
    .await;
}

#[tokio::test]
async fn control_without_landlock_caps_and_seccomp_the_mounts_are_undone() {
    if rerun_forcing(
        "control_without_landlock_caps_and_seccomp_the_mounts_are_undone",
        "landlock,caps,seccomp",
    ) {
        return;
    }
    let f = fixture(&config());
    let out = undo_mounts(&f).await;
    assert!(out.contains("LEAKED-secret"), "{out}");
    assert!(out.contains("LEAKED-tmp"), "{out}");
}

#[tokio::test]
async fn seccomp_refuses_namespaces_and_mounts_with_eperm() {
    let f = fixture("");
    let out = f
        .bash("unshare -U true; echo rc=$?; mount -t tmpfs none /mnt; echo rc=$?")
        .await
        .text;
    assert!(out.contains("Operation not permitted"), "{out}");
    assert!(!out.contains("rc=0"), "{out}");
}

#[tokio::test]
async fn control_with_seccomp_unavailable_a_namespace_can_be_made() {
    if rerun_forcing(
        "control_with_seccomp_unavailable_a_namespace_can_be_made",
        "seccomp",
    ) {
        return;
    }
    let f = fixture("");
    assert_eq!(f.ok("unshare -U true && echo made").await, "made");
    let st = f.session.sandbox_status();
    assert!(st.missing.iter().any(|m| m.contains("seccomp")), "{st:?}");
}
