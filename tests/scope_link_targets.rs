//! Symlink targets: `ls`, `find` and `stat` show a link's target only when
//! it resolves inside the scope and outside the exclusions; otherwise
//! `(outside the workspace)` / `(excluded)`, never the path. CONTROL: the
//! links really store those paths (read directly), and a link inside the
//! scope still shows its target, so the listing does show targets.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use airlock::session::{self, SessionOptions};
use airlock::supervisor::HeadlessConfirmer;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn link_targets_are_shown_only_inside_the_scope() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let outside = dir.path().join("outside-9a7c");
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "x").unwrap();
    std::fs::write(ws.join(".env"), "x").unwrap();
    std::fs::write(ws.join("sub/a.txt"), "x").unwrap();
    let links: &[(&str, String, &str)] = &[
        (
            "link",
            outside.join("secret.txt").display().to_string(),
            "(outside the workspace)",
        ),
        (
            "link_rel",
            "../outside-9a7c/secret.txt".into(),
            "(outside the workspace)",
        ),
        (
            "link_gone",
            outside.join("nothing-9a7c").display().to_string(),
            "(outside the workspace)",
        ),
        (
            "link_env",
            ws.join(".env").display().to_string(),
            "(excluded)",
        ),
        ("link_env_rel", ".env".into(), "(excluded)"),
        ("link_via", "sub/../.ssh-9a7c/../.env".into(), "(excluded)"),
        (
            "link_detour",
            format!("{}/../ws/sub/a.txt", outside.display()),
            "(outside the workspace)",
        ),
        ("link_ok", "sub/a.txt".into(), "sub/a.txt"),
    ];
    for (name, target, _) in links {
        symlink(target, ws.join(name)).unwrap();
        // CONTROL: the link stores the path.
        assert_eq!(
            std::fs::read_link(ws.join(name)).unwrap(),
            Path::new(target)
        );
    }
    let session = session::start(
        &SessionOptions {
            workspace: ws.clone(),
            data_dir: Some(dir.path().join("data")),
            config_file: None,
            mode: airlock::call::SessionMode::Supervisor,
            policy_mode: None,
            user_config: false,
        },
        Arc::new(HeadlessConfirmer),
    )
    .unwrap();
    let agent = session.supervisor.agent_connected(Some("links"), None);
    let call = |tool: &'static str, args: Value| {
        let fut = session.supervisor.call(
            &agent,
            tool,
            args.as_object().cloned(),
            CancellationToken::new(),
            None,
        );
        async move {
            let out = tokio::time::timeout(Duration::from_secs(20), fut)
                .await
                .unwrap()
                .unwrap();
            format!(
                "{}\n{}",
                out.text,
                out.structured.map(|v| v.to_string()).unwrap_or_default()
            )
        }
    };
    let ls = call("ls", json!({ "path": "." })).await;
    let find = call("find", json!({ "path": "." })).await;
    for (name, _, shown) in links {
        for (tool, text) in [("ls", &ls), ("find", &find)] {
            assert!(
                text.lines().any(|l| l == format!("{name} -> {shown}")),
                "{tool}: {name} -> {shown}: {text}"
            );
        }
    }
    for text in [&ls, &find] {
        assert!(!text.contains("9a7c/secret"), "{text}");
        assert!(!text.contains(&outside.display().to_string()), "{text}");
    }
    // stat of a link resolving inside: its target as stored.
    let stat = call("stat", json!({ "path": "link_ok" })).await;
    assert!(stat.contains("target: sub/a.txt"), "{stat}");
    // stat of a link whose stored text passes outside: hidden.
    let stat = call("stat", json!({ "path": "link_detour" })).await;
    assert!(stat.contains("target: (outside the workspace)"), "{stat}");
    assert!(!stat.contains(&outside.display().to_string()), "{stat}");
}
