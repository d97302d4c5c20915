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

impl Tui {
    /// The screen as the terminal shows it now, one string a row: the
    /// output replayed on a grid (ratatui writes only changed cells and
    /// moves the cursor over unchanged ones, so words are not contiguous
    /// in the raw stream).
    pub fn screen(&self) -> String {
        render(&self.text(), 140, 40).join("\n")
    }

    /// Wait until the screen shows `needle`.
    pub async fn wait_screen(&mut self, needle: &str, secs: u64) -> Result<(), String> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
        while !self.screen().contains(needle) {
            if tokio::time::Instant::now() >= deadline {
                return Err(format!(
                    "no {needle:?} on the screen within {secs} s; the screen:\n{}",
                    self.screen()
                ));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Ok(())
    }

    /// Wait until the screen shows a prompt (`Approve?`) with every one
    /// of `shows` on it, then type `keys` (past its 300 ms key guard).
    pub async fn answer_showing(
        &mut self,
        keys: &str,
        shows: &[&str],
        secs: u64,
    ) -> Result<(), String> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
        loop {
            let s = self.screen();
            if s.contains("Approve?") && shows.iter().all(|n| s.contains(n)) {
                break;
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(format!(
                    "no prompt showing {shows:?} within {secs} s; the screen:\n{s}"
                ));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        self.keys(keys);
        Ok(())
    }
}

/// Replays `out` (cursor moves, erases, text; styles ignored) on a
/// `cols`×`rows` grid.
fn render(out: &str, cols: usize, rows: usize) -> Vec<String> {
    let mut g = vec![vec![' '; cols]; rows];
    let (mut r, mut c) = (0usize, 0usize);
    let mut it = out.chars().peekable();
    while let Some(ch) = it.next() {
        match ch {
            '\x1b' => match it.next() {
                Some('[') => {
                    let mut params = String::new();
                    let mut fin = ' ';
                    for x in it.by_ref() {
                        if ('\x40'..='\x7e').contains(&x) {
                            fin = x;
                            break;
                        }
                        params.push(x);
                    }
                    let n: Vec<usize> = params
                        .trim_start_matches('?')
                        .split(';')
                        .map(|p| p.parse().unwrap_or(0))
                        .collect();
                    let at = |i: usize| n.get(i).copied().unwrap_or(0).max(1);
                    match fin {
                        'H' | 'f' => (r, c) = (at(0) - 1, at(1) - 1),
                        'G' => c = at(0) - 1,
                        'C' => c += at(0),
                        'J' if n.first() == Some(&2) => g = vec![vec![' '; cols]; rows],
                        'K' if r < rows => g[r][c.min(cols)..].fill(' '),
                        'h' | 'l' if params == "?1049" => g = vec![vec![' '; cols]; rows],
                        _ => {}
                    }
                }
                Some(']') => {
                    for x in it.by_ref() {
                        if x == '\x07' {
                            break;
                        }
                    }
                }
                _ => {}
            },
            '\r' => c = 0,
            '\n' => r += 1,
            x if x < ' ' => {}
            x => {
                if r < rows && c < cols {
                    g[r][c] = x;
                }
                c += 1;
            }
        }
    }
    g.into_iter()
        .map(|row| row.into_iter().collect::<String>().trim_end().to_string())
        .collect()
}
