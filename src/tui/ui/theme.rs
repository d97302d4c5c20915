//! Colours, icons and the small formats every pane shares.

use chrono::{DateTime, Utc};
use ratatui::style::{Color, Modifier, Style};

use crate::tui::calls::CallStatus;
pub use crate::tui::format::{bytes, clock, count, countdown, duration_ms, timing};

/// Spinner frames, one per 100 ms.
const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// The spinner frame at `now` (from the app's clock, so tests are fixed).
pub fn spinner(now: DateTime<Utc>) -> &'static str {
    let tenths = now.timestamp_millis().rem_euclid(1000) / 100;
    SPINNER[usize::try_from(tenths).unwrap_or(0) % SPINNER.len()]
}

/// A status's icon and style.
pub fn status(s: CallStatus, now: DateTime<Utc>) -> (&'static str, Style) {
    let st = Style::default();
    match s {
        CallStatus::Received => ("·", st.fg(Color::DarkGray)),
        CallStatus::Waiting => ("?", st.fg(Color::Yellow).add_modifier(Modifier::BOLD)),
        CallStatus::Running => (spinner(now), st.fg(Color::Cyan)),
        CallStatus::Ok => ("✓", st.fg(Color::Green)),
        CallStatus::Error => ("✗", st.fg(Color::Red)),
        CallStatus::Denied => ("⊘", st.fg(Color::Magenta)),
        CallStatus::Blocked => ("■", st.fg(Color::Red)),
        CallStatus::Cancelled => ("–", st.fg(Color::DarkGray)),
        CallStatus::Refused => ("!", st.fg(Color::Yellow)),
        CallStatus::Timeout => ("◷", st.fg(Color::Yellow)),
        CallStatus::Unreported | CallStatus::Unfinished => ("…", st.fg(Color::Yellow)),
    }
}

/// A pane title: bold when the pane has focus.
pub fn title(focused: bool) -> Style {
    if focused {
        Style::default()
            .fg(Color::Black)
            .bg(Color::Cyan)
            .add_modifier(Modifier::BOLD)
    } else {
        Style::default()
            .fg(Color::Cyan)
            .add_modifier(Modifier::BOLD)
    }
}

/// The line under the pane title.
pub fn rule() -> Style {
    Style::default().fg(Color::DarkGray)
}

/// Dim text (labels, hints).
pub fn dim() -> Style {
    Style::default().fg(Color::DarkGray)
}

/// A key in a hint.
pub fn key() -> Style {
    Style::default()
        .fg(Color::Yellow)
        .add_modifier(Modifier::BOLD)
}

/// The selected row.
pub fn selected(focused: bool) -> Style {
    if focused {
        Style::default().add_modifier(Modifier::REVERSED)
    } else {
        Style::default().bg(Color::DarkGray)
    }
}

/// A section heading inside a pane.
pub fn heading() -> Style {
    Style::default().fg(Color::Cyan)
}

/// Added lines.
pub fn added() -> Style {
    Style::default().fg(Color::Green)
}

/// Removed lines.
pub fn removed() -> Style {
    Style::default().fg(Color::Red)
}

/// A warning that must be read before answering.
pub fn warning() -> Style {
    Style::default()
        .fg(Color::Black)
        .bg(Color::Red)
        .add_modifier(Modifier::BOLD)
}

/// Errors.
pub fn error() -> Style {
    Style::default().fg(Color::Red)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(duration_ms(850), "850 ms");
        assert_eq!(duration_ms(3200), "3.2 s");
        assert_eq!(duration_ms(125_000), "2 m 05 s");
        assert_eq!(countdown(65), "1:05");
        assert_eq!(
            timing(20_100, Some(18_000), Some(2_100)),
            "waited 18.0 s · ran 2.1 s"
        );
        assert_eq!(timing(5_200, Some(5_200), None), "waited 5.2 s");
        assert_eq!(timing(850, None, None), "in 850 ms");
        assert_eq!(count(1, "line"), "1 line");
        assert_eq!(count(5000, "line"), "5,000 lines");
        assert_eq!(count(123_456_789, "call"), "123,456,789 calls");
        assert_eq!(bytes(1), "1 byte");
        assert_eq!(bytes(120_000), "117.2 KB");
        let t = DateTime::UNIX_EPOCH + chrono::Duration::milliseconds(1_250);
        assert_eq!(spinner(t), SPINNER[2]);
    }
}
