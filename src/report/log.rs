//! `airlock log` for humans: one line per call — time, call id, agent,
//! tool, arguments in short, the decision and who made it, the outcome and
//! duration — with an indented line for a reason, an error or a change.

use std::fmt::Write as _;
use std::io::Write;

use serde_json::Value;

use super::filter::{CallFilter, Tri};
use super::term::{Printer, Text};
use super::{Paint, Style, fit, local_time, timing};
use crate::audit::AuditEvent;
use crate::audit::reader::LineProblem;
use crate::audit::timeline::{CallEntry, DecisionClass, Entry, SessionEvent, Timeline};
use crate::call::{CallState, Decision, Outcome, PolicyMode, RefusedBy};

/// Human text or the raw JSON lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// The timeline, for people.
    #[default]
    Human,
    /// The trail's records as they are, one per line.
    Json,
}

/// What `airlock log` shows and how.
#[derive(Debug, Clone, Default)]
pub struct LogOptions {
    /// Which calls.
    pub filter: CallFilter,
    /// Human or JSON.
    pub format: Format,
    /// Colours.
    pub style: Style,
}

/// What a log run found, for the caller to report (on stderr).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogSummary {
    /// Calls shown.
    pub shown_calls: usize,
    /// Calls in the trail.
    pub total_calls: usize,
    /// Records written (JSON).
    pub records_written: usize,
    /// Lines that are not records.
    pub problems: Vec<LineProblem>,
    /// The torn last line, if any.
    pub torn_tail: Option<LineProblem>,
}

const AGENT_W: usize = 14;
const TOOL_W: usize = 10;
const SUMMARY_W: usize = 44;
const DETAIL_W: usize = 160;

/// Write the timeline of `t` for humans.
pub fn write_log(
    w: &mut dyn Write,
    t: &Timeline,
    opts: &LogOptions,
) -> std::io::Result<LogSummary> {
    let workspace = t.session.as_ref().map(|s| s.workspace.as_str());
    let mut out = Printer::new(w, opts.style);
    let mut shown = 0;
    for entry in t.entries() {
        match entry {
            Entry::Call(c) => {
                if opts.filter.check(c, true) == Tri::Yes {
                    shown += 1;
                    out.line(&call_line(c, workspace, false))?;
                }
            }
            Entry::Event(e) => {
                if opts.filter.passes_event(e.at.ts) {
                    out.line(&event_line(e))?;
                }
            }
        }
    }
    let c = t.counts();
    let tally = format!(
        "{} of {} calls shown · in the trail: {} auto, {} approved by you, {} denied, {} blocked, {} unanswered, {} errors",
        shown, c.calls, c.auto, c.user, c.denied, c.blocked, c.unanswered, c.errors
    );
    out.line(Text::new().paint(Paint::Dim, tally))?;
    Ok(LogSummary {
        shown_calls: shown,
        total_calls: c.calls,
        records_written: 0,
        problems: t.problems.clone(),
        torn_tail: t.torn_tail.clone(),
    })
}

/// The paint for a decision class.
fn class_paint(c: DecisionClass) -> Paint {
    match c {
        DecisionClass::Auto | DecisionClass::User => Paint::Green,
        DecisionClass::Denied | DecisionClass::Blocked | DecisionClass::Refused => Paint::Red,
        DecisionClass::Timeout | DecisionClass::Cancelled | DecisionClass::Pending => Paint::Yellow,
    }
}

/// One call (and, indented below it, a reason, an error or a change).
/// `live` words a call without a result as still running rather than as
/// having none recorded.
pub fn call_line(c: &CallEntry, workspace: Option<&str>, live: bool) -> Text {
    let class = c.class();
    let command = command_of(c);
    let summary = match &command {
        Some(cmd) => crate::report::visible::one_line(&cmd.shown),
        None => short_summary(c),
    };
    let decision = match &c.decided {
        Some(d) => format!("{} {}", class.describe(), who(&d.decision, workspace)),
        None => class.describe().into(),
    };
    let mut t = Text::new();
    t.paint(Paint::Dim, local_time(c.call.received_at))
        .plain("  ")
        .paint(Paint::Dim, format!("{:>5}", format!("#{}", c.call.id)))
        .plain(" ")
        .paint(Paint::Cyan, fit(c.call.agent.display_name(), AGENT_W, true))
        .plain("  ")
        .paint(Paint::Bold, fit(&c.call.tool, TOOL_W, true))
        .plain("  ")
        .plain(fit(&summary, SUMMARY_W, true))
        .plain("  ")
        .paint(class_paint(class), decision)
        .plain(" → ");
    outcome(c, class, live, &mut t);
    // A command is never shown cut or changed: when the column cuts it,
    // the whole of it follows; after an edit, what the agent proposed.
    if let Some(cmd) = &command {
        if super::cells::width(&summary) > SUMMARY_W {
            t.line_break().plain(format!("{:>17}$ {summary}", ""));
        }
        if let Some(p) = &cmd.proposed {
            t.line_break().plain(format!("{:>17}", "")).paint(
                Paint::Dim,
                format!("edited by you; the agent proposed: {p}"),
            );
        }
    }
    if let Some(detail) = detail(c) {
        t.line_break()
            .plain(format!("{:>17}", ""))
            .paint(Paint::Dim, fit(&detail, DETAIL_W, false));
    }
    t
}

