//! The real terminal: raw mode and the alternate screen on the way in,
//! everything undone on the way out — on return, on a panic in the TUI
//! thread, and (through the supervisor's shutdown) on SIGTERM.

use std::io::{self, Stdout, Write};
use std::sync::Once;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::ThreadId;

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{
    Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

/// The terminal the TUI draws on.
pub type Term = Terminal<CrosstermBackend<Stdout>>;

/// True while the TUI owns the terminal.
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// The thread that draws.
static TUI_THREAD: OnceLock<ThreadId> = OnceLock::new();
static HOOK: Once = Once::new();

/// Restores the terminal when dropped.
#[derive(Debug)]
pub struct Guard(());

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// Take over the terminal.
pub fn enter() -> io::Result<(Term, Guard)> {
    let _ = TUI_THREAD.set(std::thread::current().id());
    install_panic_hook();
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let guard = Guard(());
    let mut out = io::stdout();
    execute!(
        out,
        EnterAlternateScreen,
        Clear(ClearType::All),
        EnableMouseCapture,
        EnableBracketedPaste
    )?;
    // Not `Terminal::clear`: it asks the terminal where the cursor is, and
    // a terminal that does not answer would stall the start for seconds.
    let term = Terminal::new(CrosstermBackend::new(out))?;
    Ok((term, guard))
}

/// Give the terminal back (idempotent).
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let _ = execute!(
        io::stdout(),
        DisableBracketedPaste,
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
}

/// A panic in the drawing thread restores the terminal before the message
/// is printed. Panics in other threads (a tool, a connection) are caught by
/// the runtime; while the TUI is up they go to the log, not the screen.
fn install_panic_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let ours = TUI_THREAD.get() == Some(&std::thread::current().id());
            if ours || !ACTIVE.load(Ordering::SeqCst) {
                restore();
                previous(info);
            } else {
                tracing::error!("panic in a background task: {info}");
            }
        }));
    });
}

/// Ring the bell and send a desktop notification (OSC 9), through the
/// backend so it is ordered with drawing.
pub fn notify(term: &mut Term, message: &str) -> io::Result<()> {
    let clean: String = message
        .chars()
        .filter(|c| !c.is_control())
        .take(200)
        .collect();
    let w = term.backend_mut();
    write!(w, "\x07\x1b]9;airlock: {clean}\x07")?;
    w.flush()
}
