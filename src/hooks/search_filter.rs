//! Which entries below its start a native search may read, from the
//! pattern the agent gave it (Claude `Grep`'s `glob`, Gemini
//! `grep_search`'s `include_pattern`, a `Glob`/`glob`/`read_many_files`
//! pattern). The agents' tools match these in different dialects (rg's
//! gitignore globs, `git grep` pathspecs, GNU grep's `--include`, node
//! `glob`), so no one reading is exact. A filter here matches at least
//! every path any of them can: letters in any case, `*` across `/`,
//! against every tail of the path (a bare `app.txt` matches
//! `src/app.txt`, as rg's does), and anything it cannot read (extglob,
//! negation, a pattern that does not compile) matches everything.

use std::path::{Component, Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};

/// The entries a search may read below its start.
#[derive(Debug, Clone)]
pub enum Filter {
    /// Any entry.
    Any,
    /// Entries at least one of these may match (each tried on every tail
    /// of the entry's path below the start).
    Patterns(Vec<GlobMatcher>),
}

impl Filter {
    /// The filter of an agent's filter pattern: the whole of it and, when
    /// it has spaces (several patterns), each part.
    pub fn of(pattern: &str) -> Self {
        let mut parts = vec![pattern];
        parts.extend(pattern.split_whitespace());
        parts.sort_unstable();
        parts.dedup();
        let mut matchers = Vec::new();
        for part in parts.into_iter().filter(|p| !p.is_empty()) {
            match permissive(part) {
                Some(m) => matchers.push(m),
                None => return Self::Any,
            }
        }
        if matchers.is_empty() {
            Self::Any
        } else {
            Self::Patterns(matchers)
        }
    }

    /// Whether the entry at `rel` (below the start) may be read.
    pub fn may_match(&self, rel: &Path) -> bool {
        let Self::Patterns(matchers) = self else {
            return true;
        };
        let text = rel.to_string_lossy();
        let mut tails = vec![text.as_ref()];
        tails.extend(text.match_indices('/').map(|(i, _)| &text[i + 1..]));
        matchers
            .iter()
            .any(|m| tails.iter().any(|t| m.is_match(Path::new(t))))
    }
}

/// `pattern` compiled as the most permissive of the dialects, or None
/// when it uses what this reading cannot model (extglob, negation).
fn permissive(pattern: &str) -> Option<GlobMatcher> {
    let extglob = pattern
        .as_bytes()
        .windows(2)
        .any(|w| matches!(w, [b'?' | b'*' | b'+' | b'@' | b'!', b'(']));
    if extglob || pattern.starts_with('!') || pattern.starts_with('^') {
        return None;
    }
    GlobBuilder::new(pattern)
        .case_insensitive(true)
        .literal_separator(false)
        .empty_alternates(true)
        .build()
        .ok()
        .map(|g| g.compile_matcher())
}

/// A search pattern split where its wildcards begin: the directory it
/// names literally (joined to where the search starts: a pattern may be
/// absolute or climb with `..`) and the rest, None when nothing is left
/// (the pattern names one path). Err: the rest climbs with `..` after a
/// wildcard, so where it leads is not known.
pub fn split(base: &Path, pattern: &str) -> Result<(PathBuf, Option<String>), String> {
    let wild = |c: &str| c.contains(['*', '?', '[', '{']);
    let components: Vec<&str> = pattern.split('/').collect();
    let first_wild = components.iter().position(|c| wild(c));
    let (literal, rest) = match first_wild {
        Some(i) => (components[..i].join("/"), Some(components[i..].join("/"))),
        None => (pattern.to_string(), None),
    };
    if let Some(rest) = &rest
        && Path::new(rest)
            .components()
            .any(|c| c == Component::ParentDir)
    {
        return Err(format!(
            "the pattern {pattern:?} climbs with .. after a wildcard, so airlock cannot tell \
             where it leads"
        ));
    }
    let dir = if literal.is_empty() && pattern.starts_with('/') {
        PathBuf::from("/")
    } else {
        super::agent_path::normalised(&base.join(&literal))
    };
    Ok((dir, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn may(pattern: &str, rel: &str) -> bool {
        Filter::of(pattern).may_match(Path::new(rel))
    }

    #[test]
    fn a_filter_matches_whatever_some_dialect_may() {
        assert!(may("*.txt", "a.txt"));
        assert!(may("*.txt", "deep/down/a.TXT"));
        assert!(may("app.txt", "src/app.txt"));
        assert!(may("src/**", "src/a/b"));
        assert!(may("*.{ts,tsx}", "x/y.tsx"));
        assert!(may("*.rs *.env", "a/.env"));
        assert!(may("!(*.rs)", "anything"));
        assert!(may("!*.rs", "anything"));
        assert!(may("[", "anything"), "does not compile: everything");
        assert!(!may("*.rs", ".env"));
        assert!(!may("*.txt", "notes.md"));
        assert!(!may("src/**", "docs/a"));
    }

    #[test]
    fn a_pattern_starts_where_its_literal_directory_is() {
        let base = Path::new("/ws/sub");
        let got = |p: &str| split(base, p).unwrap();
        assert_eq!(
            got("**/*.txt"),
            (PathBuf::from("/ws/sub"), Some("**/*.txt".into()))
        );
        assert_eq!(
            got("src/*.rs"),
            (PathBuf::from("/ws/sub/src"), Some("*.rs".into()))
        );
        assert_eq!(got("../*"), (PathBuf::from("/ws"), Some("*".into())));
        assert_eq!(
            got("/etc/*.conf"),
            (PathBuf::from("/etc"), Some("*.conf".into()))
        );
        assert_eq!(got("/*"), (PathBuf::from("/"), Some("*".into())));
        assert_eq!(got("notes.txt"), (PathBuf::from("/ws/sub/notes.txt"), None));
        assert!(split(base, "*/../../x").is_err());
    }
}
