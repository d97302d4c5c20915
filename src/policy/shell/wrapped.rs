//! What a wrapper runs (`sudo rm x`, `su -c'rm x'`, `env -Srm x`), and
//! builtins whose options take code (`compgen -C`, `mapfile -C`,
//! `bind -x`). The option readings here are shared with the guardrails'
//! tokenizer ([`attached_command_strings`], [`command_option`],
//! [`code_options`]).

use super::parse::Walker;
use super::{Hazard, SimpleCommand, Word};

/// Most option letters read before an attached value that may be a
/// command string ([`attached_command_strings`]): `script -qefc'cmd'`
/// has four.
const MAX_CLUSTER: usize = 16;

/// Characters that make a word look like a command string.
const SHELL_SYNTAX: &[char] = &[' ', '\t', ';', '|', '&', '\n', '$', '`', '<', '>', '('];

/// Options of wrappers whose value is a command string or a program
/// with its first arguments: the wrapper, its short option letters and
/// its long option names (a long name may be abbreviated, as
/// `getopt_long` allows).
const COMMAND_OPTIONS: &[(&str, &str, &[&str])] = &[
    ("env", "S", &["split-string"]),
    ("su", "csC", &["command", "session-command", "shell"]),
    ("runuser", "csC", &["command", "session-command", "shell"]),
    ("script", "c", &["command"]),
    ("flock", "c", &["command"]),
    ("sg", "c", &[]),
    ("ksu", "e", &[]),
    ("start-stop-daemon", "xa", &["exec", "startas"]),
    ("capsh", "", &["shell"]),
    ("firejail", "", &["shell"]),
    ("fakeroot", "", &["faked"]),
    ("proot", "q", &[]),
    ("dbus-run-session", "", &["dbus-daemon"]),
    ("coreutils", "", &["coreutils-prog"]),
    (
        "hyperfine",
        "psc",
        &["prepare", "setup", "cleanup", "conclude"],
    ),
];

/// Where the value of a wrapper's command-taking option is.
#[derive(Debug, PartialEq, Eq)]
pub enum CommandOption<'a> {
    /// Not such an option.
    No,
    /// Attached to the word (`-c'rm x'`, `-lc'rm x'`, `--command=rm`).
    Attached(&'a str),
    /// The next word (`-c`, `-lc`, `--command`).
    Next,
}

/// Whether `word`, an argument of `wrapper` (a basename), is one of the
/// options of [`COMMAND_OPTIONS`], alone or ending a cluster of short
/// options, and where its value is.
pub fn command_option<'a>(wrapper: &str, word: &'a str) -> CommandOption<'a> {
    let Some(&(_, letters, longs)) = COMMAND_OPTIONS.iter().find(|(w, _, _)| *w == wrapper) else {
        return CommandOption::No;
    };
    if let Some(long) = word.strip_prefix("--") {
        let (name, value) = match long.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (long, None),
        };
        if name.is_empty() || !longs.iter().any(|l| l.starts_with(name)) {
            return CommandOption::No;
        }
        return value.map_or(CommandOption::Next, CommandOption::Attached);
    }
    let Some(cluster) = word.strip_prefix('-') else {
        return CommandOption::No;
    };
    // Letters before the first command-taking one are flags (or take a
    // value themselves: then this reading only adds commands).
    for (i, c) in cluster.char_indices() {
        if letters.contains(c) {
            let value = &cluster[i + c.len_utf8()..];
            return if value.is_empty() {
                CommandOption::Next
            } else {
                CommandOption::Attached(value)
            };
        }
        if !c.is_ascii_alphanumeric() {
            break;
        }
    }
    CommandOption::No
}

/// The values an option word may carry attached that look like command
/// strings (blanks or shell syntax): after `=` in a long option, and
/// after each of the first [`MAX_CLUSTER`] letters of a cluster of short
/// options, since which letter takes a value is the program's business
/// (`su -lc'rm x'`, `unknown -X'rm x'`). `None` when such a value may
/// follow a longer cluster (not analysed).
pub fn attached_command_strings(word: &str) -> Option<Vec<&str>> {
    let looks_like_code = |v: &&str| v.contains(SHELL_SYNTAX);
    if let Some(long) = word.strip_prefix("--") {
        return Some(
            long.split_once('=')
                .map(|(_, v)| v)
                .into_iter()
                .filter(looks_like_code)
                .collect(),
        );
    }
    let Some(cluster) = word.strip_prefix('-') else {
        return Some(Vec::new());
    };
    if !cluster.contains(SHELL_SYNTAX) {
        return Some(Vec::new());
    }
    let letters = cluster
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .count();
    if letters > MAX_CLUSTER {
        return None;
    }
    // Letters are ASCII: byte offsets 1..=letters.
    Some(
        (1..=letters)
            .map(|i| &cluster[i..])
            .filter(looks_like_code)
            .collect(),
    )
}

