//! Streamable HTTP against the real binary (`airlock serve --http`): the
//! tools answer as over stdio, each session is an agent with its own shell,
//! DELETE ends it; the door (secret, Origin, Host) refuses what it must
//! and audits it as a protocol error, never as a call, each with a control
//! showing the same request passing with the right secret or origin; huge
//! bodies and slow clients do not hold other agents up; 100 agents at once
//! each get their own answers; a client that disconnects mid-call has the
//! call cancelled (control: staying connected, it runs to the end).

mod mcp_http_support;
mod mcp_support;

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use mcp_http_support::{
    Endpoint, Session, initialize, mcp_headers, post, result_text, send, serve_http,
};
use mcp_support::{Ws, of_type, wait_for};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn calls(ws: &Ws) -> usize {
    of_type(&ws.audit(), "call_requested").len()
}

fn protocol_errors(ws: &Ws) -> Vec<String> {
    of_type(&ws.audit(), "protocol_error")
        .iter()
        .map(|r| r["error"].as_str().unwrap_or("").to_string())
        .collect()
}

/// The secret appears nowhere in the data directory (audit trail, log).
fn assert_secret_not_stored(ws: &Ws, ep: &Endpoint) {
    for entry in walk(&ws.data) {
        let text = std::fs::read_to_string(&entry).unwrap_or_default();
        assert!(
            !text.contains(&ep.secret),
            "the secret is in {}",
            entry.display()
        );
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[tokio::test]
async fn tools_answer_and_each_session_is_an_agent_with_its_own_shell() {
    let ws = Ws::new();
    let (_child, ep) = serve_http(&ws, &["--approve-all"]).await;
    let mut a = Session::open(&ep, "http-agent-a").await;
    let mut b = Session::open(&ep, "http-agent-b").await;
    let list = a.rpc("tools/list", json!({})).await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for t in mcp_support::READ_ONLY_TOOLS
        .iter()
        .chain(&mcp_support::CHANGING_TOOLS)
    {
        assert!(names.contains(t), "{t} listed: {names:?}");
    }
    let read = a.call("read_file", json!({"path": "hello.txt"})).await;
    assert!(result_text(&read).contains("world"), "{read}");
    // Each agent has its own shell: a `cd` in one is not seen by the other.
    a.call("bash", json!({"command": "cd sub", "description": "cd"}))
        .await;
    let pa = a
        .call("bash", json!({"command": "pwd", "description": "pwd"}))
        .await;
    let pb = b
        .call("bash", json!({"command": "pwd", "description": "pwd"}))
        .await;
    assert!(result_text(&pa).contains("/ws/sub"), "{pa}");
    assert!(!result_text(&pb).contains("/ws/sub"), "{pb}");
    let connected = of_type(&ws.audit(), "agent_connected").len();
    assert_eq!(connected, 2, "two sessions, two agents");
    // DELETE ends the session: its agent disconnects, its id is gone.
    let d = a.delete().await;
    assert!(
        d.status == 200 || d.status == 204,
        "DELETE: {} {}",
        d.status,
        d.text()
    );
    wait_for("a's disconnect", 10, || {
        of_type(&ws.audit(), "agent_disconnected")
            .iter()
            .any(|r| r["agent"]["name"] == "http-agent-a")
    })
    .await;
    let after = a
        .post(&json!({"jsonrpc": "2.0", "id": 99, "method": "tools/list"}))
        .await;
    assert_eq!(
        after.status,
        404,
        "a deleted session is unknown: {}",
        after.text()
    );
    // b goes on.
    let pb = b.call("pwd", json!({})).await;
    assert!(result_text(&pb).contains("/ws"), "{pb}");
    assert_secret_not_stored(&ws, &ep);
}

/// A DELETE cancels the session's running command at once and its agent
/// is recorded as gone: rmcp alone lets the calls of a closed session run
/// on for up to 5 s, waiting for their answers, before the session's
/// handler goes (the command ran on, and the trail said so 5 s late).
#[tokio::test]
async fn delete_cancels_a_running_command_at_once() {
    let ws = Ws::new();
    let (_child, ep) = serve_http(&ws, &["--approve-all"]).await;
    let a = Session::open(&ep, "http-agent-del").await;
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "bash", "arguments": {"command": "sleep 30; touch late"}}});
    let (addr, path, headers) = (ep.addr, ep.path(), a.headers());
    let running = tokio::spawn(async move {
        send(
            addr,
            "POST",
            &path,
            &headers,
            serde_json::to_vec(&call).unwrap(),
        )
        .await
    });
    wait_for("the command to start", 20, || {
        !of_type(&ws.audit(), "call_decided").is_empty()
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let deleted = Instant::now();
    let d = a.delete().await;
    assert!(d.status == 200 || d.status == 204, "DELETE: {}", d.status);
    wait_for("the call's end", 20, || {
        !of_type(&ws.audit(), "call_finished").is_empty()
            && !of_type(&ws.audit(), "agent_disconnected").is_empty()
    })
    .await;
    let took = deleted.elapsed();
    let audit = ws.audit();
    let finished = of_type(&audit, "call_finished");
    assert_eq!(finished[0]["status"], "cancelled", "{}", finished[0]);
    assert_eq!(finished[0]["cancelled_by"], "disconnect", "{}", finished[0]);
    assert!(
        took < Duration::from_secs(2),
        "the call ended {took:?} after the DELETE"
    );
    let _ = tokio::time::timeout(Duration::from_secs(5), running).await;
    assert!(!ws.root.join("late").exists());
}

#[tokio::test]
async fn the_secret_is_required_on_every_request_and_refusals_are_not_calls() {
    let ws = Ws::new();
    let (_child, ep) = serve_http(&ws, &[]).await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "pwd", "arguments": {}}});
    let body = serde_json::to_vec(&initialize("intruder")).unwrap();
    let h = mcp_headers(&ep);
    // Control: the right secret in the path, or as a bearer token, works.
    let ok = send(ep.addr, "POST", &ep.path(), &h, body.clone()).await;
    assert_eq!(ok.status, 200, "{}", ok.text());
    let mut bearer = h.clone();
    bearer.push(("authorization", format!("Bearer {}", ep.secret)));
    let ok = send(ep.addr, "POST", "/mcp", &bearer, body.clone()).await;
    assert_eq!(ok.status, 200, "{}", ok.text());
    let before = protocol_errors(&ws).len();
    // No secret, a wrong one, a wrong bearer token, a secret one byte off.
    let mut wrong_bearer = h.clone();
    wrong_bearer.push(("authorization", "Bearer 0000".into()));
    let mut off = ep.secret.clone();
    let last = off.pop().unwrap();
    off.push(if last == '0' { '1' } else { '0' });
    for (path, headers) in [
        ("/mcp".to_string(), h.clone()),
        ("/mcp/not-the-secret".to_string(), h.clone()),
        ("/mcp".to_string(), wrong_bearer),
        (format!("/mcp/{off}"), h.clone()),
    ] {
        let r = send(
            ep.addr,
            "POST",
            &path,
            &headers,
            serde_json::to_vec(&call).unwrap(),
        )
        .await;
        assert_eq!(r.status, 401, "{path}: {}", r.text());
        assert!(r.headers.contains_key("www-authenticate"));
    }
    let errors = protocol_errors(&ws);
    assert_eq!(errors.len() - before, 4, "each refusal audited: {errors:?}");
    assert!(
        errors
            .iter()
            .skip(before)
            .all(|e| e.starts_with("HTTP 401")),
        "{errors:?}"
    );
    assert_eq!(calls(&ws), 0, "nothing refused was audited as a call");
    assert_secret_not_stored(&ws, &ep);
}

