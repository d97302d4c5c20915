//! Exclusion patterns: globs matched against every component name and every
//! root-relative ancestor path, so `.ssh` hides `a/.ssh/id_rsa`.
//!
//! Matching ignores letter case, on every filesystem: the patterns and the
//! names are folded first ([`fold`]: ASCII lowercased, every other letter
//! to one representative of its case), so what Unicode simple case folding
//! equates is equated, and globset keeps its literal and extension
//! strategies (its own `case_insensitive` is ASCII-only and turns every
//! pattern into a regex). On a filesystem that folds case
//! (vfat, exfat, SMB, a case-folding ext4 directory) `.ENV` opens `.env`, and the name the kernel reports for
//! the opened file is the one it was looked up by, so only a match that
//! ignores case refuses it. On a filesystem with exact names this also
//! refuses a distinct `.ENV`: the safe side.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use globset::{Candidate, Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// A compiled set of exclusion globs (ignoring letter case).
#[derive(Debug, Clone)]
pub struct Exclusions {
    patterns: Vec<String>,
    set: GlobSet,
    ignore_case: bool,
}

impl Exclusions {
    /// Compile `patterns`; an invalid glob is an error naming it.
    pub fn new(patterns: &[String]) -> Result<Self, String> {
        Self::build(patterns, true)
    }

    /// [`Exclusions::new`], with letter case ignored or not (`false` only
    /// for the tests' control: what matching was before).
    fn build(patterns: &[String], ignore_case: bool) -> Result<Self, String> {
        let mut b = GlobSetBuilder::new();
        for p in patterns {
            let folded = if ignore_case { fold(p) } else { p.clone() };
            let glob: Glob = GlobBuilder::new(folded.trim_start_matches('/'))
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .map_err(|e| format!("invalid exclusion pattern {p:?}: {e}"))?;
            b.add(glob);
        }
        let set = b
            .build()
            .map_err(|e| format!("invalid exclusion patterns: {e}"))?;
        Ok(Self {
            patterns: patterns.to_vec(),
            set,
            ignore_case,
        })
    }

    /// The patterns as configured.
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// The first pattern matching `rel` (a path relative to a root), checked
    /// against each component's name and each ancestor's relative path.
    pub fn matches(&self, rel: &Path) -> Option<&str> {
        if self.patterns.is_empty() {
            return None;
        }
        // Folded like the patterns; a name already folded (lowercase
        // ASCII, the common case) is not copied. A name that is not UTF-8
        // is folded byte by byte in its ASCII letters.
        let folded;
        let rel = if self.ignore_case {
            folded = fold_path(rel);
            &*folded
        } else {
            rel
        };
        let mut prefix = PathBuf::new();
        for (n, c) in rel.components().enumerate() {
            prefix.push(c);
            let name = Path::new(c.as_os_str());
            // The first component is its own prefix: one match for both.
            let both = [name, prefix.as_path()];
            let candidates = if n == 0 { &both[..1] } else { &both[..] };
            for candidate in candidates {
                // Only a match (rare) asks which pattern, the lowest first.
                let candidate = Candidate::new(candidate);
                if self.set.is_match_candidate(&candidate)
                    && let Some(&i) = self.set.matches_candidate(&candidate).first()
                {
                    return Some(&self.patterns[i]);
                }
            }
        }
        None
    }
}

/// `s` with every non-ASCII letter replaced by one representative of its
/// case: the lowercase of its uppercase where each is one character
/// (`K` KELVIN SIGN and `k`, `ſ` and `s`, `ς` and `σ`), else its lowercase
/// where that is one character, else itself. Letters Unicode simple case
/// folding equates get the same representative; a few it keeps apart get
/// one too (dotless `ı` and `i`), which only excludes more. ASCII letters
/// are lowercased.
fn fold(s: &str) -> String {
    fn one(mut it: impl Iterator<Item = char>) -> Option<char> {
        match (it.next(), it.next()) {
            (Some(c), None) => Some(c),
            _ => None,
        }
    }
    s.chars()
        .map(|c| {
            if c.is_ascii() {
                return c.to_ascii_lowercase();
            }
            one(c.to_uppercase())
                .and_then(|u| one(u.to_lowercase()))
                .or_else(|| one(c.to_lowercase()))
                .unwrap_or(c)
        })
        .collect()
}

/// A pattern as [`Exclusions`] compiles it (for a matcher of its own that
/// must agree, such as the sandbox's walk).
pub fn fold_pattern(p: &str) -> String {
    fold(p)
}

