//! The pipeline copies a call's arguments at most once: a 10 MB
//! `write_file`-style body goes through prepare, decide, record and run
//! without being cloned (the trail keeps a bounded copy), and the real
//! `write_file` and `edit_file`, asked and approved, make one copy of it
//! (the bytes they write) besides the diff the human approves.
//!
//! Measured with a counting allocator over the whole call (every thread);
//! the controls show the same counter sees one clone of the arguments.
//! The tests take turns ([`SERIAL`]), so nothing else allocates meanwhile.

// A counting allocator needs `unsafe impl GlobalAlloc`; it only forwards to
// the system allocator.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use airlock::audit::AuditLog;
use airlock::call::{ApprovedBy, Decision, EventBus, RefusedBy, Subject, ToolKind};
use airlock::policy::Policy;
use airlock::scope::Scope;
use airlock::supervisor::{
    ApproveAllConfirmer, ConfirmRequest, Confirmer, Supervisor, SupervisorParts,
};
use airlock::tools::{
    Invocation, Limits, RunContext, RunFuture, Tool, ToolError, ToolOutput, ToolRegistry, ToolSpec,
};
use serde_json::{Map, Value};

struct Counting;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

/// New blocks of at least [`BODY`] bytes: each is a whole copy of the body
/// (or something that holds one). A block grown past `BODY` counts once.
static LARGE: AtomicUsize = AtomicUsize::new(0);

/// One test measures at a time.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

// SAFETY: forwards every call to the system allocator unchanged; it only
// counts the bytes asked for.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size(), Ordering::Relaxed);
        if layout.size() >= BODY {
            LARGE.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATED.fetch_add(new_size, Ordering::Relaxed);
        if new_size >= BODY && layout.size() < BODY {
            LARGE.fetch_add(1, Ordering::Relaxed);
        }
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
    let _turn = SERIAL.lock().await;
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

/// A 10 MiB text of 1 KiB lines (a diff of one enormous line would be
/// unlike any real file).
fn body() -> String {
    let line = format!("{}\n", "x".repeat(1023));
    line.repeat(BODY / line.len())
}

/// Approves every call as the human would, after checking the prompt got
/// the whole change: a diff with every line of the body.
struct ApproveTheDiff;

#[async_trait::async_trait]
impl Confirmer for ApproveTheDiff {
    async fn confirm(&self, request: ConfirmRequest) -> Decision {
        let diff = request.call.proposal.as_ref().and_then(|p| p.diff.as_ref());
        match diff {
            Some(d) if d.len() > BODY => Decision::approve(ApprovedBy::User),
            _ => Decision::deny(RefusedBy::User, Some("the prompt lacked the diff".into())),
        }
    }
    fn kind(&self) -> airlock::call::ConfirmerKind {
        airlock::call::ConfirmerKind::Scripted
    }
}

fn real_tools(dir: &Path) -> Arc<Supervisor> {
    let ws = dir.join("ws");
    std::fs::create_dir(&ws).unwrap();
    Supervisor::new(SupervisorParts {
        scope: Scope::new(&ws, &[], &[]).unwrap(),
        tools: ToolRegistry::all(),
        // The default mode asks before a write: the confirmer approves.
        policy: Policy::new(),
        confirmer: Arc::new(ApproveTheDiff),
        audit: Arc::new(AuditLog::create(&dir.join("t.jsonl")).unwrap()),
        limits: Limits::default(),
        approval_timeout: None,
        events: EventBus::default(),
    })
}

/// Large blocks allocated by one call of `tool` with `args` (and its
/// answer).
async fn large_blocks(sup: &Supervisor, tool: &str, args: Map<String, Value>) -> usize {
    let agent = sup.agent_connected(Some("t"), None);
    let cancel = tokio_util::sync::CancellationToken::new();
    let before = LARGE.load(Ordering::SeqCst);
    let out = sup
        .call(&agent, tool, Some(args), cancel, None)
        .await
        .unwrap();
    let large = LARGE.load(Ordering::SeqCst) - before;
    assert!(!out.is_error, "{}", out.text);
    large
}

/// The control: the counter sees one clone of the arguments as one block.
fn a_clone_is_one_block(args: &Map<String, Value>) {
    let before = LARGE.load(Ordering::SeqCst);
    let copy = args.clone();
    let one_clone = LARGE.load(Ordering::SeqCst) - before;
    drop(copy);
    assert_eq!(one_clone, 1, "the counter missed a clone of the arguments");
}

/// What a write may allocate that is as large as the body: the one copy
/// of the argument (the bytes the tool writes; for `edit_file` the new
/// content, which holds `new_text`) and the diff the human approves.
const ALLOWED: usize = 2;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_write_file_copies_a_ten_megabyte_content_once() {
    let _turn = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let sup = real_tools(dir.path());
    let content = body();
    let mut args = Map::new();
    args.insert("path".into(), Value::String("big.txt".into()));
    args.insert("content".into(), Value::String(content.clone()));
    a_clone_is_one_block(&args);

    let large = large_blocks(&sup, "write_file", args).await;

    let written = std::fs::read_to_string(dir.path().join("ws/big.txt")).unwrap();
    assert!(written == content, "the file differs from the content");
    println!("write_file with a {BODY}-byte content: {large} blocks of >= {BODY} bytes");
    assert!(
        large <= ALLOWED,
        "write_file made {large} blocks as large as its {BODY}-byte content \
         (allowed: {ALLOWED}, its bytes to write and the diff): it copied it"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_edit_file_copies_a_ten_megabyte_new_text_once() {
    let _turn = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let sup = real_tools(dir.path());
    std::fs::write(dir.path().join("ws/small.txt"), "a\nOLD\nb\n").unwrap();
    let new_text = body();
    let mut args = Map::new();
    args.insert("path".into(), Value::String("small.txt".into()));
    args.insert("old_text".into(), Value::String("OLD\n".into()));
    args.insert("new_text".into(), Value::String(new_text.clone()));
    a_clone_is_one_block(&args);

    let large = large_blocks(&sup, "edit_file", args).await;

    let written = std::fs::read_to_string(dir.path().join("ws/small.txt")).unwrap();
    assert!(written == format!("a\n{new_text}b\n"), "the edit differs");
    println!("edit_file with a {BODY}-byte new_text: {large} blocks of >= {BODY} bytes");
    assert!(
        large <= ALLOWED,
        "edit_file made {large} blocks as large as its {BODY}-byte new_text \
         (allowed: {ALLOWED}, the new content and the diff): it copied it"
    );
}
