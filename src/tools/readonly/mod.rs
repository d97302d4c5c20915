//! The read-only tools: they run without asking by default.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::Tool;

pub mod args;
mod cat;
mod diff;
mod file_call;
mod find;
mod grep;
mod head;
mod ls;
mod pwd;
mod read_file;
mod stat;
mod tail;
mod text;
mod walk;
#[cfg(test)]
mod walk_tests;
mod wc;

#[cfg(test)]
mod testutil;

pub use find::NAME as FIND;
pub use grep::NAME as GREP;
pub use ls::NAME as LS;
pub use read_file::{NAME as READ_FILE, args as read_file_args};

/// Every read-only tool.
pub fn all() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(read_file::ReadFile::new()),
        Arc::new(cat::Cat::new()),
        Arc::new(head::Head::new()),
        Arc::new(tail::Tail::new()),
        Arc::new(ls::Ls::new()),
        Arc::new(find::Find::new()),
        Arc::new(grep::Grep::new()),
        Arc::new(wc::Wc::new()),
        Arc::new(stat::Stat::new()),
        Arc::new(diff::Diff::new()),
        Arc::new(pwd::Pwd::new()),
    ]
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
