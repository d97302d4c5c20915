//! Programs that run other code: shells given `-c`, `eval`, `source`,
//! wrappers (`sudo`, `env`, `xargs` …) and `find -exec`. Each adds a hazard
//! to the command, and the code it runs is recorded as nested commands so
//! that deny rules see it (`sudo rm x` is denied by `rm *`).

use super::parse::Walker;
use super::{Hazard, SimpleCommand, Word};

/// Shells whose `-c` takes a command string.
pub(crate) const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh",
    "rbash",
];

/// Programs that run another program given in their arguments (or a
/// command string given to an option, `su -c`, `env -S`). The policy's
/// one table: the parser, the guardrails (both readings) and the prefix
/// proposer use it.
pub(crate) const WRAPPERS: &[&str] = &[
    "env",
    "sudo",
    "doas",
    "run0",
    "su",
    "runuser",
    "pkexec",
    "ksu",
    "sg",
    "newgrp",
    "xargs",
    "parallel",
    "timeout",
    "timelimit",
    "nice",
    "nohup",
    "exec",
    "command",
    "builtin",
    "stdbuf",
    "ionice",
    "chroot",
    "fakechroot",
    "flock",
    "lckdo",
    "watch",
    "time",
    "strace",
    "ltrace",
    "setsid",
    "busybox",
    "toybox",
    "coreutils",
    "taskset",
    "chrt",
    "numactl",
    "prlimit",
    "setpriv",
    "setarch",
    "linux32",
    "linux64",
    "i386",
    "x86_64",
    "uname26",
    "runcon",
    "choom",
    "uclampset",
    "enosys",
    "capsh",
    "unbuffer",
    "script",
    "systemd-run",
    "systemd-inhibit",
    "systemd-cat",
    "systemd-nspawn",
    "nsenter",
    "unshare",
    "firejail",
    "bwrap",
    "proot",
    "schroot",
    "nsjail",
    "minijail0",
    "fakeroot",
    "eatmydata",
    "faketime",
    "chronic",
    "ifne",
    "cgexec",
    "chpst",
    "gosu",
    "su-exec",
    "setuidgid",
    "envdir",
    "softlimit",
    "start-stop-daemon",
    "daemonize",
    "cpulimit",
    "trickle",
    "nocache",
    "sshpass",
    "catchsegv",
    "valgrind",
    "torsocks",
    "torify",
    "tsocks",
    "proxychains",
    "proxychains4",
    "dbus-run-session",
    "dbus-launch",
    "ssh-agent",
    "xvfb-run",
    "hyperfine",
    "entr",
];

/// The last path component of a program word: `/usr/bin/env` is `env`.
pub fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// Whether `name` (a basename) is a shell whose `-c` takes a command
/// string.
pub fn is_shell(name: &str) -> bool {
    SHELLS.contains(&name)
}

/// Whether `name` (a basename) is a wrapper.
pub fn is_wrapper(name: &str) -> bool {
    WRAPPERS.contains(&name)
}

/// Builtins whose words can reach bash's arithmetic evaluation, which
/// runs the command substitutions in an array subscript
/// (`test -v 'a[$(cmd)]'`, `read 'a[$(cmd)]'`, `let 'a[$(cmd)]'`): any
/// variable name they assign, unset or test may carry a subscript, and a
/// value assigned to an integer variable (`declare -i n; read n`) is
/// evaluated too. The words are checked after quote removal, so quoting
/// does not help; any of these is a hazard unless it provably names no
/// variable.
fn evaluates_subscripts(name: &str, args: &[Word]) -> Option<&'static str> {
    let expanded = || args.iter().any(|a| a.literal().is_none());
    match name {
        "let" => Some("let evaluates arithmetic"),
        "declare" | "typeset" | "local" | "export" | "readonly" | "unset" => {
            Some("a variable name may carry an array subscript, evaluated as arithmetic")
        }
        "read" | "mapfile" | "readarray" | "getopts" => {
            Some("assigns shell variables: a subscript or an integer variable evaluates arithmetic")
        }
        // `printf -v NAME`; an expanded first word may turn out to be `-v`.
        "printf" => match args.first() {
            Some(Word::Literal(f)) if !f.starts_with("-v") => None,
            None => None,
            _ => Some("printf -v assigns a variable (its subscript is evaluated)"),
        },
        // `wait -p NAME` assigns NAME.
        "wait" => (expanded()
            || args
                .iter()
                .filter_map(Word::literal)
                .any(|a| a.starts_with('-') && a.contains('p')))
        .then_some("wait -p assigns a variable (its subscript is evaluated)"),
        // `test -v 'a[…]'` evaluates the subscript; an expanded word may
        // turn out to be `-v` or the subscripted name.
        "test" | "[" => (expanded()
            || args
                .iter()
                .filter_map(Word::literal)
                .any(|a| matches!(a, "-v" | "-R")))
        .then_some("test -v evaluates an array subscript"),
        _ => None,
    }
}