/// The code-taking options of a builtin's arguments.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct CodeOptions<'a> {
    /// Some option takes code, or a word is not known (it may be one).
    pub runs_code: bool,
    /// Their values, where literal.
    pub values: Vec<&'a str>,
}

/// Builtins with options whose value is code: `mapfile -C` (a callback),
/// `compgen -C`/`-F`/`-W` (`-W`'s words are expanded: `$(cmd)` runs),
/// `complete`'s same options (run at completion), `bind -x`. `None` for
/// other programs; `args` are the words after the name, `None` where a
/// word is not literal.
pub fn code_options<'a>(name: &str, args: &[Option<&'a str>]) -> Option<CodeOptions<'a>> {
    let letters: &[char] = match name {
        "mapfile" | "readarray" => &['C'],
        "bind" => &['x'],
        "compgen" | "complete" => &['C', 'F', 'W'],
        _ => return None,
    };
    let mut out = CodeOptions::default();
    let mut value_next = false;
    for arg in args {
        let Some(a) = *arg else {
            out.runs_code = true;
            value_next = false;
            continue;
        };
        if value_next {
            value_next = false;
            out.values.push(a);
            continue;
        }
        let Some(cluster) = a.strip_prefix('-').filter(|c| !c.starts_with('-')) else {
            continue;
        };
        if let Some(i) = cluster.find(letters) {
            out.runs_code = true;
            let value = &cluster[i + 1..];
            if value.is_empty() {
                value_next = true;
            } else {
                out.values.push(value);
            }
        }
    }
    Some(out)
}

impl Walker {
    /// The commands a wrapper may run: every tail of its arguments that
    /// starts with a literal word that is not an option or an assignment
    /// (`sudo -u root rm x` gives `root rm x`, `rm x` and `x`). Arguments
    /// that look like command strings (`su -c 'rm x'`, `watch 'rm x'`) are
    /// parsed too, and so are option values that look like them
    /// (`su -lc'rm x'`) and the values of the options that take a
    /// command or a program ([`command_option`]: `env -Srm x`).
    pub(super) fn wrapped(&mut self, name: &str, args: &[Word]) {
        for (i, arg) in args.iter().enumerate() {
            let Some(a) = arg.literal() else {
                // `sudo $CMD`, `env -S "$x"`: an expanded word may be the
                // program.
                let (Word::Literal(text) | Word::Expanded(text)) = arg;
                self.dynamic(format!("a wrapper given an expanded word (`{text}`)"));
                continue;
            };
            if a.starts_with("-I") || a.starts_with("-i") || a.starts_with("--replace") {
                // `xargs -I{} {} x`: the program comes from the input.
                self.dynamic("xargs -I: the program may come from its input".into());
            }
            if a.contains(SHELL_SYNTAX) {
                self.nested_source(a);
            }
            if a.starts_with('-') {
                self.option_values(name, args, i);
                continue;
            }
            if a.is_empty() || a.starts_with('+') || a.contains('=') {
                continue;
            }
            self.record_tail(&args[i..]);
        }
    }

    /// The code in the option `args[i]` of wrapper `name`.
    fn option_values(&mut self, name: &str, args: &[Word], i: usize) {
        let Some(a) = args[i].literal() else {
            return;
        };
        match attached_command_strings(a) {
            Some(values) => {
                for value in values {
                    self.nested_source(value);
                }
            }
            None => self.dynamic(format!("a wrapper option too long to analyse (`{a}`)")),
        }
        match command_option(name, a) {
            CommandOption::No => {}
            CommandOption::Attached(value) => self.program_string(value, &args[i + 1..]),
            CommandOption::Next => match args.get(i + 1) {
                Some(Word::Literal(value)) => self.program_string(value, &args[i + 2..]),
                // The expanded word is reported by `wrapped`.
                Some(Word::Expanded(_)) | None => {}
            },
        }
    }

