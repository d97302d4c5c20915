//! Exclusion patterns: globs matched against every component name and every
//! root-relative ancestor path, so `.ssh` hides `a/.ssh/id_rsa`.
//!
//! Matching ignores letter case, on every filesystem: the patterns and the
//! names are folded first ([`fold`]: ASCII lowercased, every other letter
//! to one representative of its case, default-ignorable code points and a
//! name's trailing dots dropped), so what Unicode full case folding
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

/// `s` as a case-folding filesystem compares it, near enough to refuse
/// whatever it would open under an excluded name:
///
/// * letters folded to one representative of their case: the lowercase of
///   the uppercase of the lowercase, every step of any length, so what
///   Unicode's full case folding equates is equated (`K` KELVIN SIGN and
///   `k`, `ſ` and `s`, `ß` and `ss`, `ﬁ` and `fi`); a few it keeps apart
///   get one too (dotless `ı` and `i`), which only excludes more;
/// * default-ignorable code points dropped (soft hyphen, zero-width
///   characters, bidi controls, variation selectors, tags): ext4's, f2fs's
///   and tmpfs's case folding ignored them, so `.e\u{AD}nv` opened `.env`;
/// * a name's trailing dots dropped (not those of a name of dots only):
///   vfat opens `server.pem.` as `server.pem`.
///
/// ASCII letters are lowercased. Canonical equivalence (NFD) is not
/// applied: it equates only non-ASCII letters, precomposed or not.
fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii() {
            if c == '/' {
                strip_trailing_dots(&mut out);
            }
            out.push(c.to_ascii_lowercase());
        } else if !is_default_ignorable(c) {
            for u in c.to_lowercase().flat_map(char::to_uppercase) {
                out.extend(u.to_lowercase());
            }
        }
    }
    strip_trailing_dots(&mut out);
    out
}

/// Drop the trailing dots of the last name in `out` (after its last `/`),
/// unless the name is only dots.
fn strip_trailing_dots(out: &mut String) {
    let name_start = out.rfind('/').map_or(0, |i| i + 1);
    let kept = out[name_start..].trim_end_matches('.').len();
    if kept > 0 {
        out.truncate(name_start + kept);
    }
}

/// Unicode's `Default_Ignorable_Code_Point` (its `DerivedCoreProperties.txt`).
fn is_default_ignorable(c: char) -> bool {
    matches!(
        c,
        '\u{AD}'
            | '\u{34F}'
            | '\u{61C}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFF8}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
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
    if bytes.is_ascii() && wanted.is_ascii() && bytes.last() != Some(&b'.') {
        // The common case, without folding (walks call this per entry).
        return bytes.eq_ignore_ascii_case(wanted.as_bytes());
    }
    fold_path(Path::new(name)) == fold_path(Path::new(wanted))
}

/// True when `p` needs no folding: ASCII without uppercase letters, and
/// no name ending in a dot (but `.` and `..`).
fn is_folded(p: &Path) -> bool {
    let bytes = p.as_os_str().as_bytes();
    bytes
        .iter()
        .all(|b| b.is_ascii() && !b.is_ascii_uppercase())
        && bytes
            .split(|b| *b == b'/')
            .all(|name| name.last() != Some(&b'.') || name.iter().all(|b| *b == b'.'))
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
        // Full case folding: `ß` is `ss`, capital `ẞ` too.
        ".\u{DF}h/id_rsa",
        "a/.\u{1E9E}H/config",
        // Default-ignorable code points, which ext4/f2fs/tmpfs case
        // folding dropped: soft hyphen, zero-width space and joiner, BOM,
        // a variation selector, a tag character.
        ".e\u{AD}nv",
        ".\u{200B}env",
        "\u{FEFF}.env",
        ".s\u{200D}sh/id_rsa",
        "server.p\u{FE0F}em",
        ".aws\u{E0041}/credentials",
        // vfat drops a name's trailing dots.
        "server.pem.",
        ".ssh./id_rsa",
        "deploy.KEY..",
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
        assert!(same_name(OsStr::new(".git."), ".git"));
        assert!(same_name(OsStr::new(".g\u{200B}it"), ".git"));
        assert!(!same_name(OsStr::new(".."), "."));
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
