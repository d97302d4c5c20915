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
//! The walk's result is reused for [`FRESH_FOR`], but only for a file that
//! was last linked, renamed or changed before the walk began (its `ctime`
//! older than the walk's start by more than [`CTIME_MARGIN`]): a link made
//! since — a new link to a secret re-saved under a new inode — is not in
//! the set yet, so for it the walk is made again.
//!
//! What remains: with `packages`, a hard link under `node_modules` to a
//! secret outside the roots that is neither excluded nor under `deny_read`
//! is read; with `allow`, the same anywhere.

use std::collections::HashSet;
use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

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
/// How much older than a walk a file's `ctime` must be for the walk to
/// answer for it: timestamps are coarse (a kernel tick on ext4, a second
/// on some filesystems), so a link made just after the walk began can be
/// stamped a little before it.
const CTIME_MARGIN: Duration = Duration::from_secs(2);

/// The inodes of the secrets, cached.
#[derive(Debug, Default)]
pub(super) struct SecretInodes {
    cached: Mutex<Option<Walked>>,
}

/// One walk's result.
#[derive(Debug)]
struct Walked {
    /// When it was stored (for [`FRESH_FOR`]).
    at: Instant,
    /// The wall clock when the walk began (to compare with `ctime`s).
    began: SystemTime,
    inodes: Arc<Inodes>,
}

impl Walked {
    /// Whether this walk answers for a file last changed at `ctime`.
    fn answers_for(&self, ctime: SystemTime) -> bool {
        self.at.elapsed() < FRESH_FOR
            && ctime
                .checked_add(CTIME_MARGIN)
                .is_some_and(|c| c < self.began)
    }
}

/// `meta`'s `ctime` (the last link, rename or change of the inode).
fn ctime(meta: &Metadata) -> SystemTime {
    let secs = u64::try_from(meta.ctime()).unwrap_or(0);
    let nanos = u32::try_from(meta.ctime_nsec()).unwrap_or(0);
    UNIX_EPOCH + Duration::new(secs, nanos.min(999_999_999))
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
        let inodes = self.secret_inodes(ctime(meta));
        if inodes.set.contains(&(meta.dev(), meta.ino())) {
            return refuse("it is another name of an excluded or deny_read file".into());
        }
        if !inodes.complete {
            return refuse("too many files to prove it is not another name of a secret".into());
        }
        Ok(())
    }

    /// The secrets' inodes, from a walk that answers for a file last
    /// changed at `ctime` (the cached one, or a new one).
    fn secret_inodes(&self, ctime: SystemTime) -> Arc<Inodes> {
        let mut cached = self
            .secret_inodes
            .cached
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(walked) = cached.as_ref()
            && walked.answers_for(ctime)
        {
            return walked.inodes.clone();
        }
        let began = SystemTime::now();
        let inodes = Arc::new(self.walk_secrets());
        *cached = Some(Walked {
            at: Instant::now(),
            began,
            inodes: inodes.clone(),
        });
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

    /// How multiply-linked files are read.
    #[must_use]
    pub fn with_hard_links(mut self, hard_links: HardLinks) -> Self {
        self.hard_links = hard_links;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(ws: &Path) -> Scope {
        let ex: Vec<String> = super::super::DEFAULT_EXCLUDED
            .iter()
            .map(ToString::to_string)
            .collect();
        Scope::new(ws, &[], &ex).unwrap()
    }

    fn check(s: &Scope, rel: &str) -> Result<(), ScopeError> {
        let real = s.workspace().join(rel);
        let meta = std::fs::metadata(&real).unwrap();
        s.check_links(rel, &real, &meta)
    }

    #[test]
    fn a_new_link_to_a_resaved_secret_is_refused_within_the_cache_window() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(ws.join(".env"), "OLD\n").unwrap();
        std::fs::create_dir_all(ws.join("store")).unwrap();
        std::fs::create_dir_all(ws.join("node_modules/pkg")).unwrap();
        std::fs::write(ws.join("store/index.js"), "x").unwrap();
        std::fs::hard_link(
            ws.join("store/index.js"),
            ws.join("node_modules/pkg/index.js"),
        )
        .unwrap();
        let s = scope(ws);
        // One read of a package file walks and caches the secrets.
        check(&s, "node_modules/pkg/index.js").unwrap();
        // `.env` is saved editor-style (a new inode renamed into place)
        // and a package file is linked to it, inside the cache's window.
        std::fs::write(ws.join(".env.swp"), "SECRET\n").unwrap();
        std::fs::rename(ws.join(".env.swp"), ws.join(".env")).unwrap();
        std::fs::hard_link(ws.join(".env"), ws.join("node_modules/pkg/env.js")).unwrap();
        let meta = std::fs::metadata(ws.join(".env")).unwrap();
        // CONTROL: the cached walk does not know the new inode, and the old
        // rule (reuse it for two seconds) would have let the link be read.
        {
            let cached = s.secret_inodes.cached.lock().unwrap();
            let walked = cached.as_ref().unwrap();
            assert!(walked.at.elapsed() < FRESH_FOR, "the test ran too slowly");
            assert!(walked.inodes.complete);
            assert!(!walked.inodes.set.contains(&(meta.dev(), meta.ino())));
        }
        let e = check(&s, "node_modules/pkg/env.js").unwrap_err();
        assert!(e.to_string().contains("another name of an excluded"), "{e}");
        // The store link is still readable.
        check(&s, "node_modules/pkg/index.js").unwrap();
    }

    #[test]
    fn a_walk_answers_only_for_files_changed_well_before_it() {
        let began = SystemTime::now();
        let walked = Walked {
            at: Instant::now(),
            began,
            inodes: Arc::default(),
        };
        assert!(walked.answers_for(began - Duration::from_secs(10)));
        // Stamped a little before the walk (coarse timestamps), at it, or
        // after it: not proof.
        assert!(!walked.answers_for(began - Duration::from_millis(1500)));
        assert!(!walked.answers_for(began));
        assert!(!walked.answers_for(began + Duration::from_secs(5)));
        let stale = Walked {
            at: Instant::now().checked_sub(FRESH_FOR).unwrap(),
            began,
            inodes: Arc::default(),
        };
        assert!(!stale.answers_for(began - Duration::from_secs(10)));
    }
}
