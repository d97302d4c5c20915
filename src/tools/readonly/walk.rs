//! The directory walk behind `ls`, `find` and `grep`.
//!
//! It never follows symlinks (they are reported, not entered), skips
//! excluded entries without naming them, lists each directory through the
//! scope (the listed directory is the checked one), visits entries in name
//! order, and stops at the entry limit, the deadline or cancellation.
//!
//! With `gitignore` on, `.gitignore` and `.ignore` files are honoured using
//! the `ignore` crate's matcher. They are read through the scope like any
//! other file (bounded, regular files only), never by the `ignore` crate's
//! own walker, which would open a FIFO or `/dev/zero` named `.gitignore`.

use std::ffi::OsString;
use std::fs::Metadata;
use std::io::Read;
use std::path::{Path, PathBuf};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::text;
use crate::call::Subject;
use crate::scope::{CheckedDir, FileKind, LinkTarget, Scope, ScopeError};
use crate::tools::{EntryRule, RunContext};

/// Largest ignore file read.
const MAX_IGNORE_FILE: u64 = 256 * 1024;

/// Ignore files honoured in each directory, later ones winning.
const IGNORE_FILES: &[&str] = &[".gitignore", ".ignore"];

/// Deepest `max_depth` the searching tools (`find`, `grep`) accept.
pub(crate) const MAX_SEARCH_DEPTH: u64 = 100;

/// The note for a walk or search ended by cancellation or the deadline.
pub(crate) const STOPPED_EARLY: &str = "stopped early: the call was cancelled or ran out of time";

/// Where a walking tool starts: a resolved, checked path (a directory, or a
/// single entry to report on its own).
pub(crate) struct Start {
    /// The path as the agent gave it.
    pub shown: String,
    /// Its canonical path.
    pub real: PathBuf,
    /// What it is (after following symlinks in the path).
    pub kind: FileKind,
}

impl Start {
    /// Resolve and check `path`; what it is is looked up through its
    /// checked parent ([`Scope::lstat_real`]), not by path.
    pub fn resolve(scope: &Scope, path: &str) -> Result<Self, ScopeError> {
        let real = scope.resolve(path)?;
        let meta = scope.lstat_real(path, &real)?;
        Ok(Self {
            shown: path.to_string(),
            kind: FileKind::of(&meta),
            real,
        })
    }

    /// The policy subject: this path.
    pub fn subject(&self) -> Subject {
        Subject::Paths {
            paths: vec![self.real.clone()],
        }
    }

    /// The start itself as an entry at depth 0 (`lstat`: a symlink is a
    /// symlink), for tools that report a start that is not walked: looked
    /// at now (the call may have waited) through its checked parent's
    /// descriptor, never by path, so a parent swapped for a link since
    /// shows nothing from outside the scope.
    pub fn entry(&self, scope: &Scope) -> Result<Entry, ScopeError> {
        let meta = scope.lstat_real(&self.shown, &self.real)?;
        Ok(Entry {
            path: self.real.clone(),
            depth: 0,
            kind: FileKind::of(&meta),
            meta,
        })
    }
}

/// One entry found by a walk.
pub(crate) struct Entry {
    /// Its path: a canonical directory joined with the entry's name.
    pub path: PathBuf,
    /// 1 for the start directory's children.
    pub depth: usize,
    /// What it is (`lstat`: symlinks are symlinks).
    pub kind: FileKind,
    /// `lstat` metadata.
    pub meta: Metadata,
}

impl Entry {
    /// Its line in a listing: `name` (already escaped) with what it is. A
    /// symlink's target is shown only when it stays in the scope
    /// ([`Scope::link_target`]).
    pub fn describe(&self, name: &str, scope: &Scope) -> String {
        match self.kind {
            FileKind::Directory => format!("{name}/"),
            FileKind::File => format!("{name} ({} bytes)", self.meta.len()),
            FileKind::Symlink => match scope.link_target(&self.path) {
                LinkTarget::Shown(t) => {
                    format!("{name} -> {}", text::escape(&t.to_string_lossy()))
                }
                hidden => format!("{name} -> {}", hidden.display()),
            },
            other => format!("{name} ({})", other.as_str()),
        }
    }
}

/// What the callback wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Keep walking.
    Continue,
    /// Stop the whole walk.
    Stop,
}

/// How to walk.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WalkOptions {
    /// Deepest level reported (1: the start's children only).
    pub max_depth: usize,
    /// Report names starting with `.`.
    pub show_hidden: bool,
    /// Honour `.gitignore` / `.ignore` files.
    pub gitignore: bool,
    /// Skip `.git` directories entirely.
    pub skip_vcs: bool,
}

impl WalkOptions {
    /// A search below a directory (`find`, `grep`): dot entries included,
    /// `.git` skipped, ignore files honoured only with `gitignore`.
    pub fn search(max_depth: usize, gitignore: bool) -> Self {
        Self {
            max_depth,
            show_hidden: true,
            gitignore,
            skip_vcs: true,
        }
    }
}

