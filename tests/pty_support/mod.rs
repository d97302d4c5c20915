//! The real `airlock` binary in a pseudo-terminal: everything it writes is
//! kept, keys are typed into it, and the tests wait for words on the
//! screen. Shared by the TUI, review and real-agent end-to-end tests.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use portable_pty::CommandBuilder;
use portable_pty::PtySize;

/// `airlock` with these arguments (the caller adds environment and cwd).
pub fn airlock() -> CommandBuilder {
    CommandBuilder::new(env!("CARGO_BIN_EXE_airlock"))
}

/// A program running in a PTY, and everything it wrote.
pub struct Pty {
    /// The program (killed on drop).
    pub child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    output: Arc<Mutex<Vec<u8>>>,
    /// How far [`Pty::wait_for_new`] has read.
    seen: usize,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

impl Pty {
    /// Run `cmd` in a `cols`×`rows` terminal (`TERM=xterm-256color`).
    pub fn spawn(mut cmd: CommandBuilder, cols: u16, rows: u16) -> Pty {
        let pair = portable_pty::native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        cmd.env("TERM", "xterm-256color");
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
        Pty {
            child,
            writer,
            output,
            seen: 0,
            _master: pair.master,
        }
    }

    /// Everything written so far, as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.output.lock().unwrap()).into_owned()
    }

    /// Type `s`.
    pub fn keys(&mut self, s: &str) {
        self.writer.write_all(s.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// Wait until `needle` appears in what was written since the last
    /// match; `Err` after `secs`.
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

    /// Block until `needle` is anywhere in the output (30 s at most).
    pub fn wait_for(&self, needle: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !self.text().contains(needle) {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {needle:?}; the screen so far:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Block until the program exits (30 s at most); its exit code.
    pub fn exit_code(&mut self) -> u32 {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s.exit_code();
            }
            assert!(Instant::now() < deadline, "the program did not exit");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}