impl Walker {
    /// Adds the hazards of a command whose program word is literal and
    /// records the code it runs. `expand_wrappers` is false for the tails
    /// of a wrapper's arguments, which are all enumerated by the first
    /// wrapper already.
    pub(super) fn special(
        &mut self,
        words: &[Word],
        hazards: &mut Vec<Hazard>,
        expand_wrappers: bool,
    ) {
        let Some(program) = words.first().and_then(Word::literal) else {
            return;
        };
        let args = &words[1..];
        let name = basename(program);
        if let Some(why) = evaluates_subscripts(name, args) {
            hazards.push(Hazard::CodeInExpansion(why.into()));
        }
        if matches!(
            name,
            "declare" | "typeset" | "local" | "export" | "readonly"
        ) {
            for arg in args {
                match arg {
                    Word::Literal(a) => {
                        let (var, value) = a.split_once('=').unwrap_or((a, ""));
                        self.code_variable(var, Some(value));
                    }
                    Word::Expanded(w) => {
                        self.dynamic(format!("{name} of an expanded word (`{w}`)"));
                    }
                }
            }
        }
        self.locale_arguments(name, args);
        match name {
            "eval" => {
                hazards.push(Hazard::Eval);
                self.code_from_args(args);
            }
            "trap" => {
                let lists_only = args
                    .iter()
                    .all(|a| matches!(a.literal(), Some("-p" | "-l" | "--")));
                if !lists_only {
                    hazards.push(Hazard::Eval);
                    match args
                        .iter()
                        .find(|a| a.literal().is_none_or(|s| !s.starts_with('-')))
                    {
                        Some(Word::Literal(code)) => {
                            self.nested_source(code);
                        }
                        Some(Word::Expanded(_)) => {
                            self.dynamic("trap of code that is not literal".into());
                        }
                        None => {}
                    }
                }
            }
            "fc" => {
                hazards.push(Hazard::Eval);
                self.dynamic("fc runs commands from the history".into());
            }
            "mapfile" | "readarray" | "compgen" | "complete" | "bind" => {
                self.code_options(name, args, hazards);
            }
            "source" | "." => {
                hazards.push(Hazard::Source);
                let hidden = |a: &str| a.starts_with("/dev/") || a.starts_with("/proc/");
                if args.first().is_none_or(|a| a.literal().is_none_or(hidden)) {
                    self.dynamic("source of a file that is not named literally".into());
                }
            }
            "alias" | "hash" | "enable" if !args.is_empty() => {
                hazards.push(Hazard::Eval);
                self.dynamic(format!("{name} defines what a command name runs"));
            }
            "find" => self.find(args, hazards),
            "command" if matches!(args.first().and_then(Word::literal), Some("-v" | "-V")) => {}
            "env" if args.is_empty() => {}
            _ if is_shell(name) => self.shell(args, hazards),
            _ if is_wrapper(name) => {
                hazards.push(Hazard::Wrapper(name.to_owned()));
                if matches!(name, "parallel" | "hyperfine" | "entr") {
                    self.dynamic(format!("{name} runs its arguments or input as commands"));
                }
                if name == "env" {
                    self.env_split_string(args);
                }
                if expand_wrappers {
                    self.wrapped(name, args);
                }
            }
            _ => {}
        }
    }

