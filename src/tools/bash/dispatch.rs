//! How a command is handed to bash so that nothing an earlier command left
//! behind can change what runs.
//!
//! A shell that runs one command after another in the same process keeps
//! whatever a command defines: a function named like a builtin, a
//! `readonly` variable, `enable -n`, a `DEBUG` trap with `extdebug`. Any of
//! them can rewrite how the next command is read or run, so that something
//! else runs than the prompt showed. So the long-lived bash in the PTY
//! (the *dispatcher*) never runs a command itself: it runs only the lines
//! below, and starts a fresh `bash --noprofile --norc` (the *runner*), with
//! an empty environment (`exec -c`), for each command. The runner takes the
//! command (its arguments) before anything else happens in it, takes over the working directory and the exported
//! variables the previous command left (as data: a NUL-separated list of
//! `NAME=value` given to the `export` builtin, never evaluated), runs the
//! command with `eval`, and writes its own working directory and exported
//! variables back for the next one. What carries over is what a terminal
//! user expects (`cd`, `export`, `$?`); functions, aliases, options, traps
//! and `readonly` end with the command that made them.
//!
//! The state a runner writes back is produced after the command ran, in
//! the same process, so the command can change it: it can only ever be a
//! working directory and variable values, which the command could have set
//! with `cd` and `export` anyway.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::LazyLock;

use super::sentinel::{Token, shell_quote};
use crate::policy::shell::LOCALE_VARIABLES;

/// The function that writes the state: the working directory, then every
/// exported variable as `NAME=value`, NUL-separated, to `$__airlock_st`;
/// not written when it is what `__airlock_in` holds (what came in). The
/// names go through a file (`compgen -e`): a subshell to catch them costs
/// more, and so does listing every variable by prefix (`${!A@}` …). A
/// command can replace that file (a FIFO), so a name is used only when it
/// is a plain identifier (`x[$(…)]` would run code) and not the runner's
/// (globs, not `=~`, which compiles its pattern on every test).
macro_rules! save_fn {
    () => {
        concat!(
            "__airlock_save() {\n",
            "  __airlock_saved=1\n",
            "  (( ${#__airlock_u[@]} == 0 )) || unset -v \"${__airlock_u[@]}\"\n",
            "  (( ${#__airlock_h[@]} == 0 )) || export -- \"${__airlock_h[@]}\"\n",
            "  compgen -e > \"$__airlock_st.names\" || :\n",
            "  mapfile -t __airlock_n < \"$__airlock_st.names\"\n",
            "  __airlock_o=(\"$PWD\")\n",
            "  for __airlock_v in \"${__airlock_n[@]}\"; do\n",
            "    [[ $__airlock_v == [A-Za-z_]* && $__airlock_v != *[!A-Za-z0-9_]* &&\n",
            "      $__airlock_v != __airlock_* ]] &&\n",
            "      __airlock_o+=(\"$__airlock_v=${!__airlock_v-}\")\n",
            "  done\n",
            "  [[ ${__airlock_o[*]@Q} == \"${__airlock_in[*]@Q}\" ]] ||\n",
            "    printf '%s\\0' \"${__airlock_o[@]}\" > \"$__airlock_st\"\n",
            "}\n",
        )
    };
}

/// The runner: `$1` the state file, `$2` the previous command's status,
/// `$3` `a` or `u` ([`Asked`]), `$4` the shell's first `PATH`, `$5`… the
/// command, in pieces (an argument holds at most 128 KiB). It
/// starts with an empty environment (`exec -c`) and takes the state's
/// directory (`cd`, so a logical path stays logical) and variables: only
/// `NAME=value` entries with a plain name that is not the runner's own
/// (`__airlock_*`) and not one that makes a later bash run a file of its
/// choosing or code of its own (`BASH_ENV`, `ENV`, `PROMPT_COMMAND`, the
/// prompts `PS0`–`PS4`: `set -x` expands `PS4`), which the shell's first
/// environment does not have either). Every name it uses is a builtin of a
/// fresh bash, which has no function, alias or trap yet when it takes the
/// command; its own variables start with `__airlock_`. The state is
/// written once, after the command, or on the way out when the command
/// exits (`exit`, `set -e`).
///
/// How bash reads the command must not depend on the locale: in BIG5,
/// GBK, GB18030 or `Shift_JIS` a byte of a UTF-8 character and the `\`
/// after it are one character, so `"中\"; rm x # \""` is a quoted string
/// to airlock and to the prompt but runs `rm x` there. So the runner
/// (1) replaces such a locale (in `LC_ALL`, `LC_CTYPE` or `LANG`), from
/// the state or the first environment, with `C.UTF-8` (or `C`), saying so
/// on stderr, and (2) reads the whole
/// command as one `{ }` group under `LC_ALL=C` before any of it runs (the
/// group's first step puts the locale back), so a line of the command
/// that sets a locale cannot change how a later line is read.
static RUNNER: LazyLock<String> = LazyLock::new(|| {
    [
        &runner_import(),
        &locale_guard(),
        &unasked_guard(),
        save_fn!(),
        RUNNER_RUN,
    ]
    .concat()
});

