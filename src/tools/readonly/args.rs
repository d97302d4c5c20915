//! Typed argument parsing with errors a model can act on.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::tools::ToolError;

/// Deserialize `args` into `T`, turning serde's message into an
/// `InvalidArguments` error that names the tool.
pub fn parse<T: DeserializeOwned>(tool: &str, args: &Map<String, Value>) -> Result<T, ToolError> {
    serde_json::from_value(Value::Object(args.clone())).map_err(|e| ToolError::InvalidArguments {
        tool: tool.to_string(),
        message: e.to_string(),
    })
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
