//! One walk over the whole workspace (every directory: `.git`, `target`,
//! `node_modules` included) that finds what a shell's sandbox must treat
//! specially: excluded paths (hidden), files that are hard links to an
//! excluded or denied file (hidden too), and git repositories (their
//! control files protected). Reusable: the read tools can refuse the same
//! inodes ([`Scan::secret_inodes`]).

#![allow(unsafe_code)] // system calls with no safe wrapper here; each block says why it is sound

use std::collections::HashSet;
use std::hash::BuildHasher;
use std::os::unix::fs::{DirEntryExt, MetadataExt};
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::scope::Exclusions;

/// The exclusions as one glob set, matched per entry against its name and
/// its workspace-relative path: the walk never descends into a match, so
/// every ancestor has been checked already (the same result as
/// [`Exclusions::matches`], with two matches per entry instead of two per
/// ancestor).
struct Matcher(Option<GlobSet>);

impl Matcher {
    /// Letter case is ignored as [`Exclusions`] ignores it: the patterns
    /// and the names folded the same way.
    fn new(ex: &Exclusions) -> Self {
        let mut b = GlobSetBuilder::new();
        for p in ex.patterns() {
            let p = crate::scope::fold_pattern(p);
            match GlobBuilder::new(p.trim_start_matches('/'))
                .literal_separator(true)
                .backslash_escape(true)
                .build()
            {
                Ok(g) => {
                    b.add(g);
                }
                Err(_) => return Self(None),
            }
        }
        Self(b.build().ok())
    }

    fn matches(&self, ex: &Exclusions, name: &Path, rel: &Path) -> bool {
        match &self.0 {
            Some(set) => {
                set.is_match(&*crate::scope::fold_path(name))
                    || set.is_match(&*crate::scope::fold_path(rel))
            }
            None => ex.matches(rel).is_some(),
        }
    }
}

/// overlayfs: directory entries' inode numbers may differ from `stat`'s.
const OVERLAYFS_MAGIC: i64 = 0x794c_7630;

fn is_overlay(p: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(p.as_os_str().as_bytes()) else {
        return true;
    };
    // SAFETY: statfs is plain old data; all zeroes is a valid value.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is NUL-terminated and `st` is a valid, writable statfs.
    if unsafe { libc::statfs(c.as_ptr(), &raw mut st) } != 0 {
        return true;
    }
    st.f_type as i64 == OVERLAYFS_MAGIC
}

/// Most workspace entries looked at.
pub const SCAN_LIMIT: usize = 1_000_000;
/// Most entries looked at inside one `deny_read` directory (for its
/// files' inodes).
const DENY_SCAN_LIMIT: usize = 10_000;

/// A file's identity: (device, inode).
pub type FileId = (u64, u64);

/// What the walk found.
#[derive(Debug, Default)]
pub struct Scan {
    /// Excluded paths (the walk does not descend into them).
    pub excluded: Vec<PathBuf>,
    /// Files elsewhere in the workspace that are hard links to an
    /// excluded or denied file.
    pub linked: Vec<PathBuf>,
    /// The inodes of every excluded or denied file (inside excluded
    /// directories too).
    pub secret_inodes: HashSet<FileId>,
    /// Directories git takes for a repository ([`super::repo`]), and
    /// every directory named `.git`.
    pub gitdirs: Vec<PathBuf>,
    /// Directories holding an entry git looks at (`HEAD`, `objects`,
    /// `refs`, `commondir`) that are not repositories (yet): the guard
    /// re-checks them as things change.
    pub candidates: Vec<PathBuf>,
    /// Directories with the shape only a plant has
    /// ([`super::repo::is_planted_shape`]), repositories or not: never
    /// learnt as legitimate, their control files moved aside.
    pub planted: Vec<PathBuf>,
    /// `.airlock.toml` files below the workspace root (the project config
    /// of an airlock started there).
    pub project_configs: Vec<PathBuf>,
    /// Non-directories named `.git` (`gitdir:` files of submodules and
    /// worktrees, symlinks).
    pub gitfiles: Vec<PathBuf>,
    /// Every directory walked (not inside excluded ones).
    pub dirs: usize,
    /// Every entry looked at.
    pub entries: usize,
    /// The walk stopped at [`SCAN_LIMIT`].
    pub cut: bool,
}

