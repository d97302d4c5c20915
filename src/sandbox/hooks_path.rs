//! Reading a repository's `core.hooksPath` ([`read`]: one `git config`
//! run, which gives the value and every file git read for it), and a
//! cache of it ([`HooksPathCache`]) keyed by the identity of those files,
//! so the write tools, which look at every enclosing repository when a
//! write is prepared and again when it is written, run git once per
//! repository while its config stays the same.
//!
//! git reads only the file it is given and what that includes (system and
//! global config are off: `GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`).
//! A cached value is used only while every one of those files has the
//! same device, inode, size, modification and change time as when git
//! read it (an absent include: while it is still absent and its directory
//! unchanged). What cannot be keyed so is never cached: a file changed
//! within [`SETTLE`] of the run (a timestamp cannot tell a change in the
//! same tick), a conditional include (`includeIf`: its condition may turn
//! on a branch switch, with no file changed), an include path git expands
//! in a way not followed here (`~user/`, `%(prefix)/`).

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// How long a file must have been unchanged before a reading of it is
/// cached: above the timestamp granularity of common file systems (ext4
/// without large inodes and FAT keep seconds, two for FAT).
pub const SETTLE: Duration = Duration::from_secs(2);

/// Most repositories remembered; the cache starts over beyond that.
const MAX_ENTRIES: usize = 4096;

/// What `git config` said about `core.hooksPath`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    /// The directory it names, resolved from the work tree (husky's
    /// `.husky/_` gives `.husky`), not canonicalised; none when unset,
    /// empty or the config does not parse.
    pub dir: Option<PathBuf>,
    /// The files git read or would read: the config and every include.
    consulted: Vec<PathBuf>,
    /// Whether the files say all there is (no conditional include, every
    /// include path followed).
    keyable: bool,
}

impl Reading {
    /// The directory, canonical where it exists.
    pub fn resolved(&self) -> Option<PathBuf> {
        self.dir
            .as_ref()
            .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
    }
}

/// Run `git config` on the config file `config` of the repository whose
/// work tree is `base`. None: git could not be run.
pub fn read(config: &Path, base: &Path) -> Option<Reading> {
    let out = std::process::Command::new("git")
        .arg("config")
        .arg("--file")
        .arg(config)
        .args(["--includes", "--show-origin", "--null", "--list"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let mut r = parse(&out.stdout, config, base);
    if !out.status.success() {
        // Unreadable or unparsable: no value (as git's `--get` gives
        // none), still keyed by the files.
        r.dir = None;
    }
    Some(r)
}

/// The reading of `--show-origin --null --list` output.
fn parse(stdout: &[u8], config: &Path, base: &Path) -> Reading {
    let mut consulted = vec![config.to_path_buf()];
    let mut keyable = true;
    let mut value: Option<String> = None;
    let mut fields = stdout.split(|b| *b == 0);
    while let (Some(origin), Some(entry)) = (fields.next(), fields.next()) {
        let Some(origin) = std::str::from_utf8(origin)
            .ok()
            .and_then(|o| o.strip_prefix("file:"))
        else {
            keyable = false;
            continue;
        };
        let text = String::from_utf8_lossy(entry);
        let (key, val) = match text.split_once('\n') {
            Some((k, v)) => (k, Some(v)),
            None => (text.as_ref(), None),
        };
        let key = key.to_ascii_lowercase();
        if key == "core.hookspath" {
            value = val.map(str::to_string);
        } else if key.starts_with("includeif.") {
            keyable = false;
        } else if key == "include.path" {
            match val.and_then(|v| include_target(v, Path::new(origin))) {
                Some(t) => consulted.push(t),
                None => keyable = false,
            }
        }
    }
    let dir = value.filter(|v| !v.is_empty()).map(|v| {
        let raw = Path::new(&v);
        let mut path = if raw.is_absolute() {
            raw.to_path_buf()
        } else {
            base.join(raw)
        };
        if path.file_name().is_some_and(|n| n == "_") {
            path.pop();
        }
        path
    });
    consulted.sort();
    consulted.dedup();
    Reading {
        dir,
        consulted,
        keyable,
    }
}

/// The file an `include.path` value in `origin` names, as git resolves
/// it: `~/` below the home directory, a relative path beside `origin`.
/// None for what is not followed here.
fn include_target(value: &str, origin: &Path) -> Option<PathBuf> {
    if let Some(rest) = value.strip_prefix("~/") {
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty())?;
        return Some(PathBuf::from(home).join(rest));
    }
    if value.starts_with('~') || value.starts_with("%(") || value.is_empty() {
        return None;
    }
    let p = Path::new(value);
    Some(if p.is_absolute() {
        p.to_path_buf()
    } else {
        origin.parent()?.join(p)
    })
}

/// What a file looked like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stat {
    fn of(p: &Path) -> Option<Self> {
        let m = std::fs::metadata(p).ok()?;
        Some(Self {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        })
    }

    /// Changed (or, by its clock, dated) at or after `since`.
    fn changed_since(&self, since: SystemTime) -> bool {
        let at = |(s, ns): (i64, i64)| {
            let secs = Duration::from_secs(u64::try_from(s).unwrap_or(0));
            let nanos = Duration::from_nanos(u64::try_from(ns).unwrap_or(0));
            SystemTime::UNIX_EPOCH + secs + nanos
        };
        at(self.ctime) >= since || at(self.mtime) >= since
    }
}

