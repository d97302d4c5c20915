//! The one event loop, live or in a review: terminal input — and, live,
//! the core's events, the trail's records and the confirmer's requests —
//! go into the app as [`Msg`]s; its [`Effect`]s are carried out here. The
//! screen is redrawn after something happened, and on a timer only while
//! something moves (a spinner, a countdown).
//!
//! The TUI does not serve agents: the session's socket server does (see
//! `main`). [`Attached`] subscribes to the session's events and trail
//! before that server starts, so the screen misses nothing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use chrono::{FixedOffset, Utc};
use crossterm::event::{Event as TermEvent, EventStream, KeyEventKind, MouseEventKind};
use futures::StreamExt;
use ratatui::layout::Rect;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::app::{App, Header};
use super::confirmer::ConfirmMsg;
use super::msg::{Effect, Msg};
use super::records::Feed;
use super::terminal::{self, Term};
use crate::call::{CallId, Decision, Event, RefusedBy};
use crate::session::Session;
use crate::supervisor::Supervisor;

/// Most queued events taken in before the next frame.
const BATCH: usize = 1024;

/// How long the denied calls get to be recorded when quitting.
const CLOSE_CALLS: Duration = Duration::from_secs(2);

/// How the live TUI is started.
#[derive(Debug, Default)]
pub struct Options {
    /// A label in the status bar (`demo`).
    pub label: Option<String>,
    /// How long known agents wait for a call, as their own config says
    /// (display name → seconds), overriding the clients' defaults.
    pub agent_timeouts: Vec<(String, u64)>,
    /// The Streamable HTTP endpoint for the status bar: its URL, and
    /// whether only this machine can reach it (`None`: HTTP is off).
    pub http: Option<(String, bool)>,
}

/// What the session left behind.
#[derive(Debug, Clone)]
pub struct Ended {
    /// The audit trail.
    pub audit: PathBuf,
    /// Why it ended.
    pub reason: String,
}

/// A live TUI subscribed to a session's events and audit trail, not yet on
/// screen.
pub struct Attached {
    supervisor: Arc<Supervisor>,
    bus: broadcast::Receiver<Event>,
    feed: Feed,
    header: Header,
    approval_timeout: Option<Duration>,
    agent_timeouts: Vec<(String, u64)>,
    http: Option<(String, bool)>,
    tz: FixedOffset,
}

impl Attached {
    /// Subscribe to `session`'s events and trail. Call it before agents
    /// can connect (before the socket server starts), so nothing is
    /// missed. `socket` is where agents connect, for the screen.
    pub fn new(session: &Session, socket: &Path, opts: Options) -> Self {
        let supervisor = session.supervisor.clone();
        let tz = *chrono::Local::now().offset();
        let bus = supervisor.events().subscribe();
        let feed = Feed::attach(supervisor.audit(), tz);
        let status = session.sandbox_status();
        let header = Header {
            workspace: session.workspace.clone(),
            socket: socket.to_path_buf(),
            audit: session.audit_path.clone(),
            label: opts.label,
            sandbox: Some((status.summary.clone(), status.state)),
            config: session
                .config
                .project
                .as_ref()
                .and_then(crate::config::ProjectFile::notice),
        };
        let secs = session.config.config.approval_timeout_secs;
        Self {
            supervisor,
            bus,
            feed,
            header,
            approval_timeout: (secs > 0).then(|| Duration::from_secs(secs)),
            agent_timeouts: opts.agent_timeouts,
            http: opts.http,
            tz,
        }
    }

