//! The line transport every MCP connection runs on (stdio and the socket).
//!
//! rmcp's own byte-stream transport silently ignores a line that is not
//! JSON and answers a well-formed but invalid message with an id-less
//! error. airlock answers every bad line itself, then keeps serving:
//!
//! * not JSON → `-32700` parse error;
//! * longer than [`MAX_MESSAGE_BYTES`] → `-32600`, and the line is skipped
//!   without ever being held in memory;
//! * a request with the wrong shape or wrong parameter types → `-32602`
//!   (or `-32600`) carrying the request's id, so the client can match it.
//!
//! Good lines are parsed once, straight into rmcp's message type; the
//! JSON-RPC semantics (dispatch, cancellation, the lifecycle) stay rmcp's.

use std::io;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, ErrorData, RequestId,
    ServerJsonRpcMessage,
};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};
use tokio::task::JoinHandle;

use super::in_flight::{Arrival, InFlight};
use super::lane::{Lane, Served, Serving};
use super::line_out::LineOut;

/// The longest message (one line) airlock accepts: 16 MiB.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// Bytes of an oversized line's start and end kept to find its id in.
const ID_WINDOW: usize = 64 * 1024;

/// What one bounded line read produced.
enum Line {
    /// A whole line is in the buffer.
    Complete,
    /// A line longer than the limit was skipped; its length in bytes.
    Oversized(usize),
    /// The peer closed its side.
    Eof,
    /// Reading failed.
    Failed(io::Error),
}

/// What to do with one line.
enum Classified {
    /// Hand it to rmcp.
    Message(ClientJsonRpcMessage),
    /// Answer it ourselves.
    Reply(ServerJsonRpcMessage),
    /// Drop it (blank line, a notification or response we cannot use).
    Ignore,
}

/// An rmcp transport over a newline-delimited byte stream that answers
/// malformed input instead of ignoring it or closing the connection.
pub struct LineTransport<R> {
    reader: BufReader<R>,
    line: Vec<u8>,
    /// Bytes of an oversized line skipped so far (`Some` while skipping).
    skipping: Option<usize>,
    /// The start and the end (so far) of the line being skipped.
    skipped_head: Vec<u8>,
    skipped_tail: Vec<u8>,
    /// An error reply not yet sent (kept here so a cancelled `receive`
    /// loses nothing).
    pending_reply: Option<Vec<u8>>,
    /// False until the client sent a request that starts a lifecycle;
    /// rmcp ends a connection whose first message is not a request.
    started: bool,
    out: Option<LineOut>,
    /// The task that writes what the peer could not take at once.
    writer: Option<JoinHandle<()>>,
    /// Told about every message answered with an error here (to audit it).
    on_rejected: Option<RejectHook>,
    /// Cancelled once the peer's input ends (EOF or a read error).
    input_closed: Option<tokio_util::sync::CancellationToken>,
    /// The ids of the requests not answered yet.
    in_flight: InFlight,
    /// Serves read-only calls that end at once here (see
    /// [`super::inline`]).
    lane: Option<Box<dyn Lane>>,
    /// The call the lane is serving (kept here: rmcp may drop a `receive`
    /// half-way, and the call must finish and be answered all the same).
    serving: Option<Serving>,
}

/// Called with the error sent back and the offending bytes (possibly cut).
pub type RejectHook = Box<dyn Fn(&str, &[u8]) + Send + Sync>;

