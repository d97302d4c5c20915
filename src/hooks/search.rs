//! What a native recursive read can reach: Claude `Grep` and `Glob`,
//! Gemini `grep_search`, `glob` and `read_many_files` start somewhere and
//! read (or list) what lies below. The agent runs them, outside airlock,
//! and which files they read is not exactly knowable: each honours its
//! own ignore files and hidden-file rules, Gemini's grep runs `git grep`,
//! `grep` or its own walker depending on the machine, and their patterns
//! are read in different dialects. So airlock checks a superset: every
//! entry below the start that the tool's pattern may match
//! ([`Filter`]), symbolic links followed, ignore files not assumed, like
//! its own walks (`find`, `grep`) judge their entries — and the call
//! holds only if all of them pass:
//!
//! * an entry the scope refuses (excluded, `deny_read`, the data
//!   directory, outside the roots through a link, another name of a
//!   secret by a hard link) refuses the whole call, as the scope refuses
//!   a read of it;
//! * an entry a deny or ask rule about paths covers goes into the call's
//!   subject, so the policy denies or asks about the call as it would
//!   about a read of that entry.
//!
//! A walk larger than [`MAX_ENTRIES`] cannot be checked: refused.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::search_filter::Filter;
use crate::policy::PathRules;
use crate::scope::{Scope, ScopeError};
use crate::tools::ToolError;

/// Most entries checked for one call; past it the call is refused.
pub const MAX_ENTRIES: usize = 200_000;

/// One place a native search starts, and what it may read below it.
#[derive(Debug, Clone)]
pub struct Search {
    /// Where it starts: an absolute path (a directory, or one file).
    pub start: String,
    /// Which entries below it the tool may read.
    pub filter: Filter,
}

/// What one call's searches reach, checked.
pub struct Reach<'a> {
    /// The agent's tool, for refusals.
    pub native: &'a str,
    /// airlock's tool for the same search (`grep`, `find`, `read_file`),
    /// whose path rules apply (with `read_file`'s).
    pub tool: &'a str,
    /// The scope.
    pub scope: &'a Scope,
    /// The policy's deny and ask rules about paths.
    pub rules: &'a PathRules,
}

/// A walk under way.
struct Walk<'a, 'r> {
    reach: &'r Reach<'a>,
    /// Where the current search starts, as shown.
    start: String,
    filter: &'r Filter,
    /// Directories entered (device, inode): a link loop is entered once.
    entered: HashSet<(u64, u64)>,
    entries: usize,
    /// The subject: every start and every entry a path rule covers.
    subject: Vec<PathBuf>,
}

impl Reach<'_> {
    /// Check `searches`; the call's subject (canonical paths: each start,
    /// and every entry below one that a deny or ask rule covers), or why
    /// the call is refused.
    pub fn check(&self, searches: &[Search]) -> Result<Vec<PathBuf>, ToolError> {
        let mut subject = Vec::new();
        let mut entries = 0;
        for search in searches {
            let real = self.scope.resolve(&search.start)?;
            let mut walk = Walk {
                reach: self,
                start: search.start.clone(),
                filter: &search.filter,
                entered: HashSet::new(),
                entries,
                subject: vec![real.clone()],
            };
            let meta = std::fs::metadata(&real).map_err(|e| ScopeError::Io {
                path: search.start.clone(),
                message: e.to_string(),
            })?;
            if meta.is_dir() {
                walk.entered.insert((meta.dev(), meta.ino()));
                walk.dir(&real, Path::new(""))?;
            } else if meta.is_file() {
                self.scope.check_links(&search.start, &real, &meta)?;
            }
            entries = walk.entries;
            subject.append(&mut walk.subject);
        }
        subject.dedup();
        Ok(subject)
    }
}

