//! What a known-safe command (`bash.auto_approve_read_only`) reaches,
//! judged as the command will see it: its words and input files resolved
//! against the shell's real working directory, symbolic links followed in
//! every component, and the result held to the rules `read_file` applies
//! (inside an allowed root, no exclusion, letter case folded, no second
//! name of a secret). A command that walks directories is known-safe only
//! where excluded files are hidden from it, and never when the walk
//! follows symbolic links out of the tree.
//!
//! Words are not known to be paths (`grep main src` has a pattern and a
//! path), so every literal word is judged, and so is every value it may
//! carry: after `=` (`--file=F`), every tail of a short-option cluster
//! (`-fF`, `-nfF`), after `@` (a response file), and for git after each
//! `:` (`HEAD:.env`). A word that names nothing on disk is a word: only
//! its lexical checks apply. A word that is not literal (a glob, a
//! variable) names paths only the shell knows: never known-safe.
//!
//! Where the command sees the agent's own environment (it runs the
//! command itself, with its API keys and tokens), a command that prints
//! the environment or processes' state (`printenv`, `env`, `export -p`,
//! `ps e`, any path in the proc filesystem) is not known-safe: in
//! airlock's shell, whose environment is filtered, it stays so.

use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::shell::{self, DirectoryReads, ParsedCommand, SimpleCommand, Word};
use crate::call::{ShellEnv, ShellSite};
use crate::scope::{Exclusions, Scope};

/// Why a command is not known-safe where it runs (for the verdict).
pub type Refusal = String;

/// The allowed roots and exclusions a known-safe command is held to.
#[derive(Debug, Clone)]
pub struct Reach {
    /// The workspace as configured (the root when there is no scope).
    workspace: PathBuf,
    /// The session's scope: roots, exclusions, hard links. Without one
    /// (a bare policy), the workspace is the only root, `exclusions` apply
    /// and every multiply-linked file is refused.
    scope: Option<Arc<Scope>>,
    exclusions: Option<Exclusions>,
}

/// What a word names on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    /// Nothing: it is a word, not a path (a pattern, a number).
    Nothing,
    /// A file (or anything but a directory).
    File,
    /// A directory.
    Directory,
}

impl Reach {
    /// Held to `workspace` only, until a scope or exclusions are given.
    pub fn new(workspace: &Path) -> Self {
        Self {
            workspace: std::fs::canonicalize(workspace).unwrap_or_else(|_| normalise(workspace)),
            scope: None,
            exclusions: None,
        }
    }

    /// Held to the session's scope.
    #[must_use]
    pub fn with_scope(mut self, scope: Arc<Scope>) -> Self {
        self.scope = Some(scope);
        self
    }

    /// Held to `exclusions` too (a policy without a scope).
    #[must_use]
    pub fn with_exclusions(mut self, exclusions: Exclusions) -> Self {
        self.exclusions = Some(exclusions);
        self
    }

    /// Whether `parsed` (a known-safe command) stays inside the scope when
    /// it runs at `site`; `Err` says why not.
    pub fn check(&self, parsed: &ParsedCommand, site: &ShellSite) -> Result<(), Refusal> {
        let cwd = self.cwd(site)?;
        for cmd in parsed.commands.iter().chain(parsed.nested.iter()) {
            self.check_command(cmd, &cwd, site)?;
        }
        for source in &parsed.input_sources {
            match source {
                Word::Literal(text) => {
                    self.candidate(&cwd, text, site.env)?;
                }
                Word::Expanded(text) => return Err(not_literal(text)),
            }
        }
        Ok(())
    }

    /// The shell's directory, canonical, inside a root and not excluded.
    fn cwd(&self, site: &ShellSite) -> Result<PathBuf, Refusal> {
        let Some(cwd) = &site.cwd else {
            return Err("the shell's working directory is not known".into());
        };
        let shown = cwd.display();
        if !cwd.is_absolute() {
            return Err(format!(
                "the shell's working directory {shown} is not absolute"
            ));
        }
        // The workspace is a root as it was given, even where it does not
        // exist (a policy's tests); any other directory must resolve.
        let real = match std::fs::canonicalize(cwd) {
            Ok(real) => real,
            Err(_) if *cwd == self.workspace => cwd.clone(),
            Err(e) => return Err(format!("the shell's working directory {shown}: {e}")),
        };
        if !self.in_roots(&real) {
            return Err(format!(
                "the shell's working directory {shown} is outside the allowed roots"
            ));
        }
        if let Some(pattern) = self.excluded(&real) {
            return Err(format!(
                "the shell's working directory {shown} is excluded by pattern {pattern:?}"
            ));
        }
        Ok(real)
    }