/// The identity of `p` (not following a final symlink).
pub fn file_id(p: &Path) -> Option<FileId> {
    std::fs::symlink_metadata(p)
        .ok()
        .map(|m| (m.dev(), m.ino()))
}

/// Walk `workspace` (canonical). `deny` are the existing `deny_read`
/// paths, whose files' inodes count as secret too. `on_dir` sees every
/// directory before it is read (to watch it).
pub fn scan(
    workspace: &Path,
    ex: &Exclusions,
    deny: &[PathBuf],
    on_dir: &mut dyn FnMut(&Path),
) -> Scan {
    let mut s = Scan::default();
    for d in deny {
        collect_inodes(d, &mut s.secret_inodes, DENY_SCAN_LIMIT);
    }
    // Files that may be links to a secret, compared at the end. Where the
    // directory entry's inode number is the file's (not overlayfs), it is
    // compared without a `stat` per file.
    let mut multi: Vec<(PathBuf, FileId)> = Vec::new();
    let mut candidates: Vec<(PathBuf, u64)> = Vec::new();
    let d_ino_exact = !is_overlay(workspace);
    let matcher = Matcher::new(ex);
    let mut stack = vec![workspace.to_path_buf()];
    'walk: while let Some(dir) = stack.pop() {
        on_dir(&dir);
        s.dirs += 1;
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut shaped = false; // an entry git looks at: HEAD, objects, refs, commondir
        for e in entries.flatten() {
            s.entries += 1;
            if s.entries > SCAN_LIMIT {
                s.cut = true;
                break 'walk;
            }
            let path = e.path();
            let Ok(rel) = path.strip_prefix(workspace) else {
                continue;
            };
            let Ok(ft) = e.file_type() else { continue };
            let name = e.file_name();
            if matcher.matches(ex, Path::new(&name), rel) {
                collect_inodes(&path, &mut s.secret_inodes, DENY_SCAN_LIMIT);
                s.excluded.push(path);
                continue;
            }
            shaped |= super::repo::is_shape_name(&name);
            if dir != workspace && crate::scope::same_name(&name, crate::dirs::PROJECT_CONFIG) {
                s.project_configs.push(path.clone());
            }
            if name == ".git" {
                if ft.is_dir() {
                    s.gitdirs.push(path.clone());
                } else {
                    s.gitfiles.push(path.clone());
                }
            }
            if ft.is_dir() {
                stack.push(path);
            } else if ft.is_file() {
                if d_ino_exact {
                    candidates.push((path, e.ino()));
                } else if let Ok(m) = e.metadata()
                    && m.nlink() > 1
                {
                    multi.push((path, (m.dev(), m.ino())));
                }
            }
        }
        if shaped && dir.file_name().is_none_or(|n| n != ".git") {
            // Symlinks and executable files count as git counts them.
            if super::repo::is_planted_shape(&dir) {
                s.planted.push(dir);
            } else if super::repo::is_repository(&dir) {
                s.gitdirs.push(dir);
            } else {
                s.candidates.push(dir);
            }
        }
    }
    let inos: HashSet<u64> = s.secret_inodes.iter().map(|(_, i)| *i).collect();
    for (p, ino) in candidates {
        if inos.contains(&ino)
            && let Some(id) = file_id(&p)
        {
            multi.push((p, id));
        }
    }
    s.linked = multi
        .into_iter()
        .filter(|(_, id)| s.secret_inodes.contains(id))
        .map(|(p, _)| p)
        .collect();
    s
}

