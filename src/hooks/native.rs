//! Each agent's native tools in airlock's vocabulary: the kind, the airlock
//! tool whose rules apply (`bash(cargo test *)` covers a native `Bash`,
//! `write_file(src/**)` a native `Edit`), the subject the policy matches,
//! the scope check of airlock's own tools, and what the prompt shows.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::event::{HookAgent, HookEvent};
pub use super::mapped::{Mapped, NativeCall};
use super::mapped::{airlock_tools, one_line, unreadable};
use super::reads::{Args, ReadCall};
use super::{agent_path, change, codex_shell, patch_call};
use crate::call::{CallView, EditField, Subject, ToolKind};
use crate::policy::PathRules;
use crate::scope::Scope;
use crate::tools::readonly::{FIND, GREP, LS};
use crate::tools::{bash, write};

/// One of the agents' shell tools: bash's rules and grants cover it.
struct ShellTool {
    agent: HookAgent,
    name: &'static str,
    /// The argument that carries the command (a string, or Codex's argv),
    /// read for the prompt and replaced by an edited command.
    command: &'static str,
    /// The arguments the prompt's command view shows.
    shown: &'static [&'static str],
}

const fn shell(agent: HookAgent, name: &'static str) -> ShellTool {
    ShellTool {
        agent,
        name,
        command: "command",
        shown: &["command", "description"],
    }
}

/// The agents' shell tools.
const SHELL_TOOLS: &[ShellTool] = &[
    shell(HookAgent::Claude, "Bash"),
    // Codex 0.171 shows its `exec_command` to hooks as `Bash`/`command`;
    // the model-side names are here for older and newer builds.
    shell(HookAgent::Codex, "Bash"),
    shell(HookAgent::Codex, "shell"),
    ShellTool {
        command: "cmd",
        // `command` too: the recorded input has the command there as well.
        shown: &["cmd", "command", "description"],
        ..shell(HookAgent::Codex, "exec_command")
    },
    shell(HookAgent::Codex, "local_shell"),
    shell(HookAgent::Gemini, "run_shell_command"),
];

/// `event`'s tool, when it is one of the agents' shell tools.
fn shell_tool(event: &HookEvent) -> Option<&'static ShellTool> {
    SHELL_TOOLS
        .iter()
        .find(|t| t.agent == event.agent && t.name == event.tool_name)
}

/// Whether `event`'s tool is one of the agents' shells (its result has
/// an exit code, known or not).
pub fn is_shell_tool(event: &HookEvent) -> bool {
    shell_tool(event).is_some()
}

/// The agent's input with its command replaced by `command` (what the human
/// approved), in the argument its shell tool reads.
pub fn with_command(event: &HookEvent, command: &str) -> Map<String, Value> {
    let mut out = event.tool_input.as_object().cloned().unwrap_or_default();
    let key = shell_tool(event).map_or("command", |t| t.command);
    out.insert(key.into(), Value::String(command.to_string()));
    out
}

/// The agent's `input` as the trail records it for a call about `subject`:
/// as sent, and for a shell tool whose command is not the string in
/// `command` (Codex's `exec_command` names it `cmd`; an argv `["bash",
/// "-lc", "script"]`) also the command as one string in `command`, where
/// bash's `recorded_command` finds it for `log` and review (whole, not the
/// summary's excerpt). An agent's own `command` value that differs (the
/// argv) is kept as `native_command`. Other tools' input is left as sent.
pub fn recorded_input(
    event: &HookEvent,
    subject: &Subject,
    mut input: Map<String, Value>,
) -> Map<String, Value> {
    let (Some(_), Subject::Command { command }) = (shell_tool(event), subject) else {
        return input;
    };
    let wanted = Value::String(command.clone());
    match input.insert("command".into(), wanted.clone()) {
        Some(native) if native != wanted => {
            input.insert("native_command".into(), native);
        }
        _ => {}
    }
    input
}

/// Map a pre-tool event with no path rules (see [`map_with`]).
pub fn map(event: &HookEvent, scope: &Scope) -> Mapped {
    map_with(event, scope, &PathRules::default())
}

