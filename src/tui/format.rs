//! Numbers, sizes, times and durations in words (no styles): shared by the
//! panes and the audit records' descriptions.

use chrono::{DateTime, FixedOffset, Utc};

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
        0..1024 => count(usize::try_from(n).unwrap_or(usize::MAX), "byte"),
        1024..1_048_576 => format!("{:.1} KB", n as f64 / 1024.0),
        _ => format!("{:.1} MB", n as f64 / 1_048_576.0),
    }
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