    /// `eval a b c` runs the words joined by spaces.
    fn code_from_args(&mut self, args: &[Word]) {
        let literal: Option<Vec<&str>> = args.iter().map(Word::literal).collect();
        match literal {
            Some(parts) => {
                if !self.nested_source(&parts.join(" ")) {
                    self.dynamic("eval of text that cannot be parsed".into());
                }
            }
            None => self.dynamic("eval of text that is not literal".into()),
        }
    }

    /// `bash [options] -c STRING …`: the string is a command.
    fn shell(&mut self, args: &[Word], hazards: &mut Vec<Hazard>) {
        let mut dash_c = false;
        let mut dash_s = false;
        let mut skip_next = false;
        let mut string = None;
        for arg in args {
            if skip_next {
                skip_next = false;
                continue;
            }
            let Some(a) = arg.literal() else {
                // An expanded word among the options: it may be `-c`.
                if string.is_none() {
                    dash_c = true;
                }
                break;
            };
            if a == "--" || a == "-" {
                continue;
            }
            if let Some(long) = a.strip_prefix("--") {
                skip_next = matches!(long, "rcfile" | "init-file");
                continue;
            }
            if let Some(cluster) = a.strip_prefix('-').or_else(|| a.strip_prefix('+')) {
                dash_c |= cluster.contains('c');
                dash_s |= cluster.contains('s') && a.starts_with('-');
                skip_next = cluster.ends_with(['o', 'O']);
                continue;
            }
            string = Some(a);
            break;
        }
        if dash_c {
            hazards.push(Hazard::ShellDashC);
            match string {
                Some(code) => {
                    if !self.nested_source(code) {
                        hazards.push(Hazard::Unparseable(code.to_owned()));
                        self.dynamic("a shell given a command string that cannot be parsed".into());
                    }
                }
                None => self.dynamic("a shell given a command string that is not literal".into()),
            }
            return;
        }
        let from_stdin = dash_s
            || string.is_none_or(|s| matches!(s, "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"));
        if from_stdin {
            hazards.push(Hazard::ShellStdin);
            match self.stdin.take() {
                Some(text) if self.nested_source(&text) => {}
                _ => self.dynamic(
                    "a shell reading commands from its standard input (a pipe or a file)".into(),
                ),
            }
        }
    }

    /// `find … -exec CMD … ;` (also `-execdir`, `-ok`, `-okdir`, ending in
    /// `;` or `+`).
    fn find(&mut self, args: &[Word], hazards: &mut Vec<Hazard>) {
        let mut i = 0;
        while i < args.len() {
            let action = args[i].literal();
            if matches!(action, Some("-exec" | "-execdir" | "-ok" | "-okdir")) {
                hazards.push(Hazard::FindExec);
                let start = i + 1;
                let mut end = start;
                while end < args.len() && !matches!(args[end].literal(), Some(";" | "+")) {
                    end += 1;
                }
                let words = &args[start..end];
                if !words.is_empty() {
                    let mut cmd = SimpleCommand {
                        words: words.to_vec(),
                        ..SimpleCommand::default()
                    };
                    match words[0].literal() {
                        Some(w) if w.contains("{}") => {
                            self.dynamic("find -exec with a file name as the program".into());
                        }
                        Some(_) => self.special(words, &mut cmd.hazards, true),
                        None => {}
                    }
                    self.push(cmd, false);
                }
                i = end;
            }
            i += 1;
        }
    }
}

/// Shell variables whose value is code the shell runs or that decide what
/// a command name runs.
const CODE_VARIABLES: &[&str] = &[
    "PROMPT_COMMAND",
    "BASH_ENV",
    "ENV",
    "PS0",
    "PS1",
    "PS2",
    "PS4",
    "BASH_CMDS",
    "BASH_ALIASES",
    "BASH_LOADABLES_PATH",
    "EXECIGNORE",
];

