//! `write_file` writes in the directory that was checked and nowhere
//! else: a directory on the way swapped for a symlink (or for another
//! directory) while the change waits for approval, or in a loop while
//! writes are made, never redirects a write.
//!
//! The control is the write tools' old way, reproduced here: the path
//! resolved and checked (`resolve`), its directory then opened by path,
//! following links, checked by the name the kernel gives the opened
//! directory (in a root, not excluded), and the file written in it. It
//! writes into `.git/config`, `.claude/` and a swapped-in directory; the
//! tools, over as many tries, never do.

use std::fs;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use airlock::audit::AuditLog;
use airlock::call::{AgentInfo, ApprovedBy, Decision, EventBus};
use airlock::policy::Policy;
use airlock::scope::Scope;
use airlock::supervisor::{ConfirmRequest, Confirmer, Supervisor, SupervisorParts};
use airlock::tools::{Limits, ToolOutput, ToolRegistry};
use async_trait::async_trait;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// How long the control may take to lose the race once.
const CONTROL_DEADLINE: Duration = Duration::from_secs(30);
/// Writes through the tools (at least as many as the control needed).
const MIN_TRIES: usize = 500;

/// `renameat2(a, b, RENAME_EXCHANGE)`: the two names trade places.
fn exchange(a: &Path, b: &Path) {
    rustix::fs::renameat_with(
        rustix::fs::CWD,
        a,
        rustix::fs::CWD,
        b,
        rustix::fs::RenameFlags::EXCHANGE,
    )
    .expect("renameat2(RENAME_EXCHANGE)");
}

/// Exchanges two names in a loop until dropped (then puts them back).
struct Swapper {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<usize>>,
    names: (PathBuf, PathBuf),
}

impl Swapper {
    fn start(a: &Path, b: &Path) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let (flag, first, second) = (stop.clone(), a.to_path_buf(), b.to_path_buf());
        let thread = std::thread::spawn(move || {
            let mut swaps = 0usize;
            while !flag.load(Ordering::Relaxed) {
                exchange(&first, &second);
                swaps += 1;
            }
            swaps
        });
        Self {
            stop,
            thread: Some(thread),
            names: (a.to_path_buf(), b.to_path_buf()),
        }
    }
}

impl Drop for Swapper {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take()
            && t.join().is_ok_and(|n| n % 2 == 1)
        {
            exchange(&self.names.0, &self.names.1);
        }
    }
}

/// Approves every call; swaps two names once first, while the prompt is
/// open, when told to.
#[derive(Default)]
struct Approver {
    swap: Mutex<Option<(PathBuf, PathBuf)>>,
}

#[async_trait]
impl Confirmer for Approver {
    async fn confirm(&self, _: ConfirmRequest) -> Decision {
        if let Some((a, b)) = self.swap.lock().unwrap().take() {
            exchange(&a, &b);
        }
        Decision::approve(ApprovedBy::User)
    }
    fn kind(&self) -> airlock::call::ConfirmerKind {
        airlock::call::ConfirmerKind::Scripted
    }
}

struct Ws {
    _dir: tempfile::TempDir,
    root: PathBuf,
    scope: Scope,
    sup: Arc<Supervisor>,
    approver: Arc<Approver>,
    agent: AgentInfo,
}

/// A workspace with `src/` and `other/` (real directories), `.git/config`
/// and `.claude/`, and the symlink `srclink` to `target`.
fn ws(target: &str) -> Ws {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap().join("ws");
    for d in ["src", "other", ".git", ".claude", "docs"] {
        fs::create_dir_all(root.join(d)).unwrap();
    }
    fs::write(root.join(".git/config"), GIT_CONFIG).unwrap();
    fs::write(root.join("src/config"), GIT_CONFIG).unwrap();
    fs::write(root.join("docs/MARK"), "docs\n").unwrap();
    std::os::unix::fs::symlink(target, root.join("srclink")).unwrap();
    let audit = dir.path().join("audit/t.jsonl");
    let approver = Arc::new(Approver::default());
    let sup = Supervisor::new(SupervisorParts {
        scope: Scope::new(&root, &[], &[]).unwrap(),
        tools: ToolRegistry::all(),
        policy: Policy::new(),
        confirmer: approver.clone(),
        audit: Arc::new(AuditLog::create(&audit).unwrap()),
        limits: Limits::default(),
        approval_timeout: None,
        events: EventBus::default(),
    });
    let agent = sup.agent_connected(Some("writer"), None);
    Ws {
        scope: Scope::new(&root, &[], &[]).unwrap(),
        _dir: dir,
        root,
        sup,
        approver,
        agent,
    }
}

