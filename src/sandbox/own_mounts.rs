//! Keeping airlock's own paths ([`super::own`]) read-only inside the
//! shell's mount namespace wherever a path the shell may write holds them
//! (the workspace is the home directory, an `allow_write` path holds the
//! data directory, `XDG_CONFIG_HOME` points into the workspace, a
//! `--config` file lies in it).
//!
//! airlock opens these by path later (the next session reads the config,
//! `log --verify` reads the trails), so it is not enough that the file
//! itself is read-only: no directory entry the path's resolution passes
//! through may be renamed, removed or replaced either. For each own path:
//!
//! * every entry on the way (each symlink followed one hop at a time)
//!   that sits in a writable directory is bound onto itself (a symlink is
//!   mounted onto itself), so, a mount point now, it cannot be moved away
//!   and replaced (`mv ~/.config ~/x; mkdir -p ~/.config/airlock`);
//! * what it resolves to is bound read-only, and so is a writable path
//!   that lies inside it (`allow_write` below the data directory);
//! * an absent one gets an empty placeholder first (a directory, or an
//!   empty file for a config file), removed when the session ends while
//!   still empty, so it cannot be created inside the sandbox; where no
//!   placeholder can be made, its nearest existing ancestor inside the
//!   writable path is bound read-only instead, or, when that is the
//!   writable path itself, the log says it is not protected;
//! * what is hidden already (the data directory is in `deny_read`) stays
//!   hidden: only the entries leading to it are pinned.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::child::Step;
use super::mount_parts::{cstring, locked_flags, outermost};
use super::own::{OwnKind, OwnPath, below_folded};

/// Most symlinks followed resolving one path (the kernel's limit).
const MAX_HOPS: usize = 40;

/// What a directory entry on a path's way is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EntryKind {
    /// A symbolic link (followed).
    Link,
    /// A directory or a file.
    Present,
    /// Nothing: resolution stops there.
    Absent,
}

/// One directory entry a resolution passes through: its canonical
/// parent joined with its name.
#[derive(Debug, Clone)]
struct Entry {
    path: PathBuf,
    kind: EntryKind,
}

/// How a path is reached.
#[derive(Debug)]
struct Reach {
    /// The entries passed, in order; the last one is the target itself
    /// when it exists.
    entries: Vec<Entry>,
    /// What it resolves to: canonical where it exists, the rest as named.
    target: PathBuf,
    /// Whether the target exists.
    exists: bool,
}

enum Part {
    Root,
    Up,
    Name(OsString),
}

fn parts(p: &Path) -> Vec<Part> {
    p.components()
        .filter_map(|c| match c {
            Component::RootDir => Some(Part::Root),
            Component::ParentDir => Some(Part::Up),
            Component::Normal(n) => Some(Part::Name(n.to_owned())),
            Component::CurDir | Component::Prefix(_) => None,
        })
        .collect()
}

/// Resolve the absolute `path` one entry at a time, as the kernel would.
fn reach(path: &Path) -> Reach {
    let mut queue: VecDeque<Part> = parts(path).into();
    let mut cur = PathBuf::from("/");
    let mut entries = Vec::new();
    let mut hops = 0usize;
    while let Some(part) = queue.pop_front() {
        let name = match part {
            Part::Root => {
                cur = PathBuf::from("/");
                continue;
            }
            Part::Up => {
                cur.pop();
                continue;
            }
            Part::Name(n) => n,
        };
        let next = cur.join(&name);
        match std::fs::symlink_metadata(&next) {
            Ok(m) if m.file_type().is_symlink() => {
                entries.push(Entry {
                    path: next.clone(),
                    kind: EntryKind::Link,
                });
                hops += 1;
                let target = (hops <= MAX_HOPS)
                    .then(|| std::fs::read_link(&next).ok())
                    .flatten();
                let Some(target) = target else {
                    return Reach {
                        entries,
                        target: next,
                        exists: false,
                    };
                };
                for p in parts(&target).into_iter().rev() {
                    queue.push_front(p);
                }
            }
            Ok(_) => {
                entries.push(Entry {
                    path: next.clone(),
                    kind: EntryKind::Present,
                });
                cur = next;
            }
            Err(_) => {
                entries.push(Entry {
                    path: next.clone(),
                    kind: EntryKind::Absent,
                });
                let mut target = next;
                for p in queue {
                    match p {
                        Part::Root => target = PathBuf::from("/"),
                        Part::Up => {
                            target.pop();
                        }
                        Part::Name(n) => target.push(n),
                    }
                }
                return Reach {
                    entries,
                    target,
                    exists: false,
                };
            }
        }
    }
    Reach {
        entries,
        target: cur,
        exists: true,
    }
}