/// What a walk skipped and why it stopped.
#[derive(Debug, Default, Clone)]
pub(crate) struct WalkStats {
    /// Entries looked at (counted against `limits.max_entries`).
    pub visited: usize,
    /// Entries hidden because they match an exclusion pattern (or are
    /// denied by the scope: `deny_read`, the data directory).
    pub excluded: usize,
    /// Entries hidden by a deny rule about paths, and the first such rule.
    pub denied: usize,
    /// The first deny rule that hid an entry.
    pub deny_rule: Option<String>,
    /// Entries not shown because an ask rule about paths covers them.
    pub asked: usize,
    /// The first ask rule that kept an entry back.
    pub ask_rule: Option<String>,
    /// Dot entries not shown.
    pub hidden: usize,
    /// Entries skipped by ignore files (and `.git`).
    pub ignored: usize,
    /// Directories or entries that could not be read.
    pub unreadable: usize,
    /// The entry limit was reached.
    pub entry_limit: bool,
    /// The deadline passed or the call was cancelled.
    pub stopped: bool,
}

impl WalkStats {
    /// Whether the walk ended before it was through (entry limit,
    /// deadline, cancellation).
    pub fn cut_short(&self) -> bool {
        self.entry_limit || self.stopped
    }

    /// Count an entry `rule` kept back.
    fn kept_back(&mut self, rule: EntryRule) {
        let (count, first, text) = match rule {
            EntryRule::Deny(t) => (&mut self.denied, &mut self.deny_rule, t),
            EntryRule::Ask(t) => (&mut self.asked, &mut self.ask_rule, t),
        };
        *count += 1;
        first.get_or_insert(text);
    }
}

/// A walk over one start directory.
pub(crate) struct Walker<'a> {
    ctx: &'a RunContext,
    scope: &'a Scope,
    opts: WalkOptions,
    /// Ignore matchers, shallowest first.
    ignores: Vec<Gitignore>,
    /// What happened.
    pub stats: WalkStats,
}

impl<'a> Walker<'a> {
    /// A walker for one call.
    pub fn new(ctx: &'a RunContext, scope: &'a Scope, opts: WalkOptions) -> Self {
        Self {
            ctx,
            scope,
            opts,
            ignores: Vec::new(),
            stats: WalkStats::default(),
        }
    }

    /// Walk below `start` (canonical, checked, a directory), calling `f` for
    /// every entry that is reported. Ignore files of `start`'s ancestors
    /// inside its root apply too.
    pub fn walk(&mut self, start: &Path, f: &mut dyn FnMut(&Entry) -> Flow) {
        if self.opts.gitignore
            && let Some(root) = self.scope.root_of(start)
        {
            let mut ancestors: Vec<&Path> = start
                .ancestors()
                .skip(1)
                .take_while(|a| a.starts_with(root))
                .collect();
            ancestors.reverse();
            for dir in ancestors {
                if let Some(gi) = self.load_ignores(dir) {
                    self.ignores.push(gi);
                }
            }
        }
        self.walk_dir(start, 1, f);
    }

    /// Walk one directory's children at `depth`; false once the walk must stop.
    fn walk_dir(&mut self, dir: &Path, depth: usize, f: &mut dyn FnMut(&Entry) -> Flow) -> bool {
        if self.ctx.should_stop() {
            self.stats.stopped = true;
            return false;
        }
        let pushed = if self.opts.gitignore {
            match self.load_ignores(dir) {
                Some(gi) => {
                    self.ignores.push(gi);
                    true
                }
                None => false,
            }
        } else {
            false
        };
        let go_on = self.walk_children(dir, depth, f);
        if pushed {
            self.ignores.pop();
        }
        go_on
    }

    fn walk_children(
        &mut self,
        dir: &Path,
        depth: usize,
        f: &mut dyn FnMut(&Entry) -> Flow,
    ) -> bool {
        let Some((listed, names, more)) = self.list(dir) else {
            return !self.stats.stopped;
        };
        for name in names {
            if self.ctx.should_stop() {
                self.stats.stopped = true;
                return false;
            }
            self.stats.visited += 1;
            let path = dir.join(&name);
            // Through the listed directory's descriptor: never a path that
            // could be swapped to lead elsewhere.
            let Ok(meta) = listed.lstat_at(&name) else {
                self.stats.unreadable += 1;
                continue;
            };
            let kind = FileKind::of(&meta);
            if self.scope.excluded_by(&path).is_some() {
                self.stats.excluded += 1;
                continue;
            }
            // As if the tool were called on the entry: what a deny rule
            // refuses is hidden, what an ask rule covers is not served
            // without asking (nor walked into).
            if let Some(rule) = self.ctx.entry_rules.judge(&path) {
                self.stats.kept_back(rule);
                continue;
            }
            let is_dir = kind == FileKind::Directory;
            let dot = name.as_encoded_bytes().first() == Some(&b'.');
            if self.opts.skip_vcs && is_dir && name == ".git" {
                self.stats.ignored += 1;
                continue;
            }
            if dot && !self.opts.show_hidden {
                self.stats.hidden += 1;
                continue;
            }
            if self.opts.gitignore && self.is_ignored(&path, is_dir) {
                self.stats.ignored += 1;
                continue;
            }
            let entry = Entry {
                path,
                depth,
                kind,
                meta,
            };
            if f(&entry) == Flow::Stop {
                return false;
            }
            if is_dir && depth < self.opts.max_depth && !self.walk_dir(&entry.path, depth + 1, f) {
                return false;
            }
        }
        if more {
            self.stats.entry_limit = true;
            return false;
        }
        true
    }

