//! The read-only tools: they run without asking by default.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::Tool;

pub mod args;
mod pwd;

/// Every read-only tool.
pub fn all() -> Vec<Arc<dyn Tool>> {
    vec![Arc::new(pwd::Pwd::new())]
}

/// Build an object schema from `properties` and the `required` names.
pub(crate) fn object_schema(properties: Value, required: &[&str]) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("type".into(), json!("object"));
    m.insert("properties".into(), properties);
    if !required.is_empty() {
        m.insert("required".into(), json!(required));
    }
    m.insert("additionalProperties".into(), json!(false));
    m
}
