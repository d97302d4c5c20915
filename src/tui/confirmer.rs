//! The TUI's [`Confirmer`]: every request goes to the app's queue with a
//! one-shot responder, and the call waits for the human's answer.
//!
//! Whatever goes wrong resolves to a refusal, never an approval: a closed
//! queue (the TUI is gone) is `Shutdown`, a dropped responder is
//! `ConfirmerFailed`, the agent's cancellation is `Cancelled`.

use async_trait::async_trait;
use tokio::sync::{mpsc, oneshot};

use crate::call::{CallId, Decision, RefusedBy};
use crate::supervisor::{ConfirmRequest, Confirmer};

/// What the confirmer tells the app (core → TUI, for prompts).
#[derive(Debug)]
pub enum ConfirmMsg {
    /// A call waits for the human: show its prompt, answer through `reply`.
    Ask {
        /// The call and the verdict that sent it here.
        request: Box<ConfirmRequest>,
        /// Where the answer goes; dropping it denies the call.
        reply: oneshot::Sender<Decision>,
    },
    /// The call no longer waits (answered, cancelled by the agent, timed
    /// out, or the supervisor closed): drop its prompt if it is still shown.
    Withdrawn(CallId),
}

/// The confirmer the TUI answers.
#[derive(Debug, Clone)]
pub struct TuiConfirmer {
    tx: mpsc::UnboundedSender<ConfirmMsg>,
}

/// A confirmer and the queue the app reads its requests from.
pub fn channel() -> (TuiConfirmer, mpsc::UnboundedReceiver<ConfirmMsg>) {
    let (tx, rx) = mpsc::unbounded_channel();
    (TuiConfirmer { tx }, rx)
}

/// Tells the app the prompt is gone however `confirm` ends, including when
/// the pipeline drops it (approval timeout, shutdown).
struct Withdraw {
    tx: mpsc::UnboundedSender<ConfirmMsg>,
    id: CallId,
}

impl Drop for Withdraw {
    fn drop(&mut self) {
        let _ = self.tx.send(ConfirmMsg::Withdrawn(self.id));
    }
}

#[async_trait]
impl Confirmer for TuiConfirmer {
    async fn confirm(&self, request: ConfirmRequest) -> Decision {
        let id = request.call.id;
        let cancel = request.cancel.clone();
        let (reply, answer) = oneshot::channel();
        if self
            .tx
            .send(ConfirmMsg::Ask {
                request: Box::new(request),
                reply,
            })
            .is_err()
        {
            return Decision::deny(RefusedBy::Shutdown, None);
        }
        let _withdraw = Withdraw {
            tx: self.tx.clone(),
            id,
        };
        tokio::select! {
            answer = answer => match answer {
                Ok(decision) => decision,
                Err(_) => Decision::deny(RefusedBy::ConfirmerFailed, None),
            },
            () = cancel.cancelled() => Decision::deny(RefusedBy::Cancelled, None),
        }
    }

    fn kind(&self) -> crate::call::ConfirmerKind {
        crate::call::ConfirmerKind::Tui
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::{AgentInfo, ApprovedBy, CallInfo, DecidedBy, PolicyVerdict, Verdict};
    use tokio_util::sync::CancellationToken;

    fn request(cancel: CancellationToken) -> ConfirmRequest {
        ConfirmRequest {
            call: CallInfo {
                id: 7,
                agent: AgentInfo {
                    id: 1,
                    name: "a".into(),
                    version: None,
                },
                tool: "bash".into(),
                kind: None,
                args: serde_json::json!({}),
                summary: "ls".into(),
                received_at: chrono::Utc::now(),
                runner: crate::call::Runner::default(),
                view: crate::call::CallView::default(),
                edit: None,
                grant: crate::call::GrantShape::None,
                proposal: None,
            },
            verdict: PolicyVerdict {
                verdict: Verdict::Ask,
                rule: "default".into(),
                source: "built-in".into(),
            },
            cancel,
        }
    }

    #[tokio::test]
    async fn the_answer_passes_through_and_the_prompt_is_withdrawn() {
        let (c, mut rx) = channel();
        let task = tokio::spawn(async move { c.confirm(request(CancellationToken::new())).await });
        let Some(ConfirmMsg::Ask { reply, request }) = rx.recv().await else {
            panic!("a request")
        };
        assert_eq!(request.call.id, 7);
        reply.send(Decision::approve(ApprovedBy::User)).unwrap();
        assert!(task.await.unwrap().is_approved());
        assert!(matches!(rx.recv().await, Some(ConfirmMsg::Withdrawn(7))));
    }

    #[tokio::test]
    async fn a_dropped_responder_is_a_denial() {
        let (c, mut rx) = channel();
        let task = tokio::spawn(async move { c.confirm(request(CancellationToken::new())).await });
        drop(rx.recv().await);
        let d = task.await.unwrap();
        assert!(!d.is_approved());
        assert_eq!(d.by(), DecidedBy::ConfirmerFailed);
    }

    #[tokio::test]
    async fn a_closed_queue_is_a_denial() {
        let (c, rx) = channel();
        drop(rx);
        let d = c.confirm(request(CancellationToken::new())).await;
        assert!(!d.is_approved());
        assert_eq!(d.by(), DecidedBy::Shutdown);
    }

    #[tokio::test]
    async fn cancellation_withdraws_the_prompt() {
        let (c, mut rx) = channel();
        let cancel = CancellationToken::new();
        let c2 = cancel.clone();
        let task = tokio::spawn(async move { c.confirm(request(c2)).await });
        let Some(ConfirmMsg::Ask { reply, .. }) = rx.recv().await else {
            panic!("a request")
        };
        cancel.cancel();
        let d = task.await.unwrap();
        assert_eq!(d.by(), DecidedBy::Cancelled);
        assert!(matches!(rx.recv().await, Some(ConfirmMsg::Withdrawn(7))));
        assert!(reply.is_closed());
    }
}