/// Map a pre-tool event; `rules` are the policy's deny and ask rules
/// about paths, which a recursive read's entries are judged by. Reads the
/// disk (scope checks, the current content of a file to diff, what a
/// search reaches), so call it off the async threads.
pub fn map_with(event: &HookEvent, scope: &Scope, rules: &PathRules) -> Mapped {
    use HookAgent::{Claude, Codex, Gemini};
    let name = event.tool_name.as_str();
    if is_airlocks_own(event) {
        return Mapped::Own;
    }
    let empty = Map::new();
    let input = event.tool_input.as_object().unwrap_or(&empty);
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    let first = |keys: &[&str]| keys.iter().find_map(|k| s(k));
    // Paths are the agent's: relative ones are against its directory.
    let cwd = event.cwd.as_deref();
    if let Some(tool) = shell_tool(event) {
        let command = match shell_input(input, tool.command) {
            Ok(c) => c,
            Err(what) => return unreadable(ToolKind::Exec, bash::NAME, name, what),
        };
        if event.agent == Codex
            && let Some(mapped) = codex_patch(event, tool, input, &command, scope)
        {
            return mapped;
        }
        return exec(event, tool, &command.shown(), s("description"));
    }
    let read = ReadCall {
        native: name,
        input,
        cwd,
        scope,
        rules,
    };
    let search = |start, pattern, widen| Args {
        start,
        pattern,
        widen,
    };
    match (event.agent, name) {
        (Codex, "apply_patch") => {
            match first(&["command", "input", "patch"]).or(event.tool_input.as_str()) {
                Some(text) => patch_call::patch(name, text, cwd, scope),
                None => unreadable(ToolKind::Write, write::WRITE_FILE, name, "no patch text"),
            }
        }
        (Claude, "Read") | (Gemini, "read_file") => {
            read.file(&["file_path", "absolute_path", "path"])
        }
        (Claude, "Grep") => read.search(GREP, &search(&["path"], &["glob"], &["type"])),
        (Gemini, "search_file_content" | "grep" | "grep_search") => read.search(
            GREP,
            &search(
                &["dir_path", "path", "directory"],
                &["include_pattern", "include"],
                &[],
            ),
        ),
        (Claude, "Glob") => read.search(FIND, &search(&["path"], &["pattern"], &[])),
        (Gemini, "glob") => read.search(FIND, &search(&["dir_path", "path"], &["pattern"], &[])),
        (Claude, "LS") => read.listing(LS, &["path"]),
        (Gemini, "list_directory" | "ls") => read.listing(LS, &["dir_path", "path", "directory"]),
        (Gemini, "read_many_files") => read.many(),
        (Claude, "Edit") | (Gemini, "replace") => change::edit(name, input, cwd, scope),
        (Claude, "MultiEdit") => change::multi_edit(name, input, cwd, scope),
        (Claude, "Write") | (Gemini, "write_file") => change::write(name, input, cwd, scope),
        (Claude, "NotebookEdit") => change::notebook(name, input, cwd, scope),
        (Claude, "WebFetch" | "WebSearch") | (Gemini, "web_fetch" | "google_web_search") => {
            let what = first(&["url", "query", "prompt"]).unwrap_or_default();
            Mapped::Call(NativeCall::new(
                ToolKind::Network,
                name,
                one_line(&format!("{name} {what}")),
            ))
        }
        _ if is_mcp(event) => Mapped::Call(NativeCall::new(ToolKind::Mcp, name, one_line(name))),
        _ => Mapped::Call(NativeCall::new(ToolKind::Other, name, one_line(name))),
    }
}

/// A call to one of airlock's own MCP tools: Claude and Codex
/// `mcp__airlock__<tool>`, Gemini `mcp_airlock_<tool>` from the server
/// `airlock` (its `mcp_context`), where `<tool>` is one of airlock's tools.
/// Another server whose name merely starts with `airlock` is not airlock.
pub fn is_airlocks_own(event: &HookEvent) -> bool {
    let name = event.tool_name.as_str();
    let ours = |tool: &str| airlock_tools().get(tool).is_some();
    match event.agent {
        HookAgent::Claude | HookAgent::Codex => {
            name.strip_prefix("mcp__airlock__").is_some_and(ours)
        }
        HookAgent::Gemini => {
            event.mcp_server.as_deref() == Some("airlock")
                && name.strip_prefix("mcp_airlock_").is_some_and(ours)
        }
    }
}

fn is_mcp(event: &HookEvent) -> bool {
    event.tool_name.starts_with("mcp__")
        || event.mcp_server.is_some()
        || event.tool_name.starts_with("mcp_")
}