#[tokio::test]
async fn foreign_origins_and_hosts_are_refused() {
    let ws = Ws::new();
    let (_child, ep) = serve_http(&ws, &[]).await;
    let body = serde_json::to_vec(&initialize("browser")).unwrap();
    let with = |k: &'static str, v: String| {
        let mut h = mcp_headers(&ep);
        h.retain(|(n, _)| *n != k);
        h.push((k, v));
        h
    };
    // Controls: no Origin, and the server's own origin, pass.
    let ok = send(ep.addr, "POST", &ep.path(), &mcp_headers(&ep), body.clone()).await;
    assert_eq!(ok.status, 200, "{}", ok.text());
    let own = with("origin", format!("http://{}", ep.host()));
    let ok = send(ep.addr, "POST", &ep.path(), &own, body.clone()).await;
    assert_eq!(ok.status, 200, "{}", ok.text());
    let own = with("origin", format!("http://localhost:{}", ep.addr.port()));
    assert_eq!(
        send(ep.addr, "POST", &ep.path(), &own, body.clone())
            .await
            .status,
        200
    );
    let before = protocol_errors(&ws).len();
    for (k, v) in [
        ("origin", "https://evil.example".to_string()),
        ("origin", "null".to_string()),
        ("origin", format!("http://127.0.0.1:{}", ep.addr.port() ^ 1)),
        ("host", format!("evil.example:{}", ep.addr.port())),
    ] {
        let r = send(
            ep.addr,
            "POST",
            &ep.path(),
            &with(k, v.clone()),
            body.clone(),
        )
        .await;
        assert_eq!(r.status, 403, "{k}: {v}: {}", r.text());
    }
    let errors = protocol_errors(&ws);
    assert_eq!(errors.len() - before, 4, "{errors:?}");
    assert!(
        errors
            .iter()
            .skip(before)
            .all(|e| e.starts_with("HTTP 403")),
        "{errors:?}"
    );
    assert_eq!(calls(&ws), 0);
}

