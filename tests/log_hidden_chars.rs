//! `airlock log` and `airlock sessions` print no character that hides or
//! reorders text, wherever it comes from: the agent's name (its
//! `clientInfo`), a path argument, a write's summary, a refusal's reason.
//! Each such character is shown as `<U+…>`.

mod log_support;

use std::sync::Arc;

use airlock::report::visible::is_invisible;
use airlock::session::{self, SessionOptions};
use log_support::{Scripted, airlock};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// A right-to-left override, a line separator, a no-break space, a
/// variation selector and a braille blank: each reads as nothing (or as a
/// plain space) on a terminal.
const HIDING: [char; 5] = ['\u{202E}', '\u{2028}', '\u{00A0}', '\u{FE0F}', '\u{2800}'];

fn hiding_text(base: &str) -> String {
    let mut s = base.to_string();
    for c in HIDING {
        s.push(c);
        s.push('x');
    }
    s
}

#[tokio::test]
async fn log_and_sessions_escape_hiding_characters_from_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap().join("ws");
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
    let agent_name = hiding_text("agent");
    let agent = s.supervisor.agent_connected(Some(&agent_name), Some("1"));
    let missing = hiding_text("missing");
    let written = hiding_text("new");
    for (tool, args) in [
        ("read_file", json!({ "path": missing })),
        ("write_file", json!({ "path": written, "content": "one\n" })),
    ] {
        s.supervisor
            .call(
                &agent,
                tool,
                args.as_object().cloned(),
                CancellationToken::new(),
                None,
            )
            .await
            .unwrap();
    }
    s.supervisor.agent_disconnected(&agent);
    s.supervisor.shutdown("test done");

    // The control: the trail holds the characters themselves, so the
    // report had them to print (raw, they would reach the terminal).
    let trail = std::fs::read_to_string(&s.audit_path).unwrap();
    let decoded: Vec<Value> = trail
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let decoded_text: String = decoded
        .iter()
        .flat_map(|v| strings(v).into_iter())
        .collect();
    for c in HIDING {
        assert!(
            decoded_text.contains(c),
            "{:04X} not in the trail",
            c as u32
        );
    }

    for args in [&["log"][..], &["sessions"]] {
        let out = airlock(&data, args);
        assert!(out.status.success(), "{args:?}: {out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let raw: Vec<String> = text
            .chars()
            .filter(|&c| is_invisible(c) || (c.is_control() && c != '\n'))
            .map(|c| format!("U+{:04X}", c as u32))
            .collect();
        assert!(raw.is_empty(), "{args:?} printed {raw:?}:\n{text}");
        assert!(text.contains("<U+202E>"), "{args:?}:\n{text}");
    }
    let log = String::from_utf8(airlock(&data, &["log"]).stdout).unwrap();
    for c in HIDING {
        let shown = format!("<U+{:04X}>", c as u32);
        assert!(log.contains(&shown), "{shown} not in the log:\n{log}");
    }
}

/// Every string inside `v`.
fn strings(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a.iter().flat_map(strings).collect(),
        Value::Object(o) => o.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}