const GIT_CONFIG: &str = "[core]\n\tbare = false\n";
const PAYLOAD: &str = "[core]\n\tfsmonitor = \"id > PWNED; false\"\n";

impl Ws {
    async fn write(&self, path: &str, content: &str) -> ToolOutput {
        let args = json!({"path": path, "content": content});
        self.sup
            .call(
                &self.agent,
                "write_file",
                Some(args.as_object().unwrap().clone()),
                CancellationToken::new(),
                None,
            )
            .await
            .unwrap()
    }

    fn swap_at_the_prompt(&self, a: &str, b: &str) {
        *self.approver.swap.lock().unwrap() = Some((self.root.join(a), self.root.join(b)));
    }
}

/// The control: the old write. `between` runs after the checks and before
/// the directory is opened (the prompt's wait). Where the file went.
fn old_write(scope: &Scope, path: &str, content: &str, between: impl FnOnce()) -> Option<PathBuf> {
    old_write_checked(scope, path, content, between).map(|(_, landed)| landed)
}

/// [`old_write`], with the directory that was checked.
fn old_write_checked(
    scope: &Scope,
    path: &str,
    content: &str,
    between: impl FnOnce(),
) -> Option<(PathBuf, PathBuf)> {
    let t = airlock::tools::write::resolve(scope, path).ok()?;
    between();
    // What `apply::open_dir` did: open by path, following links …
    let dir = fs::File::open(&t.existing_ancestor).ok()?;
    // … and check the opened directory's name: in a root, not excluded.
    let real = fs::read_link(format!("/proc/self/fd/{}", dir.as_raw_fd())).ok()?;
    scope.check_real(path, &real).ok()?;
    let flags = rustix::fs::OFlags::WRONLY
        | rustix::fs::OFlags::CREATE
        | rustix::fs::OFlags::TRUNC
        | rustix::fs::OFlags::NOFOLLOW
        | rustix::fs::OFlags::CLOEXEC;
    let fd =
        rustix::fs::openat(&dir, &t.name, flags, rustix::fs::Mode::from_raw_mode(0o644)).ok()?;
    rustix::io::write(&fd, content.as_bytes()).ok()?;
    Some((t.dir.clone(), real.join(&t.name)))
}