    /// Run the TUI until the human quits or the supervisor stops (a
    /// signal, the socket server's end). Waiting calls are denied
    /// ("supervisor closed") on the way out, and the supervisor is shut
    /// down whatever happened; the terminal is given back in every case.
    pub async fn run(
        self,
        requests: mpsc::UnboundedReceiver<ConfirmMsg>,
    ) -> std::io::Result<Ended> {
        let mut app = App::new(self.header, Utc::now(), self.tz, Rect::default());
        app.http = self.http;
        if let Some(live) = app.live_mut() {
            live.approval_timeout = self.approval_timeout;
            live.agent_timeouts = self.agent_timeouts;
        }
        let audit = app.header.audit.clone();
        let stop = self.supervisor.shutdown_token();
        let mut lp = Loop {
            app,
            link: Some(Link {
                supervisor: self.supervisor,
                bus: self.bus,
                requests,
                responders: HashMap::new(),
                feed: self.feed,
            }),
        };
        let entered = terminal::enter();
        let (result, screen) = match entered {
            Ok((mut term, guard)) => (lp.run(&mut term, &stop).await, Some((term, guard))),
            Err(e) => (Err(e), None),
        };
        let reason = match &result {
            Ok(r) => r.clone(),
            Err(e) => format!("terminal error: {e}"),
        };
        if let Some(link) = lp.link.as_mut() {
            link.close(&reason).await;
        }
        drop(screen);
        result?;
        Ok(Ended { audit, reason })
    }
}

/// Show `app` (a review: nothing live) until the human quits, the terminal
/// closes or SIGTERM / SIGHUP. The terminal is given back in every case.
pub(super) async fn show(mut app: App) -> std::io::Result<()> {
    let stop = CancellationToken::new();
    let watcher = {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate())?;
        let mut hup = signal(SignalKind::hangup())?;
        let stop = stop.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = hup.recv() => {}
            }
            stop.cancel();
        })
    };
    let (mut term, guard) = terminal::enter()?;
    let size = term.size()?;
    app.size = Rect::new(0, 0, size.width, size.height);
    let mut lp = Loop { app, link: None };
    let result = lp.run(&mut term, &stop).await;
    watcher.abort();
    drop(term);
    drop(guard);
    result.map(|_| ())
}

/// What a live app is connected to.
struct Link {
    supervisor: Arc<Supervisor>,
    bus: broadcast::Receiver<Event>,
    requests: mpsc::UnboundedReceiver<ConfirmMsg>,
    responders: HashMap<CallId, oneshot::Sender<Decision>>,
    feed: Feed,
}

struct Loop {
    app: App,
    /// `None` in a review.
    link: Option<Link>,
}

impl Loop {
    /// Until the human quits (Ok("the user quit")), the terminal closes or
    /// `stop` is cancelled.
    async fn run(&mut self, term: &mut Term, stop: &CancellationToken) -> std::io::Result<String> {
        let size = term.size()?;
        self.app.size = Rect::new(0, 0, size.width, size.height);
        let mut input = EventStream::new();
        if let Some(link) = self.link.as_mut() {
            let lines = link.feed.catch_up();
            self.app.update(Msg::Audit(lines));
        }
        let mut dirty = true;
        loop {
            if dirty {
                term.draw(|f| super::app::draw(f, &self.app))?;
                dirty = false;
            }
            let tick = self.app.tick_interval();
            let msg = tokio::select! {
                () = stop.cancelled() => return Ok("the supervisor stopped".into()),
                ev = input.next() => match ev {
                    Some(Ok(ev)) => match term_msg(ev) {
                        Some(m) => m,
                        None => continue,
                    },
                    Some(Err(e)) => return Err(e),
                    None => return Ok("the terminal closed".into()),
                },
                msg = Link::next(&mut self.link) => match msg {
                    Some(m) => m,
                    None => return Ok("the supervisor stopped".into()),
                },
                () = tokio::time::sleep(tick.unwrap_or(Duration::MAX)), if tick.is_some() => Msg::Tick,
            };
            self.app.now = Utc::now();
            let mut effects = self.app.update(msg);
            if let Some(link) = self.link.as_mut() {
                link.drain(&mut self.app, &mut effects);
            }
            self.apply(effects, term)?;
            dirty = true;
            if self.app.quit {
                return Ok("the user quit".into());
            }
        }
    }

