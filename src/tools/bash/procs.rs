//! Finding and killing every process a shell started, from `/proc`.
//!
//! The shell is a session leader, so its session id and process group id
//! are its pid. A command's processes stay in that session unless they call
//! `setsid`; those that do are still found while their parent chain leads
//! back to the shell.

#![allow(unsafe_code)] // system calls with no safe wrapper here; each block says why it is sound

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;
use std::time::Duration;

/// One line of `/proc/<pid>/stat`, the fields we need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    /// Process id.
    pub pid: i32,
    /// Parent process id.
    pub ppid: i32,
    /// Process group id.
    pub pgrp: i32,
    /// Session id.
    pub session: i32,
    /// State letter (`R`, `S`, `Z` …).
    pub state: char,
}

/// Parse `/proc/<pid>/stat`. The command name is in parentheses and may
/// itself contain spaces and parentheses, so parse after the last `)`.
pub fn parse_stat(text: &str) -> Option<ProcStat> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let pid = text[..open].trim().parse().ok()?;
    let mut rest = text.get(close + 1..)?.split_ascii_whitespace();
    let state = rest.next()?.chars().next()?;
    let ppid = rest.next()?.parse().ok()?;
    let pgrp = rest.next()?.parse().ok()?;
    let session = rest.next()?.parse().ok()?;
    Some(ProcStat {
        pid,
        ppid,
        pgrp,
        session,
        state,
    })
}

/// The stat of one process, if it exists.
pub fn stat(pid: i32) -> Option<ProcStat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&text)
}

/// The working directory of process `pid` as the kernel has it (not what
/// its `$PWD` says), if it can be read.
pub fn cwd(pid: i32) -> Option<std::path::PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/cwd")).ok()
}

/// The only child of process `pid`, if it has exactly one.
pub fn only_child(pid: i32) -> Option<i32> {
    let mut children = all().into_iter().filter(|p| p.ppid == pid);
    match (children.next(), children.next()) {
        (Some(child), None) => Some(child.pid),
        _ => None,
    }
}

/// Every process on the machine (that we may read).
pub fn all() -> Vec<ProcStat> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(std::result::Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(stat)
        .collect()
}

/// The live (not zombie) processes that belong to the shell `leader`: its
/// session, its process group, `known` (processes found before), and every
/// descendant of those by parent pid.
pub fn members<S: BuildHasher>(
    leader: i32,
    known: &HashSet<i32, S>,
    table: &[ProcStat],
) -> Vec<i32> {
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for p in table {
        children.entry(p.ppid).or_default().push(p.pid);
    }
    // Descend only from processes proven to be ours (a reaped leader's pid
    // may have been reused by a stranger).
    let mut found: HashSet<i32> = table
        .iter()
        .filter(|p| p.session == leader || p.pgrp == leader || known.contains(&p.pid))
        .map(|p| p.pid)
        .collect();
    let mut stack: Vec<i32> = found.iter().copied().collect();
    while let Some(pid) = stack.pop() {
        for &c in children.get(&pid).map_or(&[][..], Vec::as_slice) {
            if found.insert(c) {
                stack.push(c);
            }
        }
    }
    let alive: HashSet<i32> = table
        .iter()
        .filter(|p| p.state != 'Z' && p.state != 'X')
        .map(|p| p.pid)
        .collect();
    found.retain(|p| alive.contains(p));
    let mut v: Vec<i32> = found.into_iter().collect();
    v.sort_unstable();
    v
}

fn signal(pid: i32, sig: i32) {
    // SAFETY: plain syscall; a negative pid addresses a process group.
    unsafe {
        libc::kill(pid, sig);
    }
}

/// Our own pid, as the kernel's `pid_t` (what `/proc` and `kill` use).
fn own_pid() -> i32 {
    rustix::process::getpid().as_raw_nonzero().get()
}

/// SIGKILL the shell `leader` and everything it started. First every
/// member is found and stopped while the process tree is still intact
/// (once the shell dies its children are re-parented, and one that left
/// the session could no longer be told apart), repeating until no new one
/// appears (a fork loop cannot outrun a frozen parent); then all are
/// killed, and stragglers are hunted for at most about a second.
pub fn kill_tree(leader: i32) {
    let me = own_pid();
    if leader <= 1 || leader == me {
        return;
    }
    let ours = |p: &i32| *p > 1 && *p != me;
    let mut seen: HashSet<i32> = HashSet::new();
    for _ in 0..100 {
        let new: Vec<i32> = members(leader, &seen, &all())
            .into_iter()
            .filter(|p| ours(p) && !seen.contains(p))
            .collect();
        if new.is_empty() {
            break;
        }
        for &pid in &new {
            signal(pid, libc::SIGSTOP);
        }
        seen.extend(new);
    }
    for round in 0..200 {
        signal(-leader, libc::SIGKILL);
        for &pid in &seen {
            signal(pid, libc::SIGKILL);
        }
        let left: Vec<i32> = members(leader, &seen, &all())
            .into_iter()
            .filter(ours)
            .collect();
        if left.is_empty() {
            return;
        }
        seen.extend(left);
        if round > 0 {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    tracing::warn!(leader, "processes of the shell survived repeated SIGKILL");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_odd_command_names() {
        let s = parse_stat("123 (a b) (c)) S 1 120 120 0 -1 4194560 ...").unwrap();
        assert_eq!(
            s,
            ProcStat {
                pid: 123,
                ppid: 1,
                pgrp: 120,
                session: 120,
                state: 'S'
            }
        );
        assert!(parse_stat("garbage").is_none());
    }

    #[test]
    fn members_follow_session_group_and_parents() {
        let p = |pid, ppid, pgrp, session, state| ProcStat {
            pid,
            ppid,
            pgrp,
            session,
            state,
        };
        let table = vec![
            p(10, 1, 10, 10, 'S'),  // the shell
            p(11, 10, 10, 10, 'S'), // a command
            p(12, 11, 12, 12, 'S'), // setsid'd grandchild
            p(13, 12, 12, 12, 'R'), // its child
            p(14, 1, 10, 10, 'S'),  // orphan still in the session
            p(15, 10, 10, 10, 'Z'), // zombie: nothing to kill
            p(20, 1, 20, 20, 'S'),  // unrelated
            p(21, 20, 20, 20, 'S'), // unrelated
        ];
        assert_eq!(
            members(10, &HashSet::new(), &table),
            vec![10, 11, 12, 13, 14]
        );
        // Once the shell is gone, a known escapee still leads to its children.
        let orphaned: Vec<ProcStat> = table
            .iter()
            .filter(|p| p.pid != 10 && p.pid != 11)
            .map(|p| {
                if p.pid == 12 {
                    ProcStat { ppid: 1, ..*p }
                } else {
                    *p
                }
            })
            .collect();
        assert_eq!(members(10, &HashSet::new(), &orphaned), vec![14]);
        assert_eq!(
            members(10, &HashSet::from([12]), &orphaned),
            vec![12, 13, 14]
        );
    }

    #[test]
    fn reads_own_process() {
        let me = stat(own_pid()).unwrap();
        assert_eq!(i64::from(me.pid), i64::from(std::process::id()));
        assert!(all().iter().any(|p| p.pid == me.pid));
    }
}
