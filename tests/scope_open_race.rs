//! The scope opens the object it checked: a directory on the path swapped
//! for a symlink out of the workspace while files are being opened (the
//! check-then-open race) never lets a read reach the outside.
//!
//! A second thread exchanges `ws/sub` (a directory holding `file.txt`) with
//! a symlink to `outside/` (holding a `file.txt` with a secret) as fast as
//! it can, with `renameat2(RENAME_EXCHANGE)`, so the name `sub` is always
//! one or the other. The control checks the path the same way and then
//! opens it the ordinary way (following links): it reads the secret. The
//! scope's `open_file`, over as many tries, never does.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use airlock::scope::Scope;

const SECRET: &str = "OUTSIDE-SECRET-7d41";
const INSIDE: &str = "inside, harmless";

/// How long the control may take to show the race at least once.
const CONTROL_DEADLINE: Duration = Duration::from_secs(30);
/// Tries of the scope's own open (at least as many as the control needed).
const MIN_TRIES: usize = 20_000;

struct Swapper {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Swapper {
    /// Exchange `a` and `b` until dropped.
    fn start(a: PathBuf, b: PathBuf) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    &a,
                    rustix::fs::CWD,
                    &b,
                    rustix::fs::RenameFlags::EXCHANGE,
                )
                .expect("renameat2(RENAME_EXCHANGE)");
            }
        });
        Self {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Swapper {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

struct Env {
    _tmp: tempfile::TempDir,
    ws: PathBuf,
    scope: Scope,
}

fn env() -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    let ws = root.join("ws");
    let outside = root.join("outside");
    fs::create_dir_all(ws.join("sub")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(ws.join("sub/file.txt"), INSIDE).unwrap();
    fs::write(outside.join("file.txt"), SECRET).unwrap();
    std::os::unix::fs::symlink(&outside, ws.join("link")).unwrap();
    let scope = Scope::new(&ws, &[], &[]).unwrap();
    Env {
        _tmp: tmp,
        ws,
        scope,
    }
}

fn read_all(mut f: fs::File) -> String {
    let mut s = String::new();
    let _ = f.read_to_string(&mut s);
    s
}

/// The control: the same lexical check as the scope (inside the root, not
/// excluded), then an ordinary open that follows links.
fn check_then_open(scope: &Scope, ws: &Path, path: &str) -> Option<String> {
    let lexical = scope.absolute(path).ok()?;
    scope.check_real(path, &lexical).ok()?;
    if !lexical.starts_with(ws) {
        return None;
    }
    fs::File::open(&lexical).ok().map(read_all)
}

#[test]
fn a_directory_swapped_for_a_link_during_the_open_never_leaks() {
    let e = env();
    let _swap = Swapper::start(e.ws.join("sub"), e.ws.join("link"));

    // Control: the race is real and the naive open loses it.
    let started = Instant::now();
    let mut control_tries = 0usize;
    let mut control_leaks = 0usize;
    while control_leaks == 0 && started.elapsed() < CONTROL_DEADLINE {
        control_tries += 1;
        if check_then_open(&e.scope, &e.ws, "sub/file.txt").is_some_and(|t| t.contains(SECRET)) {
            control_leaks += 1;
        }
    }
    assert!(
        control_leaks > 0,
        "control: a check-then-open never read the secret in {control_tries} tries; the race \
         did not happen, so this test proves nothing"
    );

    // The scope, over at least as many tries.
    let tries = control_tries.max(MIN_TRIES);
    let (mut opened, mut refused) = (0usize, 0usize);
    for _ in 0..tries {
        match e.scope.open_file("sub/file.txt") {
            Ok((file, real, _meta)) => {
                opened += 1;
                assert!(
                    real.starts_with(&e.ws),
                    "the scope opened {} (outside the workspace)",
                    real.display()
                );
                let text = read_all(file);
                assert!(
                    !text.contains(SECRET),
                    "the scope read the secret through a swapped link ({real:?})"
                );
            }
            Err(_) => refused += 1,
        }
    }
    assert!(
        opened > 0,
        "the scope never opened the file in {tries} tries ({refused} refused): the swap test \
         cannot tell a safe open from no open"
    );
}
