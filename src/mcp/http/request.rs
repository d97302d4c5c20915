//! One HTTP request: checked at the door, its body read within bounds,
//! handed to rmcp on the plain path, and refused requests audited.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Request, Response, StatusCode, header};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::Value;

use super::access::{Access, MCP_PATH, Refusal, redacted_path};
use super::body::{BodyError, WatchedBody, read_bounded};
use super::ids::{Held, SessionIds};
use crate::mcp::AirlockHandler;
use crate::mcp::handler::SESSION_HEADER;
use crate::supervisor::Supervisor;

/// Bytes of an error response kept for the audit record.
const AUDIT_BODY: usize = 512;

type BoxResponse = Response<BoxBody<Bytes, Infallible>>;

/// What every request of one server shares.
pub struct State {
    pub supervisor: Arc<Supervisor>,
    pub access: Access,
    pub service: StreamableHttpService<AirlockHandler, LocalSessionManager>,
    pub sessions: Arc<LocalSessionManager>,
    pub by_session: Arc<super::sessions::Sessions>,
    pub max_body: usize,
    pub body_timeout: Duration,
    pub ids: Arc<SessionIds>,
}

impl State {
    /// Answer one request.
    pub async fn handle(&self, req: Request<Incoming>) -> BoxResponse {
        let (mut parts, body) = req.into_parts();
        let what = format!("{} {}", parts.method, redacted_path(parts.uri.path()));
        if let Err(refusal) = self.access.check(&parts) {
            return self.refuse(&what, refusal.status(), &refusal.describe(), b"", &refusal);
        }
        let bytes = match read_bounded(body, self.max_body, self.body_timeout).await {
            Ok(b) => b,
            Err(e) => {
                let (status, why) = match e {
                    BodyError::TooLarge(n) => (
                        StatusCode::PAYLOAD_TOO_LARGE,
                        format!(
                            "request body too large: at least {n} bytes, airlock accepts at most {} bytes",
                            self.max_body
                        ),
                    ),
                    BodyError::TooSlow => (
                        StatusCode::REQUEST_TIMEOUT,
                        format!(
                            "request body not received within {}s",
                            self.body_timeout.as_secs()
                        ),
                    ),
                    BodyError::Failed(e) => (
                        StatusCode::BAD_REQUEST,
                        format!("reading the body failed: {e}"),
                    ),
                };
                return self.refuse_plain(&what, status, &why, b"");
            }
        };
        // rmcp sees neither the secret nor the token.
        parts.uri = http::Uri::from_static(MCP_PATH);
        parts.headers.remove(header::AUTHORIZATION);
        let session = parts
            .headers
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let request_id = request_id(&bytes);
        let held = match (&session, &request_id) {
            (Some(s), Some(id)) => {
                let Some(h) = self.ids.hold(s, id) else {
                    let why = format!(
                        "request id {id} is in use: a request with this id has not been \
                         answered yet in this session (JSON-RPC ids must be unique)"
                    );
                    return self.refuse_plain(&what, StatusCode::CONFLICT, &why, &bytes);
                };
                Some(h)
            }
            _ => None,
        };
        let is_delete = parts.method == http::Method::DELETE;
        let mut response = self
            .service
            .handle(Request::from_parts(parts, Full::new(bytes.clone())))
            .await;
        if response.status().is_client_error() || response.status().is_server_error() {
            return self.audit_error_response(&what, response, &bytes).await;
        }
        if is_delete
            && response.status().is_success()
            && let Some(s) = &session
        {
            self.by_session.ended(s, &self.supervisor);
        }
        if is_delete && response.status() == StatusCode::ACCEPTED {
            // The session is gone; clients expect 200 or 204 here.
            *response.status_mut() = StatusCode::NO_CONTENT;
        }
        match (session, request_id, held) {
            (Some(session), Some(id), Some(held)) if is_event_stream(&response) => {
                self.cancel_when_abandoned(response, session, id, held)
            }
            _ => response,
        }
    }

    /// A request refused at the door: audited, answered with `status`.
    fn refuse(
        &self,
        what: &str,
        status: StatusCode,
        why: &str,
        body: &[u8],
        refusal: &Refusal,
    ) -> BoxResponse {
        let mut response = self.refuse_plain(what, status, why, body);
        if matches!(refusal, Refusal::MissingSecret | Refusal::WrongSecret) {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"airlock\""),
            );
        }
        response
    }

    fn refuse_plain(&self, what: &str, status: StatusCode, why: &str, body: &[u8]) -> BoxResponse {
        self.audit(what, status, why, body);
        Response::builder()
            .status(status)
            .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
            .body(Full::new(Bytes::from(format!("{why}\n"))).boxed())
            .unwrap_or_else(|_| Response::new(Full::new(Bytes::new()).boxed()))
    }

    fn audit(&self, what: &str, status: StatusCode, why: &str, body: &[u8]) {
        let error = format!("HTTP {} {what}: {why}", status.as_u16());
        tracing::info!("refused an HTTP request: {error}");
        self.supervisor.protocol_error(None, &error, body);
    }

    /// rmcp answered with an error status: audit it with rmcp's message.
    async fn audit_error_response(
        &self,
        what: &str,
        response: BoxResponse,
        sent: &[u8],
    ) -> BoxResponse {
        let (parts, body) = response.into_parts();
        let bytes = match tokio::time::timeout(Duration::from_secs(5), body.collect()).await {
            Ok(Ok(c)) => c.to_bytes(),
            _ => Bytes::new(),
        };
        let message = String::from_utf8_lossy(&bytes[..bytes.len().min(AUDIT_BODY)]).into_owned();
        let message = json_error_message(&message).unwrap_or(message);
        self.audit(what, parts.status, message.trim(), sent);
        Response::from_parts(parts, Full::new(bytes).boxed())
    }

    /// A request's SSE answer in a session: if the client drops it before
    /// the end, the request is cancelled (as a closed stdin cancels calls).
    /// Its id stays in flight (`held`) until the answer is over.
    fn cancel_when_abandoned(
        &self,
        response: BoxResponse,
        session: String,
        id: Value,
        held: Held,
    ) -> BoxResponse {
        let sessions = self.sessions.clone();
        let (parts, body) = response.into_parts();
        let watched = WatchedBody::new(
            body,
            Box::new(move || {
                let cancel = serde_json::json!({
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": id, "reason": "the client disconnected"},
                });
                let Ok(message) = serde_json::from_value::<ClientJsonRpcMessage>(cancel) else {
                    return;
                };
                let Ok(rt) = tokio::runtime::Handle::try_current() else {
                    return;
                };
                rt.spawn(async move {
                    let session = session.into();
                    if let Err(e) = sessions.accept_message(&session, message).await {
                        tracing::debug!("cancelling an abandoned request: {e}");
                    }
                });
            }),
        )
        .holding(Box::new(held));
        Response::from_parts(parts, watched.boxed())
    }
}

fn is_event_stream(response: &BoxResponse) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// The id of a JSON-RPC request (not a notification or response).
fn request_id(body: &[u8]) -> Option<Value> {
    let v: Value = serde_json::from_slice(body).ok()?;
    v.get("method")?;
    v.get("id").filter(|id| !id.is_null()).cloned()
}

/// The message of a JSON-RPC error body.
fn json_error_message(text: &str) -> Option<String> {
    let v: Value = serde_json::from_str(text).ok()?;
    v.pointer("/error/message")?.as_str().map(String::from)
}