/// What keeping the own paths read-only takes, given the writable paths.
#[derive(Debug, Default)]
pub struct OwnPlan {
    /// Entries bound onto themselves (directories and files).
    pins: Vec<PathBuf>,
    /// Symlinks mounted onto themselves.
    links: Vec<PathBuf>,
    /// Bound read-only.
    readonly: Vec<PathBuf>,
    /// Absent targets the shell could create: a placeholder goes there.
    absent: Vec<(PathBuf, OwnKind)>,
    /// The own paths a writable path holds (as airlock names them).
    pub exposed: Vec<PathBuf>,
}

fn inside(p: &Path, roots: &[PathBuf]) -> bool {
    roots.iter().any(|r| below_folded(p, r))
}

/// What it takes to keep `own` read-only where `roots` (canonical, the
/// paths the shell may write) hold them. Looks at the disk, changes
/// nothing.
pub fn plan(own: &[OwnPath], roots: &[PathBuf]) -> OwnPlan {
    let mut p = OwnPlan::default();
    for o in own {
        let r = reach(&o.path);
        let mut hit = false;
        let last = r.entries.len().saturating_sub(1);
        for (i, e) in r.entries.iter().enumerate() {
            let changeable = e.path.parent().is_some_and(|d| inside(d, roots));
            if !changeable {
                continue;
            }
            hit = true;
            match e.kind {
                EntryKind::Link => p.links.push(e.path.clone()),
                EntryKind::Present if i < last || !r.exists => p.pins.push(e.path.clone()),
                EntryKind::Present | EntryKind::Absent => {}
            }
        }
        if r.exists {
            if inside(&r.target, roots) {
                hit = true;
                p.readonly.push(r.target.clone());
            }
            for root in roots {
                if root != &r.target && below_folded(root, &r.target) {
                    hit = true;
                    p.readonly.push(root.clone());
                }
            }
        } else if r
            .entries
            .last()
            .and_then(|e| e.path.parent())
            .is_some_and(|d| inside(d, roots))
            || inside(&r.target, roots)
        {
            hit = true;
            p.absent.push((r.target.clone(), o.kind));
        }
        if hit {
            p.exposed.push(o.path.clone());
        }
    }
    p
}

/// Make an empty placeholder at `target` (parents as needed); what was
/// made goes to `made`, deepest first (removed in that order, while
/// empty, when the session ends).
fn placeholder(target: &Path, kind: OwnKind, made: &mut Vec<PathBuf>) -> io::Result<()> {
    let dir = match kind {
        OwnKind::Dir => target,
        OwnKind::File => target.parent().unwrap_or(target),
    };
    let mut new_dirs: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|a| std::fs::symlink_metadata(a).is_err())
        .map(Path::to_path_buf)
        .collect();
    std::fs::create_dir_all(dir)?;
    if kind == OwnKind::File {
        std::fs::File::create_new(target)?;
        made.push(target.to_path_buf());
    }
    made.append(&mut new_dirs);
    Ok(())
}

/// The nearest existing ancestor of `target` strictly inside one of
/// `roots`.
fn nearest_inside(target: &Path, roots: &[PathBuf]) -> Option<PathBuf> {
    let existing = target
        .ancestors()
        .skip(1)
        .find(|a| std::fs::symlink_metadata(a).is_ok())?;
    roots
        .iter()
        .any(|r| existing != r.as_path() && below_folded(existing, r))
        .then(|| existing.to_path_buf())
}