/// Variables that make the programs a command starts load or run code
/// their value names: the dynamic loader's, git's (an external diff, a
/// config or repository of the variable's choosing, its helpers), the
/// pagers' input filters, the interpreters' startup options and paths.
/// A command nobody was asked about runs without them.
pub const LOADS_CODE: &[&str] = &[
    "LD_PRELOAD",
    "LD_AUDIT",
    "LD_LIBRARY_PATH",
    "GCONV_PATH",
    "GIT_EXTERNAL_DIFF",
    "GIT_CONFIG",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_EXEC_PATH",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_PROXY_COMMAND",
    "GIT_TEMPLATE_DIR",
    "LESSOPEN",
    "LESSCLOSE",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONHOME",
    "NODE_OPTIONS",
    "NODE_PATH",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "RUBYOPT",
    "RUBYLIB",
];

/// The runner's guard for a command nobody was asked about (`$3` is `u`:
/// a known read-only command, [`Asked::No`]): it runs without the
/// [`LOADS_CODE`] variables, with the shell's first `PATH` (`$4`: an
/// exported `PATH=$PWD/bin:$PATH` would make `ls` the workspace's) and
/// with the fixed pager and editor settings ([`super::env::FIXED`]), so
/// what an earlier approved command exported cannot make it run a program
/// of its choosing. They are put back before the state is written, so the
/// next command has them as before.
fn unasked_guard() -> String {
    let mut fixed = String::new();
    for (name, value) in super::env::FIXED {
        fixed.push(' ');
        fixed.push_str(&shell_quote(&format!("{name}={value}")));
    }
    format!(
        r#"__airlock_h=() __airlock_u=()
if [[ $__airlock_m == u ]]; then
  for __airlock_v in {loads}; do
    [[ -v $__airlock_v ]] || continue
    __airlock_h+=("$__airlock_v=${{!__airlock_v}}")
    unset -v "$__airlock_v"
  done
  for __airlock_v in "PATH=$__airlock_path"{fixed}; do
    __airlock_k=${{__airlock_v%%=*}}
    if [[ -v $__airlock_k ]]; then __airlock_h+=("$__airlock_k=${{!__airlock_k}}"); else __airlock_u+=("$__airlock_k"); fi
    export -- "$__airlock_v"
  done
fi
unset -v __airlock_m __airlock_path __airlock_v __airlock_k
"#,
        loads = LOADS_CODE.join(" "),
    )
}

