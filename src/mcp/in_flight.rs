//! The client's requests that have not been answered yet, and the ids
//! rmcp knows them by.
//!
//! JSON-RPC asks a client never to reuse the id of a request still in
//! flight. rmcp serves such a request all the same and drops one of the
//! two answers, so a call could run (a command, a write) and its result
//! never reach the agent: the line transport refuses the second request
//! instead, before anything runs.
//!
//! A cancelled request's handler goes on until it notices, and rmcp then
//! matches its (dropped) answer by id: had a new request reused the id
//! meanwhile, rmcp would cancel the new one and send it the old one's
//! answer. So rmcp never sees the client's ids: each request gets an id
//! of its own here (a number never used before on the connection), and
//! answers get the client's id back. A cancellation names the request by
//! the id it has now; one naming no request in flight is dropped (it
//! could name another request's inner id), and an answer to a request
//! that was cancelled is not sent (its id may be in use again).

use std::collections::HashMap;

use rmcp::model::{ClientJsonRpcMessage, ClientNotification, RequestId, ServerJsonRpcMessage};

/// What to do with a message from the client.
#[derive(Debug, PartialEq)]
pub(super) enum Arrival {
    /// Serve it (a request now carries its inner id).
    Pass,
    /// A cancellation of no request in flight: nothing to do.
    Drop,
    /// A request whose id is already in flight: answer it with an error,
    /// do not serve it.
    InUse(RequestId),
}

/// The requests in flight, both ways.
#[derive(Debug, Default)]
pub(super) struct InFlight {
    /// The client's id → the inner id.
    inner: HashMap<RequestId, i64>,
    /// The inner id → the client's id.
    outer: HashMap<i64, RequestId>,
    /// The last inner id given.
    last: i64,
}

impl InFlight {
    /// Note a message from the client, giving a request its inner id and a
    /// cancellation the inner id of the request it names.
    pub(super) fn arrived(&mut self, msg: &mut ClientJsonRpcMessage) -> Arrival {
        match msg {
            ClientJsonRpcMessage::Request(r) => {
                if self.inner.contains_key(&r.id) {
                    return Arrival::InUse(r.id.clone());
                }
                self.last += 1;
                let outer = std::mem::replace(&mut r.id, RequestId::Number(self.last));
                self.inner.insert(outer.clone(), self.last);
                self.outer.insert(self.last, outer);
                Arrival::Pass
            }
            ClientJsonRpcMessage::Notification(n) => {
                let ClientNotification::CancelledNotification(c) = &mut n.notification else {
                    return Arrival::Pass;
                };
                let Some(id) = &mut c.params.request_id else {
                    return Arrival::Pass;
                };
                // A cancelled request may get no answer: its id is free
                // again, and its answer, if rmcp still sends one, is not
                // passed on.
                match self.inner.remove(id) {
                    Some(inner) => {
                        self.outer.remove(&inner);
                        *id = RequestId::Number(inner);
                        Arrival::Pass
                    }
                    None => Arrival::Drop,
                }
            }
            _ => Arrival::Pass,
        }
    }

    /// Note a message to the client: an answer gets its request's id back
    /// and frees it. False for an answer to no request in flight (one that
    /// was cancelled), which is not sent.
    pub(super) fn answered(&mut self, msg: &mut ServerJsonRpcMessage) -> bool {
        let id = match msg {
            ServerJsonRpcMessage::Response(r) => &mut r.id,
            ServerJsonRpcMessage::Error(e) => match &mut e.id {
                Some(id) => id,
                None => return true,
            },
            _ => return true,
        };
        let RequestId::Number(inner) = id else {
            return false;
        };
        match self.outer.remove(inner) {
            Some(outer) => {
                self.inner.remove(&outer);
                *id = outer;
                true
            }
            None => false,
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

    fn id_of(m: &ClientJsonRpcMessage) -> RequestId {
        match m {
            ClientJsonRpcMessage::Request(r) => r.id.clone(),
            _ => panic!("not a request"),
        }
    }

    fn reply_id(m: &ServerJsonRpcMessage) -> RequestId {
        match m {
            ServerJsonRpcMessage::Response(r) => r.id.clone(),
            _ => panic!("not a response"),
        }
    }

    const CALL: &str = r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
    const CANCEL: &str =
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#;

    #[test]
    fn an_id_in_flight_is_refused_until_answered_or_cancelled() {
        let mut f = InFlight::default();
        let mut first = msg(CALL);
        assert_eq!(f.arrived(&mut first), Arrival::Pass);
        assert_eq!(
            f.arrived(&mut msg(CALL)),
            Arrival::InUse(RequestId::Number(7))
        );
        let RequestId::Number(inner) = id_of(&first) else {
            panic!("a number")
        };
        let mut a = answer(inner);
        assert!(f.answered(&mut a));
        assert_eq!(reply_id(&a), RequestId::Number(7), "the client's id back");
        assert_eq!(f.arrived(&mut msg(CALL)), Arrival::Pass, "answered: free");
        assert_eq!(f.arrived(&mut msg(CANCEL)), Arrival::Pass);
        assert_eq!(f.arrived(&mut msg(CALL)), Arrival::Pass, "cancelled: free");
        // Another id is never affected.
        let other = r#"{"jsonrpc":"2.0","id":"7","method":"ping"}"#;
        assert_eq!(f.arrived(&mut msg(other)), Arrival::Pass);
    }

    #[test]
    fn a_reused_id_after_a_cancel_is_a_new_request_to_rmcp() {
        let mut ids = InFlight::default();
        let (mut old, mut new) = (msg(CALL), msg(CALL));
        ids.arrived(&mut old);
        let mut cancel = msg(CANCEL);
        assert_eq!(ids.arrived(&mut cancel), Arrival::Pass);
        ids.arrived(&mut new);
        let (RequestId::Number(inner_old), RequestId::Number(inner_new)) =
            (id_of(&old), id_of(&new))
        else {
            panic!("numbers")
        };
        assert_ne!(inner_old, inner_new, "rmcp sees two requests");
        // The cancellation names the old request, as rmcp knows it.
        let ClientJsonRpcMessage::Notification(c) = &cancel else {
            panic!("a notification")
        };
        let ClientNotification::CancelledNotification(c) = &c.notification else {
            panic!("a cancellation")
        };
        assert_eq!(c.params.request_id, Some(RequestId::Number(inner_old)));
        // The old request's late answer is not sent; the new one's is,
        // with the client's id.
        assert!(!ids.answered(&mut answer(inner_old)));
        let mut a = answer(inner_new);
        assert!(ids.answered(&mut a));
        assert_eq!(reply_id(&a), RequestId::Number(7));
    }

    #[test]
    fn a_cancellation_of_no_request_in_flight_is_dropped() {
        let mut f = InFlight::default();
        // Request 1 gets inner id 1; a cancellation of the client's id 1
        // names nothing in flight and must not reach rmcp as inner id 1's.
        let mut r = msg(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#);
        f.arrived(&mut r);
        assert_eq!(id_of(&r), RequestId::Number(1));
        let stray =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
        assert_eq!(f.arrived(&mut msg(stray)), Arrival::Drop);
        let mut a = answer(1);
        assert!(f.answered(&mut a), "request \"a\" is still in flight");
        assert_eq!(reply_id(&a), RequestId::String("a".into()));
    }
}