/// The mount steps keeping `own` read-only where `roots` hold them, after
/// the `hidden` paths were hidden; placeholders made go to `made`.
pub fn steps(
    own: &[OwnPath],
    roots: &[PathBuf],
    hidden: &[PathBuf],
    made: &mut Vec<PathBuf>,
    notes: &mut Vec<String>,
) -> io::Result<Vec<Step>> {
    let first = plan(own, roots);
    let mut fallback = Vec::new();
    for (target, kind) in &first.absent {
        if let Err(e) = placeholder(target, *kind, made) {
            match nearest_inside(target, roots) {
                Some(a) => fallback.push(a),
                None => notes.push(format!(
                    "airlock's own {} is not protected: cannot create its placeholder: {e}",
                    target.display()
                )),
            }
        }
    }
    let mut p = if first.absent.is_empty() {
        first
    } else {
        plan(own, roots)
    };
    p.readonly.extend(fallback);
    let shown = |x: &PathBuf| !hidden.iter().any(|h| x.starts_with(h));
    let mut pinned: Vec<(PathBuf, bool)> = p
        .pins
        .into_iter()
        .map(|x| (x, false))
        .chain(p.links.into_iter().map(|x| (x, true)))
        .filter(|(x, _)| shown(x))
        .collect();
    pinned.sort();
    pinned.dedup();
    let mut out = Vec::new();
    for (x, link) in pinned {
        let c = cstring(&x)?;
        out.push(if link {
            Step::PinLink { link: c }
        } else {
            Step::Bind {
                src: c.clone(),
                dst: c,
                readonly: None,
            }
        });
    }
    let ro: Vec<PathBuf> = p.readonly.into_iter().filter(shown).collect();
    for x in outermost(ro) {
        let c = cstring(&x)?;
        out.push(Step::Bind {
            src: c.clone(),
            dst: c,
            readonly: Some(locked_flags(&x)),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp() -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let p = std::fs::canonicalize(d.path()).unwrap();
        (d, p)
    }

    fn dir(p: PathBuf) -> OwnPath {
        OwnPath {
            path: p,
            kind: OwnKind::Dir,
        }
    }

    #[test]
    fn reach_follows_links_one_entry_at_a_time() {
        let (_d, t) = tmp();
        std::fs::create_dir_all(t.join("real/airlock")).unwrap();
        std::os::unix::fs::symlink("real", t.join("cfg")).unwrap();
        let r = reach(&t.join("cfg/airlock"));
        assert!(r.exists);
        assert_eq!(r.target, t.join("real/airlock"));
        let kinds: Vec<(PathBuf, EntryKind)> = r
            .entries
            .iter()
            .filter(|e| e.path.starts_with(&t) && e.path != t)
            .map(|e| (e.path.clone(), e.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                (t.join("cfg"), EntryKind::Link),
                (t.join("real"), EntryKind::Present),
                (t.join("real/airlock"), EntryKind::Present),
            ]
        );
        let r = reach(&t.join("cfg/none/x"));
        assert!(!r.exists);
        assert_eq!(r.target, t.join("real/none/x"));
    }

    #[test]
    fn the_plan_pins_the_way_and_protects_the_target() {
        let (_d, ws) = tmp();
        std::fs::create_dir_all(ws.join(".config/airlock")).unwrap();
        let p = plan(
            &[dir(ws.join(".config/airlock"))],
            std::slice::from_ref(&ws),
        );
        assert_eq!(p.pins, [ws.join(".config")]);
        assert_eq!(p.readonly, [ws.join(".config/airlock")]);
        assert!(p.absent.is_empty());
        assert_eq!(p.exposed, [ws.join(".config/airlock")]);
    }

    #[test]
    fn paths_no_writable_path_holds_are_left_alone() {
        let (_d, ws) = tmp();
        let (_e, other) = tmp();
        std::fs::create_dir_all(other.join("airlock")).unwrap();
        let p = plan(
            &[dir(other.join("airlock")), dir(other.join("none"))],
            &[ws],
        );
        assert!(p.exposed.is_empty() && p.pins.is_empty() && p.readonly.is_empty());
        assert!(p.absent.is_empty());
    }

    #[test]
    fn an_absent_path_gets_a_placeholder_removed_deepest_first() {
        let (_d, ws) = tmp();
        let own = [
            dir(ws.join(".config/airlock")),
            OwnPath {
                path: ws.join("cfg/session.toml"),
                kind: OwnKind::File,
            },
        ];
        let p = plan(&own, std::slice::from_ref(&ws));
        assert_eq!(p.absent.len(), 2);
        let (mut made, mut notes) = (Vec::new(), Vec::new());
        let steps = steps(&own, std::slice::from_ref(&ws), &[], &mut made, &mut notes).unwrap();
        assert!(notes.is_empty(), "{notes:?}");
        assert!(ws.join(".config/airlock").is_dir());
        assert!(ws.join("cfg/session.toml").is_file());
        assert_eq!(
            made,
            [
                ws.join(".config/airlock"),
                ws.join(".config"),
                ws.join("cfg/session.toml"),
                ws.join("cfg"),
            ]
        );
        // .config and cfg pinned, the two targets read-only.
        assert_eq!(steps.len(), 4, "{steps:?}");
    }

    #[test]
    fn a_writable_path_inside_an_own_directory_is_read_only() {
        let (_d, data) = tmp();
        std::fs::create_dir_all(data.join("audit")).unwrap();
        let p = plan(&[dir(data.clone())], &[data.join("audit")]);
        assert_eq!(p.readonly, [data.join("audit")]);
        assert_eq!(p.exposed, [data]);
    }

    #[test]
    fn hidden_paths_only_get_their_way_pinned() {
        let (_d, ws) = tmp();
        std::fs::create_dir_all(ws.join(".local/share/airlock")).unwrap();
        let own = [dir(ws.join(".local/share/airlock"))];
        let (mut made, mut notes) = (Vec::new(), Vec::new());
        let hidden = [ws.join(".local/share/airlock")];
        let steps = steps(
            &own,
            std::slice::from_ref(&ws),
            &hidden,
            &mut made,
            &mut notes,
        )
        .unwrap();
        let binds: Vec<String> = steps.iter().map(Step::describe).collect();
        assert_eq!(binds.len(), 2, "{binds:?}");
        assert!(
            binds.iter().all(|b| !b.contains("share/airlock")),
            "{binds:?}"
        );
    }
}