impl<R> LineTransport<R>
where
    R: AsyncRead + Unpin + Send + 'static,
{
    /// A transport reading from `read` and writing to `write`. Must be
    /// called inside a Tokio runtime (it starts the writer task).
    pub fn new<W>(read: R, write: W) -> Self
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (out, writer) = LineOut::start(write);
        Self {
            reader: BufReader::with_capacity(64 * 1024, read),
            line: Vec::new(),
            skipping: None,
            skipped_head: Vec::new(),
            skipped_tail: Vec::new(),
            pending_reply: None,
            started: false,
            out: Some(out),
            writer: Some(writer),
            on_rejected: None,
            input_closed: None,
            in_flight: InFlight::default(),
            lane: None,
            serving: None,
        }
    }

    /// Serve the read-only calls that end at once through `lane`, where
    /// they are read (see [`super::inline`]).
    #[must_use]
    pub(super) fn with_inline_lane(mut self, lane: impl Lane + 'static) -> Self {
        self.lane = Some(Box::new(lane));
        self
    }

    /// Write (or queue whole) a message to the peer, an answer with its
    /// client's id back; the output it went to (for the back-pressure).
    /// `None`: an answer to a cancelled request, not written (its id may
    /// be in use again). Both rmcp's messages ([`Transport::send`]) and
    /// the lane's answers go through here.
    fn write_message(
        &mut self,
        mut item: ServerJsonRpcMessage,
    ) -> Option<(io::Result<()>, Option<LineOut>)> {
        if !self.in_flight.answered(&mut item) {
            tracing::debug!("dropped the answer to a cancelled request");
            return None;
        }
        let out = self.out.clone();
        let sent = match (encode(&item), &out) {
            (Ok(bytes), Some(o)) => o.push(bytes),
            (Err(e), _) => Err(e),
            (Ok(_), None) => Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "the transport is closed",
            )),
        };
        Some((sent, out))
    }

    /// Send the answer to a call the lane served, as [`Transport::send`]
    /// sends rmcp's.
    fn answer_inline(&mut self, answer: ServerJsonRpcMessage) {
        if let Some((Err(e), _)) = self.write_message(answer) {
            tracing::warn!("an answer was not sent: {e}");
        }
    }

    /// Cancel `token` as soon as the peer's input ends (the agent closed
    /// stdin or the socket), before rmcp winds the session down.
    #[must_use]
    pub fn on_input_closed(mut self, token: tokio_util::sync::CancellationToken) -> Self {
        self.input_closed = Some(token);
        self
    }

    fn input_ended(&self) {
        if let Some(t) = &self.input_closed {
            t.cancel();
        }
    }

    /// Report every rejected message to `hook`.
    #[must_use]
    pub fn on_rejected(mut self, hook: RejectHook) -> Self {
        self.on_rejected = Some(hook);
        self
    }

    fn report(&self, reply: &ServerJsonRpcMessage, raw: &[u8]) {
        if let Some(hook) = &self.on_rejected {
            let error = serde_json::to_value(reply)
                .ok()
                .and_then(|v| {
                    v.pointer("/error/message")
                        .and_then(Value::as_str)
                        .map(String::from)
                })
                .unwrap_or_else(|| "invalid message".to_string());
            hook(&error, raw);
        }
    }

    /// Read one `\n`-terminated line into `self.line`, never holding more
    /// than [`MAX_MESSAGE_BYTES`]. Cancellation-safe: progress lives in
    /// `self`, and bytes are consumed only once copied or skipped.
    async fn read_line(&mut self) -> Line {
        loop {
            let available = match self.reader.fill_buf().await {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Line::Failed(e),
            };
            if available.is_empty() {
                // A last message without a trailing newline still counts.
                if let Some(skipped) = self.skipping.take() {
                    return Line::Oversized(skipped);
                }
                if !self.line.is_empty() {
                    return Line::Complete;
                }
                return Line::Eof;
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            if let Some(skipped) = self.skipping.as_mut() {
                *skipped += take;
                keep_tail(&mut self.skipped_tail, &available[..take]);
            } else if self.line.len() + take > MAX_MESSAGE_BYTES + 1 {
                self.skipping = Some(self.line.len() + take);
                let head = ID_WINDOW.min(self.line.len());
                self.skipped_head = self.line[..head].to_vec();
                self.skipped_tail.clear();
                keep_tail(&mut self.skipped_tail, &self.line[head..]);
                keep_tail(&mut self.skipped_tail, &available[..take]);
                self.line.clear();
                self.line.shrink_to(64 * 1024);
            } else {
                self.line.extend_from_slice(&available[..take]);
            }
            self.reader.consume(take);
            if newline.is_some() {
                return match self.skipping.take() {
                    Some(skipped) => Line::Oversized(skipped),
                    None => Line::Complete,
                };
            }
        }
    }

    /// Send a reply that is waiting, if any (then wait while a peer that
    /// does not read has too much queued). False when the output is gone.
    async fn flush_pending_reply(&mut self) -> bool {
        let Some(reply) = self.pending_reply.take() else {
            return true;
        };
        let Some(out) = self.out.clone() else {
            return false;
        };
        if out.push(reply).is_err() {
            return false;
        }
        out.room().await;
        true
    }
}

