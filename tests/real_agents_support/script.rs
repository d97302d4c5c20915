//! The scripted model: a fixed sequence of tool calls, then a final text.
//! Each conversation turn answers the step after the tool results the
//! request already carries, so the next call goes out only once the
//! previous one's result has arrived. Requests that do not offer airlock's
//! tools (titles, routing, token counts) get a plain answer.

use std::fmt::Write as _;

use serde_json::Value;

use super::http::{Api, Request, Response};

/// One model turn.
#[derive(Debug, Clone)]
pub enum Step {
    /// Call airlock's tool `tool` (its MCP name) with these arguments.
    Call { tool: &'static str, args: Value },
    /// Call the agent's own tool `tool`, named exactly as the agent offers
    /// it (`Bash`, `exec_command`, `run_shell_command`), with these
    /// arguments. A string `args` is a freeform tool's input (Codex's
    /// `apply_patch`). Called even when not offered: the agent's answer
    /// to an unknown tool is the result.
    Native { tool: &'static str, args: Value },
    /// Answer with this text and end the turn.
    Say(&'static str),
}

/// A tool as the model must name it: a plain name, or a name inside a
/// namespace (Codex).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolRef {
    pub namespace: Option<String>,
    pub name: String,
    /// A freeform ("custom") tool that takes a string, not JSON arguments.
    pub custom: bool,
}

impl ToolRef {
    pub fn plain(name: &str) -> ToolRef {
        ToolRef {
            namespace: None,
            name: name.into(),
            custom: false,
        }
    }
}

/// One agent's model API.
pub trait Wire: Send + Sync + 'static {
    /// Answers a request that is not a conversation turn, or `None`.
    fn other(&self, req: &Request) -> Option<Response>;
    /// The tools the request offers the model.
    fn offered(&self, body: &Value) -> Vec<ToolRef>;
    /// The tool results the conversation carries, oldest first, each as
    /// the model receives it (a string, or the JSON the agent sent).
    fn results(&self, body: &Value) -> Vec<Value>;
    /// A turn that calls `tool`; `n` makes the call id unique.
    fn call(&self, req: &Request, tool: &ToolRef, args: &Value, n: usize) -> Response;
    /// A turn that says `text` and ends.
    fn say(&self, req: &Request, text: &str) -> Response;
}

/// The airlock tool called `tool` among `offered`, as this agent names it
/// (`mcp__airlock__bash`, `mcp_airlock_bash`, or `bash` in the
/// `mcp__airlock` namespace).
pub fn airlock_tool(offered: &[ToolRef], tool: &str) -> Option<ToolRef> {
    offered
        .iter()
        .find(|t| match &t.namespace {
            Some(ns) => ns.contains("airlock") && t.name == tool,
            None => {
                t.name == format!("mcp__airlock__{tool}") || t.name == format!("mcp_airlock_{tool}")
            }
        })
        .cloned()
}

pub struct Scripted<W: Wire> {
    pub wire: W,
    pub steps: Vec<Step>,
}

impl<W: Wire> Api for Scripted<W> {
    fn answer(&self, req: &Request) -> Response {
        if let Some(r) = self.wire.other(req) {
            return r;
        }
        let offered = self.wire.offered(&req.body);
        if !self.is_turn(&offered) {
            return self.wire.say(req, "ok");
        }
        let n = self.wire.results(&req.body).len();
        match self.steps.get(n) {
            Some(Step::Call { tool, args }) => match airlock_tool(&offered, tool) {
                Some(t) => self.wire.call(req, &t, args, n),
                None => self.wire.say(req, "airlock's tool was not offered"),
            },
            Some(Step::Native { tool, args }) => {
                let t = offered
                    .iter()
                    .find(|t| t.namespace.is_none() && t.name == *tool)
                    .cloned()
                    .unwrap_or_else(|| ToolRef::plain(tool));
                self.wire.call(req, &t, args, n)
            }
            Some(Step::Say(text)) => self.wire.say(req, text),
            None => self.wire.say(req, "the script is over"),
        }
    }
}

impl<W: Wire> Scripted<W> {
    /// A conversation turn offers airlock's `read_file`, or (a script of
    /// native calls) the agent's own tool its first native step names.
    fn is_turn(&self, offered: &[ToolRef]) -> bool {
        if airlock_tool(offered, "read_file").is_some() {
            return true;
        }
        let first_native = self.steps.iter().find_map(|s| match s {
            Step::Native { tool, .. } => Some(*tool),
            _ => None,
        });
        first_native.is_some_and(|n| offered.iter().any(|t| t.name == n))
    }
}

/// Everything a tool result says, one leaf per line: strings as they are
/// (a string holding JSON is opened too), numbers and booleans as
/// `key: value`. Whether the agent sent the text content or the
/// structured form, a fact in it shows up here.
pub fn flatten(v: &Value) -> String {
    let mut out = String::new();
    walk(v, "", &mut out);
    out
}

fn walk(v: &Value, key: &str, out: &mut String) {
    match v {
        Value::String(s) => {
            if let Ok(inner @ (Value::Object(_) | Value::Array(_))) = serde_json::from_str(s) {
                walk(&inner, key, out);
            } else {
                out.push_str(s);
                out.push('\n');
            }
        }
        Value::Number(_) | Value::Bool(_) => {
            let _ = writeln!(out, "{key}: {v}");
        }
        Value::Array(a) => a.iter().for_each(|x| walk(x, key, out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| walk(x, k, out)),
        Value::Null => {}
    }
}