    fn apply(&mut self, effects: Vec<Effect>, term: &mut Term) -> std::io::Result<()> {
        for e in effects {
            match e {
                Effect::Notify(message) => terminal::notify(term, &message)?,
                Effect::Quit => {}
                other => {
                    if let Some(link) = self.link.as_mut() {
                        link.apply(other, &mut self.app);
                    }
                }
            }
        }
        Ok(())
    }
}

impl Link {
    /// The next message from the session; never, in a review. `None`
    /// once the supervisor's event bus is closed.
    async fn next(link: &mut Option<Link>) -> Option<Msg> {
        let Some(link) = link.as_mut() else {
            return std::future::pending().await;
        };
        tokio::select! {
            ev = link.bus.recv() => match ev {
                Ok(e) => Some(Msg::Core(e)),
                Err(RecvError::Lagged(n)) => Some(Msg::Lagged(n)),
                Err(RecvError::Closed) => None,
            },
            Some(c) = link.requests.recv() => Some(link.confirm_msg(c)),
            lines = link.feed.next() => Some(Msg::Audit(lines)),
        }
    }

    /// Take in what else is queued, so a burst costs one frame.
    fn drain(&mut self, app: &mut App, effects: &mut Vec<Effect>) {
        let lines = self.feed.ready();
        if !lines.is_empty() {
            app.update(Msg::Audit(lines));
        }
        for _ in 0..BATCH {
            let msg = match self.bus.try_recv() {
                Ok(e) => Msg::Core(e),
                Err(TryRecvError::Lagged(n)) => Msg::Lagged(n),
                Err(_) => match self.requests.try_recv() {
                    Ok(c) => self.confirm_msg(c),
                    Err(_) => break,
                },
            };
            effects.extend(app.update(msg));
        }
        let lines = self.feed.ready();
        if !lines.is_empty() {
            app.update(Msg::Audit(lines));
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

    /// Carry out an effect on the session; what it did goes back to the
    /// app as a notice and the grants as they are now.
    fn apply(&mut self, effect: Effect, app: &mut App) {
        match effect {
            Effect::Respond { id, decision } => {
                if let Some(reply) = self.responders.remove(&id) {
                    let _ = reply.send(decision);
                }
            }
            Effect::Grant { scope, tools } => {
                let g = self.supervisor.grant(scope, tools);
                app.update(Msg::Notice(format!("granted for this session: {}", g.rule)));
                self.refresh_grants(app);
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
                    app.update(Msg::Notice(text));
                }
            }
            Effect::Revoke(id) => {
                if self.supervisor.revoke_grant(id) {
                    app.update(Msg::Notice(format!("revoked grant {id}")));
                }
                self.refresh_grants(app);
            }
            Effect::Notify(_) | Effect::Quit => {}
        }
    }

    fn refresh_grants(&mut self, app: &mut App) {
        let grants = self.supervisor.policy().grants().list();
        app.update(Msg::Grants(grants));
    }

    /// Deny every waiting call ("supervisor closed"), give the pipeline a
    /// moment to record them, then stop the supervisor.
    async fn close(&mut self, reason: &str) {
        while let Ok(c) = self.requests.try_recv() {
            let _ = self.confirm_msg(c);
        }
        let mut open: Vec<CallId> = self.responders.keys().copied().collect();
        for (_, reply) in self.responders.drain() {
            let _ = reply.send(Decision::deny(RefusedBy::Shutdown, None));
        }
        let deadline = tokio::time::Instant::now() + CLOSE_CALLS;
        while !open.is_empty() {
            match tokio::time::timeout_at(deadline, self.bus.recv()).await {
                Ok(Ok(Event::CallFinished { id, .. })) => open.retain(|&x| x != id),
                Ok(Ok(_) | Err(RecvError::Lagged(_))) => {}
                Ok(Err(RecvError::Closed)) | Err(_) => break,
            }
        }
        self.supervisor.shutdown(reason);
    }
}

/// Terminal input the app cares about.
fn term_msg(ev: TermEvent) -> Option<Msg> {
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
