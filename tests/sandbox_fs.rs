//! The sandbox on this machine's kernel: writes outside the allowed paths
//! fail (directly, through `..`, through symlinks), hidden paths are
//! absent, /tmp is private, the workspace stays writable and normal tools
//! still run. Real shells, real files; nothing here may skip.

mod sandbox_support;

use sandbox_support::{fixture, fixture_in, q};

#[tokio::test]
async fn the_session_record_holds_the_effective_sandbox() {
    let f = fixture("");
    let st = f.session.sandbox_status();
    assert_eq!(
        st.summary,
        "sandbox: workspace-write, no network (landlock+userns+mountns+netns+pidns)"
    );
    let rec = f.session_start();
    let sb = &rec["sandbox"];
    assert_eq!(sb["state"], "enforced", "{rec}");
    assert_eq!(sb["mode"], "workspace-write");
    assert_eq!(sb["allow_network"], false);
    assert!(sb["landlock_abi"].as_u64().unwrap() >= 1);
    assert_eq!(
        sb["allow_write"][0].as_str().unwrap(),
        f.ws.display().to_string()
    );
    assert!(
        sb["deny_read"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d.as_str().unwrap().ends_with("/.ssh"))
    );
}

#[tokio::test]
async fn writes_outside_the_workspace_fail_however_they_are_spelled() {
    let f = fixture("");
    let out = &f.outside;
    std::fs::write(out.join("existing"), "original").unwrap();
    std::os::unix::fs::symlink(out, f.ws.join("link-out")).unwrap();
    std::os::unix::fs::symlink(out.join("existing"), f.ws.join("file-link")).unwrap();
    // The workspace's parent, reached with `..`.
    let parent = f.ws.parent().unwrap().to_path_buf();

    let e = f.fails(&format!("echo x > {}/new", q(out))).await;
    assert!(e.contains("Permission denied"), "{e}");
    f.fails(&format!("echo x >> {}/existing", q(out))).await;
    f.fails("echo x > ../escaped").await;
    f.fails("mkdir ../escaped-dir").await;
    f.fails("echo x > link-out/via-dir-link").await;
    f.fails("echo x > file-link").await;
    f.fails("(cd link-out && touch via-cd)").await;
    f.fails(&format!("rm {}/existing", q(out))).await;
    f.fails(&format!("mv {}/existing moved", q(out))).await;
    f.fails("ln -s /etc/passwd x && echo y >> x").await;
    f.fails("touch /etc/airlock-sandbox-test").await;
    f.fails("touch ~/airlock-sandbox-test").await;

    assert_eq!(
        std::fs::read_to_string(out.join("existing")).unwrap(),
        "original"
    );
    assert_eq!(std::fs::read_dir(out).unwrap().count(), 1);
    assert!(!parent.join("escaped").exists());
    assert!(!parent.join("escaped-dir").exists());
    // Reading outside is fine (allow_read is everything by default).
    assert_eq!(f.ok("cat link-out/existing").await, "original");
}

#[tokio::test]
async fn the_workspace_stays_writable() {
    let f = fixture("");
    let o = f
        .ok("mkdir -p a/b && echo hi > a/b/c.txt && mv a/b/c.txt a/d.txt && cat a/d.txt && rm -r a/b && ls a")
        .await;
    assert_eq!(o, "hi\nd.txt");
    assert_eq!(
        std::fs::read_to_string(f.ws.join("a/d.txt")).unwrap(),
        "hi\n"
    );
    // Heredocs and mktemp need a writable temporary directory.
    let o = f
        .ok("cat <<'EOF'\nheredoc\nEOF\nmktemp | grep -c ^/tmp/")
        .await;
    assert_eq!(o, "heredoc\n1");
}