/// Add the inodes of `p` (a file) or of the files beneath it (a
/// directory, at most `limit` entries) to `into`.
pub fn collect_inodes<S: BuildHasher>(p: &Path, into: &mut HashSet<FileId, S>, limit: usize) {
    let Ok(m) = std::fs::symlink_metadata(p) else {
        return;
    };
    if !m.is_dir() {
        if m.is_file() {
            into.insert((m.dev(), m.ino()));
        }
        return;
    }
    let mut seen = 0usize;
    let mut stack = vec![p.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > limit {
                return;
            }
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                stack.push(e.path());
            } else if ft.is_file()
                && let Ok(m) = e.metadata()
            {
                into.insert((m.dev(), m.ino()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex() -> Exclusions {
        Exclusions::new(
            &crate::scope::DEFAULT_EXCLUDED
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
        )
        .unwrap()
    }

    #[test]
    fn every_directory_is_walked_and_links_to_secrets_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        for d in [
            "app/.ssh",
            "target/debug",
            "node_modules/x",
            ".git/objects",
            ".git/refs",
        ] {
            std::fs::create_dir_all(ws.join(d)).unwrap();
        }
        std::fs::write(ws.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(ws.join("app/.ssh/id_rsa"), "k").unwrap();
        std::fs::write(ws.join(".env"), "S=1").unwrap();
        std::fs::write(ws.join("target/debug/.env"), "S=2").unwrap();
        std::fs::write(ws.join("node_modules/x/key.pem"), "S=3").unwrap();
        std::fs::write(ws.join(".git/a.key"), "S=4").unwrap();
        std::fs::write(ws.join("app/main.rs"), "").unwrap();
        std::fs::hard_link(ws.join(".env"), ws.join("app/notes.txt")).unwrap();
        std::fs::hard_link(ws.join("app/.ssh/id_rsa"), ws.join("target/copy")).unwrap();
        std::fs::write(ws.join("plain"), "p").unwrap();
        std::fs::hard_link(ws.join("plain"), ws.join("plain2")).unwrap();
        let mut dirs = 0;
        let mut s = scan(&ws, &ex(), &[], &mut |_| dirs += 1);
        s.excluded.sort();
        s.linked.sort();
        assert!(!s.cut);
        assert_eq!(dirs, s.dirs);
        assert_eq!(
            s.excluded,
            vec![
                ws.join(".env"),
                ws.join(".git/a.key"),
                ws.join("app/.ssh"),
                ws.join("node_modules/x/key.pem"),
                ws.join("target/debug/.env"),
            ]
        );
        assert_eq!(
            s.linked,
            vec![ws.join("app/notes.txt"), ws.join("target/copy")]
        );
        assert_eq!(s.gitdirs, vec![ws.join(".git")]);
    }

    #[test]
    fn bare_repositories_are_git_directories() {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(ws.join("b/objects")).unwrap();
        std::fs::create_dir_all(ws.join("b/refs")).unwrap();
        std::fs::write(ws.join("b/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(ws.join("sub.git"), "").unwrap();
        let s = scan(&ws, &ex(), &[], &mut |_| {});
        assert_eq!(s.gitdirs, vec![ws.join("b")]);
        assert!(crate::sandbox::repo::is_repository(&ws.join("b")));
        assert!(!crate::sandbox::repo::is_repository(&ws));
    }

    #[test]
    fn repositories_of_executable_files_and_symlinks_are_found() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        for d in ["x", "l/o", "l/r", "c/deep"] {
            std::fs::create_dir_all(ws.join(d)).unwrap();
        }
        for f in ["x/objects", "x/refs"] {
            std::fs::write(ws.join(f), "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(ws.join(f), std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::write(ws.join("x/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(ws.join("l/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::os::unix::fs::symlink("o", ws.join("l/objects")).unwrap();
        std::os::unix::fs::symlink("r", ws.join("l/refs")).unwrap();
        std::fs::write(ws.join("c/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(ws.join("c/deep/.AIRLOCK.toml"), "").unwrap();
        std::fs::write(ws.join(".airlock.toml"), "").unwrap();
        let mut s = scan(&ws, &ex(), &[], &mut |_| {});
        s.planted.sort();
        // objects/refs that are not directories: a shape only a plant has.
        assert_eq!(s.planted, vec![ws.join("l"), ws.join("x")]);
        assert!(s.gitdirs.is_empty(), "{:?}", s.gitdirs);
        assert_eq!(s.candidates, vec![ws.join("c")]);
        assert_eq!(s.project_configs, vec![ws.join("c/deep/.AIRLOCK.toml")]);
    }
}
