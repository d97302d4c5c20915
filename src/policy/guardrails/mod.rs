//! Built-in guardrails: commands that are refused without asking, whatever
//! the rules say. They are tripwires for typos and runaway agents, not a
//! security boundary: a determined command can always be written so no
//! pattern sees it.
//!
//! The command is cut into simple commands by a small tokenizer (quotes,
//! escapes, comments, heredoc bodies; split on `;`, `&`, `|`, `&&`, `||`,
//! newlines, parentheses, braces, `$(`, backticks). Wrappers (`sudo`, `env`,
//! `nice`, `timeout`, `xargs` …) are looked through, and strings run by
//! `bash -c`, `eval` or a command substitution are checked too.

use std::fmt;

mod lex;

use lex::{Simple, Tok, lex, simple_commands};

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

/// The first guardrail `command` trips, if any.
pub fn check(command: &str) -> Option<Guardrail> {
    check_depth(command, 0)
}

/// Nested strings (`bash -c`, `eval`, substitutions) deeper than this are
/// not looked into.
const MAX_DEPTH: usize = 8;

fn check_depth(command: &str, depth: usize) -> Option<Guardrail> {
    if depth > MAX_DEPTH {
        return None;
    }
    let lexed = lex(command);
    if fork_bomb(&lexed.tokens) {
        return Some(FORK_BOMB);
    }
    for cmd in simple_commands(&lexed.tokens) {
        if let Some(g) = check_simple(&cmd, depth) {
            return Some(g);
        }
    }
    lexed
        .nested
        .iter()
        .find_map(|inner| check_depth(inner, depth + 1))
}

/// Leading words that only prefix the real command.
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "do", "while", "until", "!", "time", "exec", "builtin", "nohup",
    "busybox",
];

/// Wrappers that run their arguments as a command, with the options that
/// take a value and how many positional words come before the command.
const WRAPPERS: &[(&str, &[&str], usize)] = &[
    (
        "sudo",
        &["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U"],
        0,
    ),
    ("doas", &["-u", "-C"], 0),
    ("env", &["-u", "-C", "--unset", "--chdir"], 0),
    ("nice", &["-n", "--adjustment"], 0),
    ("ionice", &["-c", "-n", "-p", "-t"], 0),
    ("timeout", &["-s", "-k", "--signal", "--kill-after"], 1),
    ("stdbuf", &["-i", "-o", "-e"], 0),
    ("chroot", &["--userspec", "--groups"], 1),
    (
        "xargs",
        &["-I", "-n", "-P", "-d", "-a", "-E", "-s", "-L", "-i", "-l"],
        0,
    ),
    ("command", &[], 0),
    ("unbuffer", &[], 0),
    ("setsid", &[], 0),
    ("flock", &["-w", "-E", "-c"], 1),
];

fn basename(w: &str) -> &str {
    w.rsplit('/').next().unwrap_or(w)
}

