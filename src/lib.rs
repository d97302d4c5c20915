//! airlock — a terminal supervisor for AI agents.
//!
//! The library holds the core: the call pipeline ([`supervisor`]), the tools
//! ([`tools`]), the path scope ([`scope`]), the policy ([`policy`]), the audit
//! trail ([`audit`]) and the MCP server ([`mcp`]). None of it knows about
//! terminals; front ends meet it at the [`supervisor::Confirmer`] trait and
//! the [`supervisor::EventBus`].

#![deny(missing_docs)]

pub mod audit;
pub mod call;
pub mod config;
pub mod demo;
pub mod dirs;
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
