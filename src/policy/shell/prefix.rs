//! The prefix rule proposed by "approve for this session".
//!
//! From each simple command: the program, then up to two leading
//! subcommand words (plain words such as `test` or `run`; the first option,
//! path, file name or value stops it), then ` *`. `cargo test --release foo`
//! gives `cargo test *`, `npm run build` gives `npm run build *`, `ls -la`
//! gives `ls *`. Nothing is proposed when the command has a hazard, when
//! its parts would give different prefixes, or when the prefix would let
//! anything run (`python3 *`, `git *`).

use super::special::basename;
use super::{ParsedCommand, SimpleCommand};

/// Most subcommand words after the program.
const MAX_SUBCOMMANDS: usize = 2;

/// Programs whose arguments are code: `prog *` would allow anything.
const INTERPRETERS: &[&str] = &[
    "python",
    "python2",
    "python3",
    "node",
    "nodejs",
    "deno",
    "bun",
    "ruby",
    "perl",
    "php",
    "lua",
    "Rscript",
    "osascript",
    "pwsh",
    "powershell",
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "fish",
    "awk",
    "gawk",
    "mawk",
    "sed",
    "env",
    "sudo",
    "xargs",
    "eval",
];

/// Programs driven by a subcommand: without one, `prog *` is too broad.
const SUBCOMMAND_DRIVEN: &[&str] = &[
    "git",
    "cargo",
    "npm",
    "pnpm",
    "yarn",
    "npx",
    "go",
    "docker",
    "podman",
    "kubectl",
    "gh",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "rustup",
    "brew",
    "apt",
    "apt-get",
    "systemctl",
    "dotnet",
    "mvn",
    "gradle",
    "helm",
    "terraform",
    "aws",
    "gcloud",
    "az",
];

/// A prefix rule for "approve for this session", e.g. `cargo test *`.
/// `None` when the command has hazards, its parts differ, or no useful
/// prefix exists (offer the exact command instead).
pub fn propose_prefix(parsed: &ParsedCommand) -> Option<String> {
    if !parsed.is_hazard_free() || parsed.commands.is_empty() {
        return None;
    }
    let mut proposal: Option<String> = None;
    for cmd in &parsed.commands {
        let p = prefix_of(cmd)?;
        match &proposal {
            None => proposal = Some(p),
            Some(q) if *q == p => {}
            Some(_) => return None,
        }
    }
    proposal
}

fn prefix_of(cmd: &SimpleCommand) -> Option<String> {
    let program = cmd.program()?;
    let plain = !program.is_empty()
        && !program.starts_with('-')
        && program
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./+-".contains(c));
    if !plain {
        return None;
    }
    let mut words = vec![program];
    for w in cmd.words[1..].iter().take(MAX_SUBCOMMANDS) {
        match w.literal() {
            Some(s) if is_subcommand(s) => words.push(s),
            _ => break,
        }
    }
    let name = basename(program);
    if words.len() == 1 && (INTERPRETERS.contains(&name) || SUBCOMMAND_DRIVEN.contains(&name)) {
        return None;
    }
    Some(format!("{} *", words.join(" ")))
}

/// `test`, `run`, `build:prod`, `ls-files`: not an option, path, file
/// name or value.
fn is_subcommand(s: &str) -> bool {
    s.len() <= 40
        && s.starts_with(|c: char| c.is_ascii_alphanumeric())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_:".contains(c))
}

#[cfg(test)]
mod tests {
    use super::super::{parse, specifier_matches};
    use super::*;

    fn propose(c: &str) -> Option<String> {
        propose_prefix(&parse(c).unwrap())
    }

    #[test]
    fn proposals() {
        assert_eq!(
            propose("cargo test --release foo").as_deref(),
            Some("cargo test *")
        );
        assert_eq!(
            propose("git commit -m 'fix it'").as_deref(),
            Some("git commit *")
        );
        assert_eq!(propose("npm run build").as_deref(), Some("npm run build *"));
        assert_eq!(propose("ls -la src").as_deref(), Some("ls *"));
        assert_eq!(propose("ls").as_deref(), Some("ls *"));
        assert_eq!(propose("cat README.md").as_deref(), Some("cat *"));
        assert_eq!(
            propose("cargo test && cargo test -p x").as_deref(),
            Some("cargo test *")
        );
    }

    #[test]
    fn no_proposal() {
        for c in [
            "cargo build && cargo test",
            "cd src && ls",
            "ls > out",
            "ls $(pwd)",
            "sudo ls",
            "python3 script.py",
            "git -C x status",
            "$X y",
            "/tmp/a\\ b x",
            "",
        ] {
            assert_eq!(propose(c), None, "{c}");
        }
    }

    #[test]
    fn proposals_match_their_command() {
        for c in [
            "cargo test --release foo",
            "npm run build",
            "ls -la",
            "make",
        ] {
            let parsed = parse(c).unwrap();
            let p = propose_prefix(&parsed).unwrap();
            assert!(specifier_matches(&p, &parsed), "{p} should match {c}");
        }
    }
}