#[tokio::test]
async fn tmp_is_private_to_the_shell() {
    let f = fixture("");
    let name = format!("airlock-sbx-{:x}", rand::random::<u64>());
    let host = std::path::Path::new("/tmp").join(&name);
    assert_eq!(
        f.ok(&format!("echo inside > /tmp/{name}; cat /tmp/{name}"))
            .await,
        "inside"
    );
    assert!(!host.exists(), "the host's /tmp was written");
    std::fs::write(&host, "host").unwrap();
    f.fails(&format!("cat /tmp/{name}.other")).await;
    let seen = f.ok(&format!("cat /tmp/{name}")).await;
    std::fs::remove_file(&host).unwrap();
    assert_eq!(seen, "inside", "the shell saw the host's /tmp");
}

#[tokio::test]
async fn a_workspace_under_tmp_keeps_its_path_and_stays_private_around_it() {
    let dir = tempfile::tempdir().unwrap();
    let sibling = std::fs::canonicalize(dir.path()).unwrap().join("sibling");
    std::fs::write(&sibling, "host file next to the workspace").unwrap();
    let f = fixture_in(dir, "", airlock::sandbox::SandboxOverrides::default());
    assert!(f.ws.starts_with("/tmp"));
    assert_eq!(f.ok("pwd").await, f.ws.display().to_string());
    f.ok("echo hi > inside.txt").await;
    assert_eq!(
        std::fs::read_to_string(f.ws.join("inside.txt")).unwrap(),
        "hi\n"
    );
    // Next to the workspace is the private /tmp, not the host's.
    let e = f.fails("cat ../sibling").await;
    assert!(e.contains("No such file"), "{e}");
    f.ok("echo private > ../sibling").await;
    assert_eq!(
        std::fs::read_to_string(&sibling).unwrap(),
        "host file next to the workspace"
    );
}

#[tokio::test]
async fn denied_paths_are_absent() {
    let out_dir = sandbox_support::target_tempdir();
    let out = std::fs::canonicalize(out_dir.path()).unwrap();
    std::fs::create_dir(out.join("keys")).unwrap();
    std::fs::write(out.join("keys/id_rsa"), "PRIVATE KEY").unwrap();
    std::fs::write(out.join("token.txt"), "TOKEN").unwrap();
    std::fs::write(out.join("public.txt"), "public").unwrap();
    let f = fixture(&format!(
        "deny_read = [{:?}, {:?}]",
        out.join("keys").display().to_string(),
        out.join("token.txt").display().to_string()
    ));
    // Excluded patterns of the scope, in the workspace.
    std::fs::write(f.ws.join(".env"), "SECRET=1").unwrap();
    std::fs::create_dir_all(f.ws.join("deploy")).unwrap();
    std::fs::write(f.ws.join("deploy/server.key"), "KEY").unwrap();
    std::fs::write(f.ws.join("deploy/readme"), "fine").unwrap();

    for path in [
        out.join("keys/id_rsa"),
        out.join("token.txt"),
        f.ws.join(".env"),
        f.ws.join("deploy/server.key"),
    ] {
        let e = f.fails(&format!("cat {}", q(&path))).await;
        assert!(e.contains("No such file or directory"), "{e}");
        assert!(!e.contains("PRIVATE") && !e.contains("TOKEN") && !e.contains("SECRET"));
    }
    f.fails("cat .env").await;
    f.fails("test -e .env").await;
    f.fails("grep -r SECRET .").await;
    assert_eq!(f.ok(&format!("ls -A {}", q(&out.join("keys")))).await, "");
    assert_eq!(
        f.ok(&format!("cat {}", q(&out.join("public.txt")))).await,
        "public"
    );
    assert_eq!(f.ok("cat deploy/readme").await, "fine");
    // The masks cannot be taken away from inside.
    f.fails(&format!("umount {}", q(&out.join("keys")))).await;
    f.fails("umount -l .env; cat .env").await;
    f.fails("rm .env").await;
    assert_eq!(
        std::fs::read_to_string(f.ws.join(".env")).unwrap(),
        "SECRET=1"
    );
}

