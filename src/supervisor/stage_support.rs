//! What the per-stage tests share: a supervisor over a tempfile workspace
//! with the real tools (bash unsandboxed), a real audit trail, and a
//! confirmer that answers from a script and counts what it was asked.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Map, Value};

use super::*;
use crate::audit::AuditLog;
use crate::call::{AgentInfo, ApprovedBy, Decision, RefusedBy};
use crate::policy::{Action, Mode, Policy, Rule};
use crate::scope::Scope;
use crate::tools::bash::{Bash, BashConfig};
use crate::tools::{Limits, ToolRegistry};

/// How the scripted confirmer answers.
#[derive(Clone, Copy)]
pub(super) enum Answer {
    /// The human approves.
    Approve,
    /// The human refuses, saying why.
    Deny(&'static str),
    /// Nobody ever answers.
    Never,
}

/// Answers from a script; keeps every request it was asked.
pub(super) struct Scripted {
    answer: Answer,
    pub asked: Mutex<Vec<ConfirmRequest>>,
}

#[async_trait]
impl Confirmer for Scripted {
    async fn confirm(&self, request: ConfirmRequest) -> Decision {
        self.asked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(request.clone());
        match self.answer {
            Answer::Approve => Decision::approve(ApprovedBy::User),
            Answer::Deny(why) => Decision::deny(RefusedBy::User, Some(why.to_string())),
            Answer::Never => std::future::pending().await,
        }
    }
    fn kind(&self) -> crate::call::ConfirmerKind {
        crate::call::ConfirmerKind::Scripted
    }
}

/// A supervisor over a workspace with the real tools.
pub(super) struct Stage {
    pub dir: tempfile::TempDir,
    pub ws: PathBuf,
    pub trail: PathBuf,
    pub sup: Arc<Supervisor>,
    pub confirmer: Arc<Scripted>,
    pub agent: AgentInfo,
}

/// What a [`Stage`] is built with.
pub(super) struct Setup {
    pub answer: Answer,
    pub rules: Vec<(Action, &'static str)>,
    pub approval_timeout: Option<Duration>,
    /// Test tools added to the real ones.
    pub tools: Vec<Arc<dyn crate::tools::Tool>>,
    /// `bash.auto_approve_read_only`.
    pub auto_approve: bool,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            answer: Answer::Approve,
            rules: Vec::new(),
            approval_timeout: None,
            tools: Vec::new(),
            auto_approve: false,
        }
    }
}

/// A stage asking `answer` with the default policy.
pub(super) fn stage(answer: Answer) -> Stage {
    stage_with(Setup {
        answer,
        ..Setup::default()
    })
}

pub(super) fn stage_with(setup: Setup) -> Stage {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let trail = dir.path().join("audit").join("t.jsonl");
    let mut tools = ToolRegistry::all();
    tools.insert(Arc::new(Bash::new(&BashConfig::default(), None)));
    for t in setup.tools {
        tools.insert(t);
    }
    let rules = setup
        .rules
        .into_iter()
        .map(|(action, text)| Rule::parse(action, text, "test.toml").unwrap())
        .collect();
    let confirmer = Arc::new(Scripted {
        answer: setup.answer,
        asked: Mutex::new(Vec::new()),
    });
    let sup = Supervisor::new(SupervisorParts {
        scope: Scope::new(&ws, &[], &[".env".to_string()]).unwrap(),
        tools,
        policy: Policy::with_rules(Mode::Default, rules, &ws, setup.auto_approve),
        confirmer: confirmer.clone(),
        audit: Arc::new(AuditLog::create(&trail).unwrap()),
        limits: Limits::default(),
        approval_timeout: setup.approval_timeout,
        events: crate::call::EventBus::default(),
    });
    let agent = sup.agent_connected(Some("stage-test"), Some("1"));
    Stage {
        dir,
        ws,
        trail,
        sup,
        confirmer,
        agent,
    }
}

impl Stage {
    /// What the confirmer was asked, in order.
    pub fn asked(&self) -> Vec<ConfirmRequest> {
        self.confirmer
            .asked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Prepare `tool` with `args` as call `id`, which must succeed.
    pub async fn prepared(&self, id: u64, tool: &str, args: &Value) -> super::prepare::Prepared {
        match self.sup.prepare(id, &self.agent, tool, object(args)).await {
            Ok(p) => p,
            Err(super::prepare::NotPrepared::UnknownTool(_, e)) => panic!("{e}"),
            Err(super::prepare::NotPrepared::Refused(_, d)) => panic!("{tool} {args}: {d:?}"),
        }
    }
}

/// The arguments `v` (an object).
pub(super) fn object(v: &Value) -> Map<String, Value> {
    v.as_object().cloned().expect("an object")
}

/// Every record of the trail at `path`.
pub(super) fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The record types of the trail at `path`, in order.
pub(super) fn kinds(path: &Path) -> Vec<String> {
    records(path)
        .iter()
        .map(|r| r["type"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The trail's hash chain holds.
pub(super) fn chain_holds(path: &Path) -> bool {
    crate::audit::verify_file(path).unwrap().is_ok()
}
