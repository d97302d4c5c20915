//! The project a hook event belongs to when no supervisor answers: where
//! its `.airlock.toml` (and `[hooks] when_absent`) is read. The supervisor
//! reads the file of its workspace, the directory it was started in (the
//! project's root, where the agent was started too), never of a directory
//! below it; the event's `cwd` follows the agent's shell (`cd sub` in
//! Claude Code's `Bash` moves it), so a file in any directory the agent
//! can reach would decide.

use std::path::{Path, PathBuf};

use super::HookAgent;

/// The environment variable in which the agent tells its hooks the
/// project directory it was started in (none for Codex, whose event `cwd`
/// is the session's directory, which the model's commands do not move).
pub fn project_dir_var(agent: HookAgent) -> Option<&'static str> {
    match agent {
        HookAgent::Claude => Some("CLAUDE_PROJECT_DIR"),
        HookAgent::Gemini => Some("GEMINI_PROJECT_DIR"),
        HookAgent::Codex => None,
    }
}

/// The workspace of an event from `agent` in `cwd`: the agent's project
/// directory when it names one that exists (`given`: the value of
/// [`project_dir_var`]), else `cwd`; canonical, as the supervisor's
/// workspace is.
pub fn workspace_of(given: Option<&str>, cwd: &Path) -> PathBuf {
    given
        .filter(|d| !d.is_empty() && Path::new(d).is_absolute())
        .and_then(|d| std::fs::canonicalize(d).ok())
        .filter(|d| d.is_dir())
        .unwrap_or_else(|| cwd.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agents_project_directory_wins_over_the_shells() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let sub = root.join("sub");
        std::fs::create_dir(&sub).unwrap();
        let given = root.to_str();
        assert_eq!(workspace_of(given, &sub), root);
        assert_eq!(workspace_of(None, &sub), sub);
        assert_eq!(workspace_of(Some(""), &sub), sub);
        assert_eq!(workspace_of(Some("relative"), &sub), sub);
        assert_eq!(workspace_of(Some("/no/such/dir"), &sub), sub);
        assert_eq!(project_dir_var(HookAgent::Codex), None);
    }
}
