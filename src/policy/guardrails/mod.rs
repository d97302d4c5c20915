//! Built-in guardrails: commands that are refused without asking, whatever
//! the rules say. They are tripwires for typos and runaway agents, not a
//! security boundary: a determined command can always be written so no
//! pattern sees it.
//!
//! They are checked on the parsed command ([`crate::policy::shell`], the
//! same brush-parser model the policy matches rules on): every simple
//! command the shell runs directly or indirectly (substitutions, `bash -c`
//! and `eval` strings, literal here-strings fed to a shell, the tails of
//! wrappers from the one wrapper table the policy uses, `find -exec`,
//! brace expansions), with paths normalised (`//`, `/.`, `/..`, quotes,
//! `$'…'`, `${HOME:?}`, globs at the top level). Input the parser rejects,
//! and command strings inside it that do not parse, go to the old
//! tokenizer ([`fallback`]).

use std::fmt;

mod fallback;
mod lex;
mod parsed;

/// A guardrail that a command tripped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guardrail {
    /// Short stable name.
    pub id: &'static str,
    /// What it stops, for the agent and the human.
    pub what: &'static str,
}

impl fmt::Display for Guardrail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.id, self.what)
    }
}

/// `rm -r` of `/`, `/*`, a top-level system directory, `~` or `$HOME`.
pub const RM_ROOT: Guardrail = Guardrail {
    id: "rm-root",
    what: "recursive rm of /, /*, a top-level system directory, ~ or $HOME",
};
/// `mkfs`, `mkfs.*`, `mke2fs`.
pub const MKFS: Guardrail = Guardrail {
    id: "mkfs",
    what: "creating a file system (mkfs) erases a device",
};
/// `dd of=/dev/…` (other than /dev/null and friends), `> /dev/sda`.
pub const DISK_WRITE: Guardrail = Guardrail {
    id: "disk-write",
    what: "writing to a device with dd of=/dev/… or a redirection to a disk",
};
/// `:(){ :|:& };:` and renamed variants.
pub const FORK_BOMB: Guardrail = Guardrail {
    id: "fork-bomb",
    what: "a function that pipes into or backgrounds itself (fork bomb)",
};

/// Setting `LC_ALL`, `LC_CTYPE` or `LANG` to a locale bash reads some
/// bytes of (BIG5, GBK, GB18030, `Shift_JIS` …), or to a value not known
/// before the command runs.
pub const MISREAD_LOCALE: Guardrail = Guardrail {
    id: "misread-locale",
    what: "setting a locale other than C, POSIX or UTF-8 (or one not known before the command runs): \
           under BIG5, GBK or Shift_JIS bash reads some bytes of a character and a following \
           backslash or quote as one character, so the rest of the command would run otherwise \
           than shown",
};

/// The first guardrail `command` trips, if any.
pub fn check(command: &str) -> Option<Guardrail> {
    check_parsed(command, &crate::policy::shell::parse(command))
}

/// [`check`] on a command already parsed (the policy parses once).
pub fn check_parsed(
    command: &str,
    parsed: &Result<crate::policy::shell::ParsedCommand, crate::policy::shell::ParseError>,
) -> Option<Guardrail> {
    match parsed {
        Ok(p) => parsed::check(p),
        Err(_) => fallback::check(command),
    }
}

/// `rm` with a recursive flag and a catastrophic operand. Long options
/// are compared by prefix (`--r` is `--recursive` to `getopt_long`), and
/// options after operands count (GNU rm permutes them).
fn rm_root(args: &[String]) -> bool {
    let mut recursive = false;
    let mut operands = Vec::new();
    let mut options_done = false;
    for a in args {
        if !options_done && a == "--" {
            options_done = true;
        } else if !options_done && let Some(long) = a.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            recursive |= !name.is_empty() && "recursive".starts_with(name);
        } else if !options_done && a.starts_with('-') && a.len() > 1 {
            recursive |= a.contains('r') || a.contains('R');
        } else {
            operands.push(a.as_str());
        }
    }
    recursive && operands.into_iter().any(catastrophic)
}

const SYSTEM_DIRS: &[&str] = &[
    "bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "opt", "proc", "root", "sbin",
    "srv", "sys", "usr", "var",
];

/// `/`, `/*`, a top-level system directory, `~` or `$HOME` (with `/`,
/// `/*`, `/.*` after them), after normalising the path: `//`, `/.` and
/// `/..` are resolved, and a glob at the top level counts when it can
/// match a system directory (`/u?r`, `/[e]tc`).
fn catastrophic(path: &str) -> bool {
    let (home, rest) = if let Some(rest) = path.strip_prefix('~') {
        (true, rest.split_once('/').map_or("", |(_, r)| r))
    } else if let Some(rest) = path.strip_prefix('/') {
        (false, rest)
    } else {
        return false;
    };
    let comps = normalise(rest);
    let any = |c: &str| c == "*" || c == ".*";
    match comps.as_slice() {
        [] => true,
        [x] if any(x) => true,
        [x] => !home && system_dir(x),
        [x, y] => !home && system_dir(x) && any(y),
        _ => false,
    }
}

