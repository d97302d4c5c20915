//! The shell's environment: the supervisor's, minus secrets (names matching
//! `bash.env_deny`, unless `bash.env_allow`), plus settings so no command
//! waits on a pager, an editor or a prompt.

use std::ffi::OsString;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use super::BashConfig;

/// Set in every shell, overriding the inherited values.
pub const FIXED: &[(&str, &str)] = &[
    ("PAGER", "cat"),
    ("GIT_PAGER", "cat"),
    ("MANPAGER", "cat"),
    ("SYSTEMD_PAGER", "cat"),
    ("GH_PAGER", "cat"),
    ("AWS_PAGER", ""),
    ("GIT_EDITOR", "true"),
    ("EDITOR", "true"),
    ("VISUAL", "true"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("DEBIAN_FRONTEND", "noninteractive"),
    ("TERM", "dumb"),
    ("HISTFILE", "/dev/null"),
];

/// Variables that make a later bash run code their value names:
/// `BASH_ENV` (and `ENV`) a file in every non-interactive bash, the
/// prompts their command substitutions (`PS4` for every line `set -x`
/// traces, the others in an interactive bash). Never inherited, and never
/// carried from one command to the next (`super::dispatch`).
pub const RUNS_CODE: &[&str] = &[
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "PS0",
    "PS1",
    "PS2",
    "PS3",
    "PS4",
];

/// Never inherited either: where the shell would think it is.
const LOCATION: &[&str] = &["PWD", "OLDPWD"];

/// Decides which inherited variables the shell gets.
#[derive(Debug, Clone)]
pub struct EnvFilter {
    deny: GlobSet,
    allow: GlobSet,
}

/// A pattern in `bash.env_deny` or `bash.env_allow` is not a valid glob.
#[derive(Debug, Clone, thiserror::Error)]
#[error("invalid pattern {pattern:?} in bash.{key}: {message}")]
pub struct EnvPatternError {
    /// `env_deny` or `env_allow`.
    pub key: &'static str,
    /// The pattern.
    pub pattern: String,
    /// Why.
    pub message: String,
}

fn globset(key: &'static str, patterns: &[String]) -> Result<GlobSet, EnvPatternError> {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        let glob = GlobBuilder::new(p)
            .case_insensitive(true)
            .literal_separator(false)
            .build()
            .map_err(|e| EnvPatternError {
                key,
                pattern: p.clone(),
                message: e.kind().to_string(),
            })?;
        b.add(glob);
    }
    b.build().map_err(|e| EnvPatternError {
        key,
        pattern: patterns.join(", "),
        message: e.to_string(),
    })
}

impl EnvFilter {
    /// From the `[bash]` config.
    pub fn new(cfg: &BashConfig) -> Result<Self, EnvPatternError> {
        Ok(Self {
            deny: globset("env_deny", &cfg.env_deny)?,
            allow: globset("env_allow", &cfg.env_allow)?,
        })
    }

    /// Whether an inherited variable named `name` is passed on.
    pub fn passes(&self, name: &str) -> bool {
        if RUNS_CODE.contains(&name) || LOCATION.contains(&name) {
            return false;
        }
        !self.deny.is_match(name) || self.allow.is_match(name)
    }

    /// The shell's environment built from `inherited`.
    pub fn apply<I>(&self, inherited: I) -> Vec<(OsString, OsString)>
    where
        I: IntoIterator<Item = (OsString, OsString)>,
    {
        let mut env: Vec<(OsString, OsString)> = inherited
            .into_iter()
            .filter(|(k, _)| self.passes(&k.to_string_lossy()))
            .filter(|(k, _)| !FIXED.iter().any(|(f, _)| k == f))
            .collect();
        env.extend(
            FIXED
                .iter()
                .map(|(k, v)| (OsString::from(k), OsString::from(v))),
        );
        env
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(names: &[&str]) -> Vec<(OsString, OsString)> {
        names
            .iter()
            .map(|n| (OsString::from(n), OsString::from("v")))
            .collect()
    }

    fn names(env: &[(OsString, OsString)]) -> Vec<String> {
        env.iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn secrets_are_dropped_case_insensitively() {
        let f = EnvFilter::new(&BashConfig::default()).unwrap();
        let env = f.apply(vars(&[
            "MY_API_KEY",
            "openai_api_key",
            "GITHUB_TOKEN",
            "token_file",
            "AWS_SECRET_ACCESS_KEY",
            "DB_PASSWORD",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "HOME",
            "PATH",
            "API_KEYS_DIR",
            "BASH_ENV",
            "PWD",
        ]));
        let got = names(&env);
        for gone in [
            "MY_API_KEY",
            "openai_api_key",
            "GITHUB_TOKEN",
            "token_file",
            "AWS_SECRET_ACCESS_KEY",
            "DB_PASSWORD",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "BASH_ENV",
            "PWD",
        ] {
            assert!(!got.contains(&gone.to_string()), "{gone} leaked");
        }
        for kept in ["HOME", "PATH", "API_KEYS_DIR"] {
            assert!(got.contains(&kept.to_string()), "{kept} dropped");
        }
    }

    #[test]
    fn allowlist_wins_and_fixed_values_override() {
        let cfg = BashConfig {
            env_allow: vec!["GH_TOKEN".into()],
            ..BashConfig::default()
        };
        let f = EnvFilter::new(&cfg).unwrap();
        let mut inherited = vars(&["GH_TOKEN", "NPM_TOKEN"]);
        inherited.push(("PAGER".into(), "less".into()));
        let env = f.apply(inherited);
        let got = names(&env);
        assert!(got.contains(&"GH_TOKEN".to_string()));
        assert!(!got.contains(&"NPM_TOKEN".to_string()));
        let pagers: Vec<_> = env.iter().filter(|(k, _)| k == "PAGER").collect();
        assert_eq!(pagers.len(), 1);
        assert_eq!(pagers[0].1, "cat");
        assert!(env.iter().any(|(k, v)| k == "TERM" && v == "dumb"));
    }

    #[test]
    fn bad_pattern_is_an_error_naming_it() {
        let cfg = BashConfig {
            env_deny: vec!["[oops".into()],
            ..BashConfig::default()
        };
        let e = EnvFilter::new(&cfg).unwrap_err().to_string();
        assert!(e.contains("[oops") && e.contains("env_deny"), "{e}");
    }
}
