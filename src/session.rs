//! Starting a supervisor session: load the configuration, build the scope,
//! tools and policy, open the audit trail and write its first record.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::audit::{AuditEvent, AuditLog};
use crate::call::{EventBus, SessionMode};
use crate::config::{self, LoadedConfig};
use crate::policy::{Mode, Policy};
use crate::sandbox::{Sandbox, SandboxOverrides, SandboxState, SandboxStatus};
use crate::scope::Scope;
use crate::supervisor::{Confirmer, Supervisor, SupervisorParts};
use crate::tools::ToolRegistry;

/// What a session is started with (from the command line).
#[derive(Debug, Clone)]
pub struct SessionOptions {
    /// The workspace directory.
    pub workspace: PathBuf,
    /// `--data-dir`, if given.
    pub data_dir: Option<PathBuf>,
    /// `--config FILE`, if given.
    pub config_file: Option<PathBuf>,
    /// `supervisor`, `serve-stdio` …, for the audit trail.
    pub mode: SessionMode,
    /// `--mode`, overriding the configured policy mode.
    pub policy_mode: Option<Mode>,
    /// Read the user's own config file (`false`: only the built-in
    /// defaults, the project's file and `config_file`). Tests pass `false`
    /// rather than changing the process environment.
    pub user_config: bool,
}

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The workspace is unusable.
    #[error("workspace {path}: {message}")]
    Workspace {
        /// The directory.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The configuration is invalid.
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    /// `tools.enabled` names an unknown tool.
    #[error(transparent)]
    Tools(#[from] crate::tools::UnknownToolError),
    /// An allowed root or exclusion pattern is unusable.
    #[error("config: {0}")]
    Scope(#[from] crate::scope::ScopeError),
    /// The audit trail could not be created.
    #[error(transparent)]
    Audit(#[from] crate::audit::AuditError),
}

/// A started session.
pub struct Session {
    /// The supervisor every connection shares.
    pub supervisor: Arc<Supervisor>,
    /// The configuration in force.
    pub config: LoadedConfig,
    /// The session id (the audit file's stem).
    pub id: String,
    /// The audit trail's path.
    pub audit_path: PathBuf,
    /// The canonical workspace.
    pub workspace: PathBuf,
    /// The bash sandbox in force (see [`Session::sandbox_status`]).
    pub sandbox: SandboxStatus,
}

impl Session {
    /// The bash sandbox in force; its `summary` is the status-bar line
    /// (`sandbox: workspace-write, no network (landlock+userns+mountns+netns)`,
    /// `sandbox: off — reason`) and its `state` says how much holds.
    pub fn sandbox_status(&self) -> &SandboxStatus {
        &self.sandbox
    }
}

/// The canonical workspace directory, which must exist.
pub fn canonical_workspace(path: &Path) -> Result<PathBuf, SessionError> {
    let err = |message: String| SessionError::Workspace {
        path: path.to_path_buf(),
        message,
    };
    let canon = std::fs::canonicalize(path).map_err(|e| err(e.to_string()))?;
    if !canon.is_dir() {
        return Err(err("not a directory".into()));
    }
    Ok(canon)
}

/// Start a session with `confirmer` answering "ask" verdicts.
pub fn start(
    opts: &SessionOptions,
    confirmer: Arc<dyn Confirmer>,
) -> Result<Session, SessionError> {
    start_with(opts, &SandboxOverrides::default(), confirmer)
}

/// [`start`] with the sandbox flags of the command line.
pub fn start_with(
    opts: &SessionOptions,
    sandbox: &SandboxOverrides,
    confirmer: Arc<dyn Confirmer>,
) -> Result<Session, SessionError> {
    let workspace = canonical_workspace(&opts.workspace)?;
    let data_dir = crate::dirs::data_dir(opts.data_dir.as_deref());
    let trust = config::TrustStore::new(&data_dir);
    let loaded = config::load_with(
        &workspace,
        opts.config_file.as_deref(),
        opts.user_config,
        &trust,
    )?;
    let cfg = &loaded.config;
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    // The tools never read or write what the shell cannot see: deny_read
    // and airlock's own data (refused like excluded names).
    let scope = Scope::new(&workspace, &cfg.scope.extra_roots, &cfg.scope.excluded)?
        .with_hard_links(cfg.scope.hard_links)
        .with_deny_read(&cfg.sandbox.deny_read, home.as_deref())
        .with_data_dir(&data_dir);
    // The shell never sees airlock's own data: every session's trail (with
    // output excerpts of other projects) and the logs.
    let mut sandbox_cfg = sandbox.apply(&cfg.sandbox);
    let data_abs = std::path::absolute(&data_dir).unwrap_or_else(|_| data_dir.clone());
    // A data directory that holds the workspace cannot be hidden (and
    // would hide nothing nested in it): the other deny_read paths stay.
    let data_real = std::fs::canonicalize(&data_abs).unwrap_or_else(|_| data_abs.clone());
    if workspace.starts_with(&data_real) {
        tracing::warn!(
            data_dir = %data_abs.display(),
            "the data directory holds the workspace: the shell can read the audit trails"
        );
    } else {
        sandbox_cfg.deny_read.push(data_abs.display().to_string());
    }
    // airlock's own files, one list for both: the sandbox keeps those the
    // shell may write read-only, the write tools refuse them all.
    let config_files: Vec<PathBuf> = loaded.sources.iter().map(|s| s.path.clone()).collect();
    let own = crate::sandbox::own::airlock_paths(&workspace, &data_dir, &config_files);
    let sandbox = Sandbox::new(&sandbox_cfg, &workspace, scope.exclusions(), &own);
    log_sandbox(sandbox.status());
    // The write tools refuse what the sandbox keeps read-only (one list,
    // the one handed to the sandbox), and airlock's own files.
    let protection = crate::tools::write::Protection::new(
        &sandbox_cfg.protect,
        &workspace,
        home.as_deref(),
        &own,
    );
    let tools = ToolRegistry::configured(&cfg.tools, &cfg.bash, Some(sandbox.clone()))?
        .with_write_protection(Arc::new(protection));
    let (audit, id) = AuditLog::create_in(&crate::dirs::audit_dir(&data_dir))?;
    let audit = Arc::new(audit);
    audit.append(&AuditEvent::SessionStart {
        session: id.clone(),
        workspace: workspace.display().to_string(),
        version: crate::VERSION.to_string(),
        pid: std::process::id(),
        mode: opts.mode,
        confirmer: confirmer.kind(),
        config_digest: loaded.digest(),
        config_files: loaded
            .sources
            .iter()
            .map(|s| s.path.display().to_string())
            .collect(),
        roots: scope
            .roots()
            .iter()
            .map(|r| r.display().to_string())
            .collect(),
        excluded: scope.exclusions().patterns().to_vec(),
        tools: tools.names().map(String::from).collect(),
        policy_mode: Some(opts.policy_mode.unwrap_or(cfg.mode).into()),
        rules: loaded
            .rules
            .iter()
            .map(|r| format!("{} {} (from {})", r.action.as_str(), r.text(), r.source))
            .collect(),
        sandbox: Some(Box::new(sandbox.status().clone())),
    })?;
    say_untrusted(&loaded, &audit)?;
    let audit_path = audit.path().to_path_buf();
    let supervisor = Supervisor::new(SupervisorParts {
        scope,
        tools,
        policy: Policy::with_rules(
            opts.policy_mode.unwrap_or(cfg.mode),
            loaded.rules.clone(),
            &workspace,
            cfg.bash.auto_approve_read_only,
        )
        .with_save_observer(Arc::new(config::TrustKeeper::new(trust))),
        confirmer,
        audit,
        limits: cfg.limits.clone(),
        approval_timeout: (cfg.approval_timeout_secs > 0)
            .then(|| std::time::Duration::from_secs(cfg.approval_timeout_secs)),
        events: EventBus::default(),
    });
    Ok(Session {
        supervisor,
        config: loaded,
        id,
        audit_path,
        workspace,
        sandbox: sandbox.status().clone(),
    })
}

/// Say at start-up what an untrusted project file loosens and was
/// ignored: in the log and in one record of the trail.
fn say_untrusted(loaded: &LoadedConfig, audit: &AuditLog) -> Result<(), SessionError> {
    let Some(p) = &loaded.project else {
        return Ok(());
    };
    let Some(notice) = p.notice() else {
        return Ok(());
    };
    let ignored: Vec<String> = p.ignored.iter().map(ToString::to_string).collect();
    tracing::warn!(
        file = %p.path.display(),
        ignored = %ignored.join("; "),
        "{notice}: run `airlock trust` in the workspace to apply them"
    );
    audit.append(&AuditEvent::ConfigUntrusted {
        file: p.path.display().to_string(),
        sha256: p.sha256.clone(),
        ignored,
    })?;
    Ok(())
}

/// Say at start-up what the sandbox enforces; loudly when it is less than
/// asked for.
fn log_sandbox(st: &SandboxStatus) {
    match st.state {
        SandboxState::Enforced => tracing::info!("{}", st.summary),
        SandboxState::Off if st.mode == crate::sandbox::SandboxMode::Off => {
            tracing::info!("{}", st.summary);
        }
        _ => {
            tracing::warn!("{}", st.summary);
            for m in &st.missing {
                tracing::warn!("sandbox: {m}");
            }
        }
    }
}