#[tokio::test]
async fn read_only_mode_protects_the_workspace_too() {
    let f = fixture("mode = \"read-only\"");
    std::fs::write(f.ws.join("keep.txt"), "kept").unwrap();
    f.fails("echo x > new.txt").await;
    f.fails("echo x >> keep.txt").await;
    f.fails("rm keep.txt").await;
    assert_eq!(f.ok("cat keep.txt").await, "kept");
    assert_eq!(f.ok("echo t > /tmp/t && cat /tmp/t").await, "t");
    assert!(!f.ws.join("new.txt").exists());
    assert_eq!(f.session.sandbox_status().mode.as_str(), "read-only");
}

#[tokio::test]
async fn read_only_mode_with_the_workspace_under_tmp() {
    let f = fixture_in(
        tempfile::tempdir().unwrap(),
        "mode = \"read-only\"",
        airlock::sandbox::SandboxOverrides::default(),
    );
    std::fs::write(f.ws.join("keep.txt"), "kept").unwrap();
    f.fails("echo x > new.txt").await;
    f.fails("echo x >> keep.txt").await;
    assert_eq!(f.ok("cat keep.txt").await, "kept");
    assert!(!f.ws.join("new.txt").exists());
}

#[tokio::test]
async fn allow_write_adds_paths() {
    let f = fixture("allow_write = [\"{outside}\"]");
    f.ok(&format!("echo yes > {}/granted", q(&f.outside))).await;
    assert_eq!(
        std::fs::read_to_string(f.outside.join("granted")).unwrap(),
        "yes\n"
    );
}

#[tokio::test]
async fn allow_read_confines_reads_but_keeps_what_programs_need() {
    let out_dir = sandbox_support::target_tempdir();
    let out = std::fs::canonicalize(out_dir.path()).unwrap();
    std::fs::create_dir(out.join("visible")).unwrap();
    std::fs::write(out.join("visible/a"), "seen").unwrap();
    std::fs::write(out.join("unlisted"), "not seen").unwrap();
    let f = fixture(&format!(
        "allow_read = [{:?}]",
        out.join("visible").display().to_string()
    ));
    std::fs::write(f.ws.join("w.txt"), "workspace").unwrap();
    assert_eq!(
        f.ok(&format!("cat {}", q(&out.join("visible/a")))).await,
        "seen"
    );
    let e = f.fails(&format!("cat {}", q(&out.join("unlisted")))).await;
    assert!(e.contains("Permission denied"), "{e}");
    f.fails(&format!("ls {}", q(&out))).await;
    // The workspace, system files and programs stay readable.
    assert_eq!(f.ok("cat w.txt").await, "workspace");
    f.ok("cat /etc/hostname >/dev/null && ls /usr/bin >/dev/null && sed --version >/dev/null")
        .await;
}

#[tokio::test]
async fn normal_tools_still_run() {
    let f = fixture("");
    // The repository is made on the host: inside the sandbox the
    // workspace's .git is a read-only placeholder (see sandbox_git.rs).
    host_git_init(&f.ws);
    let o = f
        .ok("git -c user.name=t -c user.email=t@t commit -q --allow-empty -m first && git log --oneline | wc -l")
        .await;
    assert_eq!(o.trim(), "1");
    let o = f.ok("cargo --version").await;
    assert!(o.starts_with("cargo "), "{o}");
    let o = f
        .ok("python3 -c 'import tempfile, os; print(os.getcwd()); print(tempfile.mkstemp()[1].startswith(\"/tmp/\"))'")
        .await;
    assert_eq!(o, format!("{}\nTrue", f.ws.display()));
}

