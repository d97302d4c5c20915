//! Commands that print a process's environment or state: `printenv`,
//! `env`, the builtins that list variables (`export -p`, `declare -x`,
//! `set`), process listers (`ps e` shows every process's environment,
//! `ps`/`pgrep -a` their command lines), and files under `/proc`
//! (`/proc/self/environ`, `/proc/PID/cmdline`).
//!
//! Where the environment is airlock's (its own shell gets the
//! supervisor's less `bash.env_deny`), printing it shows nothing secret,
//! and those among them that are known-safe stay so. A command the agent
//! runs itself sees the agent's own environment — its API keys and
//! tokens — so none of these is known-safe there (`reach` asks this
//! module at the real site).

use std::path::Path;

use super::{SimpleCommand, basename};

/// Programs and builtins that print the environment, variables, or
/// processes' command lines and environments, whatever their arguments.
const PRINTS_STATE: &[(&str, &str)] = &[
    ("printenv", "prints the environment"),
    ("env", "prints the environment"),
    ("export", "lists the exported variables"),
    ("declare", "lists the shell's variables"),
    ("typeset", "lists the shell's variables"),
    ("readonly", "lists the shell's variables"),
    ("local", "lists the shell's variables"),
    ("set", "lists the shell's variables"),
    ("compgen", "lists the shell's variables"),
    (
        "ps",
        "lists processes with their command lines (and, with `e`, environments)",
    ),
    ("pgrep", "lists processes with their command lines"),
    ("pstree", "lists processes with their command lines"),
    ("top", "lists processes with their command lines"),
    ("htop", "lists processes with their command lines"),
    (
        "procs",
        "lists processes with their command lines and environments",
    ),
];

/// What `cmd` prints of the environment or of processes, if it is such a
/// command (by its program's basename: `/usr/bin/printenv` too).
pub fn prints_process_state(cmd: &SimpleCommand) -> Option<&'static str> {
    let program = basename(cmd.program()?);
    PRINTS_STATE
        .iter()
        .find(|(name, _)| *name == program)
        .map(|(_, what)| *what)
}

/// The proc filesystem's magic number (`statfs`'s `f_type`).
const PROC_SUPER_MAGIC: u64 = 0x9fa0;

/// Whether `path` (absolute) is in the proc filesystem: below `/proc` by
/// name, or on a proc mount wherever it is (`statfs`; a path that cannot
/// be looked at is judged by name only).
pub fn is_process_state(path: &Path) -> bool {
    if path.starts_with("/proc") {
        return true;
    }
    on_proc_mount(path)
}

fn on_proc_mount(path: &Path) -> bool {
    let Ok(fs) = rustix::fs::statfs(path) else {
        return false;
    };
    // A signed or unsigned word depending on the target (as in
    // `scope::exact`).
    #[expect(
        clippy::cast_sign_loss,
        reason = "f_type is a magic number, not a count"
    )]
    let kind = fs.f_type as u64;
    kind == PROC_SUPER_MAGIC
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    fn state(c: &str) -> Option<&'static str> {
        prints_process_state(&parse(c).unwrap().commands[0])
    }

    #[test]
    fn environment_and_process_printers() {
        for c in [
            "printenv",
            "printenv AWS_SECRET_ACCESS_KEY",
            "/usr/bin/printenv",
            "env",
            "env -0",
            "export -p",
            "declare -x",
            "declare -p",
            "typeset -x",
            "readonly -p",
            "set",
            "compgen -v",
            "ps e",
            "ps eww",
            "ps auxe",
            "pgrep -a node",
            "pstree -a",
        ] {
            assert!(state(c).is_some(), "{c}");
        }
        for c in ["ls", "cat notes.txt", "echo env", "grep printenv x", "id"] {
            assert_eq!(state(c), None, "{c}");
        }
    }

    #[test]
    fn proc_paths() {
        assert!(is_process_state(Path::new("/proc/self/environ")));
        assert!(is_process_state(Path::new("/proc/1/cmdline")));
        assert!(is_process_state(Path::new("/proc")));
        assert!(!is_process_state(Path::new("/procx/a")));
        assert!(!is_process_state(Path::new("/tmp")));
        assert!(!is_process_state(Path::new("/nonexistent/x")));
    }
}
