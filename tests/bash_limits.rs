//! The shell cannot hang, flood or leak: timeouts kill every process the
//! command started, output stays bounded, nothing accumulates.

mod bash_support;

use std::time::{Duration, Instant};

use airlock::tools::bash::{Ending, Shell};
use bash_support::*;
use tokio_util::sync::CancellationToken;

/// These tests count process-wide resources (fds, children, RSS): one at a
/// time, so another test's shell is never counted.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The pid printed by the first line of `text`.
fn pid_in(text: &str) -> i32 {
    text.lines()
        .next()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("no pid in {text:?}"))
}

#[tokio::test]
async fn timeout_kills_everything_the_command_started() {
    let _serial = SERIAL.lock().await;
    let ws = tempfile::tempdir().unwrap();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    let shell_pid = sh.pid();
    // A foreground sleep, a background job, and one that left the session
    // with setsid (still our descendant).
    let cmd = "sleep 1000 & echo $!; setsid sleep 1001 & sleep 0.2; echo partial; sleep 1000";
    let t = Instant::now();
    let r = run_for(&mut sh, cmd, Duration::from_secs(1)).await;
    let took = t.elapsed();
    assert_eq!(r.ending, Ending::TimedOut);
    assert!(
        took >= Duration::from_secs(1) && took < Duration::from_secs(3),
        "took {took:?}"
    );
    assert!(r.output.text.contains("partial"), "{:?}", r.output.text);
    let bg = pid_in(&r.output.text);
    assert!(
        gone_within(bg, Duration::from_secs(2)),
        "background sleep {bg} survived"
    );
    assert!(
        gone_within(shell_pid, Duration::from_secs(2)),
        "shell survived"
    );
    assert!(
        live_in_group(shell_pid).is_empty(),
        "{:?}",
        live_in_group(shell_pid)
    );
    let escaped: Vec<_> = airlock::tools::bash::procs::all()
        .into_iter()
        .filter(|p| p.state != 'Z')
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{}/cmdline", p.pid))
                .is_ok_and(|c| c.starts_with("sleep\u{0}1001"))
        })
        .collect();
    assert!(escaped.is_empty(), "setsid'd sleep survived: {escaped:?}");
    assert!(!sh.is_alive());
}

#[tokio::test]
async fn exec_sleep_times_out_and_is_killed() {
    let _serial = SERIAL.lock().await;
    let ws = tempfile::tempdir().unwrap();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    let pid = sh.pid();
    let t = Instant::now();
    let r = run_for(&mut sh, "exec sleep 1000", Duration::from_secs(1)).await;
    assert_eq!(r.ending, Ending::TimedOut);
    assert!(t.elapsed() < Duration::from_secs(3));
    assert!(
        gone_within(pid, Duration::from_secs(2)),
        "exec'd sleep survived"
    );
}

#[tokio::test]
async fn cancellation_kills_the_command() {
    let _serial = SERIAL.lock().await;
    let ws = tempfile::tempdir().unwrap();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    let pid = sh.pid();
    let cancel = CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        c.cancel();
    });
    let t = Instant::now();
    let r = sh
        .run(
            "echo started; sleep 1000",
            Duration::from_secs(60),
            cancel.cancelled_owned(),
            &mut |_| {},
        )
        .await
        .unwrap();
    assert_eq!(r.ending, Ending::Cancelled);
    assert!(t.elapsed() < Duration::from_secs(3));
    assert_eq!(r.output.text, "started\n");
    assert!(gone_within(pid, Duration::from_secs(2)));
}

#[tokio::test]
async fn fifty_megabytes_are_capped_in_bounded_memory() {
    let _serial = SERIAL.lock().await;
    let ws = tempfile::tempdir().unwrap();
    let mut sh = Shell::spawn(&config_with(ws.path(), 256 * 1024))
        .await
        .unwrap();
    // Warm up, then measure.
    run(&mut sh, "yes | head -c 1000000 >/dev/null").await;
    let before = rss_kib();
    let mut streamed = 0usize;
    let r = sh
        .run(
            "yes | head -c 50000000; echo; echo THE-END",
            Duration::from_secs(120),
            std::future::pending(),
            &mut |b| streamed += b.len(),
        )
        .await
        .unwrap();
    let after = rss_kib();
    assert_eq!(r.ending, Ending::Finished { status: 0 });
    assert!(r.output.truncated);
    assert!(
        r.output.total_bytes > 50_000_000,
        "{}",
        r.output.total_bytes
    );
    assert!(
        streamed as u64 >= 50_000_000,
        "live stream saw {streamed} bytes"
    );
    assert!(r.output.text.starts_with("y\ny\n"));
    assert!(
        r.output.text.ends_with("THE-END\n"),
        "{:?}",
        &r.output.text[r.output.text.len() - 50..]
    );
    assert!(r.output.text.contains("bytes of output left out here"));
    assert!(
        r.output.text.len() < 256 * 1024 + 300,
        "{}",
        r.output.text.len()
    );
    assert!(
        after < before + 32 * 1024,
        "RSS grew from {before} KiB to {after} KiB"
    );
}

