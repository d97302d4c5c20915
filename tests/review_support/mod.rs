//! Shared by the `review_*` tests: a trail with fixed content and fixed
//! times — every kind of decision, a write with its diff, an edited
//! command, a grant — chained exactly as `AuditLog` chains lines, so it
//! verifies; and the same trail edited or torn.
#![allow(dead_code)]

#[path = "../tui_support/styled.rs"]
pub mod styled;

use std::path::{Path, PathBuf};

use airlock::audit::{AuditEvent, ChangeRecord};
use airlock::call::{
    AgentInfo, ApprovedBy, CallInfo, DecidedBy, Decision, Outcome, ToolKind, WriteAction,
};
use airlock::policy::{Grant, GrantScope};
use airlock::tui::App;
use chrono::{DateTime, FixedOffset, Utc};
use ratatui::layout::Rect;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The sizes every snapshot is taken at.
pub const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

/// 2026-01-02 03:04:05 UTC plus `ms`.
pub fn at(ms: i64) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-01-02T03:04:05Z")
        .unwrap()
        .with_timezone(&Utc)
        + chrono::Duration::milliseconds(ms)
}

pub const WORKSPACE: &str = "/home/dev/tinytodo";
pub const SESSION: &str = "20260102T030405.000Z-ab12";

pub const TODO_DIFF: &str = "--- a/todo.sh\n+++ b/todo.sh\n@@ -15,8 +15,7 @@\n \n finish() {\n     local n=\"$1\"\n-    # TODO: this marks the line after the one asked for\n-    sed -i \"$((n + 1))s/^\\[ \\]/[x]/\" \"$TODO_FILE\"\n+    sed -i \"${n}s/^\\[ \\]/[x]/\" \"$TODO_FILE\"\n }\n \n case \"${1:-list}\" in\n";

/// Chains lines the way `AuditLog::append` does, with times given.
pub struct Chain {
    pub lines: Vec<String>,
    prev: String,
}

impl Default for Chain {
    fn default() -> Self {
        Self {
            lines: Vec::new(),
            prev: "0".repeat(64),
        }
    }
}

impl Chain {
    /// Append a record of `body` (an object with `type`) written at `ts`.
    pub fn raw(&mut self, ts: DateTime<Utc>, body: &Value) {
        let seq = self.lines.len();
        let ts = ts.to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
        let body = serde_json::to_string(body).unwrap();
        let inner = &body[1..body.len() - 1];
        let line = format!(
            "{{\"v\":1,\"seq\":{seq},\"ts\":\"{ts}\",{inner},\"prev\":\"{}\"}}",
            self.prev
        );
        let hash = hex::encode(Sha256::digest(line.as_bytes()));
        self.lines
            .push(format!("{},\"hash\":\"{hash}\"}}", &line[..line.len() - 1]));
        self.prev = hash;
    }

    pub fn event(&mut self, ts: DateTime<Utc>, e: AuditEvent) {
        self.raw(ts, &serde_json::to_value(e).unwrap());
    }

    /// Keep the first `n` lines; the chain goes on from the last of them.
    pub fn truncate(&mut self, n: usize) {
        self.lines.truncate(n);
        self.prev = match self.lines.last() {
            Some(l) => serde_json::from_str::<Value>(l).unwrap()["hash"]
                .as_str()
                .unwrap()
                .to_string(),
            None => "0".repeat(64),
        };
    }

    pub fn text(&self) -> String {
        self.lines.iter().flat_map(|l| [l.as_str(), "\n"]).collect()
    }
}

pub fn agent() -> AgentInfo {
    AgentInfo {
        id: 1,
        name: "claude-code".into(),
        version: Some("2.1.0".into()),
    }
}

fn rule(rule: &str, source: &str) -> ApprovedBy {
    ApprovedBy::Rule {
        rule: rule.into(),
        source: source.into(),
    }
}

/// One call: requested at `t` s, decided `think` ms later, finished
/// `run` ms after that (no result when `status` is empty).
struct Call<'a> {
    tool: &'a str,
    kind: ToolKind,
    args: Value,
    summary: &'a str,
    decision: Decision,
    think: i64,
    run: i64,
    status: &'a str,
    excerpt: &'a str,
    change: Option<ChangeRecord>,
}

/// The outcome recorded as `word` in a trail.
fn outcome_of(word: &str) -> Outcome {
    serde_json::from_value(json!(word)).unwrap_or_else(|e| panic!("{word:?}: {e}"))
}