impl<R> Transport<RoleServer> for LineTransport<R>
where
    R: AsyncRead + Unpin + Send + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        // Written (or queued whole) here, not in the future: a line is
        // never cut by a caller that drops the future.
        let Some((sent, out)) = self.write_message(item) else {
            return futures::future::Either::Left(std::future::ready(Ok(())));
        };
        futures::future::Either::Right(async move {
            sent?;
            if let Some(out) = out {
                out.room().await;
            }
            Ok(())
        })
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if !self.flush_pending_reply().await {
                return None;
            }
            // The back-pressure: a peer that does not read its replies is
            // not read from either, so what is queued for it stays bounded
            // (rmcp sends replies without waiting for them).
            if let Some(out) = &self.out {
                out.room().await;
            }
            if let Some(serving) = self.serving.as_mut() {
                let served = serving.await;
                self.serving = None;
                match served {
                    Served::Answered(answer) => {
                        self.answer_inline(answer);
                        // A burst of reads still lets the runtime run the
                        // other tasks (rmcp's loop, calls that wait) now
                        // and then.
                        tokio::task::consume_budget().await;
                        continue;
                    }
                    Served::Pass(msg) => return Some(msg),
                }
            }
            let classified = match self.read_line().await {
                Line::Complete => {
                    let mut c = classify(&self.line);
                    if let Classified::Message(m) = &mut c {
                        match self.in_flight.arrived(m) {
                            Arrival::Pass => {}
                            Arrival::Drop => c = Classified::Ignore,
                            Arrival::InUse(id) => c = Classified::Reply(id_in_use(id)),
                        }
                    }
                    if let Classified::Reply(reply) = &c {
                        self.report(reply, &self.line);
                    }
                    self.line.clear();
                    if self.line.capacity() > 1024 * 1024 {
                        self.line.shrink_to(64 * 1024);
                    }
                    c
                }
                Line::Oversized(len) => {
                    tracing::warn!(len, "discarded an oversized message");
                    let id = super::request_id::recover(&self.skipped_head, &self.skipped_tail);
                    self.skipped_head = Vec::new();
                    self.skipped_tail = Vec::new();
                    let reply = too_large(len, id);
                    self.report(&reply, format!("[{len} bytes discarded]").as_bytes());
                    Classified::Reply(reply)
                }
                Line::Eof => {
                    self.input_ended();
                    return None;
                }
                Line::Failed(e) => {
                    tracing::warn!("reading the connection failed: {e}");
                    self.input_ended();
                    return None;
                }
            };
            match classified {
                Classified::Message(msg) => {
                    if !self.started {
                        let ClientJsonRpcMessage::Request(r) = &msg else {
                            tracing::debug!("dropped a message sent before any request");
                            continue;
                        };
                        if !matches!(
                            r.request,
                            ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_)
                        ) {
                            self.started = true;
                        }
                    }
                    if let Some(lane) = &self.lane
                        && lane.takes(&msg)
                    {
                        self.serving = Some(lane.serve(msg));
                        continue;
                    }
                    return Some(msg);
                }
                Classified::Reply(reply) => match encode_reply(&reply) {
                    Ok(bytes) => self.pending_reply = Some(bytes),
                    Err(e) => tracing::error!("cannot encode an error reply: {e}"),
                },
                Classified::Ignore => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        // The writer drains what is queued, then shuts its side down (the
        // peer sees EOF).
        if let Some(out) = self.out.take() {
            out.close();
        }
        if let Some(writer) = self.writer.take() {
            let _ = tokio::time::timeout(std::time::Duration::from_secs(5), writer).await;
        }
        Ok(())
    }
}

