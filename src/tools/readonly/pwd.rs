//! `pwd`: the workspace directory.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{args, object_schema};
use crate::call::{Subject, ToolKind};
use crate::scope::Scope;
use crate::tools::{Invocation, RunContext, RunFuture, Tool, ToolError, ToolOutput, ToolSpec};

/// The `pwd` tool.
pub struct Pwd {
    spec: ToolSpec,
}

impl Pwd {
    /// Build it.
    pub fn new() -> Self {
        Self {
            spec: ToolSpec {
                name: "pwd",
                title: "Print working directory",
                description: "Print the workspace directory: relative paths in every tool resolve against it.",
                kind: ToolKind::Read,
                input_schema: object_schema(json!({}), &[]),
            },
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PwdArgs {}

impl Tool for Pwd {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn prepare(
        &self,
        a: &Map<String, Value>,
        scope: &Scope,
    ) -> Result<Box<dyn Invocation>, ToolError> {
        let _: PwdArgs = args::parse(self.spec.name, a)?;
        Ok(Box::new(PwdCall {
            dir: scope.workspace().display().to_string(),
        }))
    }
}

struct PwdCall {
    dir: String,
}

impl Invocation for PwdCall {
    fn summary(&self) -> String {
        "pwd".into()
    }

    fn subject(&self) -> Subject {
        Subject::None
    }

    fn runs_inline(&self) -> bool {
        true
    }

    fn run(self: Box<Self>, _ctx: RunContext) -> RunFuture {
        Box::pin(async move { ToolOutput::ok(self.dir) })
    }
}