    /// One simple command: what it prints, its words, then how it reads
    /// directories.
    fn check_command(
        &self,
        cmd: &SimpleCommand,
        cwd: &Path,
        site: &ShellSite,
    ) -> Result<(), Refusal> {
        if site.env == ShellEnv::Agents
            && let Some(what) = shell::prints_process_state(cmd)
        {
            return Err(format!(
                "{} {what}, and it runs with the agent's own environment (its keys and \
                 tokens), outside airlock's sandbox",
                cmd.program().unwrap_or_default()
            ));
        }
        let hidden = site.hides_excluded;
        let git = cmd.program() == Some("git");
        let mut directory = None;
        let mut judged = 0usize;
        for word in cmd.words.iter().skip(1) {
            let text = match word {
                Word::Literal(text) => text,
                Word::Expanded(text) => return Err(not_literal(text)),
            };
            let all = candidates(text, git);
            judged += all.len();
            if judged > MAX_CANDIDATES {
                return Err("too many words to check".into());
            }
            for c in all {
                if self.candidate(cwd, c, site.env)? == Found::Directory {
                    directory.get_or_insert(c);
                }
            }
        }
        let program = cmd.program().unwrap_or_default();
        let walks = |follows_links| DirectoryReads::Walks { follows_links };
        match shell::directory_reads(cmd) {
            r if r == walks(true) => Err(format!(
                "{program} follows symbolic links as it walks directories, out of the scope"
            )),
            r if r == walks(false) && !hidden => Err(format!(
                "{program} walks directories, and excluded files are not hidden from this \
                 command (it runs outside airlock's sandbox)"
            )),
            DirectoryReads::FilesInside if directory.is_some() => Err(format!(
                "{program} reads the files inside the directory {}, following symbolic links",
                directory.unwrap_or_default()
            )),
            _ => Ok(()),
        }
    }

    /// Judge one possible path `text` (relative to `cwd`) for a command
    /// that sees the environment `env`.
    fn candidate(&self, cwd: &Path, text: &str, env: ShellEnv) -> Result<Found, Refusal> {
        // `/dev/null` reads nothing (`diff f /dev/null`, `< /dev/null`).
        if text.is_empty() || text == "/dev/null" {
            return Ok(Found::Nothing);
        }
        if text.starts_with('~') {
            return Err(format!("{text}: a home directory"));
        }
        let path = Path::new(text);
        if path.components().any(|c| c == Component::ParentDir) {
            return Err(format!("{text}: a parent directory"));
        }
        let lexical = normalise(&cwd.join(path));
        let process_state = |p: &Path| env == ShellEnv::Agents && shell::is_process_state(p);
        if process_state(&lexical) {
            return Err(format!(
                "{text}: a process's state (the proc filesystem), which holds the agent's own \
                 environment where it runs the command"
            ));
        }
        if !self.in_roots(&lexical) {
            return Err(format!("{text}: outside the allowed roots"));
        }
        if let Some(pattern) = self.excluded(&lexical) {
            return Err(format!("{text}: excluded by pattern {pattern:?}"));
        }
        match std::fs::symlink_metadata(&lexical) {
            Ok(_) => {}
            Err(e) if is_no_path(&e) => return Ok(Found::Nothing),
            Err(e) => return Err(format!("{text}: cannot be checked: {e}")),
        }
        // Symbolic links in any component, and a dangling or looping one
        // (refused: what it names later is not known).
        let real = std::fs::canonicalize(&lexical)
            .map_err(|e| format!("{text}: cannot be resolved: {e}"))?;
        if process_state(&real) {
            return Err(format!(
                "{text}: leads to {}, a process's state (the proc filesystem)",
                real.display()
            ));
        }
        if !self.in_roots(&real) {
            return Err(format!(
                "{text}: leads outside the allowed roots (to {})",
                real.display()
            ));
        }
        if let Some(pattern) = self.excluded(&real) {
            return Err(format!(
                "{text}: leads to {}, excluded by pattern {pattern:?}",
                real.display()
            ));
        }
        let meta = std::fs::metadata(&real).map_err(|e| format!("{text}: {e}"))?;
        if meta.is_dir() {
            return Ok(Found::Directory);
        }
        if meta.is_file() {
            self.check_links(text, &real, &meta)?;
        }
        Ok(Found::File)
    }

