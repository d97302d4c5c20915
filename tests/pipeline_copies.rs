//! The pipeline copies a call's arguments at most once: a 10 MB
//! `write_file`-style body goes through prepare, decide, record and run
//! without being cloned (the trail keeps a bounded copy).
//!
//! Measured with a counting allocator over the whole call (every thread);
//! the control shows the same counter sees one clone of the arguments.
//! One test in this binary, so nothing else allocates meanwhile.

// A counting allocator needs `unsafe impl GlobalAlloc`; it only forwards to
// the system allocator.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use airlock::audit::AuditLog;
use airlock::call::{EventBus, Subject, ToolKind};
use airlock::policy::Policy;
use airlock::scope::Scope;
use airlock::supervisor::{ApproveAllConfirmer, Supervisor, SupervisorParts};
use airlock::tools::{
    Invocation, Limits, RunContext, RunFuture, Tool, ToolError, ToolOutput, ToolRegistry, ToolSpec,
};
use serde_json::{Map, Value};

struct Counting;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; it only
// counts the bytes asked for.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATED.fetch_add(new_size, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const BODY: usize = 10 * 1024 * 1024;

/// A write tool that keeps only the size of its `content` (so any copy
/// measured is the pipeline's, not the tool's).
struct Sink(ToolSpec);

struct SinkCall(usize);

impl Tool for Sink {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    fn prepare(
        &self,
        a: &Map<String, Value>,
        _s: &Scope,
    ) -> Result<Box<dyn Invocation>, ToolError> {
        let n = a.get("content").and_then(Value::as_str).map_or(0, str::len);
        Ok(Box::new(SinkCall(n)))
    }
}

impl Invocation for SinkCall {
    fn summary(&self) -> String {
        format!("sink {} bytes", self.0)
    }
    fn subject(&self) -> Subject {
        Subject::None
    }
    fn run(self: Box<Self>, _ctx: RunContext) -> RunFuture {
        Box::pin(async move { ToolOutput::ok(format!("{} bytes", self.0)) })
    }
}

fn args() -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("path".into(), Value::String("big.txt".into()));
    m.insert("content".into(), Value::String("x".repeat(BODY)));
    m
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ten_megabyte_argument_is_not_copied_by_the_pipeline() {
    let dir = tempfile::tempdir().unwrap();
    let audit = Arc::new(AuditLog::create(&dir.path().join("t.jsonl")).unwrap());
    let mut tools = ToolRegistry::all();
    tools.insert(Arc::new(Sink(ToolSpec {
        name: "sink",
        title: "sink",
        description: "test",
        kind: ToolKind::Write,
        input_schema: Map::new(),
    })));
    let sup = Supervisor::new(SupervisorParts {
        scope: Scope::new(dir.path(), &[], &[]).unwrap(),
        tools,
        policy: Policy::new(),
        confirmer: Arc::new(ApproveAllConfirmer),
        audit,
        limits: Limits::default(),
        approval_timeout: None,
        events: EventBus::default(),
    });
    let agent = sup.agent_connected(Some("t"), None);
    let cancel = tokio_util::sync::CancellationToken::new;

    // Warm up (first-call allocations: the runtime, the audit file …).
    let out = sup
        .call(&agent, "sink", Some(args()), cancel(), None)
        .await
        .unwrap();
    assert!(!out.is_error, "{}", out.text);

    let a = args();
    let before = ALLOCATED.load(Ordering::SeqCst);
    let out = sup
        .call(&agent, "sink", Some(a), cancel(), None)
        .await
        .unwrap();
    let pipeline = ALLOCATED.load(Ordering::SeqCst) - before;
    assert_eq!(out.text, format!("{BODY} bytes"));

    // Control: the same counter sees one clone of the arguments.
    let a = args();
    let before = ALLOCATED.load(Ordering::SeqCst);
    let copy = a.clone();
    let one_clone = ALLOCATED.load(Ordering::SeqCst) - before;
    drop(copy);
    assert!(
        one_clone >= BODY,
        "the counter saw {one_clone} bytes for a clone"
    );

    println!(
        "one call with a {BODY}-byte argument allocated {pipeline} bytes (a clone: {one_clone})"
    );
    assert!(
        pipeline < BODY / 4,
        "the pipeline allocated {pipeline} bytes for a {BODY}-byte argument: it copied it"
    );
}