impl Walker {
    /// An assignment to a variable that runs code (`PROMPT_COMMAND=…`)
    /// or names programs (`BASH_CMDS[ls]=…`): the command is dynamic, and
    /// a literal `PROMPT_COMMAND` is read as commands for deny rules.
    pub(super) fn code_variable(&mut self, name: &str, value: Option<&str>) {
        let base = name.split('[').next().unwrap_or(name);
        if !CODE_VARIABLES.contains(&base) {
            return;
        }
        if base == "PROMPT_COMMAND"
            && let Some(code) = value
        {
            self.nested_source(code);
        }
        self.dynamic(format!(
            "{base} is set: the shell runs or looks up commands through it"
        ));
    }
}

/// The variables that choose a shell's character set, strongest first.
pub const LOCALE_VARIABLES: &[&str] = &["LC_ALL", "LC_CTYPE", "LANG"];

/// Whether `name` (which may carry an index) is one of [`LOCALE_VARIABLES`].
fn is_locale_variable(name: &str) -> bool {
    LOCALE_VARIABLES.contains(&name.split('[').next().unwrap_or(name))
}

/// `NAME=value` or `NAME+=value` as (name, value, appends).
fn split_setting(word: &str) -> Option<(&str, &str, bool)> {
    let (lhs, value) = word.split_once('=')?;
    Some(match lhs.strip_suffix('+') {
        Some(name) => (name, value, true),
        None => (lhs, value, false),
    })
}

/// The value a literal `NAME=value` word sets (not `NAME+=value`, which
/// appends to a value not known here).
pub(super) fn literal_setting(word: &Word) -> Option<&str> {
    match split_setting(word.literal()?)? {
        (_, value, false) => Some(value),
        (_, _, true) => None,
    }
}

/// `C`, `POSIX`, empty, or a locale whose charset is UTF-8
/// (`de_DE.UTF-8`, `C.utf8`, `sr_RS.UTF-8@latin`), by its name.
pub fn plain_locale(locale: &str) -> bool {
    let charset = locale.split('@').next().unwrap_or_default();
    matches!(locale, "" | "C" | "POSIX")
        || charset.rsplit_once('.').is_some_and(|(_, cs)| {
            cs.eq_ignore_ascii_case("utf-8") || cs.eq_ignore_ascii_case("utf8")
        })
}

/// A literal `NAME=value` word whose value is a plain locale
/// ([`plain_locale`]).
pub(super) fn sets_plain_locale(word: &Word) -> bool {
    literal_setting(word).is_some_and(plain_locale)
}

impl Walker {
    /// An assignment `name=…` (the word is the whole `NAME=value`): a
    /// locale variable set to anything but a plain locale is recorded
    /// ([`ParsedCommand::misread_locales`](super::ParsedCommand)).
    pub(super) fn locale_variable(&mut self, name: &str, word: &Word) {
        if is_locale_variable(name) && !sets_plain_locale(word) {
            let shown = match word {
                Word::Literal(s) | Word::Expanded(s) => s.clone(),
            };
            self.out.misread_locales.push(shown);
        }
    }

    /// `${NAME:=…}` of a locale variable (`name` may carry an index):
    /// recorded as a setting whose value is not known before it runs.
    pub(super) fn locale_set_by_expansion(&mut self, name: &str) {
        if is_locale_variable(name) {
            self.out.misread_locales.push(format!("${{{name}:=…}}"));
        }
    }