#[tokio::test]
async fn binary_output_is_text() {
    let _serial = SERIAL.lock().await;
    let ws = tempfile::tempdir().unwrap();
    // Every byte value, then pseudo-random bytes from a fixed seed: the
    // same bytes every run (random ones could end inside an escape
    // sequence that takes the next characters as its own).
    std::fs::write(ws.path().join("blob.bin"), binary_blob(1000)).unwrap();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    let r = run(&mut sh, "cat blob.bin; echo; echo done").await;
    assert_eq!(r.ending, Ending::Finished { status: 0 });
    assert!(r.output.text.ends_with("\ndone\n"), "{:?}", r.output.text);
    assert!(r.output.text.len() < 4000);
    let r = run(&mut sh, "echo clean").await;
    assert_eq!(
        r.output.text, "clean\n",
        "binary output must not spill into the next call"
    );
}

/// Output that opens an OSC string and never ends it still shows what
/// follows (the ESC made visible), through the real terminal.
#[tokio::test]
async fn an_unterminated_escape_string_hides_nothing() {
    let _serial = SERIAL.lock().await;
    let ws = tempfile::tempdir().unwrap();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    let r = run(&mut sh, r"printf 'a\n\033]0;secret\nb\n'; echo done").await;
    assert_eq!(r.ending, Ending::Finished { status: 0 });
    let esc = airlock::tools::bash::capture::SHOWN_ESC;
    assert_eq!(r.output.text, format!("a\n{esc}]0;secret\nb\ndone\n"));
}

/// `len` bytes: 0 to 255, then xorshift64 from a fixed seed.
fn binary_blob(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut bytes: Vec<u8> = (0..=255u8).collect();
    while bytes.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        bytes.push(x.to_le_bytes()[0]);
    }
    bytes
}

#[tokio::test]
async fn a_thousand_commands_leak_nothing() {
    let _serial = SERIAL.lock().await;
    let ws = tempfile::tempdir().unwrap();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    for _ in 0..20 {
        run(&mut sh, "true").await;
    }
    let fds = open_fds();
    let kids = children();
    let threads = std::fs::read_dir("/proc/self/task").unwrap().count();
    for i in 0..1000 {
        let r = run(&mut sh, "echo $((1+1))").await;
        assert_eq!(r.output.text, "2\n", "call {i}");
    }
    assert!(open_fds() <= fds, "fds grew from {fds} to {}", open_fds());
    assert_eq!(children(), kids);
    assert!(std::fs::read_dir("/proc/self/task").unwrap().count() <= threads);
    // Neither the shell nor a command's bash collects descriptors.
    let r = run(&mut sh, "ls /proc/$PPID/fd | wc -l; ls /proc/$$/fd | wc -l").await;
    for n in r.output.text.lines() {
        let fds: usize = n.trim().parse().unwrap();
        assert!(fds < 10, "a shell holds {fds} fds");
    }
}

#[tokio::test]
async fn dropping_a_shell_ends_it_and_its_jobs() {
    let _serial = SERIAL.lock().await;
    let ws = tempfile::tempdir().unwrap();
    let fds = open_fds();
    let mut sh = Shell::spawn(&config(ws.path())).await.unwrap();
    let pid = sh.pid();
    let r = run(&mut sh, "sleep 1000 >/dev/null 2>&1 & echo $!").await;
    let bg = pid_in(&r.output.text);
    assert!(alive(bg));
    drop(sh);
    assert!(gone_within(pid, Duration::from_secs(2)));
    assert!(gone_within(bg, Duration::from_secs(2)));
    let until = Instant::now() + Duration::from_secs(2);
    while open_fds() > fds && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        open_fds() <= fds,
        "fds: {fds} -> {}: {:?}",
        open_fds(),
        fd_list()
    );
}
