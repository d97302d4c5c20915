//! A call: its id, tool kind, subject, who runs it and what the prompt shows.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::agent::AgentInfo;
use super::grant::GrantShape;
use super::proposal::Proposal;

/// Unique within a supervisor session, starting at 1.
pub type CallId = u64;

/// What a tool does, which decides its default policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// Reads the workspace, changes nothing (allowed by default).
    Read,
    /// Writes files (asks by default).
    Write,
    /// Runs commands (asks by default).
    Exec,
    /// Reaches the network: a web fetch or search (asks by default).
    Network,
    /// Another MCP server's tool (asks by default).
    Mcp,
    /// Unknown: asked, never allowed by default.
    Other,
}

impl ToolKind {
    /// The lowercase name used in the audit trail and on screen.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::Exec => "exec",
            Self::Network => "network",
            Self::Mcp => "mcp",
            Self::Other => "other",
        }
    }
}

/// What the policy matches a call against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Subject {
    /// The call touches these resolved paths.
    Paths {
        /// Fully resolved paths, already inside the scope.
        paths: Vec<std::path::PathBuf>,
    },
    /// The call runs this shell command.
    Command {
        /// The command text exactly as it will run.
        command: String,
    },
    /// Nothing to match beyond the tool name (e.g. `pwd`).
    None,
}

/// Where a shell command would run, as the known-safe check
/// (`bash.auto_approve_read_only`) judges its paths: relative words are
/// resolved against `cwd`, and a command that walks directories is only
/// known-safe where excluded files are hidden from it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellSite {
    /// The shell's working directory: as the kernel has it for airlock's
    /// own shell, as the agent reports it for a command the agent runs
    /// itself. `None`: unknown, and nothing is known-safe.
    pub cwd: Option<std::path::PathBuf>,
    /// Excluded files are hidden from the command, also those that appear
    /// later (airlock's sandbox with a mount namespace and
    /// `deny_excluded`). False for a command the agent runs itself.
    pub hides_excluded: bool,
    /// Whose environment the command sees: a command that prints it
    /// (`printenv`, `env`, `/proc/self/environ`) is known-safe only in
    /// airlock's filtered one.
    pub env: ShellEnv,
}

/// The environment a shell command runs with, for the known-safe check
/// of commands that print it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ShellEnv {
    /// The agent's own, unfiltered (its API keys and tokens), or not
    /// known: a command the agent runs itself.
    #[default]
    Agents,
    /// airlock's shell: the supervisor's environment less `bash.env_deny`.
    Filtered,
}

/// Who runs a call once it is approved.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Runner {
    /// airlock runs it (its own tools; bash in its sandbox).
    #[default]
    Airlock,
    /// The agent runs it itself, outside airlock's sandbox (a native tool
    /// reported through the agent's hooks).
    Agent {
        /// The agent's own name for the tool (`Bash`, `apply_patch` …).
        native_tool: String,
        /// The agent's id for this tool use, when it gives one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_use_id: Option<String>,
        /// The agent's session id, when it gives one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session_id: Option<String>,
    },
}

impl Runner {
    /// airlock runs the call.
    pub fn is_airlock(&self) -> bool {
        matches!(self, Self::Airlock)
    }

    /// Who runs it, for people.
    pub fn describe(&self) -> &'static str {
        match self {
            Self::Airlock => "airlock runs this call",
            Self::Agent { .. } => "the agent runs this call itself, outside airlock's sandbox",
        }
    }
}

/// What the approval prompt shows for a call, filled when it is prepared.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CallView {
    /// A shell command, with where it runs and the agent's description.
    Command {
        /// The command text exactly as it will run.
        command: String,
        /// The working directory, when known.
        cwd: Option<String>,
        /// The agent's description of the command, when it gave one.
        description: Option<String>,
        /// The arguments the command and description come from; the prompt
        /// lists every other argument after them.
        shown_args: &'static [&'static str],
    },
    /// A file change: the call's [`Proposal`] diff.
    Change,
    /// The arguments as sent.
    #[default]
    Args,
}

