//! The event loop: terminal input, the core's events and the confirmer's
//! requests go into the app as [`Msg`]s; its [`Effect`]s are carried out
//! here. The screen is redrawn after something happened, and on a timer
//! only while something moves (a spinner, a countdown).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use chrono::Utc;
use crossterm::event::{Event as TermEvent, EventStream, KeyEventKind, MouseEventKind};
use futures::StreamExt;
use ratatui::layout::Rect;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::{broadcast, mpsc, oneshot};

use super::app::{App, Header};
use super::audit_tail::AuditTail;
use super::confirmer::ConfirmMsg;
use super::msg::{Effect, Msg};
use super::terminal::{self, Term};
use super::ui;
use crate::call::{CallId, DecidedBy, Decision, Event};
use crate::mcp::{Listening, SocketError, SocketServer};
use crate::session::Session;
use crate::supervisor::Supervisor;

/// Most queued events taken in before the next frame.
const BATCH: usize = 1024;

/// How long the denied calls get to be recorded when quitting.
const CLOSE_CALLS: Duration = Duration::from_secs(2);

/// Called once agents can connect, with where they connect.
pub type OnReady = Box<dyn FnOnce(&Listening) + Send>;

/// How the TUI is started.
#[derive(Default)]
pub struct Options {
    /// A label in the status bar (`demo`).
    pub label: Option<String>,
    /// Called once agents can connect (the demo starts its agent here).
    pub on_ready: Option<OnReady>,
    /// How long known agents wait for a call, as their own config says
    /// (display name → seconds), overriding the clients' defaults.
    pub agent_timeouts: Vec<(String, u64)>,
}

