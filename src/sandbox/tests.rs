//! The status a given kernel support leads to.

use super::*;

fn ws() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let p = std::fs::canonicalize(d.path()).unwrap();
    (d, p)
}

fn all() -> Support {
    Support {
        landlock: Ok(7),
        userns: Ok(()),
        mountns: Ok(()),
        netns: Ok(()),
        pidns: Ok(()),
        caps: Ok(()),
        seccomp: Ok(()),
        dev: Ok(()),
        sockets: Ok(()),
    }
}

fn sandbox(cfg: &SandboxConfig, s: &Support) -> Sandbox {
    let (_d, ws) = ws();
    Sandbox::with_support(cfg, &ws, &Exclusions::new(&[]).unwrap(), &[], s)
}

#[test]
fn everything_available_is_enforced_and_named() {
    let sb = sandbox(&SandboxConfig::default(), &all());
    let st = sb.status();
    assert_eq!(st.state, SandboxState::Enforced);
    assert_eq!(
        st.summary,
        "sandbox: workspace-write, no network (landlock+userns+mountns+netns+pidns)"
    );
    assert_eq!(st.landlock_abi, Some(7));
    assert!(st.missing.is_empty());
    assert!(st.allow_write.iter().any(|w| w == "/tmp (private)"));
}

#[test]
fn allowing_the_network_drops_the_network_namespace() {
    let cfg = SandboxConfig {
        allow_network: true,
        ..SandboxConfig::default()
    };
    let sb = sandbox(&cfg, &all());
    assert_eq!(sb.status().state, SandboxState::Enforced);
    assert!(!sb.status().mechanisms.contains(&"netns".to_string()));
    assert!(sb.status().summary.contains("network allowed"));
}

#[test]
fn a_missing_mechanism_is_partial_and_says_why() {
    let s = Support {
        netns: Err("creating a network namespace failed: EPERM".into()),
        ..all()
    };
    let sb = sandbox(&SandboxConfig::default(), &s);
    let st = sb.status();
    assert_eq!(st.state, SandboxState::Partial);
    assert!(st.summary.contains("partial"), "{}", st.summary);
    assert!(st.summary.contains("only TCP is blocked"), "{}", st.summary);
    assert!(st.missing[0].contains("EPERM"));
}

#[test]
fn nothing_available_is_off_with_the_reasons() {
    let sb = sandbox(
        &SandboxConfig::default(),
        &Support::none("no kernel support"),
    );
    let st = sb.status();
    assert_eq!(st.state, SandboxState::Off);
    assert!(st.summary.starts_with("sandbox: off — "), "{}", st.summary);
    assert!(st.summary.contains("no kernel support"));
    let dir = tempfile::tempdir().unwrap();
    assert!(sb.prepare(dir.path(), dir.path()).unwrap().is_none());
}

#[test]
fn required_and_missing_refuses_the_shell() {
    let cfg = SandboxConfig {
        required: true,
        ..SandboxConfig::default()
    };
    let sb = sandbox(&cfg, &Support::none("no kernel support"));
    assert_eq!(sb.status().state, SandboxState::Refused);
    let dir = tempfile::tempdir().unwrap();
    let e = sb.prepare(dir.path(), dir.path()).unwrap_err().to_string();
    assert!(
        e.contains("required") && e.contains("no kernel support"),
        "{e}"
    );
}

#[test]
fn mode_off_is_off_and_passes_the_environment() {
    let cfg = SandboxConfig {
        mode: SandboxMode::Off,
        required: true,
        ..SandboxConfig::default()
    };
    let sb = sandbox(&cfg, &Support::none("mode = off"));
    assert_eq!(sb.status().state, SandboxState::Off);
    assert_eq!(sb.status().summary, "sandbox: off — mode = off");
    let vars = vec![(OsString::from("ANYTHING"), OsString::from("1"))];
    assert_eq!(sb.filter_env(vars.clone()).unwrap(), vars);
}

#[test]
fn the_environment_is_an_allowlist_when_on() {
    let sb = sandbox(&SandboxConfig::default(), &all());
    let vars = vec![
        (OsString::from("PATH"), OsString::from("/bin")),
        (OsString::from("DATABASE_URL"), OsString::from("x")),
    ];
    let kept = sb.filter_env(vars).unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].0, "PATH");
}

#[test]
fn status_round_trips_through_json() {
    let sb = sandbox(&SandboxConfig::default(), &all());
    let j = serde_json::to_string(sb.status()).unwrap();
    let back: SandboxStatus = serde_json::from_str(&j).unwrap();
    assert_eq!(&back, sb.status());
    assert!(j.contains("\"state\":\"enforced\""), "{j}");
}

