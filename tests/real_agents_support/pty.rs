//! The real `airlock` supervisor with its TUI in a pseudo-terminal,
//! answered by keys.

use std::path::Path;
use std::time::Duration;

use crate::pty_support::{Pty, airlock};

/// `airlock` running in a PTY, and everything it wrote.
pub struct Tui(Pty);

impl std::ops::Deref for Tui {
    type Target = Pty;
    fn deref(&self) -> &Pty {
        &self.0
    }
}

impl std::ops::DerefMut for Tui {
    fn deref_mut(&mut self) -> &mut Pty {
        &mut self.0
    }
}

impl Tui {
    /// `airlock --workspace ws --data-dir data` with exactly `env`.
    pub fn start(ws: &Path, data: &Path, env: &[(String, String)]) -> Tui {
        let mut cmd = airlock();
        cmd.arg("--workspace");
        cmd.arg(ws);
        cmd.arg("--data-dir");
        cmd.arg(data);
        cmd.env_clear();
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.cwd(ws);
        Tui(Pty::spawn(cmd, 140, 40))
    }

    /// Answer the next prompt with `keys` once it is on screen, `after` it
    /// appeared (at least past its 300 ms key guard).
    pub async fn answer(&mut self, keys: &str, after: Duration, secs: u64) -> Result<(), String> {
        self.wait_for_new("Approve?", secs).await?;
        tokio::time::sleep(after.max(Duration::from_millis(500))).await;
        self.keys(keys);
        Ok(())
    }

    /// `q` (and `y` if it asks), then wait for the exit.
    pub async fn quit(&mut self) {
        self.keys("q");
        tokio::time::sleep(Duration::from_millis(500)).await;
        if self.text().contains("Quit airlock?") {
            self.keys("y");
        }
        for _ in 0..200 {
            if self.child.try_wait().unwrap().is_some() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let _ = self.child.kill();
    }
}
