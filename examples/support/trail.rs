//! The trail both trail benchmarks read (`log_bench`, `review_bench`):
//! written with `AuditLog::append`, so every line is real and chained.

use std::path::Path;

use airlock::audit::{AuditEvent, AuditLog, ChangeRecord};
use airlock::call::{
    AgentInfo, ApprovedBy, CallInfo, DecidedBy, Decision, Outcome, ToolKind, WriteAction,
};
use serde_json::json;

/// A session: start, two agents, calls of three records each — reads
/// with 512-byte excerpts, bash commands (some denied, some failing,
/// some blocked), writes with diffs — and the end.
#[expect(clippy::too_many_lines, reason = "one fixture, read top to bottom")]
pub fn write_trail(path: &Path, records: usize) -> anyhow::Result<()> {
    let log = AuditLog::create(path)?;
    let start: AuditEvent = serde_json::from_value(json!({
        "type": "session_start", "session": "bench", "workspace": "/home/dev/project",
        "version": airlock::VERSION, "pid": 1, "mode": "supervisor", "confirmer": "tui",
        "config_digest": "0".repeat(64), "config_files": ["built-in"],
        "roots": ["/home/dev/project"], "excluded": [".env"],
        "tools": ["bash", "read_file", "write_file"], "policy_mode": "default",
        "rules": ["deny bash(curl *) (from /home/dev/project/.airlock.toml)"],
    }))?;
    log.append(&start)?;
    let agents: Vec<AgentInfo> = (1..=2)
        .map(|id| AgentInfo {
            id,
            name: format!("agent-{id}"),
            version: Some("1.0".into()),
        })
        .collect();
    for a in &agents {
        log.append(&AuditEvent::AgentConnected { agent: a.clone() })?;
    }
    let excerpt = "fn main() { println!(\"hello\"); }\n".repeat(16);
    let diff = format!(
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,20 +1,20 @@\n{}",
        "-old line\n+new line\n".repeat(20)
    );
    let (mut id, mut written) = (0u64, 3);
    while written + 3 < records {
        id += 1;
        let (tool, kind, args, summary) = match id % 10 {
            0..=5 => (
                "read_file",
                ToolKind::Read,
                json!({"path": format!("src/m{id}.rs")}),
                format!("read_file src/m{id}.rs"),
            ),
            6..=8 => (
                "bash",
                ToolKind::Exec,
                json!({"command": format!("cargo test -q t{id}")}),
                format!("cargo test -q t{id}"),
            ),
            _ => (
                "write_file",
                ToolKind::Write,
                json!({"path": "src/lib.rs", "content": "new line\n".repeat(20)}),
                "overwrite src/lib.rs (+20 −20)".into(),
            ),
        };
        let call = CallInfo {
            id,
            agent: agents[(id % 2) as usize].clone(),
            tool: tool.into(),
            kind: Some(kind),
            args,
            summary,
            received_at: chrono::Utc::now(),
            runner: airlock::call::Runner::default(),
            view: airlock::call::CallView::default(),
            edit: None,
            grant: airlock::call::GrantShape::None,
            proposal: None,
        };
        log.append(&AuditEvent::CallRequested { call })?;
        let decision = match (kind, id % 13) {
            (ToolKind::Read, _) => Decision::approve(ApprovedBy::Rule {
                rule: "default: read-only tools run without asking".into(),
                source: "built-in".into(),
            }),
            (_, 0) => Decision::deny(DecidedBy::User, Some("not now".into())),
            (_, 1) => Decision::deny(
                DecidedBy::Rule {
                    rule: "bash(curl *)".into(),
                    source: "/home/dev/project/.airlock.toml".into(),
                },
                None,
            ),
            _ => Decision::approve(ApprovedBy::User),
        };
        let status = match (decision.refusal_outcome(), id % 17) {
            (None, 0) => Outcome::Error,
            (None, _) => Outcome::Ok,
            (Some(refused), _) => refused,
        };
        log.append(&AuditEvent::CallDecided {
            call_id: id,
            decision,
        })?;
        log.append(&AuditEvent::CallFinished {
            call_id: id,
            status,
            duration_ms: 12,
            wait_ms: None,
            run_ms: None,
            is_error: status != Outcome::Ok,
            truncated: false,
            output_bytes: excerpt.len(),
            output_sha256: "0".repeat(64),
            excerpt: excerpt.clone(),
            change: (kind == ToolKind::Write).then(|| ChangeRecord {
                path: "src/lib.rs".into(),
                action: WriteAction::Overwrite,
                summary: "+20 −20".into(),
                diff: Some(diff.clone()),
                diff_sha256: Some("0".repeat(64)),
                diff_truncated: false,
            }),
            cancelled_by: None,
            exit_code: None,
            file_sha256: None,
        })?;
        written += 3;
    }
    while written < records - 1 {
        log.append(&AuditEvent::AgentDisconnected {
            agent: agents[0].clone(),
        })?;
        written += 1;
    }
    log.append(&AuditEvent::SessionEnd {
        reason: "shutdown".into(),
    })?;
    Ok(())
}
