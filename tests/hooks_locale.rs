//! An agent whose own shell runs under a locale that joins bytes (BIG5,
//! GBK, GB18030, `Shift_JIS` …) would run a native shell command otherwise
//! than airlock read and showed it: `airlock hook`, which runs in the
//! agent's environment, finds such a locale, and the supervisor refuses
//! the agent's shell commands (before anyone is asked, recorded as the
//! `misread-locale` guardrail) while its reads go on. The control: a plain
//! bash under that locale, as the agent's shell would be, runs the hidden
//! command; under C.UTF-8 the same command is asked and approved.

mod hooks_support;
mod locale_support;

use std::path::Path;

use hooks_support::{CLAUDE, Env, Say, decision, reason};
use locale_support::*;
use serde_json::Value;

/// Claude's answer to `event` from `airlock hook claude` run with
/// `LANG=lang` (`null` when it prints nothing, as for an allowed read).
async fn claude_under(env: &Env, event: &Value, lang: &str) -> Value {
    let (out, err, _) = env
        .hook_in(
            "claude",
            event.to_string().as_bytes(),
            &[],
            &[("LANG", Path::new(lang))],
        )
        .await;
    if out.trim().is_empty() {
        return Value::Null;
    }
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("stdout is JSON ({e}): {out:?} {err}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_under_a_misread_locale_gets_its_shell_commands_refused() {
    if !in_locale_namespace("an_agent_under_a_misread_locale_gets_its_shell_commands_refused") {
        return;
    }
    let mut env = Env::new(None);
    env.start(&[Say::Yes]);
    let mut pre = env.fixture(CLAUDE, "PreToolUse-Bash");
    for (name, _, _, ch) in LOCALES {
        pre["tool_input"]["command"] = Value::String(payload(ch));
        // The control: the agent's shell under this locale.
        let script = format!(
            "eval {}",
            airlock::tools::bash::sentinel::shell_quote(&payload(ch))
        );
        assert!(
            ran_pwned(&plain_bash(&script, &[("LANG", name)])),
            "control {name}"
        );

        let v = claude_under(&env, &pre, name).await;
        assert_eq!(decision(&v), "deny", "{name}: {v}");
        assert!(reason(&v).contains(&format!("LANG={name}")), "{name}: {v}");
        assert_eq!(env.asked(), 0, "{name}: refused before anyone is asked");
    }
    let trail = serde_json::to_string(&env.audit()).unwrap();
    assert!(
        trail.contains("misread-locale"),
        "recorded as the guardrail"
    );

    // A read under the same locale is not a shell command: it goes on.
    let read = env.fixture(CLAUDE, "PreToolUse-Read");
    let v = claude_under(&env, &read, "zh_TW.BIG5").await;
    assert_ne!(decision(&v), "deny", "{v}");

    // Under a UTF-8 locale the command is asked, and approved.
    let v = claude_under(&env, &pre, "C.UTF-8").await;
    assert_eq!(decision(&v), "allow", "{v}");
    assert_eq!(env.asked(), 1);
}