/// A shell tool's command as the agent sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ShellInput {
    /// One string: a script for the agent's shell.
    Script(String),
    /// An argv, run as it is (Codex's older `shell` tools).
    Argv(Vec<String>),
}

impl ShellInput {
    /// The command the prompt shows and the policy matches: the script; an
    /// argv's script when the argv is `SHELL -c SCRIPT` (the flag a cluster
    /// of short options with `c`, none that takes an argument); any other
    /// argv word by word, quoted for the shell, so `bash --norc X` (which
    /// runs the file X) reads as what it is.
    fn shown(&self) -> String {
        match self {
            Self::Script(script) => script.clone(),
            Self::Argv(words) => match words.as_slice() {
                [sh, flag, script] if is_shell(sh) && runs_its_argument(flag) => script.clone(),
                _ => words
                    .iter()
                    .map(|w| shell_word(w))
                    .collect::<Vec<_>>()
                    .join(" "),
            },
        }
    }
}

/// The command of a shell tool in its argument `arg`: a string, or an
/// argv of strings.
fn shell_input(input: &Map<String, Value>, arg: &str) -> Result<ShellInput, &'static str> {
    match input.get(arg) {
        Some(Value::String(s)) => Ok(ShellInput::Script(s.clone())),
        Some(Value::Array(words)) => words
            .iter()
            .map(|w| w.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .filter(|w| !w.is_empty())
            .map(ShellInput::Argv)
            .ok_or("a command argv that is empty or has a word that is not a string"),
        _ => Err("no command"),
    }
}

fn is_shell(program: &str) -> bool {
    matches!(program.rsplit('/').next(), Some("bash" | "sh" | "zsh"))
}

/// `-c`, `-lc`, `-ec` …: short options only, `c` among them, none that
/// takes an argument (`-o`, `-O`), so the next word is the script.
fn runs_its_argument(flag: &str) -> bool {
    flag.strip_prefix('-').is_some_and(|opts| {
        opts.contains('c')
            && opts
                .chars()
                .all(|c| c.is_ascii_alphabetic() && !matches!(c, 'o' | 'O'))
    })
}

/// `word` as one shell word: as it is when nothing in it is special,
/// else single-quoted.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./=:,@%+-".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        bash::sentinel::shell_quote(word)
    }
}

/// A Codex shell call that Codex applies as a patch itself instead of
/// running it (only the exact forms Codex takes, see `codex_shell`): the
/// patch, checked and diffed like the `apply_patch` tool. A script is
/// pinned to the directory airlock diffed against (the approved call is
/// rewritten to `cd DIR && apply_patch <<…`): Codex tells hooks neither
/// `exec_command`'s `workdir` nor any other directory the patch's paths
/// would be relative to. None: not a patch, a command.
fn codex_patch(
    event: &HookEvent,
    tool: &ShellTool,
    input: &Map<String, Value>,
    command: &ShellInput,
    scope: &Scope,
) -> Option<Mapped> {
    let cwd = event.cwd.as_deref().filter(|c| c.is_absolute())?;
    let name = event.tool_name.as_str();
    match command {
        ShellInput::Script(script) => {
            // Codex shows hooks a shell call as `{"command": …}` alone; an
            // event with more (`write_stdin`'s `workdir`: text typed into a
            // process already running) is not one Codex reads patches from.
            if input.keys().any(|k| k != tool.command) {
                return None;
            }
            let found = codex_shell::patch(script)?;
            let dir = pinned_dir(cwd, found.cd.as_deref());
            let run_as = format!("cd {} && {}", codex_shell::cd_arg(&dir)?, found.invocation);
            let mut mapped = patch_call::patch(name, found.body, Some(&dir), scope);
            if let Mapped::Call(call) = &mut mapped {
                call.run_as = Some(run_as);
            }
            Some(mapped)
        }
        ShellInput::Argv(words) => {
            // Run without a shell, in the call's own `workdir`.
            let dir = match input.get("workdir") {
                None => cwd.to_path_buf(),
                Some(Value::String(w)) => cwd.join(w),
                Some(_) => return None,
            };
            match words.as_slice() {
                [cmd, body] if codex_shell::is_command(cmd) => {
                    Some(patch_call::patch(name, body, Some(&dir), scope))
                }
                [sh, flag, script] if codex_shell::is_patch_shell(sh, flag) => {
                    let found = codex_shell::patch(script)?;
                    let dir = found
                        .cd
                        .as_deref()
                        .map_or_else(|| dir.clone(), |d| dir.join(d));
                    Some(patch_call::patch(name, found.body, Some(&dir), scope))
                }
                _ => None,
            }
        }
    }
}

