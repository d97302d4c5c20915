//! The bash matching corpus: commands against allow rules
//! `git status`, `cargo test *`, `ls *` and deny rules `rm *`, `curl *`.
//! None of the harmful commands is allowed; the harmless ones are. Also
//! known-safe and prefix proposals, and a differential check of quote
//! removal against the real bash.

use std::fmt::Write as _;

use airlock::policy::shell::{
    ParseError, allowed_by, known_safe, parse, propose_prefix, specifier_matches,
    specifier_matches_any,
};

const ALLOW: &[&str] = &["git status", "cargo test *", "ls *"];
const DENY: &[&str] = &["rm *", "curl *"];

/// Allowed by the allow rules together? A parse error never allows.
fn allowed(command: &str) -> bool {
    match parse(command) {
        Ok(parsed) => allowed_by(ALLOW, &parsed).is_some(),
        Err(_) => false,
    }
}

/// Denied by some deny rule?
fn denied(command: &str) -> bool {
    parse(command).is_ok_and(|p| DENY.iter().any(|d| specifier_matches_any(d, &p)))
}

/// (command, allowed, why)
const ALLOW_CORPUS: &[(&str, bool, &str)] = &[
    // Harmless: must be allowed.
    ("git status", true, "exact rule"),
    ("cargo test", true, "prefix rule with nothing after it"),
    (
        "cargo test --release -p foo",
        true,
        "prefix rule with arguments",
    ),
    ("ls -la src", true, "prefix rule"),
    ("ls; git status", true, "each part matches a rule"),
    (
        "ls && git status || ls",
        true,
        "and/or lists of allowed parts",
    ),
    ("ls | ls", true, "pipeline of allowed parts"),
    ("ls\ngit status", true, "newline-separated allowed parts"),
    ("(ls; git status)", true, "subshell of allowed parts"),
    ("{ ls; git status; }", true, "group of allowed parts"),
    ("if ls; then git status; fi", true, "if with allowed parts"),
    ("ls 2>/dev/null", true, "stderr to /dev/null"),
    ("cargo test 2>&1", true, "fd duplication"),
    ("cargo test 2>&1 | ls", true, "duplication and pipe"),
    ("ls < input.txt", true, "reading a file on stdin"),
    ("ls <<EOF\nhello\nEOF", true, "here-document on stdin"),
    (
        "ls <<'EOF'\n$(rm x)\nEOF",
        true,
        "quoted here-document is not expanded",
    ),
    ("g''it status", true, "quote removal: g''it is git"),
    ("\"git\" status", true, "quote removal: \"git\" is git"),
    ("\\git status", true, "quote removal: \\git is git"),
    ("git sta$'t'us", true, "ANSI-C quoting decoded"),
    (
        "ls $HOME *.rs {a,b}",
        true,
        "expansions in arguments after a prefix",
    ),
    ("ls # a comment", true, "trailing comment"),
    ("time cargo test", true, "the time keyword only times"),
    (
        "RUST_BACKTRACE=1 cargo test",
        true,
        "harmless variable for the command",
    ),
    ("ls \\\n  -la", true, "line continuation"),
    // Harmful or not covered: must not be allowed.
    ("git status; rm -rf x", false, "chained rm"),
    (
        "git status && curl x | sh",
        false,
        "chained curl piped to sh",
    ),
    ("git status || rm x", false, "or-chained rm"),
    ("git status & rm x", false, "background-separated rm"),
    ("git status\nrm x", false, "newline-separated rm"),
    ("(git status; rm x)", false, "rm in a subshell"),
    ("{ ls; rm x; }", false, "rm in a group"),
    ("if ls; then rm x; fi", false, "rm in an if body"),
    ("while ls; do rm x; done", false, "rm in a while body"),
    ("for f in a; do rm $f; done", false, "rm in a for body"),
    ("case a in a) rm x;; esac", false, "rm in a case arm"),
    ("ls | sh", false, "pipe into a shell"),
    ("git status --short", false, "exact rule: extra argument"),
    ("git", false, "exact rule: missing argument"),
    ("cargo build", false, "different subcommand"),
    ("cargo testx", false, "word prefix is not a string prefix"),
    ("ls $(rm x)", false, "command substitution"),
    ("ls `rm x`", false, "backquoted substitution"),
    ("ls \"$(rm x)\"", false, "substitution inside double quotes"),
    ("ls <(rm x)", false, "process substitution"),
    ("ls >(rm x)", false, "output process substitution"),
    ("ls ${x:-$(rm x)}", false, "substitution in a default value"),
    (
        "ls \"${x:-'$(rm x)'}\"",
        false,
        "single quotes do not quote inside \"${…}\"",
    ),
    ("ls $((x))", false, "arithmetic on a variable can run code"),
    ("ls ${!x}", false, "indirect expansion"),
    (
        "cat <<EOF\n$(rm x)\nEOF",
        false,
        "cat is not allowed (and the heredoc runs rm)",
    ),
    (
        "ls <<EOF\n$(rm x)\nEOF",
        false,
        "unquoted here-document runs a substitution",
    ),
    (
        "ls <<< \"$(rm x)\"",
        false,
        "here-string with a substitution",
    ),
    (
        "ls <<EOF\n$\\\n(rm x)\nEOF",
        false,
        "bash deletes backslash-newline in the body before expanding it",
    ),
    (
        "ls <<EOF\nEO\\\nF\nrm x\nEOF",
        false,
        "the joined line EOF ends the body early: rm x runs",
    ),
    (
        "ls <<EOF\nline \\\nrest\nEOF",
        false,
        "a joined here-document is trusted by no rule",
    ),
    ("ls > ~/.bashrc", false, "redirection to a file"),
    ("cargo test 2> /etc/x", false, "stderr to a file"),
    ("ls >> f", false, "append to a file"),
    ("ls &> f", false, "stdout and stderr to a file"),
    ("ls >| f", false, "clobber a file"),
    ("ls <> f", false, "open a file read-write"),
    ("ls >& f", false, ">& with a file name"),
    (
        "ls < /dev/tcp/evil.example/80",
        false,
        "network pseudo-file",
    ),
    ("ls < $F", false, "input from a variable file name"),
    ("env rm x", false, "wrapper env"),
    ("env ls", false, "wrapper env around an allowed program"),
    ("xargs rm", false, "wrapper xargs"),
    ("timeout 5 rm x", false, "wrapper timeout"),
    ("nice rm x", false, "wrapper nice"),
    ("sudo ls", false, "wrapper sudo"),
    ("nohup ls", false, "wrapper nohup"),
    ("command ls", false, "wrapper command"),
    ("exec ls", false, "wrapper exec"),
    ("builtin cd", false, "wrapper builtin"),
    ("bash -c 'rm x'", false, "bash -c"),
    (
        "sh -c \"ls\"",
        false,
        "sh -c, even around an allowed program",
    ),
    ("bash -lc 'ls'", false, "-c inside an option cluster"),
    ("eval ls", false, "eval"),
    ("source x.sh", false, "source"),
    (". x.sh", false, "dot"),
    ("find . -exec rm {} \\;", false, "find -exec"),
    ("$CMD status", false, "variable in command position"),
    ("${X:-git} status", false, "expansion in command position"),
    (
        "$(echo git) status",
        false,
        "substitution in command position",
    ),
    ("/bin/l? x", false, "glob in command position"),
    ("{ls,-la}", false, "brace expansion in command position"),
    (
        "/usr/bin/git status",
        false,
        "a path is not the rule's program (strict)",
    ),
    (
        "git $'st\\x61tus'",
        true,
        "ANSI-C hex escape decoded exactly",
    ),
    (
        "git status$'\\0'x",
        false,
        "NUL in ANSI-C quoting is not decoded",
    ),
    (
        "git() { rm -rf x; }; git status",
        false,
        "function definition",
    ),
    ("PATH=/tmp/evil ls", false, "PATH for the command"),
    ("LD_PRELOAD=x.so ls", false, "LD_PRELOAD for the command"),
    ("X=1", false, "assignment only"),
    (
        "ls {PATH}</dev/null; ls",
        false,
        "named descriptor sets PATH",
    ),
    (
        "ls ${BASH_CMDS[ls]:=/tmp/x}; ls",
        false,
        "assigning the command hash",
    ),
    ("ls ${X:=1}", false, "assigning default value"),
    (
        "for PATH in /tmp/evil; do ls; done",
        false,
        "loop variable PATH",
    ),
    (
        "for f in a b; do ls $f; done",
        true,
        "lowercase loop variable, allowed body",
    ),
    (
        "ls '{PATH}' \\{PATH\\}",
        true,
        "quoted braces are plain words",
    ),
    ("[[ -f x ]] && ls", false, "[[ ]] is not modelled"),
    (
        "( ( rm x ) )",
        false,
        "read as arithmetic by the parser: not modelled",
    ),
    ("coproc ls", false, "coproc"),
    ("trap 'rm x' EXIT; ls", false, "trap"),
    ("cd src && ls", false, "cd is not allowed by these rules"),
    ("ls (", false, "unparseable"),
    ("if then", false, "unparseable"),
    ("echo 'unterminated", false, "unterminated quote"),
    ("ls \"unterminated", false, "unterminated double quote"),
    ("ls $(", false, "unterminated substitution"),
    ("", false, "empty command"),
    ("   ", false, "blank command"),
    ("# only a comment", false, "comment only"),
    ("> f", false, "redirection alone"),
];