#[test]
fn a_missing_pid_namespace_is_reported_unless_containment_is_off() {
    let s = Support {
        pidns: Err("creating a PID namespace failed: EPERM".into()),
        ..all()
    };
    let sb = sandbox(&SandboxConfig::default(), &s);
    let st = sb.status();
    assert_eq!(st.state, SandboxState::Partial);
    assert!(
        st.missing[0].contains("can outlive a timeout") && st.missing[0].contains("EPERM"),
        "{:?}",
        st.missing
    );
    let off = SandboxConfig {
        contain_processes: false,
        ..SandboxConfig::default()
    };
    let sb = sandbox(&off, &s);
    assert_eq!(sb.status().state, SandboxState::Enforced);
    assert!(!sb.status().mechanisms.contains(&"pidns".to_string()));
}

#[test]
fn protecting_git_without_a_mount_namespace_is_reported() {
    let s = Support {
        mountns: Err("creating a mount namespace failed: EPERM".into()),
        ..all()
    };
    let sb = sandbox(&SandboxConfig::default(), &s);
    assert!(
        sb.status()
            .missing
            .iter()
            .any(|m| m.contains("git control files")),
        "{:?}",
        sb.status().missing
    );
}

#[test]
fn the_status_says_whether_git_is_protected() {
    let sb = sandbox(&SandboxConfig::default(), &all());
    assert!(sb.status().protect_git);
    let ro = SandboxConfig {
        mode: SandboxMode::ReadOnly,
        ..SandboxConfig::default()
    };
    assert!(!sandbox(&ro, &all()).status().protect_git);
}

#[test]
fn own_files_the_shell_may_write_are_listed_or_reported_unprotected() {
    let (_d, ws) = ws();
    let own = [
        own::OwnPath {
            path: ws.join(".config/airlock"),
            kind: own::OwnKind::Dir,
        },
        own::OwnPath {
            path: PathBuf::from("/nonexistent-airlock-test/airlock"),
            kind: own::OwnKind::Dir,
        },
    ];
    let ex = Exclusions::new(&[]).unwrap();
    let cfg = SandboxConfig::default();
    let sb = Sandbox::with_support(&cfg, &ws, &ex, &own, &all());
    let shown = ws.join(".config/airlock").display().to_string();
    assert_eq!(sb.status().protect_own, std::slice::from_ref(&shown));
    assert!(sb.status().missing.is_empty(), "{:?}", sb.status().missing);
    let no_mounts = Support {
        mountns: Err("creating a mount namespace failed: EPERM".into()),
        ..all()
    };
    let sb = Sandbox::with_support(&cfg, &ws, &ex, &own, &no_mounts);
    assert!(
        sb.status()
            .missing
            .iter()
            .any(|m| m.contains("airlock's own files") && m.contains(&shown)),
        "{:?}",
        sb.status().missing
    );
    // Read-only mode: the workspace is not writable, nothing to keep.
    let ro = SandboxConfig {
        mode: SandboxMode::ReadOnly,
        ..SandboxConfig::default()
    };
    assert!(
        Sandbox::with_support(&ro, &ws, &ex, &own, &all())
            .status()
            .protect_own
            .is_empty()
    );
    let off = SandboxConfig {
        protect_airlock: false,
        ..SandboxConfig::default()
    };
    let sb = Sandbox::with_support(&off, &ws, &ex, &own, &no_mounts);
    assert!(sb.status().protect_own.is_empty());
    assert!(
        !sb.status()
            .missing
            .iter()
            .any(|m| m.contains("airlock's own files"))
    );
}

#[test]
fn missing_privilege_protections_are_each_reported() {
    let s = Support {
        caps: Err("forced".into()),
        seccomp: Err("forced".into()),
        dev: Err("forced".into()),
        sockets: Err("forced".into()),
        ..all()
    };
    let sb = sandbox(&SandboxConfig::default(), &s);
    let st = sb.status();
    assert_eq!(st.state, SandboxState::Partial);
    for part in [
        "keeps its capabilities",
        "seccomp",
        "host's devices",
        "Unix sockets",
    ] {
        assert!(
            st.missing.iter().any(|m| m.contains(part)),
            "{part}: {:?}",
            st.missing
        );
    }
    // With the network allowed, sockets are not hidden and not missing.
    let net = SandboxConfig {
        allow_network: true,
        ..SandboxConfig::default()
    };
    let sb = sandbox(&net, &s);
    assert!(
        !sb.status()
            .missing
            .iter()
            .any(|m| m.contains("Unix sockets"))
    );
}
