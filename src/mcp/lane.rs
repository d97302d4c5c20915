//! What the line transport needs of a lane that serves some requests
//! where it reads them ([`super::inline`]), and how a handler hands such a
//! request back when it cannot serve it there.

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, ErrorData,
    Extensions, GetMeta, RequestMetaObject, ServerJsonRpcMessage,
};
use rmcp::service::{RequestContext, RoleServer};

/// A lane the transport tries each request on before rmcp gets it.
pub(super) trait Lane: Send + Sync {
    /// True for a message the lane may try.
    fn takes(&self, msg: &ClientJsonRpcMessage) -> bool;
    /// Serve `msg` (one it takes).
    fn serve(&self, msg: ClientJsonRpcMessage) -> Serving;
}

/// A call being served by the lane (kept by the transport, so a
/// `receive` that rmcp drops half-way loses nothing).
pub(super) type Serving = Pin<Box<dyn Future<Output = Served> + Send>>;

/// How the lane dealt with a message.
pub(super) enum Served {
    /// Served here: the answer to send (with rmcp's inner id).
    Answered(ServerJsonRpcMessage),
    /// Not served here: hand it to rmcp as it is.
    Pass(ClientJsonRpcMessage),
}

/// Put into a request's extensions by the lane: the handler serves the
/// call only if it ends at once, and otherwise leaves it here.
#[derive(Clone, Default)]
pub(super) struct InlineOnly(Arc<Mutex<Option<Declined>>>);

/// A call the handler declined, whole.
struct Declined {
    params: CallToolRequestParams,
    meta: RequestMetaObject,
    extensions: Extensions,
}

impl InlineOnly {
    /// Leave the call (`request` with its arguments back, and the
    /// context's `_meta` and extensions) to be served the usual way.
    pub(super) fn decline(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) {
        let mut extensions = context.extensions;
        extensions.remove::<Self>();
        let declined = Declined {
            params: request,
            meta: context.meta,
            extensions,
        };
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(declined);
    }

    /// The error a declining handler returns (never sent).
    pub(super) fn declined() -> ErrorData {
        ErrorData::internal_error("declined by the inline lane", None)
    }

    /// The declined request, as it came (its `_meta` back in its
    /// extensions), if the handler declined it.
    pub(super) fn take_request(&self) -> Option<ClientRequest> {
        let declined = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()?;
        Some(declined.into_request())
    }
}

impl Declined {
    /// The request as it came (its `_meta` back in its extensions).
    fn into_request(self) -> ClientRequest {
        let mut call = CallToolRequest::new(self.params);
        call.extensions = self.extensions;
        let mut request = ClientRequest::CallToolRequest(call);
        *request.get_meta_mut() = self.meta;
        request
    }
}
