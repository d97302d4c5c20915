//! A call that waits for a human: a real supervisor on a temp workspace
//! whose confirmer is scripted (`tests/mcp_wait.rs` over rmcp's client,
//! `tests/mcp_http_wait.rs` over Streamable HTTP).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use airlock::audit::AuditLog;
use airlock::call::{ApprovedBy, Decision, EventBus};
use airlock::policy::Policy;
use airlock::scope::Scope;
use airlock::supervisor::{ConfirmRequest, Confirmer, Supervisor, SupervisorParts};
use airlock::tools::{Limits, ToolRegistry};
use async_trait::async_trait;
use tokio::sync::Notify;

/// Approves after a delay, or never answers (`delay: None`).
pub struct Scripted {
    pub delay: Option<Duration>,
    /// Notified each time a call reaches the confirmer.
    pub asked: Notify,
}

impl Scripted {
    pub fn new(delay: Option<Duration>) -> Arc<Self> {
        Arc::new(Self {
            delay,
            asked: Notify::new(),
        })
    }
}

#[async_trait]
impl Confirmer for Scripted {
    async fn confirm(&self, _r: ConfirmRequest) -> Decision {
        self.asked.notify_one();
        match self.delay {
            Some(d) => {
                tokio::time::sleep(d).await;
                Decision::approve(ApprovedBy::User)
            }
            None => std::future::pending().await,
        }
    }
    fn kind(&self) -> airlock::call::ConfirmerKind {
        airlock::call::ConfirmerKind::Scripted
    }
}

/// An empty workspace (`<tmp>/ws`, canonical), the audit trail's path next
/// to it, and the scripted confirmer.
pub struct Waiting {
    pub dir: tempfile::TempDir,
    pub root: PathBuf,
    pub audit: PathBuf,
    pub confirmer: Arc<Scripted>,
}

impl Waiting {
    pub fn new(delay: Option<Duration>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir_all(&root).unwrap();
        let root = std::fs::canonicalize(&root).unwrap();
        let audit = dir.path().join("audit.jsonl");
        Self {
            dir,
            root,
            audit,
            confirmer: Scripted::new(delay),
        }
    }

    /// The supervisor on this workspace, trail and confirmer.
    pub fn supervisor(&self) -> Arc<Supervisor> {
        supervisor(&self.root, &self.audit, self.confirmer.clone())
    }
}

/// A supervisor on `root` (every tool, no rules, default limits, no
/// approval timeout) asking `confirmer`, its trail at `audit`.
pub fn supervisor(root: &Path, audit: &Path, confirmer: Arc<Scripted>) -> Arc<Supervisor> {
    Supervisor::new(SupervisorParts {
        scope: Scope::new(root, &[], &[]).unwrap(),
        tools: ToolRegistry::all(),
        policy: Policy::new(),
        confirmer,
        audit: Arc::new(AuditLog::create(audit).unwrap()),
        limits: Limits::default(),
        approval_timeout: None,
        events: EventBus::default(),
    })
}
