//! Known-safe commands judged where their shell really is (red-team F4),
//! through the pipeline with the real (unsandboxed) bash and through the
//! hook path: after an allowed `cd` out of the workspace, `cat` there is
//! asked; a known-safe verdict is checked again with the shell's directory
//! when the command is sent; a command the agent runs itself is judged in
//! the directory it reports, with nothing hidden from it. CONTROLS: the
//! same command judged as if the shell were in the workspace is allowed,
//! and run where the shell is it reads the secret.

use std::path::PathBuf;

use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::ExternalCall;
use super::stage_support::{Answer, Setup, Stage, stage_with};
use crate::call::{CallView, EditField, Subject, ToolKind, Verdict, VerdictSource};
use crate::tools::{ShellCheck, ToolOutput};

/// A stage with auto-approval, `allow bash(cd *)`, and `outside/secret.txt`
/// beside the workspace; the workspace holds `notes.txt` and `.env`.
fn stage(answer: Answer) -> (Stage, PathBuf) {
    let s = stage_with(Setup {
        answer,
        rules: vec![(crate::policy::Action::Allow, "bash(cd *)")],
        auto_approve: true,
        ..Setup::default()
    });
    let outside = s.dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "OUTSIDE-SECRET\n").unwrap();
    std::fs::write(s.ws.join("notes.txt"), "hello\n").unwrap();
    std::fs::write(s.ws.join(".env"), "SECRET=env\n").unwrap();
    (s, std::fs::canonicalize(outside).unwrap())
}

async fn bash(s: &Stage, command: &str) -> ToolOutput {
    s.sup
        .call(
            &s.agent,
            "bash",
            Some(args(command)),
            CancellationToken::new(),
            None,
        )
        .await
        .unwrap()
}

fn args(command: &str) -> Map<String, Value> {
    json!({ "command": command }).as_object().cloned().unwrap()
}

fn subject(command: &str) -> Subject {
    Subject::Command {
        command: command.into(),
    }
}

#[tokio::test]
async fn after_a_cd_out_of_the_workspace_a_read_there_is_asked() {
    let (s, outside) = stage(Answer::Deny("no"));
    let out = bash(&s, "cd ../outside").await;
    assert!(!out.is_error, "{}", out.text);
    // CONTROL: judged as if the shell were in the workspace, it is allowed.
    let v = s
        .sup
        .policy
        .evaluate("bash", ToolKind::Exec, &subject("cat secret.txt"));
    assert_eq!(v.verdict, Verdict::Allow);
    let out = bash(&s, "cat secret.txt").await;
    assert_eq!(s.asked().len(), 1, "asked, not auto-approved: {}", out.text);
    assert!(!out.text.contains("OUTSIDE-SECRET"), "{}", out.text);
    let why = &s.asked()[0].verdict.rule;
    assert!(
        why.contains("not known-safe here") && why.contains("outside"),
        "{why}"
    );
    // The shell's directory is the kernel's (where the prompt's cwd is).
    let p = s.prepared(90, "bash", &json!({"command": "ls"})).await;
    let site = p.invocation.shell_site(s.agent.id).unwrap();
    assert_eq!(site.cwd.as_deref(), Some(outside.as_path()));
    assert!(!site.hides_excluded, "no sandbox here");
}

#[tokio::test]
async fn a_human_approved_read_there_does_read_the_secret() {
    // CONTROL for the test above: the shell really is outside.
    let (s, _) = stage(Answer::Approve);
    bash(&s, "cd ../outside").await;
    let out = bash(&s, "cat secret.txt").await;
    assert!(out.text.contains("OUTSIDE-SECRET"), "{}", out.text);
}

#[tokio::test]
async fn a_known_safe_verdict_is_checked_again_where_the_shell_is_when_it_runs() {
    let (s, _) = stage(Answer::Deny("no"));
    let command = "cat secret.txt";
    // Decided while the shell is in the workspace …
    let check = |p: &super::prepare::Prepared| {
        let site = p.invocation.shell_site(s.agent.id).unwrap();
        let v = s.sup.verdict(&p.info, &subject(command), &site);
        assert_eq!(
            (v.verdict, &v.source),
            (Verdict::Allow, &VerdictSource::KnownSafe)
        );
        let recheck = s
            .sup
            .policy
            .known_safe_recheck(&subject(command), &site)
            .unwrap();
        ShellCheck::new(move |cwd| recheck.check(cwd))
    };
    let first = s.prepared(80, "bash", &json!({ "command": command })).await;
    let second = s.prepared(81, "bash", &json!({ "command": command })).await;
    let shell_check = check(&first);
    // … run after another call (decided at the same time) moved it.
    bash(&s, "cd ../outside").await;
    let cancel = CancellationToken::new();
    let (out, _, _) = s
        .sup
        .run(&first.info, first.invocation, &cancel, Some(shell_check))
        .await;
    assert!(
        out.is_error && out.text.starts_with("not run:"),
        "{}",
        out.text
    );
    assert!(!out.text.contains("OUTSIDE-SECRET"), "{}", out.text);
    // CONTROL: without the check, the same call reads the secret.
    let (out, _, _) = s
        .sup
        .run(&second.info, second.invocation, &cancel, None)
        .await;
    assert!(out.text.contains("OUTSIDE-SECRET"), "{}", out.text);
}

