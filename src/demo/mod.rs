//! `airlock demo`: a throw-away copy of a small sample project, and a
//! scripted agent that connects over the real socket with an MCP client and
//! makes every kind of call — reads and greps that run at once, an edit
//! with a diff to approve, a test run that streams its output, a secret
//! the scope refuses, and a risky command to deny or edit. It waits for
//! each answer, so a newcomer can try every key.

use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::mcp::Listening;

pub mod agent;

pub use agent::{Scenario, Step, StepResult, run_agent};

/// The sample workspace: (path in the workspace, content, executable).
const FILES: &[(&str, &str, bool)] = &[
    (
        "README.md",
        include_str!("../../assets/demo/workspace/README.md"),
        false,
    ),
    (
        "todo.sh",
        include_str!("../../assets/demo/workspace/todo.sh"),
        true,
    ),
    (
        "tests/run_tests.sh",
        include_str!("../../assets/demo/workspace/tests/run_tests.sh"),
        true,
    ),
    (
        ".env",
        include_str!("../../assets/demo/workspace/dot-env"),
        false,
    ),
    (
        ".gitignore",
        include_str!("../../assets/demo/workspace/dot-gitignore"),
        false,
    ),
    (
        "build/report.txt",
        include_str!("../../assets/demo/workspace/build/report.txt"),
        false,
    ),
    (
        "build/tinytodo-0.1.tar.txt",
        include_str!("../../assets/demo/workspace/build/tinytodo-0.1.tar.txt"),
        false,
    ),
];

/// The scripted agent's calls.
pub const SCENARIO: &str = include_str!("../../assets/demo/scenario.json");

/// The demo's temporary workspace; removed when dropped.
#[derive(Debug)]
pub struct Demo {
    root: PathBuf,
    workspace: PathBuf,
}

/// Copy the sample workspace into a new private temporary directory.
pub fn prepare() -> io::Result<Demo> {
    let root = std::env::temp_dir().join(format!(
        "airlock-demo-{}-{:08x}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir(&root)?;
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o700))?;
    let demo = Demo {
        workspace: root.join("tinytodo"),
        root,
    };
    write_workspace(&demo.workspace)?;
    Ok(demo)
}

/// Write the sample files into `dir` (created).
pub fn write_workspace(dir: &Path) -> io::Result<()> {
    for (path, content, exec) in FILES {
        let file = dir.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&file, content)?;
        let mode = if *exec { 0o755 } else { 0o644 };
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

impl Demo {
    /// The sample project.
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// Start the scripted agent against the supervisor listening at
    /// `listening` (it waits a moment first, so the human sees the empty
    /// screen).
    pub fn start_agent(&self, listening: &Listening) {
        let socket = listening.socket.clone();
        tokio::spawn(async move {
            let scenario = match Scenario::builtin() {
                Ok(s) => s,
                Err(e) => {
                    tracing::error!("the demo scenario is invalid: {e}");
                    return;
                }
            };
            // Give the human a moment to see the empty screen first.
            tokio::time::sleep(Duration::from_millis(1500)).await;
            match run_agent(&socket, &scenario, None).await {
                Ok(results) => tracing::info!(calls = results.len(), "the demo agent finished"),
                Err(e) => tracing::warn!("the demo agent stopped: {e}"),
            }
        });
    }
}

impl Drop for Demo {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.root) {
            tracing::warn!(dir = %self.root.display(), "cannot remove the demo workspace: {e}");
        }
    }
}
