//! Path specifiers: gitignore-style globs relative to the workspace.
//!
//! * `src/**`, `docs/*.md` — relative to the workspace;
//! * `*.lock`, `secrets` — no slash: the name at any depth (`**/*.lock`);
//! * `/abs/**` — an absolute path; `~/x/**` — under the home directory.

use std::path::Path;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// A compiled path specifier.
#[derive(Debug, Clone)]
pub struct PathPattern {
    /// The one glob (a set, whose compilation reports errors where a
    /// single glob's matcher would panic).
    matcher: GlobSet,
    absolute: bool,
}

impl PathPattern {
    /// Compile a specifier.
    pub fn new(spec: &str) -> Result<Self, String> {
        let (pattern, absolute) = if let Some(rest) = spec.strip_prefix("~/") {
            let home = directories::BaseDirs::new()
                .map(|b| b.home_dir().to_path_buf())
                .ok_or("no home directory to expand ~")?;
            (format!("{}/{rest}", home.display()), true)
        } else if spec.starts_with('/') {
            (spec.to_string(), true)
        } else if let Some(rest) = spec.strip_prefix("./") {
            (rest.to_string(), false)
        } else if !spec.trim_end_matches('/').contains('/') {
            (format!("**/{spec}"), false)
        } else {
            (spec.to_string(), false)
        };
        let pattern = pattern.trim_end_matches('/').to_string();
        let invalid = |e: globset::Error| format!("invalid path pattern {spec:?}: {e}");
        let glob = GlobBuilder::new(&pattern)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(invalid)?;
        let matcher = GlobSetBuilder::new().add(glob).build().map_err(invalid)?;
        Ok(Self { matcher, absolute })
    }

    /// Does `path` (absolute, resolved) match? Relative patterns match
    /// paths inside `workspace` only; a directory pattern also matches
    /// everything under it.
    pub fn matches(&self, path: &Path, workspace: &Path) -> bool {
        let candidate = if self.absolute {
            path
        } else {
            match path.strip_prefix(workspace) {
                Ok(rel) => rel,
                Err(_) => return false,
            }
        };
        candidate
            .ancestors()
            .any(|p| !p.as_os_str().is_empty() && self.matcher.is_match(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(spec: &str, path: &str) -> bool {
        PathPattern::new(spec)
            .unwrap()
            .matches(Path::new(path), Path::new("/ws"))
    }

    #[test]
    fn relative_globs() {
        assert!(m("src/**", "/ws/src/a/b.rs"));
        assert!(m("src/**", "/ws/src/main.rs"));
        assert!(!m("src/**", "/ws/tests/a.rs"));
        assert!(!m("src/**", "/other/src/a.rs"));
        assert!(m("docs/*.md", "/ws/docs/a.md"));
        assert!(!m("docs/*.md", "/ws/docs/sub/a.md"), "* does not cross /");
    }

    #[test]
    fn names_at_any_depth() {
        assert!(m("*.lock", "/ws/Cargo.lock"));
        assert!(m("*.lock", "/ws/a/b/yarn.lock"));
        assert!(m("**/*.lock", "/ws/a/yarn.lock"));
        assert!(
            m("secrets", "/ws/config/secrets/key.txt"),
            "a directory name covers its contents"
        );
        assert!(!m("*.lock", "/ws/lockfile"));
    }

    #[test]
    fn absolute_patterns() {
        assert!(m("/etc/**", "/etc/passwd"));
        assert!(!m("/etc/**", "/ws/etc/passwd"));
        assert!(m("/ws/src/*.rs", "/ws/src/a.rs"));
    }
}