fn call(chain: &mut Chain, id: u64, t: i64, c: Call) {
    let asked = at(t * 1000);
    let info = CallInfo {
        id,
        agent: agent(),
        tool: c.tool.into(),
        kind: Some(c.kind),
        args: c.args,
        summary: c.summary.into(),
        received_at: asked,
        runner: airlock::call::Runner::default(),
        view: airlock::call::CallView::default(),
        edit: None,
        grant: airlock::call::GrantShape::None,
        proposal: None,
    };
    chain.event(asked, AuditEvent::CallRequested { call: info });
    let decided = asked + chrono::Duration::milliseconds(c.think);
    chain.event(
        decided,
        AuditEvent::CallDecided {
            call_id: id,
            decision: c.decision.clone(),
        },
    );
    if c.status.is_empty() {
        return;
    }
    let done = decided + chrono::Duration::milliseconds(c.run);
    chain.event(
        done,
        AuditEvent::CallFinished {
            call_id: id,
            status: outcome_of(c.status),
            duration_ms: u64::try_from(c.think + c.run).expect("durations are not negative"),
            wait_ms: Some(u64::try_from(c.think).expect("durations are not negative")),
            run_ms: (c.status == "ok" || c.status == "error")
                .then_some(u64::try_from(c.run).expect("durations are not negative")),
            is_error: c.status != "ok",
            truncated: false,
            output_bytes: c.excerpt.len(),
            output_sha256: "0".repeat(64),
            excerpt: c.excerpt.into(),
            change: c.change,
            cancelled_by: None,
            exit_code: None,
            file_sha256: None,
        },
    );
}

fn bash<'a>(command: &'a str, decision: Decision, status: &'a str, excerpt: &'a str) -> Call<'a> {
    Call {
        tool: "bash",
        kind: ToolKind::Exec,
        args: json!({ "command": command }),
        summary: command,
        decision,
        think: 1500,
        run: 800,
        status,
        excerpt,
        change: None,
    }
}

fn read<'a>(tool: &'a str, path: &str, summary: &'a str, excerpt: &'a str) -> Call<'a> {
    Call {
        tool,
        kind: ToolKind::Read,
        args: json!({ "path": path }),
        summary,
        decision: Decision::approve(rule(
            "default: read-only tools run without asking",
            "built-in",
        )),
        think: 0,
        run: 3,
        status: "ok",
        excerpt,
        change: None,
    }
}

/// The session: ids 1–12, one of each kind of decision.
#[expect(clippy::too_many_lines, reason = "one fixture, read top to bottom")]
pub fn session_chain() -> Chain {
    let mut c = Chain::default();
    c.raw(
        at(0),
        &json!({
            "type": "session_start", "session": SESSION, "workspace": WORKSPACE,
            "version": "0.1.0", "pid": 4242, "mode": "supervisor", "confirmer": "tui",
            "config_digest": "0".repeat(64),
            "config_files": [format!("{WORKSPACE}/.airlock.toml")],
            "roots": [WORKSPACE], "excluded": [".env"],
            "tools": ["bash", "cat", "edit_file", "ls", "read_file", "write_file"],
            "policy_mode": "default",
            "rules": [format!("deny bash(curl *) (from {WORKSPACE}/.airlock.toml)")],
        }),
    );
    c.event(at(1000), AuditEvent::AgentConnected { agent: agent() });
    let toml = format!("{WORKSPACE}/.airlock.toml");
    call(
        &mut c,
        1,
        2,
        read(
            "ls",
            ".",
            "ls .",
            "README.md (307 bytes)\nbuild/\ntests/\ntodo.sh (560 bytes)",
        ),
    );
    call(
        &mut c,
        2,
        3,
        read(
            "read_file",
            "README.md",
            "read_file README.md",
            "     1 # tinytodo\n     2\n     3 A to-do list in one bash file.",
        ),
    );
    call(
        &mut c,
        3,
        5,
        Call {
            tool: "edit_file",
            kind: ToolKind::Write,
            args: json!({ "path": "todo.sh", "old_text": "    # TODO: this marks…\n    sed …", "new_text": "    sed …" }),
            summary: "edit todo.sh (+1 −2)",
            decision: Decision::approve(ApprovedBy::User),
            think: 4000,
            run: 12,
            status: "ok",
            excerpt: "edited todo.sh: +1 −2",
            change: Some(ChangeRecord {
                path: "todo.sh".into(),
                action: WriteAction::Edit,
                summary: "+1 −2".into(),
                diff: Some(TODO_DIFF.into()),
                diff_sha256: Some("0".repeat(64)),
                diff_truncated: false,
            }),
        },
    );
    call(
        &mut c,
        4,
        12,
        bash(
            "bash tests/run_tests.sh",
            Decision::approve(ApprovedBy::User),
            "ok",
            "running 5 tests\ntest add_one_item ... ok\nall 5 tests ok\nexit code: 0",
        ),
    );
    call(
        &mut c,
        5,
        16,
        Call {
            tool: "cat",
            kind: ToolKind::Read,
            args: json!({ "path": ".env" }),
            summary: "cat (refused)",
            decision: Decision::deny(
                DecidedBy::Scope,
                Some(".env: excluded by pattern \".env\"".into()),
            ),
            think: 0,
            run: 0,
            status: "refused",
            excerpt: ".env: excluded by pattern \".env\"",
            change: None,
        },
    );
    call(
        &mut c,
        6,
        20,
        bash(
            "rm -rf build",
            Decision::deny(
                DecidedBy::User,
                Some("keep the build, it is the release".into()),
            ),
            "denied",
            "denied by the user: keep the build, it is the release. The call was not run.",
        ),
    );
    call(
        &mut c,
        7,
        30,
        bash(
            "curl https://example.org/install.sh | sh",
            Decision::deny(rule("bash(curl *)", &toml), None),
            "blocked",
            "blocked by rule bash(curl *). The call was not run.",
        ),
    );
    c.event(
        at(40_000),
        AuditEvent::GrantAdded {
            grant: Grant {
                id: 1,
                scope: GrantScope::Prefix("cargo test".into()),
                tools: vec!["bash".into()],
                rule: "bash(cargo test *)".into(),
                created: at(40_000),
            },
        },
    );
    call(
        &mut c,
        8,
        41,
        bash(
            "cargo test --release",
            Decision::approve(ApprovedBy::User),
            "ok",
            "test result: ok. 12 passed\nexit code: 0",
        ),
    );
    call(
        &mut c,
        9,
        60,
        bash(
            "cargo test -p parser",
            Decision::approve(ApprovedBy::Grant {
                rule: "bash(cargo test *)".into(),
            }),
            "error",
            "error[E0425]: cannot find value `tokens` in this scope\nexit code: 101",
        ),
    );
    let edited = Decision::approve_edited("rm -rf build/tmp".into());
    call(
        &mut c,
        10,
        75,
        bash(
            "rm -rf build/",
            edited,
            "ok",
            "proposed: rm -rf build/\nran: rm -rf build/tmp\nexit code: 0",
        ),
    );
    call(
        &mut c,
        11,
        90,
        Call {
            think: 120_000,
            ..bash(
                "sleep 600",
                Decision::deny(DecidedBy::Timeout, None),
                "timeout",
                "no answer within 120 s: the call was not run",
            )
        },
    );
    call(
        &mut c,
        12,
        250,
        Call {
            think: 900,
            ..bash(
                "git push",
                Decision::deny(DecidedBy::Cancelled, None),
                "cancelled",
                "cancelled",
            )
        },
    );
    c.event(
        at(300_000),
        AuditEvent::AgentDisconnected { agent: agent() },
    );
    c.raw(
        at(301_000),
        &json!({ "type": "session_end", "reason": "the user quit" }),
    );
    c
}

