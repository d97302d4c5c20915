//! The agent's own locale, as the agent's shell reads commands under it.
//!
//! airlock reads a native shell command as UTF-8 text. The agent runs it
//! in a shell of its own, with its own environment: under BIG5, GBK,
//! GB18030 or `Shift_JIS` that shell reads some bytes of a character and
//! the backslash or quote after them as one character, so the command it
//! runs is not the one airlock judged and showed (`echo "中\"; rm x # \""`
//! runs `rm x`). `airlock hook` runs in the agent's environment, so it
//! looks there: each of `LC_ALL`, `LC_CTYPE` and `LANG` that does not name
//! C, POSIX or a UTF-8 locale is tried in bash with the bash tool's test
//! bytes, and one that joins them is reported; the supervisor then refuses
//! the agent's shell commands (the `misread-locale` guardrail).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::process::{Command, Stdio};

use crate::policy::shell::{LOCALE_VARIABLES, plain_locale};
use crate::tools::bash::dispatch::locale_probe;

/// The first of the agent's locale variables (from `get`) under which
/// bash reads the test bytes otherwise, as `NAME=value`.
pub fn misread_locale(get: impl Fn(&str) -> Option<OsString>) -> Option<String> {
    LOCALE_VARIABLES.iter().find_map(|name| {
        let value = get(name)?;
        let text = value.to_string_lossy();
        if plain_locale(&text) || joins_nothing(&value) {
            None
        } else {
            Some(format!("{name}={text}"))
        }
    })
}

/// True when bash under `LC_ALL=locale` counts the test bytes one by one
/// (a locale that cannot be loaded reads as C). A bash that cannot be run
/// or answers otherwise counts as joining: the call is refused, not run
/// on a guess.
fn joins_nothing(locale: &OsStr) -> bool {
    let probe = locale_probe();
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-c", "printf %s \"${#1}\"", "bash"])
        .arg(OsStr::from_bytes(&probe))
        .env_clear()
        .env("LC_ALL", locale)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    out.is_ok_and(|o| o.stdout == probe.len().to_string().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn plain_and_unloadable_locales_are_not_reported() {
        assert_eq!(misread_locale(env(&[])), None);
        let plain = [
            ("LC_ALL", "C.UTF-8"),
            ("LANG", "de_DE.UTF-8"),
            ("LC_CTYPE", "C"),
        ];
        assert_eq!(misread_locale(env(&plain)), None);
        // Not installed here: bash reads it as C.
        assert_eq!(misread_locale(env(&[("LANG", "xx_YY.NOSUCH")])), None);
    }
}