    /// The names in `dir`, sorted, at most as many as the entry limit still
    /// allows; the flag says more were left unread.
    fn list(&mut self, dir: &Path) -> Option<(CheckedDir, Vec<OsString>, bool)> {
        let mut rd = match self.scope.read_dir_checked(dir) {
            Ok(rd) => rd,
            Err(e) => {
                tracing::debug!("walk: cannot list {}: {e}", dir.display());
                self.stats.unreadable += 1;
                return None;
            }
        };
        let room = self
            .ctx
            .limits
            .max_entries
            .saturating_sub(self.stats.visited);
        let mut names = Vec::new();
        let mut more = false;
        for ent in rd.by_ref() {
            let Ok(ent) = ent else {
                self.stats.unreadable += 1;
                continue;
            };
            if names.len() >= room {
                more = true;
                break;
            }
            names.push(ent.file_name());
            if names.len().is_multiple_of(1024) && self.ctx.should_stop() {
                self.stats.stopped = true;
                return None;
            }
        }
        names.sort();
        Some((rd, names, more))
    }

    /// Whether the ignore files in force ignore `path`; the deepest file
    /// with an opinion decides.
    fn is_ignored(&self, path: &Path, is_dir: bool) -> bool {
        for gi in self.ignores.iter().rev() {
            match gi.matched(path, is_dir) {
                Match::None => {}
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
            }
        }
        false
    }

    /// The matcher for the ignore files in `dir`, if it has any readable ones.
    fn load_ignores(&self, dir: &Path) -> Option<Gitignore> {
        let mut builder = GitignoreBuilder::new(dir);
        let mut found = false;
        for name in IGNORE_FILES {
            let path = dir.join(name);
            // Regular, in-scope, non-excluded files only; read bounded.
            let Ok((file, meta)) = self.scope.open_walked_file(&path) else {
                continue;
            };
            let mut bytes = Vec::new();
            let mut r: &std::fs::File = &file;
            if r.by_ref()
                .take(MAX_IGNORE_FILE.min(meta.len()))
                .read_to_end(&mut bytes)
                .is_err()
            {
                continue;
            }
            found = true;
            let text = String::from_utf8_lossy(&bytes);
            for line in text.lines() {
                let line = line.trim_start_matches('\u{feff}');
                if let Err(e) = builder.add_line(Some(path.clone()), line) {
                    tracing::debug!("{}: ignoring a bad pattern: {e}", path.display());
                }
            }
        }
        if !found {
            return None;
        }
        builder.build().ok()
    }
}

/// Summary notes for what a walk skipped or where it stopped, for the end of
/// a tool's output. Hidden dot entries are reported by `ls` itself.
pub(crate) fn skipped_notes(stats: &WalkStats, ctx: &RunContext) -> Vec<String> {
    let mut notes = Vec::new();
    if stats.excluded > 0 {
        notes.push(format!(
            "{} excluded entries hidden (airlock never shows them)",
            stats.excluded
        ));
    }
    if let (n @ 1.., Some(rule)) = (stats.denied, &stats.deny_rule) {
        notes.push(format!(
            "{n} entries hidden by deny rules (such as {rule}); airlock never shows them"
        ));
    }
    if let (n @ 1.., Some(rule)) = (stats.asked, &stats.ask_rule) {
        notes.push(format!(
            "{n} entries not shown or searched: ask rules (such as {rule}) cover them; \
             name one by its path to be asked"
        ));
    }
    if stats.unreadable > 0 {
        notes.push(format!("{} entries could not be read", stats.unreadable));
    }
    if stats.entry_limit {
        notes.push(format!(
            "stopped after visiting {} entries (limits.max_entries); narrow the path or pattern",
            ctx.limits.max_entries
        ));
    }
    if stats.stopped {
        notes.push(STOPPED_EARLY.into());
    }
    notes
}

/// For a walk cut short, all its skipped notes joined: the reason a
/// listing is truncated.
pub(crate) fn cut_note(stats: &WalkStats, ctx: &RunContext) -> Option<String> {
    stats
        .cut_short()
        .then(|| skipped_notes(stats, ctx).join("; "))
}
