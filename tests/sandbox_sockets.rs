//! With the network off, the host's Unix sockets cannot be reached by
//! path (the network namespace does not cover them): a listener the test
//! starts in /run is absent in the shell. Control: with socket hiding
//! reported unavailable, the shell reaches it.

mod sandbox_support;

use std::io::Write;
use std::os::unix::net::UnixListener;
use std::path::PathBuf;

use sandbox_support::{fixture, q, rerun_forcing};

/// A listener in /run answering "hello"; `None` where /run is not ours.
fn listener() -> Option<(PathBuf, std::thread::JoinHandle<()>)> {
    let dir = PathBuf::from(format!("/run/airlock-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let path = dir.join("host.sock");
    let _ = std::fs::remove_file(&path);
    let l = UnixListener::bind(&path).ok()?;
    let t = std::thread::spawn(move || {
        if let Ok((mut s, _)) = l.accept() {
            let _ = s.write_all(b"hello\n");
        }
    });
    Some((path, t))
}

fn connect(path: &std::path::Path) -> String {
    format!(
        "python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.recv(6).decode().strip())' {}",
        q(path)
    )
}

#[tokio::test]
async fn a_host_socket_in_run_is_unreachable() {
    let Some((path, _t)) = listener() else {
        println!("skipped: cannot make a socket in /run here");
        return;
    };
    let f = fixture("");
    let out = f.fails(&connect(&path)).await;
    assert!(
        out.contains("No such file") || out.contains("Connection refused"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[tokio::test]
async fn control_with_socket_hiding_unavailable_the_host_socket_answers() {
    if std::env::var_os("AIRLOCK_SANDBOX_FORCE_UNAVAILABLE").is_none() && listener().is_none() {
        println!("skipped: cannot make a socket in /run here");
        return;
    }
    if rerun_forcing(
        "control_with_socket_hiding_unavailable_the_host_socket_answers",
        "sockets",
    ) {
        return;
    }
    let (path, _t) = listener().unwrap();
    let f = fixture("");
    assert_eq!(f.ok(&connect(&path)).await, "hello");
    let st = f.session.sandbox_status();
    assert!(
        st.missing.iter().any(|m| m.contains("Unix sockets")),
        "{st:?}"
    );
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}
