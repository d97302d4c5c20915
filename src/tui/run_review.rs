//! `airlock review [SESSION | --last]`: find the trail, read it, and show
//! it in the one event loop until the human quits. Keys and the mouse only
//! move, filter and jump; nothing is written.

use std::path::Path;

use chrono::Utc;
use ratatui::layout::Rect;

use super::app::App;
use super::review::{Review, ReviewArgs, ReviewError};
use crate::audit::resolve_trail;

/// Review the trail `args` names among those in `data_dir`.
pub async fn run_review_command(args: &ReviewArgs, data_dir: &Path) -> Result<(), ReviewError> {
    let dir = crate::dirs::audit_dir(data_dir);
    let trail = resolve_trail(&dir, args.session.as_deref())?;
    run_review(&trail.path).await
}

/// Review the trail at `path` until the human quits (or SIGTERM / SIGHUP).
/// The terminal is given back in every case.
pub async fn run_review(path: &Path) -> Result<(), ReviewError> {
    let review = Review::load(path).map_err(|source| ReviewError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let tz = *chrono::Local::now().offset();
    let app = App::reviewing(review, Utc::now(), tz, Rect::default());
    Ok(super::event_loop::show(app).await?)
}