/// A reply as a line. `sonic-rs` writes the same JSON as `serde_json`
/// from the same `Serialize` impls, escaping strings with SIMD: a file's
/// text is most of a reply.
fn encode(msg: &ServerJsonRpcMessage) -> io::Result<Vec<u8>> {
    let mut bytes = sonic_rs::to_vec(msg).map_err(io::Error::other)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// An error reply as a line; one that could not name its request says
/// `"id": null`, as JSON-RPC asks.
fn encode_reply(msg: &ServerJsonRpcMessage) -> io::Result<Vec<u8>> {
    let mut v = serde_json::to_value(msg).map_err(io::Error::other)?;
    if let Value::Object(m) = &mut v
        && m.contains_key("error")
    {
        m.entry("id").or_insert(Value::Null);
    }
    let mut bytes = serde_json::to_vec(&v).map_err(io::Error::other)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Keep the last [`ID_WINDOW`] bytes of what was skipped.
fn keep_tail(tail: &mut Vec<u8>, more: &[u8]) {
    if more.len() >= ID_WINDOW {
        tail.clear();
        tail.extend_from_slice(&more[more.len() - ID_WINDOW..]);
        return;
    }
    tail.extend_from_slice(more);
    if tail.len() > 2 * ID_WINDOW {
        tail.drain(..tail.len() - ID_WINDOW);
    }
}

fn error_reply(error: ErrorData, id: Option<RequestId>) -> Classified {
    Classified::Reply(ServerJsonRpcMessage::error(error, id))
}

/// The answer to a request that reuses the id of one still in flight.
fn id_in_use(id: RequestId) -> ServerJsonRpcMessage {
    ServerJsonRpcMessage::error(
        ErrorData::invalid_request(
            format!(
                "invalid request: id {id} is used by a request that has not been answered \
                 yet; this request was not run (JSON-RPC ids must be unique while in flight)"
            ),
            None,
        ),
        Some(id),
    )
}

fn too_large(len: usize, id: Option<RequestId>) -> ServerJsonRpcMessage {
    ServerJsonRpcMessage::error(
        ErrorData::invalid_request(
            format!(
                "message too large: {len} bytes, airlock accepts at most {MAX_MESSAGE_BYTES} \
                 bytes per message; it was discarded"
            ),
            None,
        ),
        id,
    )
}

/// Decide what to do with one line (without its newline handling).
fn classify(raw: &[u8]) -> Classified {
    let mut line = raw.strip_suffix(b"\n").unwrap_or(raw);
    line = line.strip_suffix(b"\r").unwrap_or(line);
    line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Classified::Ignore;
    }
    if let Some(call) = super::plain_call::parse(line) {
        return Classified::Message(call);
    }
    let err = match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Ok(ClientJsonRpcMessage::Request(req)) => {
            // rmcp turns a standard request whose params do not parse into a
            // custom request; answer it here, where the lifecycle (and its
            // "missing _meta" complaint) cannot get in the way.
            if let ClientRequest::CustomRequest(custom) = &req.request
                && let Some(message) = params_error(&custom.method, custom.params.as_ref())
            {
                return error_reply(ErrorData::invalid_params(message, None), Some(req.id));
            }
            return Classified::Message(ClientJsonRpcMessage::Request(req));
        }
        Ok(msg) => return Classified::Message(msg),
        Err(e) => e,
    };
    // Unreadable: answered with the request's id when it can be found
    // (a lone surrogate, a cut message), so the client is not left waiting.
    if err.is_syntax() || err.is_eof() {
        let why = if has_surrogate_escape(line) {
            "a string holds a lone UTF-16 surrogate escape (\\ud800-\\udfff without its pair), \
             which is not Unicode"
        } else {
            "the message is not valid JSON"
        };
        return error_reply(
            ErrorData::parse_error(format!("parse error: {why} ({err})"), None),
            super::request_id::recover(line, line),
        );
    }
    match serde_json::from_slice::<Value>(line) {
        Ok(value) => diagnose(value, &err),
        Err(e) => error_reply(
            ErrorData::parse_error(format!("parse error: {e}"), None),
            super::request_id::recover(line, line),
        ),
    }
}

