//! The ids of a connection's requests that have not been answered yet.
//!
//! JSON-RPC asks a client never to reuse the id of a request still in
//! flight. rmcp serves such a request all the same and drops one of the
//! two answers, so a call could run (a command, a write) and its result
//! never reach the agent. The line transport refuses the second request
//! instead, before anything runs.

use std::collections::HashSet;

use rmcp::model::{ClientJsonRpcMessage, ClientNotification, RequestId, ServerJsonRpcMessage};

/// Request ids seen and not yet answered.
#[derive(Debug, Default)]
pub(super) struct InFlight {
    ids: HashSet<RequestId>,
}

impl InFlight {
    /// Note a message from the client. `Err(id)`: a request whose id is
    /// already in flight, to be answered with an error and not served.
    pub(super) fn arrived(&mut self, msg: &ClientJsonRpcMessage) -> Result<(), RequestId> {
        match msg {
            ClientJsonRpcMessage::Request(r) => {
                if self.ids.insert(r.id.clone()) {
                    Ok(())
                } else {
                    Err(r.id.clone())
                }
            }
            // A cancelled request may get no answer: its id is free again.
            ClientJsonRpcMessage::Notification(n) => {
                if let ClientNotification::CancelledNotification(c) = &n.notification
                    && let Some(id) = &c.params.request_id
                {
                    self.ids.remove(id);
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Note a message to the client: an answer frees its request's id.
    pub(super) fn answered(&mut self, msg: &ServerJsonRpcMessage) {
        match msg {
            ServerJsonRpcMessage::Response(r) => {
                self.ids.remove(&r.id);
            }
            ServerJsonRpcMessage::Error(e) => {
                if let Some(id) = &e.id {
                    self.ids.remove(id);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(line: &str) -> ClientJsonRpcMessage {
        serde_json::from_str(line).unwrap()
    }

    fn answer(id: i64) -> ServerJsonRpcMessage {
        serde_json::from_value(serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {}}))
            .unwrap()
    }

    #[test]
    fn an_id_in_flight_is_refused_until_answered_or_cancelled() {
        let call = r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
        let mut f = InFlight::default();
        assert!(f.arrived(&msg(call)).is_ok());
        assert_eq!(f.arrived(&msg(call)), Err(RequestId::Number(7)));
        f.answered(&answer(7));
        assert!(f.arrived(&msg(call)).is_ok(), "answered: the id is free");
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#;
        assert!(f.arrived(&msg(cancel)).is_ok());
        assert!(f.arrived(&msg(call)).is_ok(), "cancelled: the id is free");
        // Another id is never affected.
        assert!(
            f.arrived(&msg(r#"{"jsonrpc":"2.0","id":"7","method":"ping"}"#))
                .is_ok()
        );
    }
}