/// `read_file` round trips for `agent` while `busy` is running; the slowest.
async fn slowest_call_while(mut agent: Session, n: usize) -> Duration {
    let mut worst = Duration::ZERO;
    for _ in 0..n {
        let t = Instant::now();
        let r = agent.call("read_file", json!({"path": "hello.txt"})).await;
        assert!(result_text(&r).contains("world"), "{r}");
        worst = worst.max(t.elapsed());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    worst
}

#[tokio::test]
async fn huge_bodies_and_slow_clients_do_not_hold_other_agents_up() {
    let ws = Ws::new();
    let (_child, ep) = serve_http(&ws, &[]).await;
    let agent = Session::open(&ep, "steady").await;
    // A slow-loris client: headers dribbled one byte at a time.
    let loris = {
        let ep = ep.clone();
        tokio::spawn(async move {
            let mut s = tokio::net::TcpStream::connect(ep.addr).await.unwrap();
            let head = format!(
                "POST {} HTTP/1.1\r\nHost: {}\r\nX-Slow: ",
                ep.path(),
                ep.host()
            );
            let started = Instant::now();
            for b in head.bytes().chain(std::iter::repeat(b'a')) {
                if s.write_all(&[b]).await.is_err() || started.elapsed() > Duration::from_secs(25) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            let mut rest = Vec::new();
            let _ = tokio::time::timeout(Duration::from_secs(2), s.read_to_end(&mut rest)).await;
            started.elapsed()
        })
    };
    // A 10 MB body that is not JSON, and one over the 16 MiB limit.
    let big = {
        let ep = ep.clone();
        tokio::spawn(async move {
            let ten = send(
                ep.addr,
                "POST",
                &ep.path(),
                &mcp_headers(&ep),
                vec![b'x'; 10_000_000],
            )
            .await;
            let huge = send(
                ep.addr,
                "POST",
                &ep.path(),
                &mcp_headers(&ep),
                vec![b' '; 17 << 20],
            )
            .await;
            (ten.status, huge.status)
        })
    };
    let worst = slowest_call_while(agent, 20).await;
    assert!(
        worst < Duration::from_secs(3),
        "another agent's call took {worst:?}"
    );
    let (ten, huge) = big.await.unwrap();
    assert!((400..500).contains(&ten), "10 MB of junk: {ten}");
    assert_eq!(huge, 413, "over the limit");
    let held = loris.await.unwrap();
    assert!(
        held < Duration::from_secs(20),
        "the slow client was cut off after {held:?}"
    );
    let errors = protocol_errors(&ws);
    assert!(
        errors.iter().any(|e| e.starts_with("HTTP 413")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("HTTP 4") && !e.starts_with("HTTP 413")),
        "the 10 MB of junk is audited: {errors:?}"
    );
    // Control: a big body under the limit is read and served (a 1 MiB
    // path: answered, as a tool error).
    let mut ok = Session::open(&ep, "control").await;
    let r = ok.call("stat", json!({"path": "y".repeat(1 << 20)})).await;
    assert_eq!(r["isError"], true, "a 1 MiB request is served: {r}");
}

#[tokio::test]
async fn a_hundred_agents_at_once_each_get_their_answers() {
    let ws = Ws::new();
    for i in 0..100 {
        std::fs::write(
            ws.root.join(format!("f{i}.txt")),
            format!("content of {i}\n"),
        )
        .unwrap();
    }
    let (_child, ep) = serve_http(&ws, &[]).await;
    let tasks: Vec<_> = (0..100)
        .map(|i| {
            let ep = ep.clone();
            tokio::spawn(async move {
                let mut s = Session::open(&ep, &format!("agent-{i}")).await;
                let r = s
                    .call("read_file", json!({"path": format!("f{i}.txt")}))
                    .await;
                assert!(
                    result_text(&r).contains(&format!("content of {i}")),
                    "{i}: {r}"
                );
                let r = s.call("wc", json!({"path": format!("f{i}.txt")})).await;
                assert!(!r["isError"].as_bool().unwrap_or(false), "{i}: {r}");
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let audit = ws.audit();
    assert_eq!(of_type(&audit, "agent_connected").len(), 100);
    assert_eq!(of_type(&audit, "call_finished").len(), 200);
}

/// Call `sleep 2; touch marker` and either drop the connection once the
/// command runs (`disconnect`) or wait for the answer.
async fn long_call(disconnect: bool) -> (bool, Vec<Value>) {
    let ws = Ws::new();
    let (_child, ep) = serve_http(&ws, &["--approve-all"]).await;
    let s = Session::open(&ep, "leaver").await;
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "bash", "arguments": {"command": "sleep 2; touch marker", "description": "wait"}}});
    let body = serde_json::to_vec(&call).unwrap();
    let mut raw = tokio::net::TcpStream::connect(ep.addr).await.unwrap();
    let mut head = format!(
        "POST {} HTTP/1.1\r\nContent-Length: {}\r\n",
        ep.path(),
        body.len()
    );
    for (k, v) in s.headers() {
        let _ = write!(head, "{k}: {v}\r\n");
    }
    head.push_str("\r\n");
    raw.write_all(head.as_bytes()).await.unwrap();
    raw.write_all(&body).await.unwrap();
    wait_for("the command to start", 10, || {
        ws.audit().iter().any(|r| r["type"] == "call_decided")
    })
    .await;
    if disconnect {
        drop(raw);
    } else {
        let mut out = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(10), async {
            let mut buf = [0u8; 4096];
            while let Ok(n) = raw.read(&mut buf).await {
                out.extend_from_slice(&buf[..n]);
                if n == 0 || String::from_utf8_lossy(&out).contains("\"id\":7") {
                    break;
                }
            }
        })
        .await;
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    wait_for("the call to finish", 10, || {
        !of_type(&ws.audit(), "call_finished").is_empty()
    })
    .await;
    (ws.root.join("marker").exists(), ws.audit())
}

#[tokio::test]
async fn a_client_that_disconnects_mid_call_has_it_cancelled() {
    let (ran, audit) = long_call(true).await;
    assert!(!ran, "the command was killed, not run to the end");
    let finished = of_type(&audit, "call_finished");
    assert_eq!(finished[0]["status"], "cancelled", "{:?}", finished[0]);
    // Control: staying connected, the same call runs to the end.
    let (ran, audit) = long_call(false).await;
    assert!(ran, "the command ran");
    assert_eq!(of_type(&audit, "call_finished")[0]["status"], "ok");
}

#[tokio::test]
async fn the_stateless_revision_works_and_groups_requests_by_client() {
    let ws = Ws::new();
    let (_child, ep) = serve_http(&ws, &[]).await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "stateless-script", "version": "2"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let h = vec![("mcp-protocol-version", "2026-07-28".to_string())];
    for (i, path) in ["hello.txt", "hello.txt"].iter().enumerate() {
        let call = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
            "name": "read_file", "arguments": {"path": path}, "_meta": meta}});
        let mut hh = h.clone();
        hh.push(("mcp-method", "tools/call".into()));
        hh.push(("mcp-name", "read_file".into()));
        let r = post(&ep, &hh, &call).await;
        assert_eq!(r.status, 200, "{}", r.text());
        let a = r.answer();
        assert!(result_text(&a["result"]).contains("world"), "{a}");
    }
    let audit = ws.audit();
    let agents = of_type(&audit, "agent_connected");
    assert_eq!(agents.len(), 1, "one client, one agent: {agents:?}");
    assert_eq!(agents[0]["agent"]["name"], "stateless-script");
    assert_eq!(of_type(&audit, "call_finished").len(), 2);
}