/// The runner's first part: the command, then the state (without the
/// variables that run code, [`super::env::RUNS_CODE`]).
fn runner_import() -> String {
    format!(
        r#"printf -v __airlock_c %s "${{@:5}}"
__airlock_st=$1 __airlock_p=$2 __airlock_m=$3 __airlock_path=$4
set --
__airlock_in=()
if mapfile -d '' -t __airlock_in < "$__airlock_st" && (( ${{#__airlock_in[@]}} )); then
  [[ ${{__airlock_in[0]}} != /* ]] || cd -- "${{__airlock_in[0]}}"
  __airlock_x=()
  for __airlock_v in "${{__airlock_in[@]:1}}"; do
    __airlock_k=${{__airlock_v%%=*}}
    [[ $__airlock_v == *=* && $__airlock_k == [A-Za-z_]* && $__airlock_k != *[!A-Za-z0-9_]* ]] ||
      continue
    case $__airlock_k in
      __airlock_* | {runs_code}) ;;
      *) __airlock_x+=("$__airlock_v") ;;
    esac
  done
  (( ${{#__airlock_x[@]}} == 0 )) || export -- "${{__airlock_x[@]}}"
fi 2>/dev/null
unset -v __airlock_x __airlock_v __airlock_k
"#,
        runs_code = super::env::RUNS_CODE.join(" | "),
    )
}

/// The ASCII bytes the locale guard tries after each byte that can start
/// a multibyte character: the backslash (in every charset that takes an
/// ASCII byte as a character's second byte, its range holds `\`), the
/// quotes and `$`, in case one does not.
const GUARD_ASCII: &[u8] = b"\\'\"`$";

/// The locale guard's test bytes: every byte from 0x81 to 0xFE followed
/// by each of [`GUARD_ASCII`]. In a locale that cannot join an ASCII byte
/// to the one before it, bash counts one character per byte (for
/// `hooks::locale`, which tries the agent's own locale with them).
pub fn locale_probe() -> Vec<u8> {
    (0x81u8..=0xFE)
        .flat_map(|lead| GUARD_ASCII.iter().flat_map(move |&a| [lead, a]))
        .collect()
}

/// The [`locale_probe`] bytes as a bash `$'…'` literal, and how many
/// they are (UTF-8, C, the EUC and ISO-8859 charsets count one character
/// per byte).
fn guard_probe() -> (String, usize) {
    let bytes = locale_probe();
    let mut text = String::from("$'");
    for b in &bytes {
        let _ = write!(text, "\\x{b:02x}");
    }
    text.push('\'');
    (text, bytes.len())
}

/// The runner's locale guard, after the state is taken (see [`RUNNER`]):
/// each of `LC_ALL`, `LC_CTYPE` and `LANG` that names a locale other than
/// C, POSIX or a UTF-8 one by its name (`de_DE.UTF-8`, `C.utf8`: only root
/// installs a locale bash can load, and then under its charset's name) is
/// tried (as `LC_ALL`, so the one bash would use when the
/// others are unset is tried too: `unset LC_ALL` must not bring a BIG5
/// `LANG` back), and each one that joins bytes is replaced by `C.UTF-8`,
/// or `C` where that cannot be loaded, and said on stderr.
fn locale_guard() -> String {
    let (probe, bytes) = guard_probe();
    format!(
        r#"__airlock_k=() __airlock_y=
for __airlock_v in {locale_vars}; do
  __airlock_x=${{!__airlock_v-}}
  case $__airlock_x in
    '' | C | POSIX | *.[Uu][Tt][Ff]-8 | *.[Uu][Tt][Ff]8 | *.[Uu][Tt][Ff]-8@* | *.[Uu][Tt][Ff]8@*) continue ;;
  esac
  [[ -n $__airlock_y ]] || __airlock_y=1 __airlock_l=${{LC_ALL+=}}${{LC_ALL-}} __airlock_t={probe}
  {{ LC_ALL=C; LC_ALL=$__airlock_x; }} 2>/dev/null
  (( ${{#__airlock_t}} == {bytes} )) || __airlock_k+=("$__airlock_v=$__airlock_x")
done
if [[ -n $__airlock_y ]]; then
  __airlock_v=C.UTF-8 __airlock_t=$'\xc3\xa9'
  if (( ${{#__airlock_k[@]}} )); then
    {{ LC_ALL=C.UTF-8; }} 2>/dev/null
    (( ${{#__airlock_t}} == 1 )) || __airlock_v=C
  fi
  if [[ -n $__airlock_l ]]; then {{ LC_ALL=${{__airlock_l#=}}; }} 2>/dev/null; else unset -v LC_ALL; fi
  if (( ${{#__airlock_k[@]}} )); then
    for __airlock_l in "${{__airlock_k[@]}}"; do
      {{ export "${{__airlock_l%%=*}}=$__airlock_v"; }} 2>/dev/null
    done
    printf 'airlock: the locale (%s) joins some bytes of a character to a following backslash or quote, so bash would read a command otherwise than it is shown; it is replaced by %s\n' "${{__airlock_k[*]}}" "$__airlock_v" >&2
  fi
fi
unset -v __airlock_t __airlock_k __airlock_l __airlock_v __airlock_x __airlock_y
"#,
        locale_vars = LOCALE_VARIABLES.join(" "),
    )
}

/// The runner's last part: read the command under `LC_ALL=C` as one
/// group, whose first step puts the locale back and gives `$?` the
/// previous command's status; run it; write the state. The group is read
/// with `extglob` on, as airlock's parser reads it (so a command that
/// turns it on can use `!(…)` on a later line, as before), and runs with
/// it off, as in a fresh bash.
const RUNNER_RUN: &str = r#"trap '[[ -n ${__airlock_saved-} ]] || __airlock_save' EXIT
__airlock_l=${LC_ALL+=}${LC_ALL-}
LC_ALL=C
shopt -s extglob
__airlock_relc() {
  if [[ -n $__airlock_l ]]; then LC_ALL=${__airlock_l#=}; else unset -v LC_ALL; fi
  shopt -u extglob
  unset -v __airlock_l; unset -f __airlock_relc
  return "$__airlock_p"
}
eval "{ __airlock_relc; $__airlock_c
}"
__airlock_s=$?
__airlock_save
exit "$__airlock_s"
"#;

/// The runner's text.
pub fn runner() -> &'static str {
    &RUNNER
}

/// Lines the dispatcher runs once, before the first command: the runner's
/// text, the first state, written from its own environment, and the
/// function each command's line calls (`$1` the token, `$2` the previous
/// status, `$3` whether someone was asked, `$4`… the command): run the
/// command in a fresh runner (given the dispatcher's own `PATH`, the
/// shell's first) with
/// stdin at end-of-file, follow it into the directory it ended in, print
/// the sentinel with its status and that directory.
pub fn prelude(state: &Path) -> String {
    let state = shell_quote(&state.to_string_lossy());
    format!(
        "__airlock_runner={runner}\n__airlock_st={state} __airlock_in=()\n{save}__airlock_save\n\
         unset -f __airlock_save; unset -v __airlock_st __airlock_in __airlock_n __airlock_o \
         __airlock_v __airlock_saved\n\
         __airlock_go() {{ \
         ( exec -c \"$BASH\" --noprofile --norc -c \"$__airlock_runner\" bash {state} \"$2\" \"$3\" \"$PATH\" \"${{@:4}}\" ) \
         < /dev/null; __airlock_s=$?; __airlock_d=; \
         IFS= read -r -d '' __airlock_d < {state}; \
         [[ $__airlock_d != /* ]] || cd -- \"$__airlock_d\" 2>/dev/null; \
         printf '\\036%s\\037%d %s\\037%s\\036' \"$1\" \"$__airlock_s\" \"$PWD\" \"$1\"; }}\n",
        runner = shell_quote(runner()),
        save = save_fn!(),
    )
}

/// Whether someone decided to run the command: a rule, a grant or the
/// human ([`Asked::Yes`]), or it is a known read-only command that runs
/// without asking ([`Asked::No`]), which the runner guards
/// ([`LOADS_CODE`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// Approved by a rule, a grant or the human.
    Yes,
    /// Run without asking, as a known read-only command.
    No,
}

/// Most bytes of the command in one argument of the runner (Linux takes
/// at most 128 KiB per argument).
const PIECE: usize = 64 * 1024;

/// The line the dispatcher gets for `command`, whose end `token` marks,
/// after a command that ended with `prev_status`. The command travels in
/// the line itself, quoted, in pieces: over the socket only airlock
/// writes, never through a file a background job could rewrite before the
/// runner reads it. The line holds newlines when the command does (inside
/// its quotes).
pub fn dispatch_line(command: &str, token: &Token, prev_status: i32, asked: Asked) -> String {
    let mode = match asked {
        Asked::Yes => "a",
        Asked::No => "u",
    };
    let mut line = format!(
        "__airlock_go {} {} {mode}",
        token.as_str(),
        prev_status.clamp(0, 255)
    );
    let mut rest = command;
    while !rest.is_empty() {
        let mut end = rest.len().min(PIECE);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let (piece, more) = rest.split_at(end);
        line.push(' ');
        line.push_str(&shell_quote(piece));
        rest = more;
    }
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_carries_the_command_quoted_in_pieces() {
        let t = Token::new();
        let line = dispatch_line("echo it's", &t, 7, Asked::Yes);
        assert_eq!(
            line,
            format!("__airlock_go {} 7 a 'echo it'\\''s'\n", t.as_str())
        );
        assert_eq!(
            dispatch_line("", &t, 300, Asked::No),
            format!("__airlock_go {} 255 u\n", t.as_str())
        );
        let long = "é".repeat(PIECE);
        let line = dispatch_line(&long, &t, 0, Asked::Yes);
        assert_eq!(line.matches(" '").count(), 2, "128 KiB in two pieces");
        let p = prelude(Path::new("/s't/state"));
        assert!(p.contains(r"'/s'\''t/state'"), "{p}");
    }

    #[test]
    fn the_runner_reads_the_command_before_it_runs_anything_else() {
        let first = runner().lines().next().unwrap_or_default();
        assert!(first.starts_with("printf -v __airlock_c %s"));
        assert!(!runner().contains("source") && !runner().contains(". \""));
    }
}