/// A consulted file's identity: itself, or, absent, its directory's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileId {
    Present(Stat),
    Absent(Option<Stat>),
}

impl FileId {
    fn of(p: &Path) -> Self {
        match Stat::of(p) {
            Some(s) => Self::Present(s),
            None => Self::Absent(p.parent().and_then(Stat::of)),
        }
    }

    fn changed_since(&self, since: SystemTime) -> bool {
        match self {
            Self::Present(s) | Self::Absent(Some(s)) => s.changed_since(since),
            Self::Absent(None) => false,
        }
    }
}

#[derive(Debug)]
struct Entry {
    reading: Reading,
    ids: Vec<FileId>,
}

/// `core.hooksPath` readings remembered while the files git read are
/// unchanged (see the module documentation). One per session (the write
/// tools' protection holds it).
#[derive(Debug, Default)]
pub struct HooksPathCache {
    entries: Mutex<HashMap<(PathBuf, PathBuf), Entry>>,
    runs: AtomicU64,
}

impl HooksPathCache {
    /// The hooks directory of the repository with config file `config` and
    /// work tree `base`, canonical where it exists (what
    /// [`super::git::hooks_dir`] gives), running git only when the files
    /// it read changed.
    pub fn hooks_dir(&self, config: &Path, base: &Path) -> Option<PathBuf> {
        let key = (config.to_path_buf(), base.to_path_buf());
        {
            let map = self
                .entries
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(e) = map.get(&key) {
                let same = e
                    .reading
                    .consulted
                    .iter()
                    .zip(&e.ids)
                    .all(|(p, id)| FileId::of(p) == *id);
                if same {
                    return e.reading.resolved();
                }
            }
        }
        let started = SystemTime::now();
        self.runs.fetch_add(1, Ordering::Relaxed);
        let reading = read(config, base)?;
        let dir = reading.resolved();
        let ids: Vec<FileId> = reading.consulted.iter().map(|p| FileId::of(p)).collect();
        let settled = started
            .checked_sub(SETTLE)
            .unwrap_or(SystemTime::UNIX_EPOCH);
        let mut map = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if reading.keyable && !ids.iter().any(|id| id.changed_since(settled)) {
            if map.len() >= MAX_ENTRIES {
                map.clear();
            }
            map.insert(key, Entry { reading, ids });
        } else {
            map.remove(&key);
        }
        dir
    }

    /// How many times it has run git (for tests and measurements).
    pub fn git_runs(&self) -> u64 {
        self.runs.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(entries: &[(&str, &str)]) -> Vec<u8> {
        let mut out = Vec::new();
        for (origin, entry) in entries {
            out.extend_from_slice(format!("file:{origin}\0{entry}\0").as_bytes());
        }
        out
    }

    #[test]
    fn the_last_value_wins_and_includes_are_consulted() {
        let out = listing(&[
            ("/r/.git/config", "core.hookspath\n.husky/_"),
            ("/r/.git/config", "include.path\n../extra.cfg"),
            ("/r/.git/../extra.cfg", "core.hookspath\nsecond"),
            ("/r/.git/../extra.cfg", "include.path\n/abs/more.cfg"),
        ]);
        let r = parse(&out, Path::new("/r/.git/config"), Path::new("/r"));
        assert_eq!(r.dir, Some(PathBuf::from("/r/second")));
        assert!(r.keyable);
        assert_eq!(
            r.consulted,
            [
                PathBuf::from("/abs/more.cfg"),
                PathBuf::from("/r/.git/../extra.cfg"),
                PathBuf::from("/r/.git/config"),
            ]
        );
        let husky = listing(&[("/r/.git/config", "core.hookspath\n.husky/_")]);
        let r = parse(&husky, Path::new("/r/.git/config"), Path::new("/r"));
        assert_eq!(r.dir, Some(PathBuf::from("/r/.husky")));
    }

    #[test]
    fn a_valueless_or_empty_setting_is_none() {
        for entry in ["core.hookspath", "core.hookspath\n"] {
            let out = listing(&[
                ("/r/.git/config", "core.hookspath\nx"),
                ("/r/.git/config", entry),
            ]);
            let r = parse(&out, Path::new("/r/.git/config"), Path::new("/r"));
            assert_eq!(r.dir, None, "{entry:?}");
        }
    }

    #[test]
    fn conditional_and_unfollowed_includes_are_not_keyable() {
        for entry in [
            "includeif.onbranch:main.path\nx.cfg",
            "include.path\n~other/x.cfg",
            "include.path\n%(prefix)/etc/x",
        ] {
            let out = listing(&[("/r/.git/config", entry)]);
            let r = parse(&out, Path::new("/r/.git/config"), Path::new("/r"));
            assert!(!r.keyable, "{entry}");
        }
    }
}
