//! Backslash-newline (review F1). In a here-document with an unquoted
//! delimiter bash deletes every `\` + newline while it reads the body,
//! before it expands it and before it looks for the delimiter, so
//! `$\⏎(cmd)` runs `cmd`, a line `EO\⏎F` ends the body and `x\⏎EOF` does
//! not; inside `$'…'` bash keeps the pair. The policy reads them as bash
//! does: such a command is never allowed (not by a rule, not as
//! known-safe), a deny rule sees what it runs, and so do the guardrails.
//!
//! CONTROLS: the real bash runs the hidden `touch X`, brush-parser's own
//! reading (what the policy read before) does not show it, and without
//! the deny rule the blanket `allow bash` allows the command.

mod policy_support;

use std::process::Command;

use policy_support::{policy_of, really_touches_after, verdict};

use airlock::call::Verdict;
use airlock::policy::guardrails::{self, RM_ROOT};
use airlock::policy::shell::{Word, parse};
use airlock::policy::{Action, Policy};
use brush_parser::Token;
use brush_parser::word::{self, WordPiece};

/// Each hides `touch X` from a reading that keeps the backslash-newline.
const HIDDEN: &[&str] = &[
    "cat <<EOF\n$\\\n(touch X)\nEOF",
    "cat <<EOF\n$\\\n\\\n\\\n(touch X)\nEOF",
    "cat <<EOF\n${x:-$\\\n(touch X)}\nEOF",
    "cat <<EOF\n$\\\n{x:-$\\\n(touch X)}\nEOF",
    "cat <<EOF\n$\\\n((a[$\\\n(touch X)]))\nEOF",
    "cat <<EOF\n`touch \\\nX`\nEOF",
    "cat <<EOF | cat\n$\\\n(touch X)\nEOF",
    "cat <<-EOF\n\t$\\\n(touch X)\n\tEOF",
    "cat <<EOF >/dev/null\nok\nEOF\ncat <<EOF\n$\\\n(touch X)\nEOF",
    "git commit --dry-run -F - <<EOF\nmsg\n$\\\n(touch X)\nEOF",
    // bash ends the body at the joined line `EOF`: the rest is commands.
    "cat <<EOF\nEO\\\nF\ntouch X\nEOF",
    "cat <<EOF\nEOF\\\n\ntouch X\nEOF",
    // bash reads past `x\⏎ls` (the joined line is `xls`): the lines
    // brush took for commands are body, where quotes do not quote.
    "cat <<ls\nx\\\nls\necho '$(touch X)'\nls",
    // `$'…'` keeps the pair: the comment ends at the newline.
    "eval $'ls #\\\ntouch X'",
    "bash -c $'ls #\\\ntouch X'",
];

fn policy(rules: &[(Action, &str)], read_only: bool) -> Policy {
    policy_of(rules, read_only)
}

/// CONTROL: the real bash creates `X` (`git` runs a dry-run commit in a
/// fresh repository, with `ls`, `cat` and `echo` the real ones).
fn really_touches(command: &str) {
    really_touches_after("git init -q . 2>/dev/null\n", command);
}

/// CONTROL: what brush-parser alone reads (the policy's reading before
/// the fix) runs no `touch X`: no here-document body read raw holds a
/// substitution of it, no word is a command `touch`, and no ANSI-C
/// string read as code runs it.
fn brush_alone_sees_touch(command: &str) -> bool {
    let tokens = brush_parser::tokenize_str(command).unwrap();
    let substitutes_touch = |pieces: &[word::WordPieceWithSource]| {
        pieces.iter().any(|p| match &p.piece {
            WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                s.contains("touch X")
            }
            _ => false,
        })
    };
    let options = brush_parser::ParserOptions::default();
    for (i, token) in tokens.iter().enumerate() {
        let Token::Word(text, _) = token else {
            continue;
        };
        let is_body = i >= 2
            && matches!(&tokens[i - 2], Token::Operator(op, _) if op.starts_with("<<") && op != "<<<");
        if is_body {
            let pieces = word::parse_heredoc(text, &options).unwrap();
            if substitutes_touch(&pieces) {
                return true;
            }
            continue;
        }
        if text == "touch" {
            return true;
        }
        let Ok(pieces) = word::parse(text, &options) else {
            continue;
        };
        if substitutes_touch(&pieces) {
            return true;
        }
        for p in &pieces {
            if let WordPiece::AnsiCQuotedText(code) = &p.piece
                && parse(code).is_ok_and(|c| {
                    c.commands
                        .iter()
                        .chain(&c.nested)
                        .any(|c| c.program() == Some("touch"))
                })
            {
                return true;
            }
        }
    }
    false
}