/// The components of a path with `.`, empty ones and `..` resolved
/// lexically (`..` at the top stays at the top).
fn normalise(rest: &str) -> Vec<&str> {
    let mut comps: Vec<&str> = Vec::new();
    for c in rest.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                comps.pop();
            }
            c => comps.push(c),
        }
    }
    comps
}

/// An absolute path, normalised (`//dev/./sda` is `/dev/sda`).
fn normalise_absolute(path: &str) -> Option<String> {
    let rest = path.strip_prefix('/')?;
    Some(format!("/{}", normalise(rest).join("/")))
}

/// A top-level system directory, or a glob that can match one.
fn system_dir(c: &str) -> bool {
    if !c.contains(['*', '?', '[']) {
        return SYSTEM_DIRS.contains(&c);
    }
    globset::Glob::new(c).is_ok_and(|g| {
        let m = g.compile_matcher();
        SYSTEM_DIRS.iter().any(|d| m.is_match(d))
    })
}

/// `dd of=PATH` writes a device other than the harmless ones.
fn writes_device(path: &str) -> bool {
    normalise_absolute(path).is_some_and(|p| p.starts_with("/dev/") && !is_harmless_device(&p))
}

/// Devices that are fine to write to.
fn is_harmless_device(p: &str) -> bool {
    matches!(
        p,
        "/dev/null"
            | "/dev/zero"
            | "/dev/full"
            | "/dev/stdout"
            | "/dev/stderr"
            | "/dev/tty"
            | "/dev/random"
            | "/dev/urandom"
    ) || [
        "/dev/fd/",
        "/dev/shm/",
        "/dev/pts/",
        "/dev/tcp/",
        "/dev/udp/",
        "/dev/tty",
    ]
    .iter()
    .any(|pre| p.starts_with(pre))
}

/// A disk (or raw memory) device, for redirections.
fn is_disk(p: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "md", "dm-", "loop", "nbd", "disk/", "mapper/",
        "root", "mem", "kmem", "port",
    ];
    let Some(p) = normalise_absolute(p) else {
        return false;
    };
    let Some(dev) = p.strip_prefix("/dev/") else {
        return false;
    };
    PREFIXES.iter().any(|pre| dev.starts_with(pre))
}

/// A word's text as the guardrails read it, worst case: quotes removed,
/// `$HOME`/`${HOME…}` as `~`, `${X:-d}`/`${X:+d}` as `d`, `${X:?}` as a
/// non-empty placeholder, and any other expansion or substitution as
/// empty (`rm -rf "$dir/"` may be `rm -rf /`).
fn approximate(raw: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = raw.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\'' => {
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    out.push(chars[i]);
                    i += 1;
                }
                i += 1;
            }
            '"' => i += 1,
            '\\' => {
                if let Some(&c) = chars.get(i + 1) {
                    out.push(c);
                }
                i += 2;
            }
            '`' => {
                i += 1;
                while i < chars.len() && chars[i] != '`' {
                    i += 1;
                }
                i += 1;
            }
            '$' => i = expansion(&chars, i + 1, &mut out),
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The expansion after a `$` at `i`: appends its approximation, returns
/// where the text continues.
fn expansion(chars: &[char], i: usize, out: &mut String) -> usize {
    match chars.get(i) {
        Some('(' | '{') => {
            let open = chars[i];
            let close = if open == '(' { ')' } else { '}' };
            let mut depth = 0usize;
            let mut j = i;
            while j < chars.len() {
                if chars[j] == open {
                    depth += 1;
                } else if chars[j] == close {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                j += 1;
            }
            if open == '{' {
                let inner: String = chars[i + 1..j.min(chars.len())].iter().collect();
                out.push_str(&braced_parameter(&inner));
            }
            j + 1
        }
        Some(c) if c.is_ascii_alphabetic() || *c == '_' => {
            let mut j = i;
            while j < chars.len() && (chars[j].is_ascii_alphanumeric() || chars[j] == '_') {
                j += 1;
            }
            if chars[i..j].iter().collect::<String>() == "HOME" {
                out.push('~');
            }
            j
        }
        // `$@`, `$1`, `$?` …: empty at worst.
        Some(c) if "@*#?!$-0123456789".contains(*c) => i + 1,
        _ => {
            out.push('$');
            i
        }
    }
}

/// `${NAME…}`: see [`approximate`].
fn braced_parameter(inner: &str) -> String {
    let name_len = inner
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(inner.len());
    let (name, op) = inner.split_at(name_len);
    if name == "HOME" {
        return "~".into();
    }
    for prefix in [":-", ":+", "-", "+", ":="] {
        if let Some(d) = op.strip_prefix(prefix) {
            return approximate(d);
        }
    }
    if op.starts_with(":?") || op.starts_with('?') {
        return "x".into();
    }
    String::new()
}
