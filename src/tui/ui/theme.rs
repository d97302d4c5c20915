//! Colours, icons and the small formats every pane shares.

use chrono::{DateTime, FixedOffset, Utc};
use ratatui::style::{Color, Modifier, Style};

use crate::tui::calls::CallStatus;

/// Spinner frames, one per 100 ms.
const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// The spinner frame at `now` (from the app's clock, so tests are fixed).
pub fn spinner(now: DateTime<Utc>) -> &'static str {
    let tenths = now.timestamp_millis().rem_euclid(1000) / 100;
    SPINNER[tenths as usize % SPINNER.len()]
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
        CallStatus::Unfinished => ("…", st.fg(Color::Yellow)),
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

/// `1 line`, `2 lines`, `1,234 lines`.
pub fn count(n: usize, one: &str) -> String {
    let digits = n.to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    if n == 1 {
        format!("{grouped} {one}")
    } else {
        format!("{grouped} {one}s")
    }
}

/// `503 bytes`, `117.2 KB`, `3.4 MB`.
pub fn bytes(n: u64) -> String {
    match n {
        0..1024 => count(n as usize, "byte"),
        1024..1_048_576 => format!("{:.1} KB", n as f64 / 1024.0),
        _ => format!("{:.1} MB", n as f64 / 1_048_576.0),
    }
}

/// Errors.
pub fn error() -> Style {
    Style::default().fg(Color::Red)
}

/// `HH:MM:SS` at `tz`.
pub fn clock(t: DateTime<Utc>, tz: &FixedOffset) -> String {
    t.with_timezone(tz).format("%H:%M:%S").to_string()
}

/// `850 ms`, `3.2 s`, `2 m 05 s`.
pub fn duration_ms(ms: u64) -> String {
    match ms {
        0..1000 => format!("{ms} ms"),
        1000..60_000 => format!("{:.1} s", ms as f64 / 1000.0),
        _ => format!("{} m {:02} s", ms / 60_000, (ms / 1000) % 60),
    }
}

/// `waited 18.0 s · ran 2.1 s`, `waited 5.2 s` (never ran), or
/// `in 2.3 s` when the parts are not known.
pub fn timing(total_ms: u64, wait_ms: Option<u64>, run_ms: Option<u64>) -> String {
    match (wait_ms, run_ms) {
        (Some(w), Some(r)) => format!("waited {} · ran {}", duration_ms(w), duration_ms(r)),
        (Some(w), None) => format!("waited {}", duration_ms(w)),
        (None, _) => format!("in {}", duration_ms(total_ms)),
    }
}

/// `m:ss`.
pub fn countdown(secs: u64) -> String {
    format!("{}:{:02}", secs / 60, secs % 60)
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
