//! What every real-agent scenario starts with and ends with: a home with
//! its workspace, the scripted model, the agent's own settings, airlock
//! configured by `airlock init` alone, airlock's TUI waiting; the three
//! agents run side by side; the tool results the model received.

use std::future::Future;
use std::path::PathBuf;

use serde_json::Value;

use super::http::Server;
use super::pty::Tui;
use super::script::{Step, flatten};
use super::{Agent, Home, init_with, model, user_settings};

/// One agent's run, set up and waiting for the agent to start.
pub struct Setup {
    pub h: Home,
    /// The agent's scripted model.
    pub server: Server,
    /// What `airlock init` printed.
    pub init: String,
    /// airlock's TUI, showing that no call came yet.
    pub tui: Tui,
}

impl Setup {
    /// A new home with `workspace` written into it, `agent`'s scripted
    /// model answering with `steps` (made for this home), the agent's own
    /// user settings, then `airlock init AGENT INIT_ARGS` (see
    /// [`init_with`]) and airlock's TUI started on the workspace.
    pub async fn start(
        agent: Agent,
        workspace: fn(&Home),
        steps: impl FnOnce(&Home) -> Vec<Step>,
        init_args: &[&str],
    ) -> Result<Setup, String> {
        let h = Home::new();
        workspace(&h);
        let server = Server::start(model(agent, steps(&h))).await;
        user_settings(&h, agent, &server.url);
        let init = init_with(&h, agent, init_args);
        let mut tui = Tui::start(&h.ws, &h.data, &h.env());
        tui.wait_for_new("No calls yet", 60).await?;
        Ok(Setup {
            h,
            server,
            init,
            tui,
        })
    }
}

/// `scenario` for every agent whose CLI is configured, all at once (a long
/// wait is waited for once). Prints each passing scenario's note; fails
/// with every failing scenario's report.
pub async fn all_agents<F, Fut>(scenario: F)
where
    F: Fn(Agent, PathBuf) -> Fut,
    Fut: Future<Output = Result<String, String>> + Send + 'static,
{
    let mut runs = Vec::new();
    for agent in [Agent::Claude, Agent::Codex, Agent::Gemini] {
        if let Some(cli) = agent.cli() {
            runs.push(tokio::spawn(scenario(agent, cli)));
        }
    }
    let mut failures = Vec::new();
    for r in runs {
        match r.await.unwrap() {
            Ok(note) => eprintln!("{note}"),
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

/// The tool results the model received in the agent's last turn (the
/// request that carries the most), as the agent sent them.
pub fn last_results(agent: Agent, server: &Server) -> Vec<Value> {
    server
        .requests()
        .iter()
        .map(|r| super::results(agent, &r.body))
        .max_by_key(Vec::len)
        .unwrap_or_default()
}

/// [`last_results`], each flattened (see [`flatten`]).
pub fn received(agent: Agent, server: &Server) -> Vec<String> {
    last_results(agent, server).iter().map(flatten).collect()
}