    /// The arguments of a builtin or wrapper that can set a locale
    /// variable: `export`/`declare`/… `NAME=value` (or a reference to one
    /// with `-n`), `env NAME=value`, `read`/`printf -v`/`mapfile`/`getopts`
    /// into one.
    fn locale_arguments(&mut self, name: &str, args: &[Word]) {
        let sets = matches!(
            name,
            "declare" | "typeset" | "local" | "export" | "readonly" | "env"
        );
        let reads_into = matches!(
            name,
            "read" | "printf" | "mapfile" | "readarray" | "getopts"
        );
        if !sets && !reads_into {
            return;
        }
        for (i, arg) in args.iter().enumerate() {
            let text = match arg {
                Word::Literal(s) | Word::Expanded(s) => s.as_str(),
            };
            // `printf` assigns only the word after `-v` (or `-vNAME`).
            let text = match name {
                "printf" if text.starts_with("-v") && text.len() > 2 => &text[2..],
                "printf" if i == 0 || args[i - 1].literal() != Some("-v") => continue,
                _ => text,
            };
            let bare = text.trim_start_matches(['"', '\'']);
            let names_one = is_locale_variable(split_setting(bare).map_or(bare, |(n, _, _)| n));
            // `declare -n r=LC_ALL`: a reference to one.
            let refers = sets
                && split_setting(text)
                    .is_some_and(|(_, value, _)| LOCALE_VARIABLES.contains(&value));
            // `export LC_ALL=…`: a setting of one, to anything but a
            // plain locale.
            let sets_one =
                sets && names_one && split_setting(bare).is_some() && !sets_plain_locale(arg);
            if refers || (reads_into && names_one) || sets_one {
                self.out.misread_locales.push(format!("{name} {text}"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    fn nested(c: &str) -> Vec<Vec<Word>> {
        parse(c)
            .unwrap()
            .nested
            .into_iter()
            .map(|c| c.words)
            .collect()
    }

    fn lit(words: &[&str]) -> Vec<Word> {
        words.iter().map(|w| Word::Literal((*w).into())).collect()
    }

    #[test]
    fn shell_command_strings() {
        for c in [
            "bash -c 'rm x'",
            "bash -o pipefail -c 'rm x'",
            "sh -ec 'rm x'",
            "zsh --norc -c 'rm x'",
        ] {
            let p = parse(c).unwrap();
            assert_eq!(p.commands[0].hazards, vec![Hazard::ShellDashC], "{c}");
            assert_eq!(nested(c), vec![lit(&["rm", "x"])], "{c}");
        }
        // A script's own -c is not the shell's.
        assert!(parse("bash script.sh -c x").unwrap().is_hazard_free());
        let p = parse("bash -c 'ls ('").unwrap();
        assert!(matches!(
            p.commands[0].hazards[..],
            [Hazard::ShellDashC, Hazard::Unparseable(_)]
        ));
    }

    #[test]
    fn wrappers_record_their_tails() {
        assert_eq!(
            nested("nice -n 5 rm x"),
            vec![lit(&["5", "rm", "x"]), lit(&["rm", "x"]), lit(&["x"])]
        );
        let p = parse("/usr/bin/env rm x").unwrap();
        assert_eq!(p.commands[0].hazards, vec![Hazard::Wrapper("env".into())]);
        assert!(parse("env").unwrap().is_hazard_free());
        assert!(parse("command -v git").unwrap().is_hazard_free());
        assert!(!parse("command git").unwrap().is_hazard_free());
    }

    #[test]
    fn find_exec_ends_at_semicolon_or_plus() {
        assert_eq!(
            nested(r"find . -exec rm {} \; -print -execdir cp {} d +"),
            vec![lit(&["rm", "{}"]), lit(&["cp", "{}", "d"])]
        );
        assert!(parse("find . -name x -print").unwrap().is_hazard_free());
    }

    #[test]
    fn eval_source_trap() {
        assert_eq!(nested("eval rm -rf x"), vec![lit(&["rm", "-rf", "x"])]);
        assert_eq!(
            parse("source f").unwrap().commands[0].hazards,
            vec![Hazard::Source]
        );
        assert_eq!(
            parse(". f").unwrap().commands[0].hazards,
            vec![Hazard::Source]
        );
        assert_eq!(
            parse("trap 'rm x' EXIT").unwrap().commands[0].hazards,
            vec![Hazard::Eval]
        );
        assert!(parse("trap -p").unwrap().is_hazard_free());
    }
}
