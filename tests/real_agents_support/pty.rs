//! The real `airlock` supervisor with its TUI in a pseudo-terminal,
//! answered by keys.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use portable_pty::{CommandBuilder, PtySize};

/// `airlock` running in a PTY, and everything it wrote.
pub struct Tui {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    output: Arc<Mutex<Vec<u8>>>,
    seen: usize,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Drop for Tui {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

impl Tui {
    /// `airlock --workspace ws --data-dir data` with exactly `env`.
    pub fn start(ws: &Path, data: &Path, env: &[(String, String)]) -> Tui {
        let pair = portable_pty::native_pty_system()
            .openpty(PtySize {
                rows: 40,
                cols: 140,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_airlock"));
        cmd.arg("--workspace");
        cmd.arg(ws);
        cmd.arg("--data-dir");
        cmd.arg(data);
        cmd.env_clear();
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.env("TERM", "xterm-256color");
        cmd.cwd(ws);
        let child = pair.slave.spawn_command(cmd).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = pair.master.take_writer().unwrap();
        let output = Arc::new(Mutex::new(Vec::new()));
        let out = output.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                out.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Tui {
            child,
            writer,
            output,
            seen: 0,
            _master: pair.master,
        }
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.output.lock().unwrap()).into_owned()
    }

    /// Wait until `needle` appears in what was written since the last
    /// match; `Err` with the screen so far after `secs`.
    pub async fn wait_for_new(&mut self, needle: &str, secs: u64) -> Result<(), String> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
        loop {
            {
                let out = self.output.lock().unwrap();
                let hay = String::from_utf8_lossy(&out[self.seen.min(out.len())..]).into_owned();
                if let Some(i) = hay.find(needle) {
                    self.seen += hay[..i + needle.len()].len();
                    return Ok(());
                }
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(format!("no {needle:?} on the screen within {secs} s"));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub fn keys(&mut self, s: &str) {
        self.writer.write_all(s.as_bytes()).unwrap();
        self.writer.flush().unwrap();
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