#[tokio::test]
async fn what_runs_outside_the_sandbox_later_stays_read_only() {
    let f = fixture("");
    host_git_init(&f.ws);
    f.ok("git -c user.name=t -c user.email=t@t commit -q --allow-empty -m first")
        .await;
    std::fs::write(f.ws.join(".airlock.toml"), "mode = \"default\"\n").unwrap();
    // A fresh shell protects the repository that now exists.
    f.restart().await;
    let config = std::fs::read_to_string(f.ws.join(".git/config")).unwrap();
    for attempt in [
        "echo '[core] fsmonitor = touch /tmp/pwned' >> .git/config",
        "git config core.hooksPath /tmp",
        "echo 'touch /tmp/pwned' > .git/hooks/pre-commit",
        "rm -r .git/hooks",
        "mv .git .git-moved",
        "echo 'allow = [\"bash\"]' >> .airlock.toml",
        "rm .airlock.toml",
        "mv .airlock.toml x",
    ] {
        f.fails(attempt).await;
    }
    assert_eq!(
        std::fs::read_to_string(f.ws.join(".git/config")).unwrap(),
        config
    );
    assert!(!f.ws.join(".git/hooks/pre-commit").exists());
    assert_eq!(
        std::fs::read_to_string(f.ws.join(".airlock.toml")).unwrap(),
        "mode = \"default\"\n"
    );
    // Everyday git still works.
    let o = f
        .ok("echo a > a.txt && git add a.txt && git -c user.name=t -c user.email=t@t commit -q -m second && git log --oneline | wc -l")
        .await;
    assert_eq!(o.trim(), "2");
}

#[tokio::test]
async fn mode_off_behaves_as_before() {
    let f = fixture("mode = \"off\"");
    assert_eq!(
        f.session.sandbox_status().summary,
        "sandbox: off — mode = off"
    );
    f.ok(&format!("echo x > {}/written", q(&f.outside))).await;
    assert!(f.outside.join("written").exists());
    let name = format!("airlock-sbx-off-{:x}", rand::random::<u64>());
    f.ok(&format!("echo shared > /tmp/{name}")).await;
    let host = std::path::Path::new("/tmp").join(&name);
    assert_eq!(std::fs::read_to_string(&host).unwrap(), "shared\n");
    std::fs::remove_file(host).unwrap();
    assert_eq!(f.session_start()["sandbox"]["state"], "off");
}

fn host_git_init(ws: &std::path::Path) {
    let st = std::process::Command::new("git")
        .args(["init", "-q", "."])
        .current_dir(ws)
        .status()
        .unwrap();
    assert!(st.success());
}

/// A nested `.airlock.toml` configures an airlock started in its directory:
/// an existing one is read-only in the sandbox, one planted while the shell
/// runs is moved aside. What the sandbox managed: (the existing one
/// changed, a planted one left in place, the command's result).
async fn nested_project_configs(protect: bool) -> (bool, bool, String) {
    let f = fixture(&format!("protect_git = {protect}"));
    std::fs::create_dir_all(f.ws.join("crates/foo")).unwrap();
    std::fs::write(
        f.ws.join("crates/foo/.airlock.toml"),
        "mode = \"default\"\n",
    )
    .unwrap();
    f.restart().await;
    let out = f
        .bash("echo 'mode = \"yolo\"' >> crates/foo/.airlock.toml; mkdir -p crates/bar && echo 'mode = \"yolo\"' > crates/bar/.airlock.toml; true")
        .await;
    let changed = std::fs::read_to_string(f.ws.join("crates/foo/.airlock.toml")).unwrap()
        != "mode = \"default\"\n";
    (
        changed,
        f.ws.join("crates/bar/.airlock.toml").exists(),
        out.text,
    )
}

#[tokio::test]
async fn nested_project_configs_are_read_only_and_planted_ones_moved_aside() {
    let (changed, planted, said) = nested_project_configs(true).await;
    assert!(!changed && !planted, "{said}");
    assert!(
        said.contains("airlock moved crates/bar/.airlock.toml aside"),
        "{said}"
    );
}

#[tokio::test]
async fn control_nested_project_configs_are_writable_without_protection() {
    let (changed, planted, said) = nested_project_configs(false).await;
    assert!(changed && planted, "{said}");
}