impl Walk<'_, '_> {
    /// The entries of `dir` (canonical, checked), `rel` below the start.
    fn dir(&mut self, dir: &Path, rel: &Path) -> Result<(), ToolError> {
        // A directory the agent's tool cannot list either reads nothing.
        let Ok(listing) = std::fs::read_dir(dir) else {
            return Ok(());
        };
        for entry in listing.flatten() {
            self.entries += 1;
            if self.entries > MAX_ENTRIES {
                return Err(self.too_many());
            }
            let (path, rel) = (entry.path(), rel.join(entry.file_name()));
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let may_read = self.filter.may_match(&rel);
            let scope = self.reach.scope;
            if let Some(pattern) = scope.excluded_by(&path) {
                if may_read {
                    return Err(self.reaches(ScopeError::Excluded {
                        path: scope.display(&path),
                        pattern: pattern.to_string(),
                    }));
                }
                // What lies below may match.
                if kind.is_dir() {
                    self.enter(&path, &rel)?;
                }
                continue;
            }
            if kind.is_symlink() {
                self.link(&path, &rel, may_read)?;
            } else if kind.is_dir() {
                self.judge(&path, may_read);
                self.enter(&path, &rel)?;
            } else {
                self.file(&path, may_read)?;
            }
        }
        Ok(())
    }

    /// A directory below the start, entered once.
    fn enter(&mut self, dir: &Path, rel: &Path) -> Result<(), ToolError> {
        let Ok(meta) = std::fs::metadata(dir) else {
            return Ok(());
        };
        if self.entered.insert((meta.dev(), meta.ino())) {
            self.dir(dir, rel)?;
        }
        Ok(())
    }

    /// A symbolic link, followed: what it leads to is checked as if it
    /// were there (a tool may follow it). One that leads nowhere reads
    /// nothing.
    fn link(&mut self, path: &Path, rel: &Path, may_read: bool) -> Result<(), ToolError> {
        let Ok(real) = std::fs::canonicalize(path) else {
            return Ok(());
        };
        let scope = self.reach.scope;
        let is_dir = real.is_dir();
        let shown = scope.display(path);
        if scope.root_of(&real).is_none() {
            // Outside, nothing below can be listed: any of it may match.
            if may_read || is_dir {
                return Err(self.reaches(ScopeError::OutsideRoots {
                    path: format!("{shown} (a link to {})", real.display()),
                    roots: roots(scope),
                }));
            }
            return Ok(());
        }
        if let Some(pattern) = scope.excluded_by(&real) {
            if may_read || is_dir {
                return Err(self.reaches(ScopeError::Excluded {
                    path: format!("{shown} (a link to {})", scope.display(&real)),
                    pattern: pattern.to_string(),
                }));
            }
            return Ok(());
        }
        if is_dir {
            self.judge(&real, may_read);
            self.enter(&real, rel)
        } else {
            self.file(&real, may_read)
        }
    }

    /// A file (or anything but a directory) the tool may read.
    fn file(&mut self, path: &Path, may_read: bool) -> Result<(), ToolError> {
        if !may_read {
            return Ok(());
        }
        if let Ok(meta) = std::fs::symlink_metadata(path)
            && meta.is_file()
        {
            let shown = self.reach.scope.display(path);
            self.reach
                .scope
                .check_links(&shown, path, &meta)
                .map_err(|e| self.reaches(e))?;
        }
        self.judge(path, true);
        Ok(())
    }

    /// An entry the tool may read goes into the subject when a deny or ask
    /// rule about paths covers it.
    fn judge(&mut self, path: &Path, may_read: bool) {
        let tools = [self.reach.tool, crate::tools::readonly::READ_FILE];
        if may_read && self.reach.rules.judge(&tools, &[path]).is_some() {
            self.subject.push(path.to_path_buf());
        }
    }

    fn reaches(&self, found: ScopeError) -> ToolError {
        ToolError::Scope(ScopeError::SearchReaches {
            root: self.reach.scope.display(Path::new(&self.start)),
            tool: self.reach.native.to_string(),
            instead: self.reach.tool.to_string(),
            found: Box::new(found),
        })
    }

    fn too_many(&self) -> ToolError {
        ToolError::InvalidArguments {
            tool: self.reach.native.to_string(),
            message: format!(
                "{}: more than {MAX_ENTRIES} entries below it; airlock cannot check everything \
                 the search could read, so it was not run (name a narrower directory or \
                 pattern, or use airlock's {})",
                self.reach.scope.display(Path::new(&self.start)),
                self.reach.tool
            ),
        }
    }
}

/// The scope's roots, as a refusal lists them.
fn roots(scope: &Scope) -> String {
    scope
        .roots()
        .iter()
        .map(|r| r.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
