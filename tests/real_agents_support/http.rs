//! A small HTTP/1.1 server on 127.0.0.1 (an ephemeral port) that answers
//! each request through an [`Api`] and records every request it got: one
//! request per connection, answered with `connection: close`.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// One request as the agent sent it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// Path and query, e.g. `/v1/messages?beta=true`.
    pub target: String,
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON (`Null` when empty or not JSON).
    pub body: Value,
    /// When it arrived, since the server started.
    pub at: std::time::Duration,
}

impl Request {
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }
}

/// A response to send back.
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

impl Response {
    pub fn json(v: &Value) -> Response {
        Response {
            status: 200,
            content_type: "application/json",
            body: v.to_string().into_bytes(),
        }
    }

    /// Server-sent events, each `(event name or "", data)`.
    pub fn sse(events: &[(&str, Value)]) -> Response {
        let mut body = String::new();
        for (name, data) in events {
            if !name.is_empty() {
                let _ = writeln!(body, "event: {name}");
            }
            let _ = write!(body, "data: {data}\n\n");
        }
        Response {
            status: 200,
            content_type: "text/event-stream",
            body: body.into_bytes(),
        }
    }

    pub fn not_found(what: &str) -> Response {
        Response {
            status: 404,
            content_type: "application/json",
            body: serde_json::json!({ "error": { "message": format!("not scripted: {what}") } })
                .to_string()
                .into_bytes(),
        }
    }
}

/// What the scripted endpoint answers.
pub trait Api: Send + Sync + 'static {
    fn answer(&self, req: &Request) -> Response;
}

/// The running endpoint: its base URL and the requests it recorded.
pub struct Server {
    pub url: String,
    pub requests: Arc<Mutex<Vec<Request>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Server {
    pub async fn start(api: impl Api) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let api = Arc::new(api);
        let recorded = requests.clone();
        let started = std::time::Instant::now();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (api, recorded) = (api.clone(), recorded.clone());
                tokio::spawn(async move {
                    if let Err(e) = serve(started, stream, &*api, &recorded).await {
                        eprintln!("scripted model: {e}");
                    }
                });
            }
        });
        Server {
            url,
            requests,
            task,
        }
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

async fn serve(
    started: std::time::Instant,
    stream: TcpStream,
    api: &dyn Api,
    recorded: &Mutex<Vec<Request>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream);
    let Some(req) = read_request(&mut reader, started).await? else {
        return Ok(());
    };
    let resp = api.answer(&req);
    recorded.lock().unwrap().push(req);
    let head = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: {}\r\ncontent-length: {}\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n",
        resp.status,
        if resp.status == 200 {
            "OK"
        } else {
            "Not Found"
        },
        resp.content_type,
        resp.body.len()
    );
    let stream = reader.get_mut();
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(&resp.body).await?;
    stream.flush().await?;
    stream.shutdown().await
}

fn bad(msg: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, msg)
}

async fn read_request(
    r: &mut BufReader<TcpStream>,
    started: std::time::Instant,
) -> std::io::Result<Option<Request>> {
    let mut line = String::new();
    if r.read_line(&mut line).await? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let (method, target) = match (parts.next(), parts.next()) {
        (Some(m), Some(t)) => (m.to_string(), t.to_string()),
        _ => return Err(bad(format!("bad request line {line:?}"))),
    };
    let mut headers = Vec::new();
    loop {
        line.clear();
        r.read_line(&mut line).await?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    if let Some(enc) = header("content-encoding") {
        return Err(bad(format!(
            "{target}: compressed body ({enc}) not supported"
        )));
    }
    let body = if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        read_chunked(r).await?
    } else {
        let len: usize = header("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut b = vec![0; len];
        r.read_exact(&mut b).await?;
        b
    };
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    Ok(Some(Request {
        method,
        target,
        headers,
        body,
        at: started.elapsed(),
    }))
}

async fn read_chunked(r: &mut BufReader<TcpStream>) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        r.read_line(&mut line).await?;
        let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
            .map_err(|_| bad(format!("bad chunk size {line:?}")))?;
        let mut chunk = vec![0; size + 2];
        r.read_exact(&mut chunk).await?;
        if size == 0 {
            return Ok(body);
        }
        body.extend_from_slice(&chunk[..size]);
    }
}
