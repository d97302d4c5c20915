//! Where a native tool's path leads: the agents resolve a relative path
//! against their own working directory, which the event reports as `cwd`
//! (it may be below the workspace, or outside it), never against the
//! workspace. airlock decides, shows and records that path; the scope
//! then refuses it if it is outside or excluded, as for airlock's own
//! tools. A relative path with no absolute `cwd` to resolve it against
//! is refused: airlock never guesses that the agent is in the workspace.

use std::path::{Component, Path, PathBuf};

use crate::tools::ToolError;

/// `path` as the agent's tool opens it: as given when absolute, else
/// against `cwd` (the event's). `native` names the tool in a refusal.
pub fn resolve(native: &str, cwd: Option<&Path>, path: &str) -> Result<String, ToolError> {
    if Path::new(path).is_absolute() {
        return Ok(path.to_string());
    }
    match cwd {
        Some(c) if c.is_absolute() => Ok(c.join(path).display().to_string()),
        Some(c) => Err(unknown_base(
            native,
            path,
            &format!("the event's cwd {} is not absolute", c.display()),
        )),
        None => Err(unknown_base(native, path, "the event has no cwd")),
    }
}

/// `path` (absolute) with `.` and `..` resolved lexically, as a tool
/// joining it with a pattern sees it.
pub fn normalised(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn unknown_base(native: &str, path: &str, why: &str) -> ToolError {
    ToolError::InvalidArguments {
        tool: native.to_string(),
        message: format!(
            "{path} is relative and {why}: airlock cannot tell which file the agent's tool \
             would use, so the call was not run"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_the_agents_directorys() {
        let sub = Some(Path::new("/ws/sub"));
        assert_eq!(resolve("Write", sub, "x.txt").unwrap(), "/ws/sub/x.txt");
        assert_eq!(resolve("Write", sub, "../y").unwrap(), "/ws/sub/../y");
        assert_eq!(resolve("Write", sub, "/etc/z").unwrap(), "/etc/z");
        assert_eq!(
            resolve("Write", Some(Path::new("/elsewhere")), "x").unwrap(),
            "/elsewhere/x"
        );
        // Never the workspace by default.
        for cwd in [None, Some(Path::new("ws/sub"))] {
            let e = resolve("Write", cwd, "x.txt").unwrap_err();
            assert!(e.to_string().contains("cannot tell"), "{e}");
        }
        assert_eq!(resolve("Write", None, "/abs").unwrap(), "/abs");
        assert_eq!(
            normalised(Path::new("/ws/sub/../a/./b")),
            PathBuf::from("/ws/a/b")
        );
    }
}
