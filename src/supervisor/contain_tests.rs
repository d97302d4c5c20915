//! A tool that panics, while it is prepared or while it runs: the agent
//! gets an error, the trail gets the call's result, the supervisor serves
//! the next call. The controls show the test tool really panics.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Instant;

use futures::FutureExt;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::stage_support::{Setup, chain_holds, kinds, records, stage_with};
use crate::call::{Subject, ToolKind};
use crate::scope::Scope;
use crate::tools::{
    Invocation, Limits, OutputSink, RunContext, RunFuture, Tool, ToolError, ToolOutput, ToolSpec,
};

/// When the test tool panics.
#[derive(Clone, Copy)]
enum Phase {
    Prepare,
    Run,
}

struct Boom {
    spec: ToolSpec,
    phase: Phase,
}

struct BoomCall;

impl Tool for Boom {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn prepare(
        &self,
        _a: &Map<String, Value>,
        _s: &Scope,
    ) -> Result<Box<dyn Invocation>, ToolError> {
        match self.phase {
            Phase::Prepare => panic!("boom while preparing"),
            Phase::Run => Ok(Box::new(BoomCall)),
        }
    }
}

impl Invocation for BoomCall {
    fn summary(&self) -> String {
        "boom".into()
    }
    fn subject(&self) -> Subject {
        Subject::None
    }
    fn run(self: Box<Self>, _ctx: RunContext) -> RunFuture {
        Box::pin(async move { panic!("boom while running") })
    }
}

fn boom(name: &'static str, kind: ToolKind, phase: Phase) -> Arc<dyn Tool> {
    Arc::new(Boom {
        spec: ToolSpec {
            name,
            title: name,
            description: "panics",
            kind,
            input_schema: Map::new(),
        },
        phase,
    })
}

fn setup(tools: Vec<Arc<dyn Tool>>) -> super::stage_support::Stage {
    stage_with(Setup {
        tools,
        ..Setup::default()
    })
}

/// Call `tool`, then `pwd`: the first ends as an error, the second runs.
async fn call_then_pwd(s: &super::stage_support::Stage, tool: &str) -> ToolOutput {
    let out = s
        .sup
        .call(&s.agent, tool, None, CancellationToken::new(), None)
        .await
        .expect("an answer, not a lost request");
    let next = s
        .sup
        .call(&s.agent, "pwd", None, CancellationToken::new(), None)
        .await
        .unwrap();
    assert!(!next.is_error, "the next call is served: {next:?}");
    out
}

fn finished(s: &super::stage_support::Stage) -> Value {
    records(&s.trail)
        .into_iter()
        .find(|r| r["type"] == "call_finished")
        .expect("a result record")
}

#[tokio::test]
async fn a_tool_that_panics_while_it_runs_ends_as_a_recorded_error() {
    for (name, kind) in [
        ("boom_read", ToolKind::Read),
        ("boom_write", ToolKind::Write),
    ] {
        let s = setup(vec![boom(name, kind, Phase::Run)]);
        let out = call_then_pwd(&s, name).await;
        assert!(out.is_error, "{name}: {out:?}");
        assert!(
            out.text
                .contains("internal error: the tool stopped while it ran (boom while running)"),
            "{name}: {}",
            out.text
        );
        assert!(out.text.contains("not known"), "{}", out.text);
        let f = finished(&s);
        assert_eq!(f["status"], "error", "{name}: {f}");
        assert_eq!(f["is_error"], true);
        assert!(
            f["excerpt"]
                .as_str()
                .unwrap()
                .contains("boom while running"),
            "{f}"
        );
        let k = kinds(&s.trail);
        assert_eq!(
            k.iter().filter(|k| *k == "call_finished").count(),
            2,
            "{name}: both calls have a result: {k:?}"
        );
        assert!(chain_holds(&s.trail));
    }
}

#[tokio::test]
async fn a_tool_that_panics_while_it_is_prepared_is_refused_and_recorded() {
    for (name, kind) in [
        ("boom_read", ToolKind::Read),
        ("boom_write", ToolKind::Write),
    ] {
        let s = setup(vec![boom(name, kind, Phase::Prepare)]);
        let out = call_then_pwd(&s, name).await;
        assert!(out.is_error, "{name}: {out:?}");
        assert!(
            out.text.contains(
                "internal error while preparing the call (boom while preparing); it was not run"
            ),
            "{name}: {}",
            out.text
        );
        let decided = records(&s.trail)
            .into_iter()
            .find(|r| r["type"] == "call_decided")
            .expect("a decision record");
        assert_eq!(decided["approved"], false, "{decided}");
        assert_eq!(decided["by"], "invalid_arguments", "{decided}");
        assert!(s.asked().is_empty(), "never prompted");
        assert!(chain_holds(&s.trail));
    }
}

/// Controls: without the containment, the same tool's panic escapes (in
/// a read's inline path it would end rmcp's request task unanswered).
#[tokio::test]
async fn control_the_test_tool_really_panics() {
    let scope = Scope::new(&std::env::temp_dir(), &[], &[]).unwrap();
    let prepare = boom("boom_read", ToolKind::Read, Phase::Prepare);
    let caught = std::panic::catch_unwind(AssertUnwindSafe(|| {
        prepare.prepare(&Map::new(), &scope).is_ok()
    }));
    assert!(caught.is_err(), "prepare panics");
    let run = boom("boom_read", ToolKind::Read, Phase::Run);
    let inv = run.prepare(&Map::new(), &scope).unwrap();
    let ctx = RunContext {
        call_id: 1,
        agent_id: 1,
        scope: Arc::new(scope),
        limits: Limits::default(),
        cancel: CancellationToken::new(),
        deadline: Instant::now(),
        output: OutputSink::new(|_| {}),
        entry_rules: crate::tools::EntryRules::none(),
        shell_check: None,
    };
    let ran = AssertUnwindSafe(inv.run(ctx)).catch_unwind().await;
    assert!(ran.is_err(), "run panics");
}
