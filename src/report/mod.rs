//! Text for `airlock sessions` and `airlock log`: trails read through
//! [`crate::audit::timeline`], written to any [`std::io::Write`] (the binary
//! passes stdout). Nothing here prints by itself.

pub mod cells;
pub mod cli;
pub mod filter;
mod follow;
mod json;
mod log;
mod sessions;
pub mod term;
mod verify;
pub mod visible;

pub use filter::{CallFilter, DecisionFilter, Tri, parse_since};
pub use follow::{Follower, follow};
pub use json::write_json;
pub use log::{Format, LogOptions, LogSummary, call_line, event_line, who, write_log};
pub use sessions::{SessionRow, session_rows, write_sessions, write_sessions_json};
pub use term::{Printer, Text};
pub use verify::verify_text;

use chrono::{DateTime, Local, Utc};

/// How text is dressed: ANSI colours or plain.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Style {
    /// Use ANSI colours.
    pub color: bool,
}

/// ANSI colours used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paint {
    /// Times, ids, secondary text.
    Dim,
    /// Tool names.
    Bold,
    /// Approved, ok.
    Green,
    /// Denied, blocked, refused, error.
    Red,
    /// Timeout, cancelled, waiting.
    Yellow,
    /// Agents.
    Cyan,
}

impl Style {
    /// Colours on or off.
    pub fn new(color: bool) -> Self {
        Self { color }
    }
}

/// `ts` in local time, `HH:MM:SS`.
pub fn local_time(ts: DateTime<Utc>) -> String {
    ts.with_timezone(&Local).format("%H:%M:%S").to_string()
}

/// `ts` in local time, `YYYY-MM-DD HH:MM:SS`.
pub fn local_datetime(ts: DateTime<Utc>) -> String {
    ts.with_timezone(&Local)
        .format("%Y-%m-%d %H:%M:%S")
        .to_string()
}

/// `850ms`, `2.4s`, `3m05s`, `2h07m`.
pub fn human_duration_ms(ms: u64) -> String {
    match ms {
        0..1_000 => format!("{ms}ms"),
        1_000..60_000 => format!("{:.1}s", ms as f64 / 1000.0),
        60_000..3_600_000 => format!("{}m{:02}s", ms / 60_000, (ms / 1000) % 60),
        _ => format!("{}h{:02}m", ms / 3_600_000, (ms / 60_000) % 60),
    }
}

/// `waited 18.0s · ran 2.1s`, `waited 5.2s` (never ran), or `2.3s` when
/// the parts are not known.
pub fn timing(total_ms: u64, parts: Option<(u64, Option<u64>)>) -> String {
    match parts {
        Some((w, Some(r))) => format!(
            "waited {} · ran {}",
            human_duration_ms(w),
            human_duration_ms(r)
        ),
        Some((w, None)) => format!("waited {}", human_duration_ms(w)),
        None => human_duration_ms(total_ms),
    }
}

/// `s` on one line (control and invisible characters as escapes) in at
/// most `max` cells, `…` when cut (never inside a grapheme cluster),
/// padded with spaces to `max` cells when `pad`.
pub fn fit(s: &str, max: usize, pad: bool) -> String {
    let s = visible::one_line(s);
    let mut out = String::new();
    let mut used = 0;
    if cells::width(&s) > max {
        for (g, w) in cells::graphemes(&s) {
            if used + w + 1 > max {
                break;
            }
            out.push_str(g);
            used += w;
        }
        if max > 0 {
            out.push('…');
            used += 1;
        }
    } else {
        used = cells::width(&s);
        out = s;
    }
    if pad {
        out.extend(std::iter::repeat_n(' ', max.saturating_sub(used)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_cuts_pads_and_flattens() {
        assert_eq!(fit("abc", 5, true), "abc  ");
        assert_eq!(fit("abcdef", 4, false), "abc…");
        assert_eq!(fit("a\nb", 5, false), "a\\nb");
        assert_eq!(fit("x\u{202E}y", 20, false), "x<U+202E>y");
        assert_eq!(fit("ééééé", 5, false), "ééééé");
        assert_eq!(fit("e\u{301}e\u{301}e\u{301}", 2, false), "e\u{301}…");
        assert_eq!(fit("日本語", 5, true), "日本…");
        assert_eq!(fit("日本", 5, true), "日本 ");
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(human_duration_ms(35), "35ms");
        assert_eq!(human_duration_ms(2_400), "2.4s");
        assert_eq!(human_duration_ms(185_000), "3m05s");
        assert_eq!(human_duration_ms(7_620_000), "2h07m");
    }
}