/// True when `line` has a `\uD800`–`\uDFFF` escape (serde refuses one
/// that is not half of a pair).
fn has_surrogate_escape(line: &[u8]) -> bool {
    line.windows(4).any(|w| {
        w[0] == b'\\'
            && w[1] == b'u'
            && w[2].eq_ignore_ascii_case(&b'd')
            && matches!(w[3].to_ascii_lowercase(), b'8'..=b'9' | b'a'..=b'f')
    })
}

/// Valid JSON that is not a message rmcp understands: say what is wrong,
/// with the request's id when it has a usable one.
fn diagnose(value: Value, err: &serde_json::Error) -> Classified {
    let Value::Object(obj) = value else {
        return error_reply(
            ErrorData::invalid_request(
                "invalid request: a message must be a JSON object (batches are not supported)",
                None,
            ),
            None,
        );
    };
    let has_id = obj.contains_key("id");
    let id = obj
        .get("id")
        .and_then(|v| serde_json::from_value::<RequestId>(v.clone()).ok());
    let method = obj.get("method").and_then(Value::as_str);
    if has_id && id.is_none() {
        return error_reply(
            ErrorData::invalid_request("invalid request: id must be a string or a number", None),
            None,
        );
    }
    let Some(method) = method else {
        if obj.contains_key("result") || obj.contains_key("error") {
            tracing::debug!("ignored an unusable response from the client: {err}");
            return Classified::Ignore;
        }
        return error_reply(
            ErrorData::invalid_request("invalid request: method is missing or not a string", None),
            id,
        );
    };
    let Some(id) = id else {
        tracing::debug!(method, "ignored an invalid notification: {err}");
        return Classified::Ignore;
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return error_reply(
            ErrorData::invalid_request("invalid request: jsonrpc must be \"2.0\"", None),
            Some(id),
        );
    }
    let message = params_error(method, obj.get("params"))
        .unwrap_or_else(|| format!("invalid params for {method}: {err}"));
    error_reply(ErrorData::invalid_params(message, None), Some(id))
}

/// MCP methods a client may call. A request naming one of these that rmcp
/// could not parse has invalid params (rmcp hands it over as a custom
/// request, which would otherwise be answered "method not found").
const CLIENT_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "subscriptions/listen",
    "completion/complete",
    "logging/setLevel",
];

