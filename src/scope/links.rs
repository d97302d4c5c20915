//! Hard links: a file in the scope can be another name of a secret (an
//! excluded file, a `deny_read` path, or anything outside the roots).
//! The path check cannot see that, so a multiply-linked file (`st_nlink >
//! 1`) is checked by inode:
//!
//! * it is always refused when its inode is that of an excluded file in
//!   the roots or of a file under a `deny_read` path (found by a bounded
//!   walk, cached for a moment);
//! * otherwise [`HardLinks`] decides: `refuse` every multiply-linked file,
//!   `packages` (the default) only those outside a package directory
//!   (`node_modules`, where pnpm hard-links its store), or `allow` them.
//!
//! What remains: with `packages`, a hard link under `node_modules` to a
//! secret outside the roots that is neither excluded nor under `deny_read`
//! is read; with `allow`, the same anywhere.

use std::collections::HashSet;
use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{Scope, ScopeError};

/// What to do with a file that has more than one hard link.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HardLinks {
    /// Refuse every multiply-linked file.
    Refuse,
    /// Read multiply-linked files only inside a package directory
    /// (`node_modules`).
    #[default]
    Packages,
    /// Read multiply-linked files (still never an excluded or `deny_read`
    /// file's inode).
    Allow,
}

impl HardLinks {
    /// `refuse`, `packages`, `allow`.
    pub fn as_str(self) -> &'static str {
        match self {
            HardLinks::Refuse => "refuse",
            HardLinks::Packages => "packages",
            HardLinks::Allow => "allow",
        }
    }
}

/// Directory names under which `packages` reads multiply-linked files.
pub const PACKAGE_DIRS: &[&str] = &["node_modules"];

/// Most entries one inode walk visits; past it the walk is incomplete and
/// every multiply-linked file is refused.
const MAX_WALK: usize = 500_000;
/// How long a walk's result is reused.
const FRESH_FOR: Duration = Duration::from_secs(2);

/// The inodes of the secrets, cached.
#[derive(Debug, Default)]
pub(super) struct SecretInodes {
    cached: Mutex<Option<(Instant, Arc<Inodes>)>>,
}

#[derive(Debug, Default)]
struct Inodes {
    set: HashSet<(u64, u64)>,
    complete: bool,
}

impl Scope {
    /// Refuses a multiply-linked regular file per the rules above: `meta`
    /// is the opened file's `fstat`, `real` the checked path it was opened
    /// by. The read tools (through [`Scope::open_file`]) and the write tools
    /// (before reading a file they replace) ask it.
    pub(crate) fn check_links(
        &self,
        shown: &str,
        real: &Path,
        meta: &Metadata,
    ) -> Result<(), ScopeError> {
        if meta.nlink() <= 1 {
            return Ok(());
        }
        let refuse = |why: String| {
            Err(ScopeError::HardLink {
                path: shown.to_string(),
                reason: why,
            })
        };
        let in_package_dir = real
            .components()
            .any(|c| PACKAGE_DIRS.iter().any(|d| c.as_os_str() == *d));
        match self.hard_links {
            HardLinks::Refuse => {
                return refuse("scope.hard_links is \"refuse\"".into());
            }
            HardLinks::Packages if !in_package_dir => {
                return refuse(
                    "outside a package directory (node_modules) such files are refused; \
                     set scope.hard_links = \"allow\" to read them"
                        .into(),
                );
            }
            _ => {}
        }
        let inodes = self.secret_inodes();
        if inodes.set.contains(&(meta.dev(), meta.ino())) {
            return refuse("it is another name of an excluded or deny_read file".into());
        }
        if !inodes.complete {
            return refuse("too many files to prove it is not another name of a secret".into());
        }
        Ok(())
    }

    fn secret_inodes(&self) -> Arc<Inodes> {
        let mut cached = self
            .secret_inodes
            .cached
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some((at, inodes)) = cached.as_ref()
            && at.elapsed() < FRESH_FOR
        {
            return inodes.clone();
        }
        let inodes = Arc::new(self.walk_secrets());
        *cached = Some((Instant::now(), inodes.clone()));
        inodes
    }

    /// Every excluded file under the roots and every file under a
    /// `deny_read` path, by inode.
    fn walk_secrets(&self) -> Inodes {
        let mut out = Inodes {
            set: HashSet::new(),
            complete: true,
        };
        let mut visited = 0usize;
        for root in &self.roots {
            Self::walk(root, &mut visited, &mut out, |rel| {
                self.exclusions.matches(rel).is_some()
            });
        }
        for path in self.deny_read.clone() {
            Self::walk(&path, &mut visited, &mut out, |_| true);
        }
        out
    }

    fn walk(top: &Path, visited: &mut usize, out: &mut Inodes, secret: impl Fn(&Path) -> bool) {
        let walker = ignore::WalkBuilder::new(top)
            .standard_filters(false)
            .follow_links(false)
            .build();
        for entry in walker.flatten() {
            *visited += 1;
            if *visited > MAX_WALK {
                out.complete = false;
                return;
            }
            let path = entry.path();
            let rel = path.strip_prefix(top).unwrap_or(path);
            if !entry.file_type().is_some_and(|t| t.is_file()) || !secret(rel) {
                continue;
            }
            if let Ok(m) = std::fs::symlink_metadata(path) {
                out.set.insert((m.dev(), m.ino()));
            }
        }
    }

    /// Paths whose files are never read under another name (the sandbox's
    /// `deny_read`, `~/` expanded against `home`).
    #[must_use]
    pub fn with_deny_read(mut self, paths: &[String], home: Option<&Path>) -> Self {
        self.deny_read = paths
            .iter()
            .filter_map(|p| match (p.strip_prefix("~/"), home) {
                (Some(rest), Some(h)) => Some(h.join(rest)),
                (Some(_), None) => None,
                (None, _) => Some(PathBuf::from(p)),
            })
            .filter(|p| p.is_absolute())
            .collect();
        self
    }

    /// How multiply-linked files are read.
    #[must_use]
    pub fn with_hard_links(mut self, hard_links: HardLinks) -> Self {
        self.hard_links = hard_links;
        self
    }
}