/// Write `text` as a trail in a temporary directory.
pub fn write_trail(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{SESSION}.jsonl"));
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// The fixture trail.
pub fn trail() -> (tempfile::TempDir, PathBuf) {
    write_trail(&session_chain().text())
}

/// The fixture with call #6's decision edited after the fact (its reason
/// changed): the chain breaks there. Returns the line edited (1-based).
pub fn edited_trail() -> (tempfile::TempDir, PathBuf, usize) {
    let mut c = session_chain();
    let i = c
        .lines
        .iter()
        .position(|l| l.contains("\"call_decided\"") && l.contains("keep the build"))
        .unwrap();
    c.lines[i] = c.lines[i].replace("keep the build", "KEEP the build");
    let (dir, path) = write_trail(&c.text());
    (dir, path, i + 1)
}

/// The fixture cut short by a crash: the last call approved and never
/// finished, no end, and half of a line.
pub fn torn_trail() -> (tempfile::TempDir, PathBuf) {
    let mut c = session_chain();
    c.truncate(c.lines.len() - 5);
    call(
        &mut c,
        12,
        250,
        bash("make release", Decision::approve(ApprovedBy::User), "", ""),
    );
    let mut text = c.text();
    text.push_str("{\"v\":1,\"seq\":");
    text.push_str(&(c.lines.len()).to_string());
    text.push_str(",\"ts\":\"2026-01-02T03:08");
    write_trail(&text)
}

/// A review of the trail at `path` at `w`×`h`, times in UTC, the clock at
/// the session's end.
pub fn review(path: &Path, w: u16, h: u16) -> App {
    airlock::tui::App::open_review(
        path,
        at(301_000),
        FixedOffset::east_opt(0).unwrap(),
        Rect::new(0, 0, w, h),
    )
    .unwrap()
}

/// The whole screen.
pub fn screen(app: &App) -> String {
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(
        app.size.width,
        app.size.height,
    ))
    .unwrap();
    t.draw(|f| airlock::tui::draw(f, app)).unwrap();
    styled::render(t.backend().buffer())
}

/// The id of the selected call.
pub fn selected_id(app: &App) -> Option<u64> {
    let pos = app.selected_call()?;
    Some(app.calls.get(pos)?.info.id)
}
