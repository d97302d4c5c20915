//! The demo's scripted agent: an rmcp client on the supervisor's Unix
//! socket that makes the scenario's calls one after the other, each waiting
//! for its answer.

use std::path::Path;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::{ClientHandler, ServiceExt};
use serde::Deserialize;
use serde_json::{Map, Value};

/// The calls the agent makes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The name the agent introduces itself with.
    pub agent: String,
    /// Pause before each call, in milliseconds.
    pub pause_ms: u64,
    /// The calls, in order.
    pub steps: Vec<Step>,
}

/// One call.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// What the step shows (for the log; the TUI shows the call itself).
    #[serde(default)]
    pub say: Option<String>,
    /// The tool.
    pub tool: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Map<String, Value>,
}

/// What one call returned.
#[derive(Debug, Clone)]
pub struct StepResult {
    /// The tool called.
    pub tool: String,
    /// `isError` of the result.
    pub is_error: bool,
    /// The result's text.
    pub text: String,
}

/// Why the agent stopped early.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The socket could not be reached.
    #[error("cannot connect to {path}: {source}")]
    Connect {
        /// The socket.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The MCP session could not start or broke.
    #[error("MCP: {0}")]
    Mcp(String),
}

impl Scenario {
    /// The scenario shipped in `assets/demo/scenario.json`.
    pub fn builtin() -> Result<Self, serde_json::Error> {
        serde_json::from_str(super::SCENARIO)
    }
}

#[derive(Clone)]
struct DemoClient(String);

impl ClientHandler for DemoClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new(self.0.clone(), crate::VERSION),
        )
    }
}

/// Connect to `socket` and make the scenario's calls, pausing `pause`
/// (default: the scenario's) before each. Returns every result.
pub async fn run_agent(
    socket: &Path,
    scenario: &Scenario,
    pause: Option<Duration>,
) -> Result<Vec<StepResult>, AgentError> {
    let stream = tokio::net::UnixStream::connect(socket)
        .await
        .map_err(|source| AgentError::Connect {
            path: socket.display().to_string(),
            source,
        })?;
    let (read, write) = stream.into_split();
    let client = DemoClient(scenario.agent.clone())
        .serve((read, write))
        .await
        .map_err(|e| AgentError::Mcp(e.to_string()))?;
    let pause = pause.unwrap_or(Duration::from_millis(scenario.pause_ms));
    let mut results = Vec::new();
    for step in &scenario.steps {
        tokio::time::sleep(pause).await;
        if let Some(say) = &step.say {
            tracing::info!(tool = %step.tool, "demo agent: {say}");
        }
        let params =
            CallToolRequestParams::new(step.tool.clone()).with_arguments(step.args.clone());
        let res = client
            .call_tool(params)
            .await
            .map_err(|e| AgentError::Mcp(e.to_string()))?;
        let text = res
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect::<Vec<_>>()
            .join("\n");
        results.push(StepResult {
            tool: step.tool.clone(),
            is_error: res.is_error.unwrap_or(false),
            text,
        });
    }
    if let Err(e) = client.cancel().await {
        tracing::debug!("closing the demo agent's session: {e}");
    }
    Ok(results)
}