/// The content of `name` in the open directory `dir`.
fn read_in(dir: &fs::File, name: &str) -> String {
    let flags = rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::CLOEXEC;
    rustix::fs::openat(dir, name, flags, rustix::fs::Mode::empty())
        .map(|fd| {
            fs::read_to_string(format!("/proc/self/fd/{}", fd.as_raw_fd())).unwrap_or_default()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_directory_swapped_for_a_link_at_the_prompt_redirects_no_write() {
    // .git: the diff shows src/config (a copy of .git/config, so "the file
    // changed" cannot tell); the swap sends `src` to `.git`.
    let w = ws(".git");
    w.swap_at_the_prompt("src", "srclink");
    let out = w.write("src/config", PAYLOAD).await;
    assert!(out.is_error, "{}", out.text);
    assert!(
        out.text.contains("not the directory that was checked"),
        "{}",
        out.text
    );
    assert_eq!(
        fs::read_to_string(w.root.join(".git/config")).unwrap(),
        GIT_CONFIG
    );
    // The real src (now named srclink) is untouched too.
    assert_eq!(
        fs::read_to_string(w.root.join("srclink/config")).unwrap(),
        GIT_CONFIG
    );
    // Control: the old write, the same swap in the same place.
    let c = ws(".git");
    let landed = old_write(&c.scope, "src/config", PAYLOAD, || {
        exchange(&c.root.join("src"), &c.root.join("srclink"));
    });
    assert_eq!(landed, Some(c.root.join(".git/config")));
    assert_eq!(
        fs::read_to_string(c.root.join(".git/config")).unwrap(),
        PAYLOAD
    );

    // .claude: a new file, the directory swapped the same way.
    let w = ws(".claude");
    w.swap_at_the_prompt("src", "srclink");
    let out = w.write("src/settings.local.json", "{\"hooks\":{}}\n").await;
    assert!(out.is_error, "{}", out.text);
    assert!(!w.root.join(".claude/settings.local.json").exists());
    let c = ws(".claude");
    let landed = old_write(&c.scope, "src/settings.local.json", "{}", || {
        exchange(&c.root.join("src"), &c.root.join("srclink"));
    });
    assert_eq!(landed, Some(c.root.join(".claude/settings.local.json")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_directory_swapped_for_another_directory_at_the_prompt_gets_no_write() {
    // Two real directories trade names: the one now called `src` is not
    // the one the change was computed in.
    let w = ws("other");
    w.swap_at_the_prompt("src", "docs");
    let out = w.write("src/new.txt", "x\n").await;
    assert!(out.is_error, "{}", out.text);
    assert!(out.text.contains("was replaced"), "{}", out.text);
    assert!(!w.root.join("src/new.txt").exists() && !w.root.join("docs/new.txt").exists());
    // Without a swap the same write lands.
    let out = w.write("src/new.txt", "x\n").await;
    assert!(!out.is_error, "{}", out.text);
    assert!(w.root.join("src/MARK").exists() && w.root.join("src/new.txt").exists());
    // Control: the old write puts it in the other directory (its MARK
    // beside it).
    let c = ws("other");
    let landed = old_write(&c.scope, "src/new.txt", "x\n", || {
        exchange(&c.root.join("src"), &c.root.join("docs"));
    });
    assert_eq!(landed, Some(c.root.join("src/new.txt")));
    assert!(
        c.root.join("src/MARK").exists(),
        "landed in the former docs/"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_made_while_a_directory_and_a_link_trade_places_never_leave_it() {
    // `src` is the real directory or the link to other/, by turns. A write
    // checked as src/… must land in that directory (whatever it is called
    // by then); one checked as other/… (the link followed when it was
    // resolved, and shown so) in other/.
    let w = ws("other");
    let other = w.root.join("other");
    let src = fs::File::open(w.root.join("src")).unwrap();
    let _swap = Swapper::start(&w.root.join("src"), &w.root.join("srclink"));

    // Control: the old write, checked as src/…, lands in other/.
    let started = Instant::now();
    let (mut control_tries, mut escaped) = (0usize, false);
    while !escaped && started.elapsed() < CONTROL_DEADLINE {
        control_tries += 1;
        escaped = old_write_checked(&w.scope, "src/control.txt", "c", || {}).is_some_and(
            |(checked, landed)| checked == w.root.join("src") && landed.starts_with(&other),
        );
    }
    assert!(
        escaped && other.join("control.txt").exists(),
        "control: the old write never left src/ in {control_tries} tries; the race did not \
         happen, so this test proves nothing"
    );

    let tries = control_tries.max(MIN_TRIES);
    let (mut in_src, mut in_other, mut refused) = (0usize, 0usize, 0usize);
    for i in 0..tries {
        let content = format!("attempt {i}\n");
        let out = w.write("src/tool.txt", &content).await;
        if out.is_error {
            refused += 1;
        } else if out.text.contains(" src/tool.txt ") {
            in_src += 1;
            assert_eq!(
                read_in(&src, "tool.txt"),
                content,
                "attempt {i} answered {:?} but src/ does not hold it",
                out.text
            );
        } else {
            in_other += 1;
            assert!(out.text.contains(" other/tool.txt "), "{}", out.text);
        }
        assert!(
            !(out.text.contains(" src/tool.txt ")
                && fs::read_to_string(other.join("tool.txt")).is_ok_and(|t| t == content)),
            "attempt {i} answered {:?} and wrote into other/",
            out.text
        );
    }
    assert!(
        in_src > 0,
        "no write checked as src/ succeeded in {tries} tries ({in_other} as other/, {refused} \
         refused): the test cannot tell a safe write from no write"
    );
}
