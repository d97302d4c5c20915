//! Stage 1, prepare, on its own: the real tools parse and scope a call;
//! a call that cannot be prepared comes back as the typed refusal, and
//! nothing is recorded or run.

use serde_json::json;

use super::error::CallError;
use super::prepare::NotPrepared;
use super::stage_support::{Answer, kinds, object, stage};
use crate::call::{CallView, DecidedBy, Outcome, Subject, ToolKind, WriteAction};

#[tokio::test]
async fn a_write_is_prepared_with_its_diff_and_its_arguments_kept_whole() {
    let s = stage(Answer::Approve);
    let args = json!({"path": "notes/a.txt", "content": "one\ntwo\n"});
    let p = s.prepared(7, "write_file", &args).await;

    assert_eq!(p.info.id, 7);
    assert_eq!(p.info.kind, Some(ToolKind::Write));
    assert_eq!(p.info.summary, "create notes/a.txt (+2 −0)");
    assert_eq!(p.info.view, CallView::Change);
    let proposal = p.info.proposal.as_deref().expect("a proposal");
    assert_eq!(proposal.action, WriteAction::Create);
    let diff = proposal.diff.as_deref().unwrap_or_default();
    assert!(diff.contains("+one\n+two\n"), "{diff}");
    // The arguments come back as the agent sent them (an edit at the
    // prompt is prepared from them).
    assert_eq!(p.args, object(&args));
    assert_eq!(
        p.invocation.subject(),
        Subject::Paths {
            paths: vec![s.ws.canonicalize().unwrap().join("notes/a.txt")]
        }
    );
    // Preparing shows the change; it does not make it, nor record it.
    assert!(!s.ws.join("notes").exists());
    assert_eq!(kinds(&s.trail), ["agent_connected"]);
}

#[tokio::test]
async fn a_read_outside_the_scope_is_refused_by_the_scope() {
    let s = stage(Answer::Approve);
    std::fs::write(s.dir.path().join("secret.txt"), "outside").unwrap();
    for path in [
        "../secret.txt",
        s.dir.path().join("secret.txt").to_str().unwrap(),
    ] {
        let r = s
            .sup
            .prepare(1, &s.agent, "read_file", object(&json!({ "path": path })))
            .await;
        let Err(NotPrepared::Refused(info, decision)) = r else {
            panic!("{path} was not refused by the scope");
        };
        assert_eq!(decision.by(), DecidedBy::Scope, "{path}");
        assert_eq!(decision.refusal_outcome(), Some(Outcome::Refused));
        assert!(decision.reason().is_some_and(|r| !r.is_empty()));
        assert_eq!(info.kind, Some(ToolKind::Read));
        assert!(info.summary.ends_with("(refused)"), "{}", info.summary);
    }
    assert_eq!(kinds(&s.trail), ["agent_connected"]);
}

#[tokio::test]
async fn an_excluded_file_is_refused_by_the_scope_before_a_write_is_shown() {
    let s = stage(Answer::Approve);
    let args = json!({"path": ".env", "content": "TOKEN=1\n"});
    let r = s
        .sup
        .prepare(1, &s.agent, "write_file", object(&args))
        .await;
    let Err(NotPrepared::Refused(info, decision)) = r else {
        panic!("a write to .env was prepared");
    };
    assert_eq!(decision.by(), DecidedBy::Scope);
    assert!(info.proposal.is_none(), "no diff is computed for it");
    assert!(!s.ws.join(".env").exists());
}

#[tokio::test]
async fn bad_arguments_are_refused_as_invalid_naming_the_field() {
    let s = stage(Answer::Approve);
    let args = json!({"path": "a.txt"});
    let r = s
        .sup
        .prepare(1, &s.agent, "write_file", object(&args))
        .await;
    let Err(NotPrepared::Refused(info, decision)) = r else {
        panic!("a write without content was prepared");
    };
    assert_eq!(decision.by(), DecidedBy::InvalidArguments);
    let reason = decision.reason().unwrap_or_default();
    assert!(reason.contains("missing field `content`"), "{reason}");
    assert_eq!(info.args, json!({"path": "a.txt"}));
}

#[tokio::test]
async fn an_unknown_tool_is_the_typed_error_listing_the_tools() {
    let s = stage(Answer::Approve);
    let r = s
        .sup
        .prepare(1, &s.agent, "rm_rf", object(&json!({"path": "/"})))
        .await;
    let Err(NotPrepared::UnknownTool(info, err)) = r else {
        panic!("an unknown tool was not refused as unknown");
    };
    let CallError::UnknownTool { name, available } = err else {
        panic!("not the unknown-tool error");
    };
    assert_eq!(name, "rm_rf");
    for tool in ["bash", "read_file", "write_file", "edit_file"] {
        assert!(available.contains(tool), "{available}");
    }
    assert_eq!(info.kind, None);
    assert_eq!(info.summary, "unknown tool rm_rf");
    assert_eq!(info.args, json!({"path": "/"}));
    assert_eq!(kinds(&s.trail), ["agent_connected"]);
}

#[tokio::test]
async fn a_command_is_prepared_with_its_text_editable() {
    let s = stage(Answer::Approve);
    let p = s
        .prepared(1, "bash", &json!({"command": "echo hi > out.txt"}))
        .await;
    assert_eq!(p.info.kind, Some(ToolKind::Exec));
    assert_eq!(
        p.info.edit,
        Some(crate::call::EditField::Command {
            text: "echo hi > out.txt".into()
        })
    );
    assert!(!s.ws.join("out.txt").exists(), "prepare ran nothing");
}
