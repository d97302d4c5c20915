//! The guardrails on the parsed command: every simple command the shell
//! may run (direct, nested, brace-expanded), with its words approximated
//! the way the shell would expand them, worst case first.

use super::{
    DISK_WRITE, FORK_BOMB, Guardrail, MISREAD_LOCALE, MKFS, RM_ROOT, fallback, is_disk, rm_root,
    writes_device,
};
use crate::policy::shell::{Hazard, ParsedCommand, SimpleCommand, Word, basename};

/// The first guardrail the parsed command trips.
pub(super) fn check(p: &ParsedCommand) -> Option<Guardrail> {
    if !p.self_spawning.is_empty() {
        return Some(FORK_BOMB);
    }
    if !p.misread_locales.is_empty() {
        return Some(MISREAD_LOCALE);
    }
    if p.output_targets.iter().any(|w| is_disk(&approximate(w))) {
        return Some(DISK_WRITE);
    }
    let commands = p
        .commands
        .iter()
        .chain(p.nested.iter())
        .chain(p.brace_expanded.iter());
    for cmd in commands.clone() {
        if let Some(g) = check_simple(cmd) {
            return Some(g);
        }
    }
    // Command strings the parser could not read (`bash -c 'rm -rf / ('`):
    // the tokenizer looks at them.
    let unparsed = p
        .hazards
        .iter()
        .chain(commands.flat_map(|c| c.hazards.iter()))
        .filter_map(|h| match h {
            Hazard::Unparseable(text) => Some(text.as_str()),
            _ => None,
        });
    for text in unparsed {
        if let Some(g) = fallback::check(text) {
            return Some(g);
        }
    }
    None
}

fn check_simple(cmd: &SimpleCommand) -> Option<Guardrail> {
    let program = basename(cmd.program()?);
    let args: Vec<String> = cmd.words[1..].iter().map(approximate).collect();
    match program {
        "rm" => rm_root(&args).then_some(RM_ROOT),
        "mkfs" | "mke2fs" => Some(MKFS),
        n if n.starts_with("mkfs.") => Some(MKFS),
        "dd" => args
            .iter()
            .filter_map(|a| a.strip_prefix("of="))
            .any(writes_device)
            .then_some(DISK_WRITE),
        "tee" | "cp" | "shred" | "wipefs" | "blkdiscard" => {
            args.iter().any(|a| is_disk(a)).then_some(DISK_WRITE)
        }
        _ => None,
    }
}

/// A word as the guardrails read it: a literal as is; an expanded word
/// with quotes removed, `$HOME`/`${HOME…}` as `~`, `${X:-default}` as its
/// default, `${X:?}` as a non-empty placeholder and any other expansion
/// or substitution as empty (the worst case: `rm -rf "$dir/"` is `/`).
fn approximate(w: &Word) -> String {
    match w {
        Word::Literal(s) => s.clone(),
        Word::Expanded(raw) => super::approximate(raw),
    }
}