/// A path as [`Exclusions`] matches it: folded like the patterns; one
/// already folded (lowercase ASCII, the common case) is not copied. A path
/// that is not UTF-8 has its ASCII letters lowercased.
pub fn fold_path(p: &Path) -> std::borrow::Cow<'_, Path> {
    if is_folded(p) {
        return std::borrow::Cow::Borrowed(p);
    }
    std::borrow::Cow::Owned(match p.to_str() {
        Some(s) => PathBuf::from(fold(s)),
        None => PathBuf::from(std::ffi::OsStr::from_bytes(
            &p.as_os_str().as_bytes().to_ascii_lowercase(),
        )),
    })
}

/// Whether `name` is `wanted` in any letter case, as [`Exclusions`]
/// compares (so `.AIRLOC\u{212A}.toml`, with a KELVIN SIGN, is
/// `.airlock.toml`, as a case-folding filesystem would open it).
pub fn same_name(name: &std::ffi::OsStr, wanted: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_ascii() && wanted.is_ascii() {
        // The common case, without folding (walks call this per entry).
        return bytes.eq_ignore_ascii_case(wanted.as_bytes());
    }
    fold_path(Path::new(name)) == fold_path(Path::new(wanted))
}

/// True when `p` needs no folding: ASCII without uppercase letters.
fn is_folded(p: &Path) -> bool {
    p.as_os_str()
        .as_bytes()
        .iter()
        .all(|b| b.is_ascii() && !b.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex() -> Exclusions {
        let p: Vec<String> = crate::scope::DEFAULT_EXCLUDED
            .iter()
            .map(ToString::to_string)
            .collect();
        Exclusions::new(&p).unwrap()
    }

    #[test]
    fn matches_names_and_ancestors() {
        let e = ex();
        assert_eq!(e.matches(Path::new(".env")), Some(".env"));
        assert_eq!(e.matches(Path::new("app/.env.local")), Some(".env.*"));
        assert_eq!(e.matches(Path::new("home/.ssh/id_rsa")), Some(".ssh"));
        assert_eq!(e.matches(Path::new("certs/server.pem")), Some("*.pem"));
        assert_eq!(e.matches(Path::new("src/main.rs")), None);
        assert_eq!(e.matches(Path::new("environment")), None);
        assert_eq!(e.matches(Path::new(".envrc")), None);
    }

    /// Names a case-folding filesystem opens as an excluded file.
    const FOLDED: &[&str] = &[
        ".ENV",
        ".Env",
        "app/.ENV.LOCAL",
        ".SSH/id_rsa",
        "home/.Ssh/config",
        "SERVER.PEM",
        "certs/Server.Pem",
        "DEPLOY.KEY",
        ".AWS/credentials",
        ".ENV~",
        // Unicode simple case folding: KELVIN SIGN folds to `k`, LATIN
        // SMALL LETTER LONG S to `s`.
        "deploy.\u{212A}ey",
        ".\u{17F}sh/id_rsa",
    ];

    #[test]
    fn names_compare_in_any_case() {
        use std::ffi::OsStr;
        assert!(same_name(
            OsStr::new(".AIRLOC\u{212A}.toml"),
            ".airlock.toml"
        ));
        assert!(same_name(OsStr::new(".Git"), ".git"));
        assert!(same_name(OsStr::new("head"), "HEAD"));
        assert!(!same_name(OsStr::new(".gitx"), ".git"));
    }

    #[test]
    fn letter_case_is_ignored() {
        let e = ex();
        for name in FOLDED {
            assert!(e.matches(Path::new(name)).is_some(), "{name} not excluded");
        }
        assert_eq!(e.matches(Path::new(".ENV/x")), Some(".env"));
        assert_eq!(e.matches(Path::new("ENVIRONMENT")), None);
        assert_eq!(e.matches(Path::new(".ENVRC")), None);
        let e = Exclusions::new(&["Secrets/**".to_string(), "ÄRGER.txt".to_string()]).unwrap();
        assert!(e.matches(Path::new("SECRETS/a")).is_some());
        assert!(e.matches(Path::new("d/ärger.TXT")).is_some());
        assert!(e.matches(Path::new("ärgerX.txt")).is_none());
    }

    #[test]
    fn control_case_sensitive_matching_lets_them_through() {
        let p: Vec<String> = crate::scope::DEFAULT_EXCLUDED
            .iter()
            .map(ToString::to_string)
            .collect();
        let e = Exclusions::build(&p, false).unwrap();
        for name in FOLDED {
            assert_eq!(e.matches(Path::new(name)), None, "{name}");
        }
        assert!(e.matches(Path::new(".env")).is_some());
    }

    #[test]
    fn relative_path_patterns() {
        let e = Exclusions::new(&["secrets/**".to_string(), "/build/out".to_string()]).unwrap();
        assert!(e.matches(Path::new("secrets/a/b.txt")).is_some());
        assert!(e.matches(Path::new("build/out/x")).is_some());
        assert!(e.matches(Path::new("src/secrets.rs")).is_none());
    }
}
