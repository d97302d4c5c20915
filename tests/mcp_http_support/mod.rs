//! Shared by the Streamable HTTP tests: `airlock serve --http` (the real
//! binary) or an in-process endpoint, and a plain HTTP/1.1 client (hyper)
//! that speaks MCP's Streamable HTTP by hand, so every header and status is
//! the test's own.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

/// Where an endpoint listens, from its capability URL.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub url: String,
    pub addr: SocketAddr,
    pub secret: String,
}

impl Endpoint {
    pub fn from_url(url: &str) -> Self {
        let rest = url.strip_prefix("http://").expect("an http URL");
        let (authority, path) = rest.split_once('/').expect("a path");
        let secret = path
            .strip_prefix("mcp/")
            .expect("/mcp/<secret>")
            .to_string();
        Self {
            url: url.to_string(),
            addr: authority.parse().expect("IP:PORT"),
            secret,
        }
    }

    /// The capability path.
    pub fn path(&self) -> String {
        format!("/mcp/{}", self.secret)
    }

    /// `Host` as a client of this endpoint sends it.
    pub fn host(&self) -> String {
        self.addr.to_string()
    }
}

/// `airlock serve --http` on the workspace of `ws`, with `extra` args;
/// returns the child (killed on drop) and its endpoint (the URL is the
/// first line on stderr).
pub async fn serve_http(
    ws: &crate::mcp_support::Ws,
    extra: &[&str],
) -> (tokio::process::Child, Endpoint) {
    let mut cmd = ws.command();
    cmd.arg("serve")
        .arg("--http")
        .arg("127.0.0.1:0")
        .arg("--workspace")
        .arg(&ws.root)
        .arg("--data-dir")
        .arg(&ws.data)
        .args(extra)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("start airlock serve --http");
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let first = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("the URL within 30 s")
        .unwrap()
        .expect("a first line on stderr");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, Endpoint::from_url(first.trim()))
}

/// One HTTP answer, body read to the end.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: http::HeaderMap,
    pub body: Bytes,
}

impl Reply {
    /// The JSON-RPC messages in the body (SSE `data:` lines or one JSON).
    pub fn messages(&self) -> Vec<Value> {
        let text = String::from_utf8_lossy(&self.body);
        if self
            .headers
            .get("content-type")
            .is_some_and(|c| c.to_str().unwrap_or("").starts_with("text/event-stream"))
        {
            text.lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .filter_map(|d| serde_json::from_str(d).ok())
                .collect()
        } else {
            serde_json::from_str(&text).into_iter().collect()
        }
    }

    /// The message answering a request (it has `result` or `error`).
    pub fn answer(&self) -> Value {
        self.messages()
            .into_iter()
            .find(|m| m.get("result").is_some() || m.get("error").is_some())
            .unwrap_or_else(|| panic!("no answer in {self:?}"))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Send one request on a new connection and read the whole answer.
pub async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: Vec<u8>,
) -> Reply {
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    tokio::spawn(conn);
    let mut req = http::Request::builder().method(method).uri(path);
    for (k, v) in headers {
        req = req.header(*k, v);
    }
    let req = req.body(Full::new(Bytes::from(body))).unwrap();
    let resp = sender.send_request(req).await.expect("send");
    let (parts, body) = resp.into_parts();
    let body = body
        .collect()
        .await
        .map(http_body_util::Collected::to_bytes)
        .unwrap_or_default();
    Reply {
        status: parts.status.as_u16(),
        headers: parts.headers,
        body,
    }
}

/// The headers every MCP POST carries.
pub fn mcp_headers(ep: &Endpoint) -> Vec<(&'static str, String)> {
    vec![
        ("host", ep.host()),
        ("content-type", "application/json".into()),
        ("accept", "application/json, text/event-stream".into()),
    ]
}

pub fn initialize(name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": name, "version": "1.0"}}})
}

/// An MCP session over HTTP (the `initialize` handshake).
pub struct Session {
    pub ep: Endpoint,
    pub id: String,
    next: u64,
}

impl Session {
    /// Initialize as `name` and send `notifications/initialized`.
    pub async fn open(ep: &Endpoint, name: &str) -> Self {
        let r = post(ep, &[], &initialize(name)).await;
        assert_eq!(r.status, 200, "initialize: {}", r.text());
        let id = r
            .headers
            .get("mcp-session-id")
            .expect("a session id")
            .to_str()
            .unwrap()
            .to_string();
        let s = Self {
            ep: ep.clone(),
            id,
            next: 1,
        };
        let n = s
            .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        assert!(n.status == 202, "initialized: {} {}", n.status, n.text());
        s
    }

    pub fn headers(&self) -> Vec<(&'static str, String)> {
        let mut h = mcp_headers(&self.ep);
        h.push(("mcp-session-id", self.id.clone()));
        h.push(("mcp-protocol-version", "2025-11-25".into()));
        h
    }

    pub async fn post(&self, msg: &Value) -> Reply {
        send(
            self.ep.addr,
            "POST",
            &self.ep.path(),
            &self.headers(),
            serde_json::to_vec(msg).unwrap(),
        )
        .await
    }

    /// A request; its JSON-RPC answer.
    pub async fn rpc(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let r = self
            .post(&json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params}))
            .await;
        assert_eq!(r.status, 200, "{method}: {}", r.text());
        r.answer()
    }

    /// `tools/call`; its result.
    pub async fn call(&mut self, tool: &str, args: Value) -> Value {
        let a = self
            .rpc("tools/call", json!({"name": tool, "arguments": args}))
            .await;
        a.get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{tool}: {a}"))
    }

    /// DELETE the session.
    pub async fn delete(&self) -> Reply {
        send(
            self.ep.addr,
            "DELETE",
            &self.ep.path(),
            &self.headers(),
            Vec::new(),
        )
        .await
    }
}

/// POST `msg` to the endpoint's capability path with `extra` headers.
pub async fn post(ep: &Endpoint, extra: &[(&'static str, String)], msg: &Value) -> Reply {
    let mut h = mcp_headers(ep);
    h.extend(extra.iter().cloned());
    send(
        ep.addr,
        "POST",
        &ep.path(),
        &h,
        serde_json::to_vec(msg).unwrap(),
    )
    .await
}

/// The text of a tool result.
pub fn result_text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string()
}