impl CallView {
    /// What kind of view it is, for people.
    pub fn describe(&self) -> &'static str {
        match self {
            Self::Command { .. } => "command",
            Self::Change => "change",
            Self::Args => "arguments",
        }
    }
}

/// A part of a call the human may edit at the prompt before approving it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditField {
    /// The shell command.
    Command {
        /// The command as proposed.
        text: String,
    },
}

impl EditField {
    /// What is edited, for people.
    pub fn describe(&self) -> &'static str {
        match self {
            Self::Command { .. } => "the command",
        }
    }
}

/// A call as the supervisor knows it once it arrived: shown to the human,
/// broadcast on the event bus and written to the audit trail.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CallInfo {
    /// The call's id.
    pub id: CallId,
    /// Who made it.
    pub agent: AgentInfo,
    /// The tool's name as the agent sent it.
    pub tool: String,
    /// The tool's kind, when the tool exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ToolKind>,
    /// The arguments as the agent sent them.
    pub args: Value,
    /// A one-line human summary (`read_file src/main.rs`).
    pub summary: String,
    /// When it arrived (RFC 3339, UTC).
    #[serde(serialize_with = "super::stamp::serialize_auto")]
    pub received_at: chrono::DateTime<chrono::Utc>,
    /// Who runs it (omitted when airlock does).
    #[serde(default, skip_serializing_if = "Runner::is_airlock")]
    pub runner: Runner,
    /// What the prompt shows. Not recorded (the trail has the arguments).
    #[serde(skip)]
    pub view: CallView,
    /// What the human may edit before approving (`e` at the prompt only
    /// when set). Not recorded.
    #[serde(skip)]
    pub edit: Option<EditField>,
    /// What "for this session" and "always" can cover, as the tool says.
    /// Not recorded.
    #[serde(skip)]
    pub grant: GrantShape,
    /// For writes: what would change, computed before anyone is asked. Not
    /// part of the `call_requested` record; the diff is kept in
    /// `call_finished`.
    #[serde(skip)]
    pub proposal: Option<std::sync::Arc<Proposal>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(runner: Runner) -> CallInfo {
        CallInfo {
            id: 1,
            agent: AgentInfo {
                id: 1,
                name: "a".into(),
                version: None,
            },
            tool: "bash".into(),
            kind: Some(ToolKind::Exec),
            args: serde_json::json!({"command": "ls"}),
            summary: "bash ls".into(),
            received_at: chrono::DateTime::UNIX_EPOCH,
            runner,
            view: CallView::Args,
            edit: None,
            grant: GrantShape::None,
            proposal: None,
        }
    }

    #[test]
    fn airlock_runner_is_omitted_and_read_back_as_default() {
        let v = serde_json::to_value(call(Runner::Airlock)).unwrap();
        assert!(v.get("runner").is_none(), "{v}");
        let back: CallInfo = serde_json::from_value(v).unwrap();
        assert_eq!(back.runner, Runner::Airlock);
    }

    #[test]
    fn agent_runner_round_trips() {
        let runner = Runner::Agent {
            native_tool: "Bash".into(),
            tool_use_id: Some("toolu_1".into()),
            session_id: None,
        };
        let v = serde_json::to_value(call(runner.clone())).unwrap();
        assert_eq!(
            v["runner"],
            serde_json::json!({"type": "agent", "native_tool": "Bash", "tool_use_id": "toolu_1"})
        );
        let back: CallInfo = serde_json::from_value(v).unwrap();
        assert_eq!(back.runner, runner);
    }

    #[test]
    fn kinds_read_back_from_their_words() {
        for k in [
            ToolKind::Read,
            ToolKind::Write,
            ToolKind::Exec,
            ToolKind::Network,
            ToolKind::Mcp,
            ToolKind::Other,
        ] {
            let v = serde_json::to_value(k).unwrap();
            assert_eq!(v, k.describe());
            assert_eq!(serde_json::from_value::<ToolKind>(v).unwrap(), k);
        }
    }
}