    /// The value of a command-taking option: a command string, or a
    /// program with its first arguments, followed by `rest`
    /// (`env -S'rm -f' x` runs `rm -f x`): every tail of its blank-split
    /// words that starts with a program is recorded.
    fn program_string(&mut self, value: &str, rest: &[Word]) {
        if value.contains(SHELL_SYNTAX) {
            self.nested_source(value);
        }
        let split: Vec<&str> = value.split_ascii_whitespace().collect();
        let words: Vec<Word> = split
            .iter()
            .map(|w| Word::Literal((*w).to_owned()))
            .chain(rest.iter().cloned())
            .collect();
        for (k, w) in split.iter().enumerate() {
            if !w.starts_with(['-', '+']) && !w.contains('=') {
                self.record_tail(&words[k..]);
            }
        }
    }

    /// Records `words` as a command a wrapper runs, with its own hazards
    /// (its wrappers are not expanded again: the caller enumerates every
    /// tail).
    fn record_tail(&mut self, words: &[Word]) {
        if !self.room() {
            return;
        }
        let mut cmd = SimpleCommand {
            words: words.to_vec(),
            ..SimpleCommand::default()
        };
        self.special(words, &mut cmd.hazards, false);
        self.push(cmd, false);
    }

    /// `env -S STRING` splits the string itself, with its own quotes,
    /// escapes (`\_` is a blank) and `${VAR}`: anything but plain words
    /// is not modelled.
    pub(super) fn env_split_string(&mut self, args: &[Word]) {
        let mut value_next = false;
        for arg in args {
            // A wrapper given an expanded word is dynamic already.
            let Some(a) = arg.literal() else {
                return;
            };
            let value = if value_next {
                Some(a)
            } else {
                match command_option("env", a) {
                    CommandOption::Attached(v) => Some(v),
                    CommandOption::Next | CommandOption::No => None,
                }
            };
            value_next = !value_next && command_option("env", a) == CommandOption::Next;
            if value.is_some_and(|v| v.contains(['\\', '\'', '"', '$', '#'])) {
                self.dynamic("env -S with quotes, escapes or variables".into());
            }
        }
    }

    /// Builtins with options whose value is code ([`code_options`]). The
    /// values are parsed for deny rules; the command is dynamic.
    pub(super) fn code_options(&mut self, name: &str, args: &[Word], hazards: &mut Vec<Hazard>) {
        let words: Vec<Option<&str>> = args.iter().map(Word::literal).collect();
        let Some(code) = code_options(name, &words) else {
            return;
        };
        for value in &code.values {
            self.code_value(value);
        }
        if code.runs_code {
            hazards.push(Hazard::Eval);
            self.dynamic(format!("{name} runs code given to an option"));
        }
    }

    /// The value of an option that runs code: a command string, or words
    /// the shell expands (`compgen -W '$(cmd)'`), or `KEYS: command`
    /// (`bind -x`).
    fn code_value(&mut self, value: &str) {
        self.nested_source(value);
        if let Some((_, command)) = value.split_once(':') {
            self.nested_source(command);
        }
        let _ = self.classify_word(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_options_alone_clustered_attached_or_long() {
        use CommandOption::{Attached, Next, No};
        assert_eq!(command_option("env", "-S'rm x'"), Attached("'rm x'"));
        assert_eq!(command_option("env", "-iSrm"), Attached("rm"));
        assert_eq!(command_option("env", "-S"), Next);
        assert_eq!(
            command_option("env", "--split-string=rm x"),
            Attached("rm x")
        );
        assert_eq!(command_option("env", "--split"), Next);
        assert_eq!(command_option("su", "-lcrm"), Attached("rm"));
        assert_eq!(command_option("su", "--comm=rm"), Attached("rm"));
        assert_eq!(command_option("script", "-qfc"), Next);
        assert_eq!(command_option("env", "-i"), No);
        assert_eq!(command_option("env", "--unset=S"), No);
        assert_eq!(command_option("sudo", "-c"), No, "not sudo's");
    }

    #[test]
    fn attached_values_that_look_like_commands() {
        // `-qc'rm x'` after quote removal.
        assert_eq!(
            attached_command_strings("-qcrm x"),
            Some(vec!["crm x", "rm x", "m x", " x"])
        );
        assert_eq!(
            attached_command_strings("-Xrm x"),
            Some(vec!["rm x", "m x", " x"])
        );
        assert_eq!(attached_command_strings("--x=a;b"), Some(vec!["a;b"]));
        assert_eq!(attached_command_strings("-rf"), Some(vec![]));
        assert_eq!(attached_command_strings("--force"), Some(vec![]));
        let long = format!("-{} x", "q".repeat(MAX_CLUSTER + 1));
        assert_eq!(attached_command_strings(&long), None);
    }
}
