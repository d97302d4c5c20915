//! The request ids in flight in each HTTP session. A request that reuses
//! one is refused before rmcp sees it: rmcp would route one POST's answer
//! to the other and cancel the second call (the line transport refuses
//! the same on stdio and the socket, `mcp/in_flight.rs`).

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

/// (session id, request id as JSON text) of every request not answered.
#[derive(Debug, Default)]
pub struct SessionIds(Mutex<HashSet<(String, String)>>);

/// A request's id, held in flight until this is dropped (with the
/// request's answer).
#[derive(Debug)]
pub struct Held {
    ids: Arc<SessionIds>,
    key: (String, String),
}

impl SessionIds {
    /// Hold `id` in `session`; `None` if it is in flight already.
    pub fn hold(self: &Arc<Self>, session: &str, id: &Value) -> Option<Held> {
        let key = (session.to_string(), id.to_string());
        let fresh = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key.clone());
        fresh.then(|| Held {
            ids: self.clone(),
            key,
        })
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.ids
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_id_is_held_per_session_until_its_answer_is_dropped() {
        let ids = Arc::new(SessionIds::default());
        let a = ids.hold("s1", &json!(7)).expect("fresh");
        assert!(ids.hold("s1", &json!(7)).is_none(), "in flight");
        assert!(ids.hold("s1", &json!("7")).is_some(), "another id");
        assert!(ids.hold("s2", &json!(7)).is_some(), "another session");
        drop(a);
        assert!(ids.hold("s1", &json!(7)).is_some(), "answered: free");
    }
}