/// The outcome after the arrow: how it ended and how long it took.
fn outcome(c: &CallEntry, class: DecisionClass, live: bool, t: &mut Text) {
    match &c.finished {
        Some(f) if !class.approved() && class != DecisionClass::Pending => {
            t.plain(format!(
                "not run, {}",
                timing(f.duration_ms, c.wait_run_ms())
            ));
        }
        Some(f) => {
            let status = if f.truncated {
                format!("{} (truncated)", f.status.describe())
            } else {
                f.status.describe().to_string()
            };
            let paint = match f.status {
                Outcome::Ok => Paint::Green,
                Outcome::Error | Outcome::Denied | Outcome::Blocked | Outcome::Refused => {
                    Paint::Red
                }
                Outcome::Timeout | Outcome::Cancelled | Outcome::Unreported => Paint::Yellow,
            };
            t.paint(paint, status)
                .plain(format!(" {}", timing(f.duration_ms, c.wait_run_ms())));
        }
        None if live => {
            t.paint(Paint::Yellow, c.status().describe());
        }
        None => {
            t.paint(Paint::Yellow, CallState::Unfinished.describe());
        }
    }
}

/// A command as it ran (the edit, when the human edited and approved it)
/// and, after an edit, the agent's proposal.
struct Command {
    shown: String,
    proposed: Option<String>,
}

/// The command of a call that runs one, exactly as the trail has it.
fn command_of(c: &CallEntry) -> Option<Command> {
    // The trail keeps the arguments: the call's tool reads its command.
    let cmd = crate::tools::recorded_command(&c.call.tool, &c.call.args)?;
    let edited = c
        .decided
        .as_ref()
        .filter(|d| d.decision.is_approved())
        .and_then(|d| d.decision.edited_command().map(str::to_string));
    Some(match edited {
        Some(e) => Command {
            shown: e,
            proposed: Some(cmd.to_string()),
        },
        None => Command {
            shown: cmd.to_string(),
            proposed: None,
        },
    })
}

/// Refused before its tool could prepare it (an unknown tool, invalid
/// arguments, a path outside the scope): it has no summary of its own.
/// A refused edit of a prepared call keeps the edit, so it is not one.
fn refused_unprepared(c: &CallEntry) -> bool {
    matches!(
        c.decided.as_ref().map(|d| &d.decision),
        Some(Decision::Refused {
            by: RefusedBy::Scope | RefusedBy::InvalidArguments,
            edited_command: None,
            ..
        })
    )
}

/// The call's summary without the tool's name in front; for calls refused
/// before they had a summary, the arguments in short.
fn short_summary(c: &CallEntry) -> String {
    let s = &c.call.summary;
    if (s.is_empty() || refused_unprepared(c))
        && let Value::Object(args) = &c.call.args
    {
        let parts: Vec<String> = args
            .iter()
            .map(|(k, v)| match v {
                Value::String(text) => format!("{k}={}", fit(text, 40, false)),
                other => format!("{k}={}", fit(&other.to_string(), 40, false)),
            })
            .collect();
        return parts.join(" ");
    }
    // The tool column names the tool: its tool says which words follow.
    crate::tools::summary_words(&c.call.tool, s).to_string()
}

/// The indented second line: why it was refused, or how it failed.
fn detail(c: &CallEntry) -> Option<String> {
    let d = c.decided.as_ref().map(|d| &d.decision);
    if let Some(d) = d
        && let Decision::Refused {
            by: RefusedBy::User | RefusedBy::Scope | RefusedBy::InvalidArguments,
            reason,
            ..
        } = d
    {
        return reason.as_deref().map(|r| format!("reason: {r}"));
    }
    let f = c.finished.as_ref()?;
    if f.status == Outcome::Error {
        let first = f
            .excerpt
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        let last = f
            .excerpt
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        if last != first && last.starts_with("exit code") {
            return Some(format!("error: {} … {last}", fit(first, 100, false)));
        }
        return Some(format!("error: {first}"));
    }
    None
}

/// Who decided, in words ([`DecidedBy::describe_in`]): `by rule bash(rm *)
/// (.airlock.toml)`, `by you`, `(no answer in time)` …, and whether the
/// human's edit ran. Rule files inside `workspace` are shown relative to it.
pub fn who(d: &Decision, workspace: Option<&str>) -> String {
    let mut s = d.by().describe_in(workspace.map(std::path::Path::new));
    if let Some(cmd) = d.edited_command() {
        let cmd = crate::report::visible::one_line(cmd);
        if d.is_approved() {
            s.push_str(" after an edit");
        } else {
            let _ = write!(s, " (your edit, not run: {cmd})");
        }
    }
    s
}