/// The directory a shell patch runs in: `cd`'s (against the agent's
/// directory) or the agent's own, canonical when it exists.
fn pinned_dir(cwd: &Path, cd: Option<&str>) -> PathBuf {
    let dir = cd.map_or_else(|| cwd.to_path_buf(), |d| cwd.join(d));
    std::fs::canonicalize(&dir).unwrap_or(dir)
}

/// A shell call the agent runs: the command, shown whole.
fn exec(event: &HookEvent, tool: &ShellTool, command: &str, description: Option<&str>) -> Mapped {
    let mut call = NativeCall::new(ToolKind::Exec, bash::NAME, one_line(command));
    call.subject = Subject::Command {
        command: command.to_string(),
    };
    call.view = CallView::Command {
        command: command.to_string(),
        cwd: shell_cwd(event),
        description: description.map(str::to_string),
        shown_args: tool.shown,
    };
    // All three pinned agents run a rewritten command (Claude Code and
    // Codex `updatedInput`, Gemini `hookSpecificOutput.tool_input`).
    call.edit = Some(EditField::Command {
        text: command.to_string(),
    });
    call.grant = bash::grant(command);
    Mapped::Call(call)
}

/// The arguments in which the agents' shell tools take the directory to
/// run a command in, instead of the session's (Codex `workdir`, Gemini
/// `dir_path`/`directory`).
const WORKDIR_ARGS: &[&str] = &["workdir", "dir_path", "directory", "cwd"];

