//! The network: with it off, a listener the test starts on the host's
//! 127.0.0.1 cannot be reached from the shell; with `allow_network` it can.
//! The shell keeps a loopback of its own.

mod sandbox_support;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Duration;

use airlock::sandbox::SandboxOverrides;
use sandbox_support::{fixture, fixture_in, target_tempdir};

/// A listener on the host's loopback that answers "hello" to whoever
/// connects, counting the connections.
fn listener() -> (u16, std::sync::mpsc::Receiver<String>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { continue };
            let _ = s.write_all(b"hello\n");
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut got = String::new();
            let _ = s.read_to_string(&mut got);
            if tx.send(got).is_err() {
                break;
            }
        }
    });
    (port, rx)
}

fn connect(port: u16) -> String {
    format!("(exec 3<>/dev/tcp/127.0.0.1/{port} && echo ping >&3 && head -n1 <&3)")
}

#[tokio::test]
async fn no_connection_to_the_hosts_loopback_with_the_network_off() {
    let (port, rx) = listener();
    let f = fixture("");
    let e = f.fails(&connect(port)).await;
    assert!(
        e.contains("Connection refused") || e.contains("Network is unreachable"),
        "{e}"
    );
    assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
    // Nor through any address of the host: only its own loopback exists.
    let o = f.ok("cat /proc/net/dev | tail -n +3 | cut -d: -f1").await;
    assert_eq!(o.trim(), "lo");
}

#[tokio::test]
async fn the_shells_own_loopback_works() {
    let f = fixture("");
    let o = f
        .ok("python3 -c '\nimport socket\ns=socket.socket(); s.bind((\"127.0.0.1\",0)); s.listen()\nc=socket.create_connection(s.getsockname()); a,_=s.accept(); c.send(b\"ok\"); print(a.recv(2).decode())'")
        .await;
    assert_eq!(o, "ok");
}

#[tokio::test]
async fn allow_network_reaches_the_listener() {
    let (port, rx) = listener();
    let f = fixture("allow_network = true");
    let o = f.ok(&connect(port)).await;
    assert_eq!(o, "hello");
    assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), "ping\n");
    assert!(
        f.session
            .sandbox_status()
            .summary
            .contains("network allowed")
    );
}

#[tokio::test]
async fn the_command_line_flag_overrides_the_config() {
    let (port, rx) = listener();
    let f = fixture_in(
        target_tempdir(),
        "allow_network = false",
        SandboxOverrides {
            mode: None,
            allow_network: Some(true),
        },
    );
    assert_eq!(f.ok(&connect(port)).await, "hello");
    assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), "ping\n");
    assert_eq!(f.session_start()["sandbox"]["allow_network"], true);
}
