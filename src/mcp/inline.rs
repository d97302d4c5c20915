//! Calls the line transport serves where it reads them.
//!
//! rmcp serves every request on a task of its own: a task spawned for the
//! request, a channel to its service loop, a token per request, then one
//! more task to send the answer. For a read-only call that ends at once
//! (a small file read, decided at once by the policy) that machinery costs
//! more than the call. So the transport hands such a call straight to the
//! same rmcp request handler ([`rmcp::Service::handle_request`], with the
//! same `_meta`, extensions and peer rmcp would give it) and writes its
//! answer through the same encoder and id mapping as every other answer:
//! what the agent receives and what the trail records do not depend on the
//! lane (the tests compare both).
//!
//! A call that cannot end at once (a tool that is not read-only, a verdict
//! that asks the human, a read that needs a thread) is declined by the
//! pipeline before it gets a call id or a record, and goes to rmcp as it
//! came, so it can wait, be cancelled and send progress as usual.
//! Cancellation cannot reach a call served here: nothing is read from the
//! connection until it is answered.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use futures::FutureExt;
use rmcp::Service;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, Extensions, GetExtensions, GetMeta, JsonRpcRequest,
    RequestMetaObject, ServerJsonRpcMessage,
};
use rmcp::service::RequestContext;

use super::handler::{AirlockHandler, call_panicked};
use super::lane::{InlineOnly, Lane, Served, Serving};

/// Serves the read-only calls of one connection where the transport
/// reads them.
pub struct InlineLane {
    handler: Arc<AirlockHandler>,
    served: Arc<AtomicU64>,
}

impl InlineLane {
    /// A lane for `handler`'s connection, counting the calls it serves in
    /// `served`.
    pub fn new(handler: &AirlockHandler, served: Arc<AtomicU64>) -> Self {
        Self {
            handler: Arc::new(handler.same_connection()),
            served,
        }
    }
}

impl Lane for InlineLane {
    /// True for a message the lane may try: a `tools/call` of a read-only
    /// tool, once the session runs and its agent is registered.
    fn takes(&self, msg: &ClientJsonRpcMessage) -> bool {
        let ClientJsonRpcMessage::Request(r) = msg else {
            return false;
        };
        let ClientRequest::CallToolRequest(call) = &r.request else {
            return false;
        };
        let h = &self.handler;
        h.peer().is_some()
            && h.registered_agent().is_some()
            && h.supervisor().tools().is_read_only(&call.params.name)
    }

    /// Serve `msg` (one [`InlineLane::takes`]) through rmcp's request
    /// handler, as rmcp's service loop would: the same context from the
    /// same message, a token no one cancels.
    fn serve(&self, msg: ClientJsonRpcMessage) -> Serving {
        let (handler, served) = (self.handler.clone(), self.served.clone());
        Box::pin(async move {
            let ClientJsonRpcMessage::Request(JsonRpcRequest {
                id, mut request, ..
            }) = msg
            else {
                return Served::Pass(msg);
            };
            let Some(peer) = handler.peer().cloned() else {
                return Served::Pass(ClientJsonRpcMessage::request(request, id));
            };
            // As rmcp does: the message's `_meta` and extensions become the
            // context's.
            let mut meta = RequestMetaObject::new();
            std::mem::swap(&mut meta, request.get_meta_mut());
            let mut extensions = Extensions::new();
            std::mem::swap(&mut extensions, request.extensions_mut());
            let inline = InlineOnly::default();
            extensions.insert(inline.clone());
            // A token no one cancels: nothing is read until it is answered.
            let mut context = RequestContext::new(id.clone(), peer);
            context.meta = meta;
            context.extensions = extensions;
            // A panic here must not end the connection (rmcp contains one in
            // the request's task): the request gets an internal error.
            let handled = AssertUnwindSafe(handler.handle_request(request, context))
                .catch_unwind()
                .await;
            let result = handled.unwrap_or_else(|p| Err(call_panicked(p.as_ref())));
            if let Some(declined) = inline.take_request() {
                return Served::Pass(ClientJsonRpcMessage::request(declined, id));
            }
            served.fetch_add(1, Ordering::Relaxed);
            Served::Answered(match result {
                Ok(result) => ServerJsonRpcMessage::response(result, id),
                Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
            })
        })
    }
}