#[test]
fn hidden_commands_are_never_allowed_and_deny_rules_see_them() {
    let allow_all = policy(&[(Action::Allow, "bash")], false);
    let deny = policy(
        &[(Action::Allow, "bash"), (Action::Deny, "bash(touch *)")],
        false,
    );
    let rules = policy(
        &[
            (Action::Allow, "bash(cat *)"),
            (Action::Allow, "bash(git commit *)"),
            (Action::Allow, "bash(eval *)"),
            (Action::Allow, "bash(bash *)"),
        ],
        false,
    );
    let read_only = policy(&[], true);
    for command in HIDDEN {
        really_touches(command);
        assert!(
            !brush_alone_sees_touch(command),
            "control: brush alone reads {command:?} without touch"
        );
        assert_eq!(
            verdict(&allow_all, command),
            Verdict::Allow,
            "control: without the deny rule {command:?} is allowed"
        );
        assert_eq!(verdict(&deny, command), Verdict::Deny, "{command:?}");
        assert_ne!(verdict(&rules, command), Verdict::Allow, "{command:?}");
        assert_ne!(verdict(&read_only, command), Verdict::Allow, "{command:?}");
        let parsed = parse(command).unwrap();
        let touch = [Word::Literal("touch".into()), Word::Literal("X".into())];
        assert!(
            parsed
                .commands
                .iter()
                .chain(&parsed.nested)
                .any(|c| c.words.ends_with(&touch)),
            "{command:?} lists touch X: {parsed:?}"
        );
    }
}

/// A here-document that joins lines is trusted by no rule even when
/// nothing in it runs, and asked (with the reason) where a deny rule
/// exists: the join changes what bash reads. CONTROL: the same body
/// without the backslash-newline is allowed by the same rules.
#[test]
fn joined_here_documents_are_dynamic() {
    let rules = policy(
        &[(Action::Allow, "bash(cat *)"), (Action::Deny, "bash(rm *)")],
        false,
    );
    assert_eq!(
        verdict(&rules, "cat <<EOF\nline one\nline two\nEOF"),
        Verdict::Allow,
        "control"
    );
    let joined = "cat <<EOF\nline one \\\nline two\nEOF";
    assert_eq!(verdict(&rules, joined), Verdict::Ask);
    let p = parse(joined).unwrap();
    assert!(!p.is_hazard_free() && !p.dynamic.is_empty(), "{p:?}");
    // A quoted delimiter keeps the pair: nothing is joined.
    assert_eq!(
        verdict(&rules, "cat <<'EOF'\nline one \\\nline two\nEOF"),
        Verdict::Allow
    );
    // An escaped backslash does not start one.
    assert!(parse("cat <<EOF\na\\\\\nb\nEOF").unwrap().is_hazard_free());
}

/// Expansions that run code or assign, hidden the same way: hazards of
/// the here-document's command. CONTROL: bash really assigns
/// `BASH_CMDS[cat]` or runs the prompt expansion's substitution.
#[test]
fn code_in_expansions_behind_a_continuation_is_seen() {
    const CASES: &[&str] = &[
        "cat <<EOF\n$\\\n{BASH_CMDS[cat]:=/bin/echo}\nEOF",
        "cat <<EOF\n$\\\n{x:=1}\nEOF",
        "cat <<EOF\n${y\\\n@P}\nEOF",
        "cat <<EOF\n$\\\n{y@P}\nEOF",
        "cat <<EOF\n$\\\n{!z}\nEOF",
    ];
    for case in CASES {
        let script = format!(
            "y='$(echo RAN >&2)'; z=y; {{ {case}\n}} >/dev/null\n\
             [[ -n ${{BASH_CMDS[cat]+set}}${{x+set}} ]] && echo CHANGED >&2; true"
        );
        let out = Command::new("bash")
            .args(["--norc", "--noprofile", "-c", &script])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let indirect = case.contains('!');
        assert!(
            indirect || stderr.contains("RAN") || stderr.contains("CHANGED"),
            "control: bash acts on {case:?}: {stderr}"
        );
        let p = parse(case).unwrap();
        let cat = &p.commands[0];
        assert!(
            cat.hazards.iter().any(|h| {
                let h = h.to_string();
                h.contains("expansion that can run code") || h.contains("assignment")
            }),
            "{case:?}: {p:?}"
        );
    }
}

/// The guardrails see through the same spellings, on the parsed command
/// and in the tokenizer used for input the parser rejects (a trailing
/// `(` makes it so). CONTROL: the real bash hands a stub `rm` first on
/// PATH the operands `-rf /`.
#[test]
fn guardrails_see_rm_root_behind_continuations() {
    let cases: Vec<String> = HIDDEN
        .iter()
        .filter(|c| !c.starts_with("git") && c.contains("touch X"))
        .map(|c| c.replace("touch X", "rm -rf /"))
        .collect();
    let scratch = tempfile::tempdir().unwrap();
    let bin = scratch.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let stub = bin.join("rm");
    std::fs::write(&stub, "#!/bin/sh\necho \"$@\" >> \"$AIRLOCK_ARGV\"\n").unwrap();
    Command::new("chmod").arg("+x").arg(&stub).status().unwrap();
    let log = scratch.path().join("argv");
    for case in &cases {
        let _ = std::fs::remove_file(&log);
        Command::new("bash")
            .args(["--norc", "--noprofile", "-c", case])
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .env("AIRLOCK_ARGV", &log)
            .current_dir(scratch.path())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let argv = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(argv.contains("-rf /"), "control: bash runs rm for {case:?}");
        assert_eq!(guardrails::check(case), Some(RM_ROOT), "{case:?}");
        let unparseable = format!("{case}\n(");
        assert!(parse(&unparseable).is_err(), "{unparseable:?} parses");
        assert_eq!(
            guardrails::check(&unparseable),
            Some(RM_ROOT),
            "tokenizer: {unparseable:?}"
        );
    }
}