/// Where a shell call runs: its own directory argument against the
/// event's `cwd`, else the event's `cwd`. `None` (unknown: nothing is
/// known-safe there) when that argument is not a string or is relative
/// with no `cwd`. The prompt shows it; the policy judges the command there.
///
/// Codex shows hooks its session's directory, not the `workdir` a call may
/// name when it leaves it out of the hook's input (nor a `cd` typed into a
/// running process): with no directory argument, a Codex call's directory
/// is unknown, and the prompt claims none.
fn shell_cwd(event: &HookEvent) -> Option<String> {
    let cwd = event.cwd.as_deref();
    let input = event.tool_input.as_object();
    match input.and_then(|i| WORKDIR_ARGS.iter().find_map(|k| i.get(*k))) {
        None if event.agent == HookAgent::Codex => None,
        None => cwd.map(|c| c.display().to_string()),
        Some(Value::String(dir)) => agent_path::resolve("shell", cwd, dir).ok(),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pre(agent: HookAgent, tool: &str, input: &Value) -> HookEvent {
        let e = json!({"session_id": "s", "cwd": "/w", "tool_name": tool, "tool_input": input.clone(),
            "hook_event_name": if agent == HookAgent::Gemini { "BeforeTool" } else { "PreToolUse" }});
        HookEvent::from_value(agent, e).unwrap()
    }

    fn command_of(event: &HookEvent, scope: &Scope) -> Option<String> {
        match map(event, scope) {
            Mapped::Call(NativeCall {
                subject: Subject::Command { command },
                ..
            }) => Some(command),
            _ => None,
        }
    }

    #[test]
    fn the_command_shown_is_the_argument_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let scope = Scope::new(dir.path(), &[], &[]).unwrap();
        // Both keys present: each tool's own argument is read and replaced.
        let both = json!({"command": "ls", "cmd": "rm -rf ~"});
        let claude = pre(HookAgent::Claude, "Bash", &both);
        assert_eq!(command_of(&claude, &scope).as_deref(), Some("ls"));
        let out = with_command(&claude, "ls -l");
        assert_eq!(
            (out["command"].as_str(), out["cmd"].as_str()),
            (Some("ls -l"), Some("rm -rf ~"))
        );
        let codex = pre(HookAgent::Codex, "exec_command", &both);
        assert_eq!(command_of(&codex, &scope).as_deref(), Some("rm -rf ~"));
        let out = with_command(&codex, "true");
        assert_eq!(
            (out["command"].as_str(), out["cmd"].as_str()),
            (Some("ls"), Some("true"))
        );
        let gemini = pre(
            HookAgent::Gemini,
            "run_shell_command",
            &json!({"command": "ls"}),
        );
        assert_eq!(command_of(&gemini, &scope).as_deref(), Some("ls"));
    }

    /// The input recorded for `event` and what `log`/review read from it.
    fn recorded(event: &HookEvent, scope: &Scope) -> (Value, Option<String>) {
        let Mapped::Call(call) = map(event, scope) else {
            panic!("not mapped to a call");
        };
        let raw = event.tool_input.as_object().cloned().unwrap_or_default();
        let rec = Value::Object(recorded_input(event, &call.subject, raw));
        let cmd = crate::tools::recorded_command(&call.policy_tool, &rec).map(str::to_string);
        (rec, cmd)
    }

    #[test]
    fn the_whole_command_is_recorded_where_log_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let scope = Scope::new(dir.path(), &[], &[]).unwrap();
        // Longer than the summary's 512 bytes.
        let long = format!("echo {}", "x".repeat(2000));
        // Control: the agent's own input alone does not give bash's reader
        // Codex's `cmd` or an argv.
        let raw = json!({"cmd": long});
        assert_eq!(crate::tools::recorded_command(bash::NAME, &raw), None);
        let codex = pre(HookAgent::Codex, "exec_command", &raw);
        let (rec, cmd) = recorded(&codex, &scope);
        assert_eq!(cmd.as_deref(), Some(long.as_str()));
        assert_eq!(rec, json!({"cmd": long, "command": long}));
        // An argv: its script as the command, the argv kept beside it.
        let argv = json!({"command": ["bash", "-lc", long], "workdir": "/w"});
        let shell = pre(HookAgent::Codex, "shell", &argv);
        let (rec, cmd) = recorded(&shell, &scope);
        assert_eq!(cmd.as_deref(), Some(long.as_str()));
        assert_eq!(
            rec,
            json!({"command": long, "native_command": ["bash", "-lc", long], "workdir": "/w"})
        );
        // A `command` string is recorded exactly as sent.
        let plain = json!({"command": long, "description": "d"});
        let claude = pre(HookAgent::Claude, "Bash", &plain);
        assert_eq!(recorded(&claude, &scope), (plain, Some(long.clone())));
        // Not a shell call: as sent.
        std::fs::write(dir.path().join("a"), "a").unwrap();
        let read = json!({"file_path": dir.path().join("a")});
        let e = pre(HookAgent::Claude, "Read", &read);
        assert_eq!(recorded(&e, &scope), (read, None));
    }

    #[test]
    fn a_shell_call_runs_in_its_own_directory_argument() {
        let dir = tempfile::tempdir().unwrap();
        let scope = Scope::new(dir.path(), &[], &[]).unwrap();
        let cwd_of = |agent, tool: &str, input: Value| match map(&pre(agent, tool, &input), &scope)
        {
            Mapped::Call(NativeCall {
                view: CallView::Command { cwd, .. },
                ..
            }) => cwd,
            _ => panic!("not a command"),
        };
        let codex = json!({"command": ["bash", "-lc", "cat hostname"], "workdir": "/etc"});
        // CONTROL: the event's own cwd is the workspace, where the command
        // would have been judged.
        let event = pre(HookAgent::Codex, "shell", &codex);
        assert_eq!(event.cwd.as_deref(), Some(Path::new("/w")));
        assert_eq!(
            cwd_of(HookAgent::Codex, "shell", codex).as_deref(),
            Some("/etc")
        );
        let gemini = json!({"command": "cat x", "dir_path": "sub"});
        let got = cwd_of(HookAgent::Gemini, "run_shell_command", gemini);
        assert_eq!(got.as_deref(), Some("/w/sub"));
        let odd = json!({"command": "cat x", "directory": ["/etc"]});
        assert_eq!(cwd_of(HookAgent::Gemini, "run_shell_command", odd), None);
        let plain = json!({"command": "cat x"});
        assert_eq!(
            cwd_of(HookAgent::Claude, "Bash", plain).as_deref(),
            Some("/w")
        );
    }

    #[test]
    fn a_shell_call_without_its_command_argument_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let scope = Scope::new(dir.path(), &[], &[]).unwrap();
        // Claude's Bash reads `command`: a `cmd` alone is not its command.
        let e = pre(HookAgent::Claude, "Bash", &json!({"cmd": "ls"}));
        let Mapped::Refused { call, .. } = map(&e, &scope) else {
            panic!("not refused");
        };
        assert_eq!(
            (call.kind, call.policy_tool.as_str()),
            (ToolKind::Exec, bash::NAME)
        );
    }
}
