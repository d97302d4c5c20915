//! Typed argument parsing with errors a model can act on.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::tools::ToolError;

/// Deserialize `args` into `T` (read in place, not copied first), turning
/// serde's message into an `InvalidArguments` error that names the tool.
pub fn parse<T: DeserializeOwned>(tool: &str, args: &Map<String, Value>) -> Result<T, ToolError> {
    T::deserialize(args).map_err(|e| ToolError::InvalidArguments {
        tool: tool.to_string(),
        message: e.to_string(),
    })
}

/// The arguments of a tool that takes one path and nothing else.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PathArgs {
    /// The path as the agent gave it.
    pub path: String,
}

/// The default `path` of the tools that look at a directory: the workspace.
pub(crate) fn dot() -> String {
    ".".into()
}

/// An `InvalidArguments` error.
pub fn invalid(tool: &str, message: impl Into<String>) -> ToolError {
    ToolError::InvalidArguments {
        tool: tool.to_string(),
        message: message.into(),
    }
}

/// Check `value` is within `min..=max`, naming the parameter otherwise.
pub fn check_range(
    tool: &str,
    name: &str,
    value: u64,
    min: u64,
    max: u64,
) -> Result<u64, ToolError> {
    if value < min || value > max {
        return Err(invalid(
            tool,
            format!("{name} must be between {min} and {max}, got {value}"),
        ));
    }
    Ok(value)
}
