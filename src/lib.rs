//! airlock — a terminal supervisor for AI agents.
//!
//! The library is layered, lowest first (ARCHITECTURE.md; checked by
//! `cargo test --test layering`): the call vocabulary ([`call`]); the core —
//! file names ([`dirs`]), replacing files safely ([`files`]), the path scope ([`scope`]), the policy
//! ([`policy`]), the tools ([`tools`]), the audit trail ([`audit`]), the
//! kernel sandbox ([`sandbox`]), the configuration ([`config`]); the call
//! pipeline ([`supervisor`], built by [`session`]); the transports — MCP
//! over the socket, stdio and Streamable HTTP ([`mcp`]) and the agents'
//! hooks ([`hooks`]); and the front ends — the TUI ([`tui`]), the trail's
//! reports ([`report`]), `airlock init` ([`init`]) and the demo ([`demo`]).
//! Only the TUI knows about terminals: it meets the pipeline at the
//! [`supervisor::Confirmer`] trait and the [`call::EventBus`].

#![deny(missing_docs)]

pub mod audit;
pub mod call;
pub mod config;
pub mod demo;
pub mod dirs;
pub mod files;
pub mod hooks;
pub mod init;
pub mod mcp;
pub mod policy;
pub mod report;
pub mod sandbox;
pub mod scope;
pub mod session;
pub mod supervisor;
pub mod tools;
pub mod tui;

/// airlock's version, as reported in `serverInfo` and the audit trail.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