fn is_assignment(w: &str) -> bool {
    match w.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

fn check_simple(cmd: &Simple, depth: usize) -> Option<Guardrail> {
    if cmd.redirect_targets.iter().any(|t| is_disk(t)) {
        return Some(DISK_WRITE);
    }
    let mut words: &[String] = &cmd.words;
    loop {
        while let Some(first) = words.first() {
            if is_assignment(first) || KEYWORDS.contains(&first.as_str()) {
                words = &words[1..];
            } else {
                break;
            }
        }
        let first = words.first()?;
        let name = basename(first);
        let Some((_, with_value, positionals)) = WRAPPERS.iter().find(|(w, _, _)| *w == name)
        else {
            break;
        };
        if name == "command" && words.iter().skip(1).any(|w| w == "-v" || w == "-V") {
            return None;
        }
        if name == "env"
            && let Some(i) = words
                .iter()
                .position(|w| w == "-S" || w == "--split-string")
            && let Some(s) = words.get(i + 1)
            && let Some(g) = check_depth(s, depth + 1)
        {
            return Some(g);
        }
        let mut i = 1;
        let mut left = *positionals;
        while let Some(w) = words.get(i) {
            if w == "--" {
                i += 1;
                break;
            }
            if w.starts_with('-') && w.len() > 1 {
                i += if with_value.contains(&w.as_str()) {
                    2
                } else {
                    1
                };
            } else if name == "env" && is_assignment(w) {
                i += 1;
            } else if left > 0 {
                left -= 1;
                i += 1;
            } else {
                break;
            }
        }
        words = words.get(i..).unwrap_or(&[]);
    }
    let name = basename(&words[0]);
    let args = &words[1..];
    match name {
        "rm" => rm_root(args).then_some(RM_ROOT),
        "mkfs" | "mke2fs" => Some(MKFS),
        n if n.starts_with("mkfs.") => Some(MKFS),
        "dd" => args
            .iter()
            .filter_map(|a| a.strip_prefix("of="))
            .any(|p| p.starts_with("/dev/") && !is_harmless_device(p))
            .then_some(DISK_WRITE),
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "su" => {
            let i = args.iter().position(|a| {
                a == "-c" || (a.starts_with('-') && !a.starts_with("--") && a.ends_with('c'))
            })?;
            check_depth(args.get(i + 1)?, depth + 1)
        }
        "eval" => check_depth(&args.join(" "), depth + 1),
        _ => None,
    }
}

/// `rm` with a recursive flag and a catastrophic operand.
fn rm_root(args: &[String]) -> bool {
    let mut recursive = false;
    let mut operands = Vec::new();
    let mut options_done = false;
    for a in args {
        if !options_done && a == "--" {
            options_done = true;
        } else if !options_done && a.starts_with("--") {
            recursive |= a == "--recursive";
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

/// `/`, `/*`, a top-level system directory, `~`, `$HOME` (with `/`, `/*`,
/// `/.*` after them).
fn catastrophic(path: &str) -> bool {
    let mut p = path.to_string();
    while p.contains("//") {
        p = p.replace("//", "/");
    }
    while p.contains("/./") {
        p = p.replace("/./", "/");
    }
    for suffix in ["/*", "/.*", "/.", "/"] {
        if p.len() > suffix.len()
            && let Some(s) = p.strip_suffix(suffix)
        {
            p = s.to_string();
            break;
        }
    }
    if matches!(
        p.as_str(),
        "/" | "/*" | "/.*" | "/." | "~" | "$HOME" | "${HOME}"
    ) {
        return true;
    }
    p.strip_prefix('/')
        .is_some_and(|rest| SYSTEM_DIRS.contains(&rest))
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
    let Some(dev) = p.strip_prefix("/dev/") else {
        return false;
    };
    const PREFIXES: &[&str] = &[
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "md", "dm-", "loop", "nbd", "disk/", "mapper/",
        "root", "mem", "kmem", "port",
    ];
    PREFIXES.iter().any(|pre| dev.starts_with(pre))
}

/// `name() { … name | name … }` or `name() { … name & … }` anywhere, also
/// written `function name { … }`.
fn fork_bomb(tokens: &[Tok]) -> bool {
    let word = |i: usize| match tokens.get(i) {
        Some(Tok::Word(w)) => Some(w.as_str()),
        _ => None,
    };
    let is = |i: usize, s: &str| matches!(tokens.get(i), Some(Tok::Sep(x)) if *x == s);
    for i in 0..tokens.len() {
        let (name, body_from) = if word(i) == Some("function") && word(i + 1).is_some() {
            let name = word(i + 1).unwrap_or_default();
            let after = if is(i + 2, "(") && is(i + 3, ")") {
                i + 4
            } else {
                i + 2
            };
            (name, after)
        } else if let Some(name) = word(i)
            && is(i + 1, "(")
            && is(i + 2, ")")
        {
            (name, i + 3)
        } else {
            continue;
        };
        let mut j = body_from;
        while matches!(tokens.get(j), Some(Tok::Sep("newline"))) {
            j += 1;
        }
        if !is(j, "{") && !is(j, "(") {
            continue;
        }
        let mut depth = 0usize;
        for (k, tok) in tokens.iter().enumerate().skip(j) {
            match tok {
                Tok::Sep("{") | Tok::Sep("(") => depth += 1,
                Tok::Sep("}") | Tok::Sep(")") => depth = depth.saturating_sub(1),
                Tok::Word(w) if w == name => {
                    let piped = is(k + 1, "|") && word(k + 2) == Some(name);
                    let backgrounded = is(k + 1, "&");
                    if piped || backgrounded {
                        return true;
                    }
                }
                _ => {}
            }
            if depth == 0 {
                break;
            }
        }
    }
    false
}