#[tokio::test]
async fn idle_sessions_and_stateless_agents_expire() {
    let ws = Ws::new();
    let config = ws.dir.path().join("idle.toml");
    std::fs::write(&config, "[http]\nidle_timeout_secs = 1\n").unwrap();
    let (_child, ep) = serve_http(&ws, &["--config", config.to_str().unwrap()]).await;
    let mut s = Session::open(&ep, "dozer").await;
    s.call("pwd", json!({})).await;
    // A stateless client too.
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "pwd", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "sleepy-script", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let h = [
        ("mcp-protocol-version", "2026-07-28".to_string()),
        ("mcp-method", "tools/call".to_string()),
        ("mcp-name", "pwd".to_string()),
    ];
    assert_eq!(post(&ep, &h, &call).await.status, 200);
    wait_for("both agents to expire", 15, || {
        of_type(&ws.audit(), "agent_disconnected").len() == 2
    })
    .await;
    let after = s
        .post(&json!({"jsonrpc": "2.0", "id": 50, "method": "tools/list"}))
        .await;
    assert_eq!(after.status, 404, "an expired session is unknown");
}

/// Two POSTs with the same request id in one session: the second is
/// refused (409, audited) before it runs, the first gets its own answer,
/// and once it is answered the id can be used again. rmcp sent the first
/// call's answer to the second POST and cancelled the second call, and
/// the first POST never got an answer (red-team finding).
#[tokio::test]
async fn a_request_reusing_an_id_in_flight_in_its_session_is_refused() {
    let ws = Ws::new();
    let (_child, ep) = serve_http(&ws, &["--approve-all", "--sandbox", "off"]).await;
    let s = Session::open(&ep, "dup-http").await;
    let call = |id: u64, c: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "bash", "arguments": {"command": c}}})
    };
    let slow = call(7, "sleep 1; echo AAA-first");
    let fast = call(7, "touch dup-ran; echo BBB-second");
    let (first, second) = tokio::join!(s.post(&slow), async {
        tokio::time::sleep(Duration::from_millis(400)).await;
        s.post(&fast).await
    });
    assert_eq!(second.status, 409, "{}", second.text());
    assert!(
        second.text().contains("request id 7 is in use"),
        "{}",
        second.text()
    );
    assert!(!ws.root.join("dup-ran").exists(), "the refused request ran");
    assert_eq!(first.status, 200, "{}", first.text());
    assert!(
        result_text(&first.answer()["result"]).contains("AAA-first"),
        "{first:?}"
    );
    assert!(
        protocol_errors(&ws).iter().any(|e| e.contains("409")),
        "audited: {:?}",
        protocol_errors(&ws)
    );
    // Answered: the id is free again, and the same request runs (the
    // control: the refusal was the id's, not the request's).
    let again = s.post(&fast).await;
    assert_eq!(again.status, 200, "{}", again.text());
    assert!(result_text(&again.answer()["result"]).contains("BBB-second"));
    assert!(ws.root.join("dup-ran").exists());
}
