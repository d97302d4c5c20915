//! Path specifiers: gitignore-style globs relative to the workspace.
//!
//! * `src/**`, `docs/*.md` — relative to the workspace;
//! * `*.lock`, `secrets` — no slash: the name at any depth (`**/*.lock`);
//! * `/abs/**` — an absolute path; `~/x/**` — under the home directory;
//! * `=src/a.rs`, `=/abs/a` — exactly that file, nothing in it a pattern:
//!   what "always" saves for a write ([`exact_specifier`]), so that a file
//!   named `*` or `~/x` cannot become a pattern.

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// A compiled path specifier.
#[derive(Debug, Clone)]
pub struct PathPattern {
    kind: Kind,
}

/// A glob or one exact path.
#[derive(Debug, Clone)]
enum Kind {
    Glob {
        /// The one glob (a set, whose compilation reports errors where a
        /// single glob's matcher would panic).
        matcher: GlobSet,
        absolute: bool,
    },
    /// `=path`: this path (relative to the workspace unless absolute).
    Exact(PathBuf),
}

/// The marker of an exact path specifier.
const EXACT: char = '=';

/// The specifier that matches exactly the file shown as `shown` (relative
/// to the workspace, or absolute) and nothing else.
pub fn exact_specifier(shown: &str) -> String {
    format!("{EXACT}{shown}")
}

impl PathPattern {
    /// Compile a specifier.
    pub fn new(spec: &str) -> Result<Self, String> {
        if let Some(path) = spec.strip_prefix(EXACT) {
            if path.is_empty() {
                return Err("empty exact path".into());
            }
            return Ok(Self {
                kind: Kind::Exact(PathBuf::from(path)),
            });
        }
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
        Ok(Self {
            kind: Kind::Glob { matcher, absolute },
        })
    }

    /// Does `path` (absolute, resolved) match? Relative patterns match
    /// paths inside `workspace` only; a directory pattern also matches
    /// everything under it. An exact path matches only itself.
    pub fn matches(&self, path: &Path, workspace: &Path) -> bool {
        let (matcher, absolute) = match &self.kind {
            Kind::Exact(exact) if exact.is_absolute() => return path == exact,
            Kind::Exact(exact) => return path.strip_prefix(workspace).is_ok_and(|r| r == exact),
            Kind::Glob { matcher, absolute } => (matcher, *absolute),
        };
        let candidate = if absolute {
            path
        } else {
            match path.strip_prefix(workspace) {
                Ok(rel) => rel,
                Err(_) => return false,
            }
        };
        candidate
            .ancestors()
            .any(|p| !p.as_os_str().is_empty() && matcher.is_match(p))
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

    #[test]
    fn exact_paths_are_never_patterns() {
        for name in [
            "*", "**", "a*", "[ab]", "{a,b}", "~/x", "!x", "a\\b", "dir/",
        ] {
            let spec = exact_specifier(name);
            let file = format!("/ws/{name}");
            assert!(m(&spec, &file), "{spec} matches {file}");
            // Another file, a file under it, the same name elsewhere: no.
            assert!(!m(&spec, "/ws/other"), "{spec}");
            assert!(!m(&spec, &format!("{file}/x")), "{spec}");
            assert!(!m(&spec, &format!("/ws/sub/{name}")), "{spec}");
        }
        assert!(m("=/etc/hosts", "/etc/hosts"));
        assert!(!m("=/etc/hosts", "/ws/etc/hosts"));
        assert!(m("=src/a.rs", "/ws/src/a.rs"));
        assert!(!m("=a.rs", "/ws/src/a.rs"), "not at any depth");
        // CONTROL: the same names as patterns match far more.
        assert!(m("*", "/ws/other"));
        assert!(m("a.rs", "/ws/src/a.rs"));
        assert!(m("{a,b}", "/ws/a"));
        assert!(PathPattern::new("=").is_err());
    }
}
