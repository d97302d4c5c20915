//! The agents' command hooks: `airlock hook AGENT` on each event before and
//! after one of the agent's own tool calls, so every native call goes
//! through airlock (`tests/real_agents_support/FACTS.md`, "Hooks").
//!
//! * Claude Code: settings.json `hooks.PreToolUse`, `PostToolUse`,
//!   `PostToolUseFailure` (a failed tool has no PostToolUse): `[{matcher:
//!   "*", hooks: [{type: "command", command, timeout}]}]`, timeout in s.
//! * Codex 0.171: config.toml `[[hooks.PreToolUse]]` / `[[hooks.PostToolUse]]`
//!   (no matcher: every tool) with `[[hooks.<event>.hooks]] type =
//!   "command"`, `command`, `timeout` in s. Codex runs a hook only once the
//!   user trusted it (`/hooks`).
//! * Gemini CLI: settings.json `hooks.BeforeTool`, `AfterTool`: `[{matcher:
//!   "*", hooks: [{type: "command", name, command, timeout}]}]`, timeout in
//!   ms; run only in a trusted folder.
//!
//! All three let the tool run when a hook is killed at its timeout, so the
//! timeout is the longest each agent takes: 2147483 s (Claude's and
//! Gemini's are Node timers, 2^31-1 ms at most — one more and the hook is
//! killed at once; Codex takes more, nothing longer matters to a human).

use super::{Agent, Change, Options, Val};

/// The hook timeout `init` writes, in seconds (24.8 days).
pub const HOOK_TIMEOUT_SECS: i64 = 2_147_483;

/// Gemini's hook timeout is in milliseconds: the largest a Node timer takes.
pub const GEMINI_HOOK_TIMEOUT_MS: i64 = 2_147_483_647;

/// The events `init` hooks, per agent.
pub fn events(agent: Agent) -> &'static [&'static str] {
    match agent {
        Agent::Claude => &["PreToolUse", "PostToolUse", "PostToolUseFailure"],
        Agent::Codex => &["PreToolUse", "PostToolUse"],
        Agent::Gemini => &["BeforeTool", "AfterTool"],
    }
}

/// The command line the agent runs (through its shell): the airlock binary's
/// absolute path, quoted when it needs it, then `hook AGENT`.
pub fn command(opts: &Options) -> String {
    format!(
        "{} hook {}",
        shell_quote(&super::path_str(&opts.command)),
        opts.agent.as_str()
    )
}

/// `s` as one shell word.
fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// airlock's entry in one event's list of hook groups.
fn entry(opts: &Options) -> Val {
    let cmd = Val::from(command(opts));
    let kind = ("type".to_string(), Val::from("command"));
    let hook = match opts.agent {
        Agent::Claude | Agent::Codex => Val::Table(vec![
            kind,
            ("command".into(), cmd),
            ("timeout".into(), Val::Int(HOOK_TIMEOUT_SECS)),
        ]),
        Agent::Gemini => Val::Table(vec![
            kind,
            ("name".into(), Val::from(super::SERVER_NAME)),
            ("command".into(), cmd),
            ("timeout".into(), Val::Int(GEMINI_HOOK_TIMEOUT_MS)),
        ]),
    };
    let hooks = ("hooks".to_string(), Val::List(vec![hook]));
    match opts.agent {
        // Codex matches every tool without a matcher (its matchers are
        // regular expressions; "*" is none).
        Agent::Codex => Val::Table(vec![hooks]),
        Agent::Claude | Agent::Gemini => {
            Val::Table(vec![("matcher".into(), Val::from("*")), hooks])
        }
    }
}

/// The changes that install the hooks: airlock's entry in each event's list.
pub fn changes(opts: &Options) -> Vec<Change> {
    events(opts.agent)
        .iter()
        .map(|event| Change::append(&["hooks", event], entry(opts)))
        .collect()
}

/// What the user should know about the hooks (the first-run trust prompt
/// included).
pub fn notes(opts: &Options) -> Vec<String> {
    let events = events(opts.agent).join(", ");
    let mut notes = vec![format!(
        "hooks ({events}) run `{}` before and after each of the agent's own tool calls: \
         every native call is shown, decided and recorded by airlock (timeout {}).",
        command(opts),
        match opts.agent {
            Agent::Gemini => format!("{GEMINI_HOOK_TIMEOUT_MS} ms"),
            _ => format!("{HOOK_TIMEOUT_SECS} s"),
        }
    )];
    notes.push(match opts.agent {
        Agent::Claude => "Claude Code asks nothing before running hooks from its settings; \
                          /hooks lists them."
            .into(),
        Agent::Codex => "first run: Codex says \"Hooks need review\" and runs airlock's hooks \
                         only after you trust them (`codex`, then /hooks, trust the two airlock \
                         hooks). Until then — and again after `airlock init` rewrites them — \
                         Codex skips them and runs its own tools WITHOUT airlock; `codex exec` \
                         skips them silently (seen with 0.171.0): trust them in the TUI first."
            .into(),
        Agent::Gemini => "first run: Gemini runs hooks only in a trusted folder (its trust \
                          dialog, or --trust-folder); headless `gemini -p` offers the model its \
                          shell and edit tools only with --approval-mode yolo (airlock's hook \
                          then asks you for each)."
            .into(),
    });
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_with_spaces_or_quotes_are_one_shell_word() {
        assert_eq!(
            shell_quote("/opt/airlock/bin/airlock"),
            "/opt/airlock/bin/airlock"
        );
        assert_eq!(shell_quote("/home/a b/airlock"), "'/home/a b/airlock'");
        assert_eq!(shell_quote("/x/it's/airlock"), r"'/x/it'\''s/airlock'");
        assert_eq!(shell_quote("/x/$(rm)/airlock"), "'/x/$(rm)/airlock'");
    }
}
