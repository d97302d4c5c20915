//! How a command is handed to bash so that nothing an earlier command left
//! behind can change what runs.
//!
//! A shell that runs one command after another in the same process keeps
//! whatever a command defines: a function named like a builtin, a
//! `readonly` variable, `enable -n`, a `DEBUG` trap with `extdebug`. Any of
//! them can rewrite how the next command is read or run, so that something
//! else runs than the prompt showed. So the long-lived bash in the PTY
//! (the *dispatcher*) never runs a command itself: it runs only the lines
//! below, and starts a fresh `bash --noprofile --norc` (the *runner*) for
//! each command. The runner reads the command file before anything else
//! happens in it, takes over the working directory and the exported
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

use std::path::Path;

use super::sentinel::{Token, shell_quote};

/// The runner: `$1` the command file, `$2` the state file, `$3` the
/// previous command's status. Every name it uses is a builtin of a fresh
/// bash, which has no function, alias or trap yet when it reads the
/// command; its own variables start with `__airlock_`.
const RUNNER: &str = r#"IFS= read -r -d '' __airlock_c < "$1"
__airlock_st=$2 __airlock_p=$3
set --
__airlock_e=() __airlock_n=()
if mapfile -d '' -t __airlock_e < "$__airlock_st" && (( ${#__airlock_e[@]} )); then
  compgen -e > "$__airlock_st.names" || :
  mapfile -t __airlock_n < "$__airlock_st.names"
  declare -A __airlock_k=()
  for __airlock_v in "${__airlock_e[@]:1}"; do __airlock_k[${__airlock_v%%=*}]=1; done
  for __airlock_v in "${__airlock_n[@]}"; do
    [[ -n ${__airlock_k[$__airlock_v]+x} ]] || unset -v "$__airlock_v" 2>/dev/null
  done
  for __airlock_v in "${__airlock_e[@]:1}"; do export -- "$__airlock_v" 2>/dev/null; done
fi
unset -v __airlock_e __airlock_n __airlock_k __airlock_v
__airlock_save() {
  compgen -e > "$__airlock_st.names" || :
  mapfile -t __airlock_n < "$__airlock_st.names"
  { printf '%s\0' "$PWD"
    for __airlock_v in "${__airlock_n[@]}"; do
      printf '%s=%s\0' "$__airlock_v" "${!__airlock_v-}"
    done; } > "$__airlock_st"
}
trap __airlock_save EXIT
__airlock_rc() { return "$1"; }
__airlock_rc "$__airlock_p"
eval "$__airlock_c"
__airlock_s=$?
__airlock_save
exit "$__airlock_s"
"#;

/// The runner's text (for tests that run it in other ways).
pub fn runner_text() -> &'static str {
    RUNNER
}

/// Lines the dispatcher runs once, before the first command: the runner's
/// text, its `PWD` exported (so a runner starts in the same logical
/// directory), and the first state, written from its own environment.
pub fn prelude(state: &Path) -> String {
    let state = shell_quote(&state.to_string_lossy());
    format!(
        "__airlock_runner={runner}\nexport PWD\n\
         compgen -e > {state}.names || :; mapfile -t __airlock_n < {state}.names; \
         {{ printf '%s\\0' \"$PWD\"; for __airlock_v in \"${{__airlock_n[@]}}\"; do \
         printf '%s=%s\\0' \"$__airlock_v\" \"${{!__airlock_v-}}\"; done; }} > {state}; \
         unset -v __airlock_n __airlock_v\n",
        runner = shell_quote(RUNNER),
    )
}

/// The one line the dispatcher gets for a command stored in `file`: run it
/// in a fresh runner with stdin at end-of-file and `$?` the previous
/// command's status, follow the runner into the directory it ended in, and
/// print the sentinel with the runner's status and that directory.
pub fn dispatch_line(file: &Path, state: &Path, token: &Token, prev_status: i32) -> String {
    let file = shell_quote(&file.to_string_lossy());
    let state = shell_quote(&state.to_string_lossy());
    let t = token.as_str();
    format!(
        "\"$BASH\" --noprofile --norc -c \"$__airlock_runner\" bash {file} {state} {prev} \
         < /dev/null; __airlock_s=$?; __airlock_d=; \
         IFS= read -r -d '' __airlock_d < {state}; \
         [[ -z $__airlock_d ]] || cd -- \"$__airlock_d\" 2>/dev/null; \
         printf '\\036%s\\037%d %s\\037%s\\036' {t} \"$__airlock_s\" \"$PWD\" {t}\n",
        prev = prev_status.clamp(0, 255),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_are_one_line_each_and_quote_their_paths() {
        let t = Token::new();
        let line = dispatch_line(Path::new("/tmp/it's/c1"), Path::new("/s t/x"), &t, 7);
        assert_eq!(line.matches('\n').count(), 1);
        assert!(line.ends_with('\n'));
        assert!(line.contains(r"'/tmp/it'\''s/c1'"), "{line}");
        assert!(line.contains("'/s t/x' 7"), "{line}");
        assert!(line.contains(t.as_str()));
        let p = prelude(Path::new("/s't/state"));
        assert!(p.contains(r"'/s'\''t/state'"), "{p}");
    }

    #[test]
    fn the_runner_reads_the_command_before_it_runs_anything_else() {
        let first = RUNNER.lines().next().unwrap_or_default();
        assert!(first.starts_with("IFS= read -r -d '' __airlock_c"));
        assert!(!RUNNER.contains("source") && !RUNNER.contains(". \""));
    }
}
