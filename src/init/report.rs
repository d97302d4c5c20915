//! What `airlock init` tells the user: per file what changed (or that
//! nothing did), the command written and why, which native tools were
//! turned off and which could not be.

use std::fmt;
use std::path::PathBuf;

use super::{Action, Agent, Plan};

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileStatus {
    /// Already as init wants it (or, for remove, nothing of init's there).
    Unchanged,
    /// `--dry-run`: would change (the diff says how).
    WouldChange,
    /// Written; the previous content is in `backup` (none for a new file).
    Changed {
        /// The backup beside the file.
        backup: Option<PathBuf>,
    },
    /// Remove took out the last of a file init had created: deleted.
    Deleted,
}

/// One file's outcome.
#[derive(Debug, Clone)]
pub struct FileOutcome {
    /// The file.
    pub path: PathBuf,
    /// What happened.
    pub status: FileStatus,
    /// One line per change.
    pub lines: Vec<String>,
    /// Unified diff of the change.
    pub diff: String,
}

/// The whole outcome of one `airlock init` run.
#[derive(Debug, Clone)]
pub struct Report {
    /// The agent.
    pub agent: Agent,
    /// Install or remove.
    pub action: Action,
    /// Whether nothing was written.
    pub dry_run: bool,
    /// The command registered.
    pub command: PathBuf,
    /// Whether the hooks were installed.
    pub hooks: bool,
    /// Whether the MCP server was registered.
    pub mcp: bool,
    /// Per file.
    pub files: Vec<FileOutcome>,
    /// The plan (tools turned off or not, notes).
    pub plan: Plan,
}

impl Report {
    /// Whether any file changed (or would, for a dry run).
    pub fn changed_anything(&self) -> bool {
        self.files.iter().any(|f| f.status != FileStatus::Unchanged)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let flag = match self.action {
            Action::Install => "",
            Action::Remove => " --remove",
        };
        writeln!(
            f,
            "airlock init {}{flag} ({})",
            self.agent.as_str(),
            self.agent.product()
        )?;
        for file in &self.files {
            write_file(f, file, self.dry_run)?;
        }
        if !self.changed_anything() {
            match self.action {
                Action::Install => writeln!(
                    f,
                    "Nothing to change: {} is already set up for airlock.",
                    self.agent.as_str()
                )?,
                Action::Remove => {
                    writeln!(f, "Nothing to remove: no airlock configuration found.")?;
                }
            }
        }
        if self.action == Action::Install {
            let commands = match (self.mcp, self.hooks) {
                (true, true) => format!(
                    "MCP command: {0} connect\nHook command: {0} hook {1}",
                    self.command.display(),
                    self.agent.as_str()
                ),
                (true, false) => format!("MCP command: {} connect", self.command.display()),
                _ => format!(
                    "Hook command: {} hook {}",
                    self.command.display(),
                    self.agent.as_str()
                ),
            };
            writeln!(
                f,
                "{commands}\n  (the absolute path of this airlock binary, so the agent finds it \
                 whatever PATH it gives its servers; run `airlock init {}` again if you move it)",
                self.agent.as_str()
            )?;
            if !self.plan.turned_off.is_empty() {
                writeln!(
                    f,
                    "Turned off (the agent's own tools): {}",
                    self.plan.turned_off.join(", ")
                )?;
            }
            if !self.plan.not_turned_off.is_empty() {
                writeln!(f, "Could NOT turn off (they still run without airlock):")?;
                for t in &self.plan.not_turned_off {
                    writeln!(f, "  - {t}")?;
                }
            }
            for n in &self.plan.notes {
                writeln!(f, "Note: {n}")?;
            }
        }
        if self.action == Action::Remove && self.changed_anything() {
            writeln!(
                f,
                "airlock's server entry and the settings init added are gone (tools it had turned \
                 off are back unless they were off before); everything else is as it was."
            )?;
        }
        if self.dry_run {
            writeln!(f, "Dry run: nothing was written.")?;
        }
        Ok(())
    }
}

fn write_file(f: &mut fmt::Formatter<'_>, file: &FileOutcome, dry_run: bool) -> fmt::Result {
    let path = file.path.display();
    match &file.status {
        FileStatus::Unchanged => writeln!(f, "{path}: unchanged")?,
        FileStatus::WouldChange => writeln!(f, "{path}: would change")?,
        FileStatus::Changed { backup: Some(b) } => {
            writeln!(f, "{path}: changed (backup: {})", b.display())?;
        }
        FileStatus::Changed { backup: None } => writeln!(f, "{path}: created")?,
        FileStatus::Deleted => writeln!(f, "{path}: deleted (airlock init had created it)")?,
    }
    for line in &file.lines {
        writeln!(f, "  {line}")?;
    }
    if dry_run {
        for line in file.diff.lines() {
            writeln!(f, "    {line}")?;
        }
    }
    Ok(())
}
