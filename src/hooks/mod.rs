//! The agents' own tools, supervised through their hooks.
//!
//! Claude Code and Codex run a command before and after each of their
//! native tool calls (`PreToolUse` / `PostToolUse`), Gemini CLI likewise
//! (`BeforeTool` / `AfterTool`). That command is `airlock hook AGENT`
//! ([`client`]): it reads the event on stdin, asks the supervisor for this
//! workspace over a small line protocol on its own Unix socket ([`wire`],
//! [`listener`]), and prints the agent's answer ([`answer`]).
//!
//! The supervisor turns each event ([`event`]) into airlock's call
//! vocabulary ([`native`]: kinds, the airlock tool whose rules apply, the
//! scope check of the paths the agent's tool really uses — relative ones
//! against the event's `cwd` ([`agent_path`]), everything a recursive
//! read can reach below where it starts ([`search`]) — the diff of a
//! write, [`patch`] for Codex's `apply_patch`, which Codex also applies
//! itself from one exact shell form)
//! and decides it like one of its own calls — scope, policy, grants,
//! prompt, audit — but does not run it: the agent does, outside airlock's
//! sandbox, and its post-tool event is recorded as the result
//! ([`results`]), joined to the decision by the tool-use id.

pub mod agent_path;
pub mod answer;
mod change;
pub mod client;
mod codex_shell;
pub mod event;
pub mod handler;
pub mod listener;
pub mod locale;
mod mapped;
pub mod native;
#[cfg(test)]
mod native_codex_tests;
pub mod patch;
mod patch_call;
#[cfg(test)]
mod patch_call_tests;
mod reads;
pub mod results;
pub mod root;
pub mod search;
pub mod search_filter;
#[cfg(test)]
mod search_tests;
pub mod wire;

pub use crate::config::hooks::{HooksConfig, WhenAbsent};
pub use answer::{Answer, Rendered};
pub use event::{EventError, HookAgent, HookEvent, Phase};
pub use listener::HookListener;