/// The `-32602` message for a request to a known `method` whose params did
/// not parse; `None` when the method is not a standard one.
pub(crate) fn params_error(method: &str, params: Option<&Value>) -> Option<String> {
    if !CLIENT_METHODS.contains(&method) {
        return None;
    }
    let detail = match (method, params) {
        ("tools/call", Some(params)) => {
            match serde_json::from_value::<CallToolRequestParams>(params.clone()) {
                Err(e) => e.to_string(),
                Ok(_) => "they do not match the tools/call schema".to_string(),
            }
        }
        ("tools/call", None) => {
            "params are required: {\"name\": <tool>, \"arguments\": {…}}".to_string()
        }
        _ => "they do not match the method's schema".to_string(),
    };
    Some(format!("invalid params for {method}: {detail}"))
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncWriteExt;

    use super::*;

    fn reply(c: Classified) -> Value {
        match c {
            Classified::Reply(r) => serde_json::to_value(r).unwrap(),
            Classified::Message(m) => panic!("expected a reply, got {m:?}"),
            Classified::Ignore => panic!("expected a reply, got ignore"),
        }
    }

    #[test]
    fn replies_are_written_as_serde_json_writes_them() {
        use rmcp::model::{CallToolResult, ContentBlock, ServerResult};
        let text = "\u{0}\u{1f}\"\\\n\t\r\u{8}\u{c} é 𝄞 \u{7f} \u{2028}\u{2029} </script>";
        let mut with_structure = CallToolResult::success(vec![ContentBlock::text(text)]);
        with_structure.structured_content = Some(serde_json::json!({
            "f": 1.5, "tiny": 5e-324, "big": 1e300, "neg0": -0.0, "max": u64::MAX,
            "min": i64::MIN, "s": text, "nested": [null, true, {"k": []}],
        }));
        let messages = [
            ServerJsonRpcMessage::response(
                ServerResult::CallToolResult(CallToolResult::success(vec![ContentBlock::text(
                    text,
                )])),
                RequestId::Number(7),
            ),
            ServerJsonRpcMessage::response(
                ServerResult::CallToolResult(with_structure),
                RequestId::String("id \u{1}".into()),
            ),
            ServerJsonRpcMessage::response(
                ServerResult::CallToolResult(CallToolResult::error(vec![ContentBlock::text("no")])),
                RequestId::Number(i64::MIN),
            ),
            ServerJsonRpcMessage::error(
                ErrorData::invalid_params(text, None),
                Some(RequestId::Number(1)),
            ),
        ];
        for m in &messages {
            let mut want = serde_json::to_vec(m).unwrap();
            want.push(b'\n');
            assert_eq!(
                String::from_utf8(encode(m).unwrap()).unwrap(),
                String::from_utf8(want).unwrap()
            );
        }
    }

    #[test]
    fn not_json_is_a_parse_error() {
        let r = reply(classify(b"this is not json\n"));
        assert_eq!(r["error"]["code"], -32700);
        assert!(r.get("id").is_none_or(Value::is_null));
    }

    #[test]
    fn params_errors_name_the_method_and_the_problem() {
        let msg = params_error(
            "tools/call",
            Some(&serde_json::json!({"name": "pwd", "arguments": "x"})),
        )
        .unwrap();
        assert!(msg.starts_with("invalid params for tools/call: "), "{msg}");
        assert!(msg.contains("invalid type"), "{msg}");
        assert!(
            params_error("tools/call", None)
                .unwrap()
                .contains("required")
        );
        assert!(params_error("x/unknown", None).is_none());
    }

    #[test]
    fn a_standard_request_with_bad_params_is_answered_with_its_id() {
        let r = reply(classify(
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"pwd","arguments":"x"}}"#,
        ));
        assert_eq!(r["id"], 7);
        assert_eq!(r["error"]["code"], -32602);
        let r = reply(classify(
            br#"{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
        ));
        assert_eq!(r["id"], "i");
        assert_eq!(r["error"]["code"], -32602);
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("invalid params for initialize")
        );
        // An unknown method is rmcp's business (method not found).
        assert!(matches!(
            classify(br#"{"jsonrpc":"2.0","id":1,"method":"x/y","params":{}}"#),
            Classified::Message(_)
        ));
    }

    #[test]
    fn missing_method_is_invalid_request() {
        let r = reply(classify(br#"{"jsonrpc":"2.0","id":"a"}"#));
        assert_eq!(r["error"]["code"], -32600);
        assert_eq!(r["id"], "a");
    }

    #[test]
    fn arrays_and_bad_ids_are_invalid_requests() {
        assert_eq!(reply(classify(b"[1,2]"))["error"]["code"], -32600);
        let r = reply(classify(
            br#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#,
        ));
        assert_eq!(r["error"]["code"], -32600);
    }

    #[test]
    fn good_lines_pass_and_blank_lines_are_ignored() {
        assert!(matches!(
            classify(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n"),
            Classified::Message(_)
        ));
        assert!(matches!(classify(b"   \n"), Classified::Ignore));
    }

    async fn roundtrip(input: Vec<u8>) -> (Vec<ClientJsonRpcMessage>, Vec<Value>) {
        let (mut client, server) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(server);
        let mut t = LineTransport::new(read, write);
        let feeder = tokio::spawn(async move {
            client.write_all(&input).await.unwrap();
            client.shutdown().await.unwrap();
            let mut out = Vec::new();
            tokio::io::AsyncReadExt::read_to_end(&mut client, &mut out)
                .await
                .unwrap();
            out
        });
        let mut got = Vec::new();
        while let Some(m) = t.receive().await {
            got.push(m);
        }
        t.close().await.unwrap();
        drop(t);
        let out = feeder.await.unwrap();
        let replies = out
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        (got, replies)
    }

    #[tokio::test]
    async fn oversized_line_is_skipped_and_answered_and_reading_goes_on() {
        let mut input = vec![b'x'; MAX_MESSAGE_BYTES + 10];
        input.push(b'\n');
        input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
        let (got, replies) = roundtrip(input).await;
        assert_eq!(got.len(), 1, "the request after the huge line arrives");
        assert_eq!(replies.len(), 1);
        assert_eq!(replies[0]["error"]["code"], -32600);
        assert!(
            replies[0]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("too large")
        );
    }

    #[tokio::test]
    async fn a_peer_that_does_not_read_its_replies_is_not_read_from() {
        let (mut client, server) = tokio::io::duplex(64 * 1024);
        let (read, write) = tokio::io::split(server);
        let mut t = LineTransport::new(read, write);
        let text = "x".repeat(1024 * 1024);
        // Six requests read, then each answered with 1 MiB (by the id the
        // transport gave it).
        let mut ids = Vec::new();
        for i in 0..6 {
            let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\"}}\n");
            client.write_all(line.as_bytes()).await.unwrap();
            let Some(ClientJsonRpcMessage::Request(r)) = t.receive().await else {
                panic!("request {i} not read");
            };
            ids.push(r.id);
        }
        for id in ids {
            let result =
                rmcp::model::CallToolResult::success(vec![rmcp::model::ContentBlock::text(
                    text.clone(),
                )]);
            let reply = ServerJsonRpcMessage::response(
                rmcp::model::ServerResult::CallToolResult(result),
                id,
            );
            drop(t.send(reply));
        }
        client
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n")
            .await
            .unwrap();
        let held = tokio::time::timeout(std::time::Duration::from_millis(300), t.receive()).await;
        assert!(
            held.is_err(),
            "a request was read with 6 MiB of replies unread"
        );
        let reading = tokio::spawn(async move {
            let mut sink = Vec::new();
            let _ = tokio::io::AsyncReadExt::read_to_end(&mut client, &mut sink).await;
            sink.len()
        });
        let got = tokio::time::timeout(std::time::Duration::from_secs(10), t.receive()).await;
        assert!(
            matches!(got, Ok(Some(ClientJsonRpcMessage::Request(_)))),
            "once the replies are read the request comes: {got:?}"
        );
        t.close().await.unwrap();
        drop(t);
        assert!(reading.await.unwrap() > 6 * 1024 * 1024);
    }

    #[tokio::test]
    async fn notifications_before_the_first_request_are_dropped() {
        let input = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n\
            {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\
            {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
            .to_vec();
        let (got, replies) = roundtrip(input).await;
        assert_eq!(got.len(), 1);
        assert!(matches!(got[0], ClientJsonRpcMessage::Request(_)));
        assert!(replies.is_empty());
    }
}
