//! `airlock review [SESSION | --last]`: find the trail, read it, and show
//! it until the human quits. Keys and the mouse only move, filter and
//! jump; nothing is written.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::Utc;
use clap::Args;
use futures::StreamExt;
use ratatui::layout::Rect;
use tokio::signal::unix::{SignalKind, signal};

use super::Review;
use crate::audit::reader::ResolveError;
use crate::audit::resolve_trail;
use crate::tui::app::App;
use crate::tui::event_loop::term_msg;
use crate::tui::terminal::{self, Term};
use crate::tui::{Msg, ui};

/// `airlock review`.
#[derive(Debug, Clone, Args)]
pub struct ReviewArgs {
    /// The session: its id, any unique part of it (`70c2`), or a path to a trail
    /// (.jsonl). Default: the newest.
    #[arg(value_name = "SESSION", conflicts_with = "last")]
    pub session: Option<String>,
    /// The newest session.
    #[arg(long)]
    pub last: bool,
}

/// Why a review could not be shown.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// The session argument names no single trail.
    #[error(transparent)]
    Resolve(#[from] ResolveError),
    /// The trail could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The trail.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The terminal failed.
    #[error("terminal: {0}")]
    Terminal(#[from] std::io::Error),
}

/// Review the trail `args` names among those in `data_dir`.
pub async fn run_command(args: &ReviewArgs, data_dir: &Path) -> Result<(), ReviewError> {
    let dir = crate::dirs::audit_dir(data_dir);
    let trail = resolve_trail(&dir, args.session.as_deref())?;
    run(&trail.path).await
}

/// Review the trail at `path` until the human quits (or SIGTERM / SIGHUP).
/// The terminal is given back in every case.
pub async fn run(path: &Path) -> Result<(), ReviewError> {
    let review = Review::load(path).map_err(|source| ReviewError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let tz = *chrono::Local::now().offset();
    let (mut term, guard) = terminal::enter()?;
    let size = term.size()?;
    let area = Rect::new(0, 0, size.width, size.height);
    let mut app = review.into_app(Utc::now(), tz, area);
    let result = show(&mut term, &mut app).await;
    drop(term);
    drop(guard);
    Ok(result?)
}

async fn show(term: &mut Term, app: &mut App) -> std::io::Result<()> {
    let mut input = crossterm::event::EventStream::new();
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sighup = signal(SignalKind::hangup())?;
    let mut dirty = true;
    loop {
        if dirty {
            term.draw(|f| ui::draw(f, app))?;
            dirty = false;
        }
        let tick = app.tick_interval();
        let msg = tokio::select! {
            ev = input.next() => match ev {
                Some(Ok(ev)) => match term_msg(ev) {
                    Some(m) => m,
                    None => continue,
                },
                Some(Err(e)) => return Err(e),
                None => return Ok(()),
            },
            _ = sigterm.recv() => return Ok(()),
            _ = sighup.recv() => return Ok(()),
            _ = tokio::time::sleep(tick.unwrap_or(Duration::MAX)), if tick.is_some() => Msg::Tick,
        };
        app.now = Utc::now();
        app.update(msg);
        dirty = true;
        if app.quit {
            return Ok(());
        }
    }
}