/// One session-level record.
pub fn event_line(e: &SessionEvent) -> Text {
    let text = match &e.event {
        Some(AuditEvent::SessionStart {
            session,
            workspace,
            version,
            mode,
            confirmer,
            policy_mode,
            ..
        }) => format!(
            "session {session} started on {workspace} (airlock {version}, {}, confirmer {}, mode {})",
            mode.describe(),
            confirmer.describe(),
            policy_mode.map_or("", PolicyMode::describe)
        ),
        Some(AuditEvent::SessionEnd { reason }) => format!("session ended: {reason}"),
        Some(AuditEvent::AgentConnected { agent }) => {
            format!("agent {} connected{}", agent.name, version(agent))
        }
        Some(AuditEvent::AgentDisconnected { agent }) => {
            format!("agent {} disconnected", agent.name)
        }
        Some(AuditEvent::GrantAdded { grant }) => {
            format!("you granted for this session: {}", grant.rule)
        }
        Some(AuditEvent::GrantRevoked { grant }) => {
            format!("you revoked the session grant {}", grant.rule)
        }
        Some(AuditEvent::RuleSaved { action, rule, file }) => {
            format!("you saved the rule {} {rule} to {file}", action.as_str())
        }
        Some(AuditEvent::ConfigUntrusted { file, ignored, .. }) => format!(
            "{file} is not trusted; ignored what loosens: {}",
            ignored.join("; ")
        ),
        Some(other) => generic(other),
        None => format!("{} (a record type this airlock does not know)", e.kind()),
    };
    let mut t = Text::new();
    t.paint(Paint::Dim, local_time(e.at.ts))
        .plain("  ")
        .paint(Paint::Dim, fit(&text, DETAIL_W, false));
    t
}

fn version(a: &crate::call::AgentInfo) -> String {
    a.version
        .as_deref()
        .map(|v| format!(" ({v})"))
        .unwrap_or_default()
}

/// `type: field=value, …` for events without a wording of their own.
fn generic(e: &AuditEvent) -> String {
    let Ok(Value::Object(map)) = serde_json::to_value(e) else {
        return "?".into();
    };
    let kind = map
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .replace('_', " ");
    let fields: Vec<String> = map
        .iter()
        .filter(|(k, _)| *k != "type")
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={s:?}"),
            Value::Object(o) if o.contains_key("name") => format!("{k}={}", o["name"]),
            other => format!("{k}={other}"),
        })
        .collect();
    format!("{kind}: {}", fields.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::timeline::{Decided, RecordMeta};
    use crate::call::{AgentInfo, ApprovedBy, CallInfo, CallView, Runner, ToolKind};

    fn entry(summary: &str, decision: Decision) -> CallEntry {
        let at = RecordMeta {
            seq: 1,
            line: 1,
            ts: chrono::DateTime::UNIX_EPOCH,
        };
        CallEntry {
            call: CallInfo {
                id: 1,
                agent: AgentInfo {
                    id: 1,
                    name: "a".into(),
                    version: None,
                },
                tool: "read_file".into(),
                kind: Some(ToolKind::Read),
                args: serde_json::json!({"path": "../x"}),
                summary: summary.into(),
                received_at: chrono::DateTime::UNIX_EPOCH,
                runner: Runner::Airlock,
                view: CallView::Args,
                edit: None,
                proposal: None,
                grant: crate::call::GrantShape::default(),
            },
            requested: at,
            decided: Some(Decided { at, decision }),
            finished: None,
        }
    }

    #[test]
    fn a_call_refused_before_it_was_prepared_is_known_by_its_decision() {
        // Refused by the scope: the arguments, whatever the summary says.
        let scope = Decision::deny(RefusedBy::Scope, Some("outside".into()));
        assert_eq!(short_summary(&entry("read_file ../x", scope)), "path=../x");
        // Approved: the summary, even one that reads like a refusal.
        let ok = Decision::approve(ApprovedBy::User);
        assert_eq!(
            short_summary(&entry("read_file unknown tool (refused)", ok)),
            "unknown tool (refused)"
        );
    }

    #[test]
    fn who_decided_in_the_one_wording() {
        let d = Decision::deny(
            RefusedBy::Rule {
                rule: "guardrail: mkfs".into(),
                source: crate::call::VerdictSource::Guardrail,
            },
            None,
        );
        assert_eq!(who(&d, None), d.by().describe());
        assert_eq!(who(&d, None), "by guardrail: mkfs");
        let d = Decision::deny(RefusedBy::Timeout, None);
        assert_eq!(who(&d, None), "(no answer in time)");
    }
}