/// A native `Bash` call reported by a hook, in `cwd`.
fn native(command: &str, cwd: Option<&std::path::Path>, id: &str) -> ExternalCall {
    ExternalCall {
        tool: "bash".into(),
        kind: ToolKind::Exec,
        subject: subject(command),
        args: args(command),
        summary: command.into(),
        view: CallView::Command {
            command: command.into(),
            cwd: cwd.map(|c| c.display().to_string()),
            description: None,
            shown_args: &["command"],
        },
        edit: Some(EditField::Command {
            text: command.into(),
        }),
        grant: crate::tools::bash::grant(command),
        proposal: None,
        native_tool: "Bash".into(),
        tool_use_id: Some(id.into()),
        session_id: Some("s".into()),
    }
}

#[tokio::test]
async fn a_hook_command_is_judged_where_the_agent_runs_it_with_nothing_hidden() {
    let (s, outside) = stage(Answer::Deny("no"));
    let ws = std::fs::canonicalize(&s.ws).unwrap();
    let decide = |call: ExternalCall| {
        s.sup
            .decide_external(&s.agent, call, CancellationToken::new(), None)
    };
    let (_, d) = decide(native("cat notes.txt", Some(&ws), "t1"))
        .await
        .unwrap();
    assert!(
        d.is_approved(),
        "inside the workspace it is known-safe: {d:?}"
    );
    assert_eq!(s.asked().len(), 0);
    // CONTROL: in airlock's sandbox (excluded files hidden) the walk is
    // allowed; the agent's own shell reads the excluded file.
    let walk = "grep -r SECRET .";
    let v = s
        .sup
        .policy
        .evaluate("bash", ToolKind::Exec, &subject(walk));
    assert_eq!(v.verdict, Verdict::Allow);
    let real = std::process::Command::new("bash")
        .args(["--norc", "-c", walk])
        .current_dir(&ws)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&real.stdout).contains("SECRET=env"));
    for (command, cwd) in [
        (walk, Some(ws.as_path())),
        ("cat secret.txt", Some(outside.as_path())),
        ("cat notes.txt", None),
    ] {
        let before = s.asked().len();
        let (_, d) = decide(native(command, cwd, command)).await.unwrap();
        assert!(!d.is_approved(), "{command} in {cwd:?}: {d:?}");
        assert_eq!(s.asked().len(), before + 1, "{command} in {cwd:?} is asked");
    }
}

#[tokio::test]
async fn a_command_that_prints_the_environment_is_known_safe_only_in_airlocks_shell() {
    let (s, _) = stage(Answer::Deny("no"));
    let ws = std::fs::canonicalize(&s.ws).unwrap();
    // CONTROL: in airlock's own shell (its environment filtered by
    // `bash.env_deny`) it is known-safe and runs.
    for command in ["printenv", "env", "printenv HOME"] {
        let out = bash(&s, command).await;
        assert!(!out.is_error, "{command}: {}", out.text);
    }
    assert_eq!(s.asked().len(), 0, "auto-approved in airlock's shell");
    // The agent runs it with its own environment (its keys): asked.
    for command in [
        "printenv",
        "env",
        "printenv HOME",
        "export -p",
        "cat /proc/self/environ",
    ] {
        let before = s.asked().len();
        let (_, d) = s
            .sup
            .decide_external(
                &s.agent,
                native(command, Some(&ws), command),
                CancellationToken::new(),
                None,
            )
            .await
            .unwrap();
        assert!(!d.is_approved(), "{command}: {d:?}");
        assert_eq!(s.asked().len(), before + 1, "{command} is asked");
    }
    let why = &s.asked()[0].verdict.rule;
    assert!(why.contains("agent's own environment"), "{why}");
}
