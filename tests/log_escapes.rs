//! `airlock log` and `airlock sessions` send no terminal escape from the
//! trail to the terminal, whichever field holds it: the session grant's
//! rule (it holds the granted command), the command, the agent's name, a
//! tool's name, a path, an error's first line, a grant record, the
//! workspace. Every line goes through one printer that escapes every
//! piece (`\x1b`); with colours on, the only escape sequences left are
//! airlock's own colours. The control: the trail holds the raw escapes,
//! and the decision's own wording (`by session grant …`) carries them.

mod log_support;

use std::sync::Arc;

use airlock::call::DecidedBy;
use airlock::policy::GrantScope;
use airlock::session::{self, SessionOptions};
use log_support::{Scripted, airlock, stderr, stdout};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const FAKE: &str = "\x1b[1A\x1b[2K\x1b[31mFAKE";

/// `text` without airlock's own colour codes.
fn without_colours(text: &str) -> String {
    let mut out = text.to_string();
    for code in ["0", "1", "2", "31", "32", "33", "36"] {
        out = out.replace(&format!("\x1b[{code}m"), "");
    }
    out
}

/// Control characters other than a newline in `text`, by code point.
fn raw_controls(text: &str) -> Vec<String> {
    text.chars()
        .filter(|&c| c.is_control() && c != '\n')
        .map(|c| format!("U+{:04X}", c as u32))
        .collect()
}

#[tokio::test]
async fn no_escape_from_the_trail_reaches_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path())
        .unwrap()
        .join(format!("ws{FAKE}"));
    std::fs::create_dir(&ws).unwrap();
    let data = dir.path().join("data");
    let s = session::start(
        &SessionOptions {
            workspace: ws.clone(),
            data_dir: Some(data.clone()),
            config_file: None,
            mode: airlock::call::SessionMode::Supervisor,
            policy_mode: None,
            user_config: false,
        },
        Arc::new(Scripted),
    )
    .unwrap();
    let agent = s
        .supervisor
        .agent_connected(Some(&format!("agent{FAKE}")), Some(FAKE));
    let granted = format!("echo granted {FAKE}; printf 'err{FAKE}\\n' >&2; exit 1");
    s.supervisor
        .grant(GrantScope::ExactCommand(granted.clone()), &["bash"]);
    let calls = [
        ("bash", json!({ "command": granted })),
        ("read_file", json!({ "path": format!("../x{FAKE}") })),
        (&*format!("tool{FAKE}"), json!({ "a": FAKE })),
    ];
    for (tool, args) in calls {
        s.supervisor
            .call(
                &agent,
                tool,
                args.as_object().cloned(),
                CancellationToken::new(),
                None,
            )
            .await
            .ok(); // an unknown tool is an error, and recorded
    }
    s.supervisor.agent_disconnected(&agent);
    s.supervisor.shutdown(&format!("done{FAKE}"));

    // The control: the trail holds the escapes, and the wording of the
    // decision carries them as they are.
    let trail = std::fs::read_to_string(&s.audit_path).unwrap();
    let strings: String = trail
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .flat_map(|v| all_strings(&v))
        .collect();
    assert!(strings.matches('\x1b').count() >= 20, "{strings:?}");
    let said = DecidedBy::Grant {
        rule: format!("bash({granted})"),
    }
    .describe();
    assert!(said.contains(FAKE), "{said:?}");

    for color in ["never", "always"] {
        for args in [
            &["log", "--color", color][..],
            &["log", "--last", "--color", color],
            &["sessions", "--color", color],
        ] {
            let out = airlock(&data, args);
            assert!(out.status.success(), "{args:?}: {out:?}");
            let text = without_colours(&stdout(&out));
            let raw = raw_controls(&text);
            assert!(raw.is_empty(), "{args:?} printed {raw:?}:\n{text}");
            assert!(text.contains("\\x1b[31mFAKE"), "{args:?}:\n{text}");
            assert!(raw_controls(&stderr(&out)).is_empty(), "{args:?}");
        }
    }
    let log = stdout(&airlock(&data, &["log", "--color", "never"]));
    for want in [
        "by session grant bash(=echo granted \\x1b[1A\\x1b[2K\\x1b[31mFAKE",
        "agent\\x1b[1A",
        "tool\\x1b[",
        "path=../x\\x1b[1A",
        "session ended: done\\x1b[1A",
    ] {
        assert!(log.contains(want), "{want} not in:\n{log}");
    }
}

/// Every string inside `v`.
fn all_strings(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a.iter().flat_map(all_strings).collect(),
        Value::Object(o) => o.values().flat_map(all_strings).collect(),
        _ => Vec::new(),
    }
}