    /// A multiply-linked file may be another name of a secret: the
    /// scope's rules (as `read_file`'s), or refused without a scope.
    fn check_links(
        &self,
        text: &str,
        real: &Path,
        meta: &std::fs::Metadata,
    ) -> Result<(), Refusal> {
        match &self.scope {
            Some(scope) => scope
                .check_links(text, real, meta)
                .map_err(|e| e.to_string()),
            None if meta.nlink() > 1 => {
                Err(format!("{text}: the file has more than one hard link"))
            }
            None => Ok(()),
        }
    }

    fn in_roots(&self, p: &Path) -> bool {
        match &self.scope {
            Some(scope) => scope.root_of(p).is_some(),
            None => p.starts_with(&self.workspace),
        }
    }

    /// The exclusion pattern `p` (absolute) matches, letter case folded.
    fn excluded(&self, p: &Path) -> Option<String> {
        if let Some(scope) = &self.scope {
            return scope.excluded_by(p).map(str::to_string);
        }
        let rel = p.strip_prefix(&self.workspace).ok()?;
        self.exclusions.as_ref()?.matches(rel).map(str::to_string)
    }
}

/// Most possible paths judged in one simple command (each is a few
/// system calls); past it the command is not known-safe.
const MAX_CANDIDATES: usize = 4096;

/// The refusal for a word that is not literal.
fn not_literal(text: &str) -> Refusal {
    format!("{text}: the shell expands it, so the paths it names are not known")
}

/// The possible paths in `word`: itself, the value after `=`, every tail
/// of a short-option cluster, after a leading `@`, and for git every tail
/// after a `:` (`HEAD:sub/.env`, `:0:.env`).
fn candidates(word: &str, git: bool) -> Vec<&str> {
    let mut out = vec![word];
    if let Some((_, value)) = word.split_once('=') {
        out.push(value);
    }
    if let Some(rest) = word.strip_prefix('-')
        && !rest.starts_with('-')
    {
        out.extend(rest.char_indices().map(|(i, _)| &rest[i..]));
    }
    if let Some(rest) = word.strip_prefix('@') {
        out.push(rest);
    }
    if git {
        out.extend(word.match_indices(':').map(|(i, _)| &word[i + 1..]));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Errors that mean nothing is there to read: not a path.
fn is_no_path(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::ENOENT | libc::ENOTDIR | libc::ENAMETOOLONG)
    )
}

/// `p` with `.` and `..` resolved without touching the disk.
fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// A known-safe verdict's scope check, made again where and when the
/// command really runs: airlock's bash calls it with its shell's working
/// directory just before it sends the command, so a `cd` or a symbolic
/// link made since the verdict (by a call decided at the same time) is
/// seen.
#[derive(Debug, Clone)]
pub struct ReachCheck {
    reach: Arc<Reach>,
    parsed: ParsedCommand,
    /// Where the verdict judged it (its directory is replaced by the one
    /// the command really runs in).
    site: ShellSite,
}

impl ReachCheck {
    pub(super) fn new(reach: Arc<Reach>, parsed: ParsedCommand, site: &ShellSite) -> Self {
        Self {
            reach,
            parsed,
            site: site.clone(),
        }
    }

    /// Whether the command stays in the scope when it runs in `cwd`.
    pub fn check(&self, cwd: &Path) -> Result<(), Refusal> {
        let site = ShellSite {
            cwd: Some(cwd.to_path_buf()),
            ..self.site.clone()
        };
        self.reach.check(&self.parsed, &site)
    }
}