#[test]
fn allow_corpus() {
    assert!(ALLOW_CORPUS.len() >= 60);
    let wrong: Vec<String> = ALLOW_CORPUS
        .iter()
        .filter(|(cmd, want, _)| allowed(cmd) != *want)
        .map(|(cmd, want, why)| {
            format!(
                "{cmd:?}: expected allowed={want} ({why}), parsed as {:?}",
                parse(cmd)
            )
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// (command, denied, why)
const DENY_CORPUS: &[(&str, bool, &str)] = &[
    ("rm -rf x", true, "direct"),
    ("git status; rm -rf x", true, "chained"),
    ("git status && curl x | sh", true, "curl in a pipeline"),
    ("ls $(rm x)", true, "in a command substitution"),
    ("ls `rm x`", true, "in backquotes"),
    ("ls <(rm x)", true, "in a process substitution"),
    ("ls \"${x:-$(curl x)}\"", true, "in a default value"),
    (
        "ls \"${x:-'$(rm x)'}\"",
        true,
        "in a default value, single quotes literal",
    ),
    ("bash -c 'rm x'", true, "in bash -c"),
    ("sh -c \"ls; rm x\"", true, "in sh -c, second part"),
    ("bash -c \"bash -c 'rm x'\"", true, "nested command strings"),
    ("eval 'rm x'", true, "in eval"),
    ("sudo rm x", true, "under sudo"),
    ("sudo -u root env A=b rm x", true, "under stacked wrappers"),
    ("env rm x", true, "under env"),
    ("xargs rm", true, "under xargs"),
    ("timeout 5 rm x", true, "under timeout"),
    ("nice -n 5 rm x", true, "under nice"),
    ("find . -exec rm {} \\;", true, "find -exec"),
    (
        "find . -execdir sh -c 'rm x' \\;",
        true,
        "sh -c under find -execdir",
    ),
    ("/bin/rm x", true, "by path"),
    ("\\rm x", true, "escaped name"),
    ("r''m x", true, "quoted name"),
    ("f() { rm x; }", true, "in a function body"),
    (
        "( ( rm x ) )",
        true,
        "in what the parser reads as arithmetic",
    ),
    ("su -c 'rm x'", true, "command string of su"),
    ("watch 'curl x'", true, "command string of watch"),
    ("trap 'rm x' EXIT", true, "trap handler"),
    (
        "ls <<EOF\n$\\\n(rm x)\nEOF",
        true,
        "$\\⏎( in a here-document",
    ),
    (
        "ls <<EOF\n${x:-$\\\n(rm x)}\nEOF",
        true,
        "in a default value, behind a backslash-newline",
    ),
    (
        "ls <<EOF\nEO\\\nF\nrm x\nEOF",
        true,
        "after the joined delimiter",
    ),
    (
        "ls <<ls\nx\\\nls\necho '$(rm x)'\nls",
        true,
        "body past a joined line, quotes literal",
    ),
    ("eval $'ls #\\\nrm x'", true, "$'…' keeps backslash-newline"),
    ("env -S'rm x'", true, "env -S attached"),
    ("env -Srm x", true, "env -S attached program"),
    ("su -c'rm x'", true, "su -c attached"),
    ("script -qc'rm x' /dev/null", true, "script -c in a cluster"),
    ("setpriv rm x", true, "under setpriv"),
    ("setarch x86_64 rm x", true, "under setarch"),
    ("compgen -C 'rm x' w", true, "compgen -C command"),
    (
        "ls <<'EOF'\n$\\\n(rm x)\nEOF",
        false,
        "quoted delimiter: nothing joined or expanded",
    ),
    ("echo -S'rm x'", false, "echo runs no option value"),
    ("ls -la", false, "nothing denied"),
    ("echo rm x", false, "rm is only an argument of echo"),
    ("git rm x", false, "git rm is not rm"),
    ("ls rm", false, "argument named rm"),
    ("$X x", false, "unknown program: not proven, left to ask"),
    ("rmdir x", false, "different program"),
];

#[test]
fn deny_corpus() {
    let wrong: Vec<String> = DENY_CORPUS
        .iter()
        .filter(|(cmd, want, _)| denied(cmd) != *want)
        .map(|(cmd, want, why)| {
            format!(
                "{cmd:?}: expected denied={want} ({why}), parsed as {:?}",
                parse(cmd)
            )
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn single_rule_needs_every_part() {
    let p = parse("ls; git status").unwrap();
    assert!(!specifier_matches("ls *", &p));
    assert!(!specifier_matches("git status", &p));
    assert_eq!(allowed_by(ALLOW, &p), Some(vec![0, 2]));
    assert!(specifier_matches("ls *", &parse("ls | ls -l").unwrap()));
    assert!(!specifier_matches(
        "ls *",
        &parse("ls | ls -l > f").unwrap()
    ));
    assert!(!specifier_matches(
        "find *",
        &parse("find . -exec rm {} +").unwrap()
    ));
    assert!(specifier_matches(
        "find *",
        &parse("find . -name x").unwrap()
    ));
}

#[test]
fn parse_errors_are_errors() {
    for bad in ["ls (", "if then", "echo 'x", "ls 99999999999>f"] {
        assert!(matches!(parse(bad), Err(ParseError::Syntax(_))), "{bad}");
    }
    let deep = format!("{}ls{}", "{ ".repeat(2000), "; }".repeat(2000));
    assert_eq!(parse(&deep), Err(ParseError::TooComplex));
    assert_eq!(parse(&"x".repeat(100_000)), Err(ParseError::TooComplex));
}

#[test]
fn deep_nesting_within_bounds_parses() {
    // The parser recurses per level; parse() gives it a stack for this.
    let groups = format!("{}ls{}", "{ ".repeat(500), "; }".repeat(500));
    assert!(allowed(&groups));
    let ifs = format!("{}ls{}", "if ls; then ".repeat(300), "; fi".repeat(300));
    assert!(allowed(&ifs));
    let subs = format!("ls {}x{}", "\"$(".repeat(300), ")\"".repeat(300));
    assert!(!allowed(&subs));
}

/// (command, known safe)
const SAFE_CORPUS: &[(&str, bool)] = &[
    ("ls -la", true),
    ("cat README.md | grep -n foo | head -5", true),
    ("git status", true),
    ("git log --oneline -5", true),
    ("git diff HEAD~1", true),
    ("find . -name '*.rs'", true),
    ("wc -l src/*.rs", true),
    ("echo hi && pwd", true),
    ("ls 2>/dev/null", true),
    ("git diff --output=patch", false),
    ("git -c core.pager=sh log", false),
    ("git push", false),
    ("git branch feature", false),
    ("find . -delete", false),
    ("find . -exec cat {} +", false),
    ("find $D -name x", false),
    ("sort -o out in", false),
    ("printf -v PATH x", false),
    ("ls > out", false),
    ("cat $(which ls)", false),
    ("rm x", false),
    ("ls; rm x", false),
    ("env rm x", false),
    ("sudo ls", false),
    ("", false),
];

#[test]
fn known_safe_corpus() {
    let wrong: Vec<String> = SAFE_CORPUS
        .iter()
        .filter(|(cmd, want)| parse(cmd).ok().as_ref().and_then(known_safe).is_some() != *want)
        .map(|(cmd, want)| format!("{cmd:?}: expected known_safe={want}"))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(
        known_safe(&parse("git status && ls").unwrap()).as_deref(),
        Some("known read-only command: git status, ls")
    );
}

/// (command, proposed prefix)
const PREFIX_CORPUS: &[(&str, Option<&str>)] = &[
    ("cargo test --release foo", Some("cargo test *")),
    ("git commit -m 'fix: x'", Some("git commit *")),
    ("npm run build", Some("npm run build *")),
    ("ls -la src", Some("ls *")),
    ("make", Some("make *")),
    ("cargo test && cargo test -p x", Some("cargo test *")),
    ("cargo build && cargo test", None),
    ("git -C repo status", None),
    ("python3 script.py", None),
    ("ls > out", None),
    ("sudo ls", None),
    ("$X run", None),
    ("", None),
];

#[test]
fn prefix_corpus() {
    for (cmd, want) in PREFIX_CORPUS {
        let parsed = parse(cmd).unwrap();
        let got = propose_prefix(&parsed);
        assert_eq!(got.as_deref(), *want, "{cmd:?}");
        if let Some(p) = got {
            assert!(specifier_matches(&p, &parsed), "{p} must match {cmd:?}");
        }
    }
}

/// Quote removal agrees with bash: for commands we read as one simple
/// command of literal words, bash's argv is the same.
#[test]
fn literal_words_agree_with_bash() {
    let mut commands: Vec<String> = [
        "g''it status",
        "\"git\" status",
        "\\git status",
        "git sta$'t'us",
        "git $'st\\x61tus'",
        "git $'\\147it'",
        "a 'b c' \"d e\" f\\ g",
        "a \"\\$x\" '\\$x' \\$x",
        "a \"it's\" 'say \"hi\"'",
        "a $'\\'' $'\\\\' $'\\t' $'\\n'",
        "a \"\\\\\" \"\\a\" \\\\",
        "a b#c '#' \"#\"",
        "a '' \"\"",
        "a \\\nb",
        "a \"x\\\ny\"",
        "a ]",
        "[ -f x ]",
        "a {} @{u} x{y}z",
        "a '*' \"?\" \\*",
        "a $'\\u0041' $'\\101' $'\\x41\\x42'",
        "a =b c=d",
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    commands.extend(generated_commands(300));

    let mut script = String::new();
    let mut expected = Vec::new();
    for cmd in &commands {
        let parsed = parse(cmd).unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
        if !parsed.is_hazard_free() || parsed.commands.len() != 1 {
            continue;
        }
        let Some(argv) = parsed.commands[0].literal_argv() else {
            continue;
        };
        expected.push((
            cmd.clone(),
            argv.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ));
        let _ = write!(
            script,
            "set -- {cmd}\nprintf '%s\\0' \"$@\"; printf '\\001'\n"
        );
    }
    assert!(
        expected.len() >= 200,
        "too few literal cases: {}",
        expected.len()
    );

    let out = std::process::Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &script])
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "bash failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let got: Vec<Vec<String>> = stdout
        .split('\u{1}')
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.split('\0')
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .collect();
    assert_eq!(got.len(), expected.len());
    for ((cmd, want), got) in expected.iter().zip(&got) {
        // bash's empty words vanish in the split above; compare likewise.
        let want: Vec<&String> = want.iter().filter(|w| !w.is_empty()).collect();
        let got: Vec<&String> = got.iter().collect();
        assert_eq!(got, want, "argv of {cmd:?}");
    }
}

/// Deterministic pseudo-random commands built from quoting pieces.
fn generated_commands(n: usize) -> Vec<String> {
    const PIECES: &[&str] = &[
        "a", "b1", "-x", "--y=z", "'q r'", "\"s t\"", "\\u", "$'\\x41'", "\"\\$\"", "\\ ", "''",
        "\"\"", "$'\\''", "\"it's\"", "\\\"", "'\\'", "\"\\\\\"", "\\\\", "$'\\t'", "\"a'b\"",
        "'a\"b'", "#", "=", ".", "/", "%", "+", "@", ":", ",", "\"#\"",
    ];
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move |m: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        usize::try_from(state % m as u64).expect("below m, a usize")
    };
    (0..n)
        .map(|_| {
            let words = 1 + next(4);
            (0..words)
                .map(|_| {
                    let pieces = 1 + next(4);
                    let mut w: String = (0..pieces).map(|_| PIECES[next(PIECES.len())]).collect();
                    // A word may not start a comment.
                    if w.starts_with('#') {
                        w.insert(0, 'w');
                    }
                    w
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .map(|c| format!("cmd {c}"))
        .collect()
}

/// Wherever bash really runs a command substitution, the parse shows a
/// hazard (or fails). `X` is a function that reports being run.
#[test]
fn substitutions_bash_runs_are_seen() {
    const CASES: &[&str] = &[
        "ls \"\"#$(X)",
        r"ls x\ #$(X)",
        r"ls $x#$(X)",
        r"ls 'a'#$(X)",
        r"ls \##$(X)",
        r"ls {}#$(X)",
        r"ls >#$(X)",
        r"ls 2>&1#$(X)",
        r#"ls "'$(X)'""#,
        r#"ls '"$(X)"'"#,
        r#"ls \"$(X)\""#,
        r"ls $'$(X)'",
        r#"ls "\$(X)""#,
        r#"ls "\\$(X)""#,
        r"ls \\$(X)",
        r#"ls "${x:-"$(X)"}""#,
        r"ls ${x:-'$(X)'}",
        r#"ls "${x:-'$(X)'}""#,
        r#"ls "${x/'$(X)'/y}""#,
        r#"ls "${x#'`X`'}""#,
        "ls <<E\n$(X)\nE",
        "ls <<\\E\n$(X)\nE",
        "ls <<E\n\\$(X)\nE",
        "ls <<E\n\\\\$(X)\nE",
        "ls <<-E\n\t$(X)\n\tE",
        r"ls `echo \$(X)`",
        r#"ls "`X`""#,
        r"ls '`X`'",
        r"ls $(( $(X) ))",
        r"ls ${x[$(X)]}",
        r"x=$(X) ls",
        r"ls x=$(X)",
        r#"ls <<< "$(X)""#,
        r"ls $(</dev/null)$(X)",
        r#"ls $(echo ")")$(X)"#,
        "ls $(# )\nX)",
        r"ls ${x:0:$(X)}",
        r"case $(X) in *) ls;; esac",
        r"for f in $(X); do ls; done",
        r#"ls > "$(X)""#,
        "ls <<E\n$\\\n(X)\nE",
        "ls <<E\n$\\\n\\\n(X)\nE",
        "ls <<E\n${x:-$\\\n(X)}\nE",
        "ls <<E\n`X\\\n`\nE",
        "ls <<ls\nx\\\nls\n'$(X)'\nls",
    ];
    let mut ran = 0;
    for case in CASES {
        let out = std::process::Command::new("bash")
            .args(["--norc", "--noprofile", "-c"])
            .arg(format!("X() {{ echo RAN >&2; }}; ls() {{ :; }}\n{case}"))
            .current_dir(std::env::temp_dir())
            .output()
            .expect("bash runs");
        let bash_ran = String::from_utf8_lossy(&out.stderr).contains("RAN");
        let seen = parse(case).map_or(true, |p| !p.is_hazard_free());
        if bash_ran {
            ran += 1;
            assert!(
                seen,
                "bash runs a substitution in {case:?} that the parse does not show"
            );
        }
    }
    assert!(ran >= 25, "only {ran} cases ran a substitution in bash");
}

/// Wherever bash really changes `PATH` or its command hash (which decide
/// what a later, allowed command runs), the parse shows a hazard.
#[test]
fn variable_changes_bash_makes_are_seen() {
    const CASES: &[&str] = &[
        "ls {PATH}</dev/null",
        "ls {PATH}>/dev/null",
        "ls ${BASH_CMDS[ls]:=/bin/echo}",
        "for PATH in /nonexistent; do ls; done",
        "ls $((PATH=1))",
        "ls ${PATH:=x} ${BASH_CMDS[x]:=y}",
        "PATH=/nonexistent",
        "PATH+=:/x",
        "BASH_CMDS[ls]=/bin/echo",
        "ls \"${x:-$((PATH=2))}\"",
        "ls \"${x:-'$((PATH=2))'}\"",
    ];
    let mut changed = 0;
    for case in CASES {
        let script = format!(
            "ls() {{ :; }}; before=$PATH\n{case}\n\
             if [[ $PATH != \"$before\" || -n ${{BASH_CMDS[x]+set}}${{BASH_CMDS[ls]+set}} ]]; then echo CHANGED >&2; fi"
        );
        let out = std::process::Command::new("bash")
            .args(["--norc", "--noprofile", "-c", &script])
            .current_dir(std::env::temp_dir())
            .output()
            .expect("bash runs");
        let bash_changed = String::from_utf8_lossy(&out.stderr).contains("CHANGED");
        let seen = parse(case).map_or(true, |p| !p.is_hazard_free());
        if bash_changed {
            changed += 1;
            assert!(
                seen,
                "bash changes PATH or its hash in {case:?}, the parse shows nothing"
            );
        }
    }
    assert!(
        changed >= 9,
        "only {changed} cases changed something in bash"
    );
}

/// Commands that delete, move or overwrite, and interpreters: only the
/// exact command is offered (issue 12). CONTROL: a prefix of the same
/// shape is proposed for a harmless look-alike, and a prefix rule such as
/// `rm *` would indeed match a far worse command than the one approved.
#[test]
fn no_prefix_for_destructive_commands_or_interpreters() {
    for cmd in [
        "rm -rf build",
        "rm build/out.o",
        "/bin/rm x",
        "mv a b",
        "cp a b",
        "dd if=a of=b",
        "chmod 644 x",
        "chown me x",
        "ln -sf a b",
        "truncate -s 0 x",
        "shred x",
        "tee out",
        "find build -name x",
        "rsync -a a b",
        "git push origin main",
        "git reset --hard",
        "git clean -fdx",
        "git checkout -- src",
        "git restore src",
        "git branch -D x",
        "git stash drop",
        "cargo clean",
        "npm uninstall x",
        "docker rm x",
        "kubectl delete pod x",
        "bash script.sh",
        "bash run",
        "sh build",
        "python3 manage",
        "python3.12 manage migrate",
        "python script.py",
        "node server",
        "ruby x",
        "perl x",
        "awk x",
        "sed s",
        "npx something",
        "deno run x",
    ] {
        let parsed = parse(cmd).unwrap();
        assert_eq!(propose_prefix(&parsed), None, "{cmd:?}");
    }
    // CONTROL: the proposer does propose for harmless shapes.
    for (cmd, want) in [
        ("ls -la build", "ls *"),
        ("git status --short", "git status *"),
        ("cargo build --release", "cargo build *"),
        ("make test", "make test *"),
    ] {
        assert_eq!(propose_prefix(&parse(cmd).unwrap()).as_deref(), Some(want));
    }
    // CONTROL: what a prefix for `rm` would have allowed.
    assert!(specifier_matches(
        "rm *",
        &parse("rm -rf ~/important").unwrap()
    ));
    assert!(specifier_matches(
        "bash run *",
        &parse("bash run --evil").unwrap()
    ));
}
