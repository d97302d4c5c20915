//! Exclusion patterns: globs matched against every component name and every
//! root-relative ancestor path, so `.ssh` hides `a/.ssh/id_rsa`.

use std::path::Path;

use globset::{Candidate, Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// A compiled set of exclusion globs (case-sensitive).
#[derive(Debug, Clone)]
pub struct Exclusions {
    patterns: Vec<String>,
    set: GlobSet,
}

impl Exclusions {
    /// Compile `patterns`; an invalid glob is an error naming it.
    pub fn new(patterns: &[String]) -> Result<Self, String> {
        let mut b = GlobSetBuilder::new();
        for p in patterns {
            let glob: Glob = GlobBuilder::new(p.trim_start_matches('/'))
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
        let mut prefix = std::path::PathBuf::new();
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

    #[test]
    fn case_sensitive() {
        assert_eq!(ex().matches(Path::new(".ENV")), None);
    }

    #[test]
    fn relative_path_patterns() {
        let e = Exclusions::new(&["secrets/**".to_string(), "/build/out".to_string()]).unwrap();
        assert!(e.matches(Path::new("secrets/a/b.txt")).is_some());
        assert!(e.matches(Path::new("build/out/x")).is_some());
        assert!(e.matches(Path::new("src/secrets.rs")).is_none());
    }
}