/// Why the TUI could not run.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// The socket could not be served.
    #[error(transparent)]
    Socket(#[from] SocketError),
    /// The terminal failed.
    #[error("terminal: {0}")]
    Terminal(#[from] std::io::Error),
}

/// What the session left behind.
#[derive(Debug, Clone)]
pub struct Ended {
    /// The audit trail.
    pub audit: PathBuf,
    /// Why it ended.
    pub reason: String,
}

/// Serve agents on the workspace's socket and run the TUI until the human
/// quits or a signal stops the supervisor. Waiting calls are denied
/// ("supervisor closed") on the way out.
pub async fn run(
    session: &Session,
    requests: mpsc::UnboundedReceiver<ConfirmMsg>,
    opts: Options,
) -> Result<Ended, TuiError> {
    let supervisor = session.supervisor.clone();
    let runtime = crate::dirs::runtime_dir().map_err(SocketError::RuntimeDir)?;
    let server = SocketServer::bind(&runtime, session)?;
    let listening = server.listening().clone();
    let bus = supervisor.events().subscribe();
    let (mut term, guard) = terminal::enter()?;
    let size = term.size()?;
    let tz = *chrono::Local::now().offset();
    let header = Header {
        workspace: listening.workspace.clone(),
        socket: listening.socket.clone(),
        audit: listening.audit.clone(),
        label: opts.label,
        sandbox: Some((
            session.sandbox_status().summary.clone(),
            session.sandbox_status().state,
        )),
    };
    let mut app = App::new(
        header,
        Utc::now(),
        tz,
        Rect::new(0, 0, size.width, size.height),
    );
    let secs = session.config.config.approval_timeout_secs;
    app.approval_timeout = (secs > 0).then(|| Duration::from_secs(secs));
    app.agent_timeouts = opts.agent_timeouts;
    let serving = tokio::spawn(server.serve(supervisor.clone()));
    if let Some(ready) = opts.on_ready {
        ready(&listening);
    }
    let mut lp = Loop {
        app,
        supervisor: supervisor.clone(),
        bus,
        requests,
        responders: HashMap::new(),
        audit: AuditTail::new(listening.audit.clone(), tz),
    };
    let result = lp.run(&mut term).await;
    let reason = match &result {
        Ok(r) => r.clone(),
        Err(e) => format!("terminal error: {e}"),
    };
    lp.close(&reason).await;
    drop(term);
    drop(guard);
    if tokio::time::timeout(Duration::from_secs(10), serving)
        .await
        .is_err()
    {
        tracing::warn!("the socket server did not stop in time");
    }
    result?;
    Ok(Ended {
        audit: listening.audit,
        reason,
    })
}

struct Loop {
    app: App,
    supervisor: std::sync::Arc<Supervisor>,
    bus: broadcast::Receiver<Event>,
    requests: mpsc::UnboundedReceiver<ConfirmMsg>,
    responders: HashMap<CallId, oneshot::Sender<Decision>>,
    audit: AuditTail,
}

impl Loop {
    /// Until the human quits (Ok("the user quit")) or the supervisor stops.
    async fn run(&mut self, term: &mut Term) -> Result<String, std::io::Error> {
        let stop = self.supervisor.shutdown_token();
        let mut input = EventStream::new();
        let lines = self.audit.read_new();
        self.app.update(Msg::Audit(lines));
        let mut dirty = true;
        loop {
            if dirty {
                term.draw(|f| ui::draw(f, &self.app))?;
                dirty = false;
            }
            let tick = self.app.tick_interval();
            let msg = tokio::select! {
                _ = stop.cancelled() => return Ok("the supervisor stopped".into()),
                ev = input.next() => match ev {
                    Some(Ok(ev)) => match term_msg(ev) {
                        Some(m) => m,
                        None => continue,
                    },
                    Some(Err(e)) => return Err(e),
                    None => return Ok("the terminal closed".into()),
                },
                ev = self.bus.recv() => match ev {
                    Ok(e) => Msg::Core(e),
                    Err(RecvError::Lagged(n)) => Msg::Lagged(n),
                    Err(RecvError::Closed) => return Ok("the supervisor stopped".into()),
                },
                Some(c) = self.requests.recv() => self.confirm_msg(c),
                _ = tokio::time::sleep(tick.unwrap_or(Duration::MAX)), if tick.is_some() => Msg::Tick,
            };
            let from_core = matches!(msg, Msg::Core(_) | Msg::Lagged(_) | Msg::Prompt { .. });
            self.app.now = Utc::now();
            let mut effects = self.app.update(msg);
            self.drain(&mut effects);
            let acted = !effects.is_empty();
            self.apply(effects, term)?;
            if from_core || acted {
                let lines = self.audit.read_new();
                if !lines.is_empty() {
                    self.app.update(Msg::Audit(lines));
                }
            }
            dirty = true;
            if self.app.quit {
                return Ok("the user quit".into());
            }
        }
    }

    /// Take in what else is queued, so a burst costs one frame.
    fn drain(&mut self, effects: &mut Vec<Effect>) {
        for _ in 0..BATCH {
            let msg = match self.bus.try_recv() {
                Ok(e) => Msg::Core(e),
                Err(TryRecvError::Lagged(n)) => Msg::Lagged(n),
                Err(_) => match self.requests.try_recv() {
                    Ok(c) => self.confirm_msg(c),
                    Err(_) => return,
                },
            };
            effects.extend(self.app.update(msg));
        }
    }

    fn confirm_msg(&mut self, c: ConfirmMsg) -> Msg {
        match c {
            ConfirmMsg::Ask { request, reply } => {
                let request = *request;
                self.responders.insert(request.call.id, reply);
                Msg::Prompt {
                    call: request.call,
                    verdict: request.verdict,
                }
            }
            ConfirmMsg::Withdrawn(id) => {
                self.responders.remove(&id);
                Msg::PromptWithdrawn(id)
            }
        }
    }

    fn apply(&mut self, effects: Vec<Effect>, term: &mut Term) -> std::io::Result<()> {
        for e in effects {
            match e {
                Effect::Respond { id, decision } => {
                    if let Some(reply) = self.responders.remove(&id) {
                        let _ = reply.send(decision);
                    }
                }
                Effect::Grant(scope) => {
                    let g = self.supervisor.grant(scope);
                    self.app
                        .update(Msg::Notice(format!("granted for this session: {}", g.rule)));
                    self.refresh_grants();
                }
                Effect::SaveRules(rules) => {
                    for rule in rules {
                        let text = match self
                            .supervisor
                            .save_rule(crate::policy::Action::Allow, &rule)
                        {
                            Ok(r) => format!("saved allow {} to {}", r.text(), r.source),
                            Err(e) => format!("could not save {rule}: {e} (approved once)"),
                        };
                        self.app.update(Msg::Notice(text));
                    }
                }
                Effect::Revoke(id) => {
                    if self.supervisor.revoke_grant(id) {
                        self.app.update(Msg::Notice(format!("revoked grant {id}")));
                    }
                    self.refresh_grants();
                }
                Effect::Notify(message) => terminal::notify(term, &message)?,
                Effect::Quit => {}
            }
        }
        Ok(())
    }

    fn refresh_grants(&mut self) {
        let grants = self.supervisor.policy().grants().list();
        self.app.update(Msg::Grants(grants));
    }

    /// Deny every waiting call ("supervisor closed"), give the pipeline a
    /// moment to record them, then stop the supervisor.
    async fn close(&mut self, reason: &str) {
        while let Ok(c) = self.requests.try_recv() {
            let _ = self.confirm_msg(c);
        }
        let mut open: Vec<CallId> = self.responders.keys().copied().collect();
        for (_, reply) in self.responders.drain() {
            let _ = reply.send(Decision::deny(DecidedBy::Shutdown, None));
        }
        let deadline = tokio::time::Instant::now() + CLOSE_CALLS;
        while !open.is_empty() {
            match tokio::time::timeout_at(deadline, self.bus.recv()).await {
                Ok(Ok(Event::CallFinished { id, .. })) => open.retain(|&x| x != id),
                Ok(Ok(_)) | Ok(Err(RecvError::Lagged(_))) => {}
                Ok(Err(RecvError::Closed)) | Err(_) => break,
            }
        }
        self.supervisor.shutdown(reason);
    }
}

/// Terminal input the app cares about.
pub(super) fn term_msg(ev: TermEvent) -> Option<Msg> {
    match ev {
        TermEvent::Key(k) if k.kind != KeyEventKind::Release => Some(Msg::Key(k)),
        TermEvent::Mouse(m)
            if matches!(
                m.kind,
                MouseEventKind::ScrollUp | MouseEventKind::ScrollDown
            ) =>
        {
            Some(Msg::Mouse(m))
        }
        TermEvent::Paste(t) => Some(Msg::Paste(t)),
        TermEvent::Resize(w, h) => Some(Msg::Resize(w, h)),
        _ => None,
    }
}
