//! Which calls `airlock log` shows: `--tool`, `--decision`, `--agent`,
//! `--since`, `--grep`, all of them required to match.

use chrono::{DateTime, Utc};

use crate::audit::timeline::{CallEntry, DecisionClass};

/// A `--decision` value. Some cover several [`DecisionClass`]es.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecisionFilter {
    /// `approved`: auto or user.
    Approved,
    /// One class: `auto`, `user` (also `you`), `denied`, `refused`,
    /// `timeout`, `cancelled`, `pending`.
    Class(DecisionClass),
    /// `blocked`: blocked by a rule or guardrail, or refused by the scope.
    Blocked,
    /// `error`: approved, ran, and failed.
    Error,
}

/// The words `--decision` takes, for help and errors.
pub const DECISION_WORDS: &str =
    "approved, auto, user (or you), denied, blocked, refused, timeout, cancelled, pending, error";

impl DecisionFilter {
    /// Every filter, in the order [`DECISION_WORDS`] lists them.
    pub const ALL: [Self; 10] = [
        Self::Approved,
        Self::Class(DecisionClass::Auto),
        Self::Class(DecisionClass::User),
        Self::Class(DecisionClass::Denied),
        Self::Blocked,
        Self::Class(DecisionClass::Refused),
        Self::Class(DecisionClass::Timeout),
        Self::Class(DecisionClass::Cancelled),
        Self::Class(DecisionClass::Pending),
        Self::Error,
    ];

    /// Its word: a class's own ([`DecisionClass::as_str`]), or `approved`,
    /// `blocked`, `error`.
    pub fn word(self) -> &'static str {
        match self {
            Self::Approved => "approved",
            Self::Class(c) => c.as_str(),
            Self::Blocked => "blocked",
            Self::Error => "error",
        }
    }
}

impl std::str::FromStr for DecisionFilter {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let word = s.trim().to_ascii_lowercase();
        let alias = match word.as_str() {
            "you" => Some(Self::Class(DecisionClass::User)),
            "canceled" => Some(Self::Class(DecisionClass::Cancelled)),
            "failed" => Some(Self::Error),
            _ => None,
        };
        alias
            .or_else(|| Self::ALL.into_iter().find(|f| f.word() == word))
            .ok_or_else(|| format!("unknown decision {word:?}; use one of: {DECISION_WORDS}"))
    }
}

/// Whether a call matches, as far as its records so far tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tri {
    /// It matches.
    Yes,
    /// It does not, whatever comes later.
    No,
    /// It depends on a record not written yet (the decision or the result).
    Unknown,
}

impl Tri {
    fn and(self, other: Tri) -> Tri {
        match (self, other) {
            (Tri::No, _) | (_, Tri::No) => Tri::No,
            (Tri::Yes, Tri::Yes) => Tri::Yes,
            _ => Tri::Unknown,
        }
    }

    fn from(b: bool) -> Tri {
        if b { Tri::Yes } else { Tri::No }
    }
}

/// The call filters. Empty lists match everything.
#[derive(Debug, Clone, Default)]
pub struct CallFilter {
    /// Tool names (exact).
    pub tools: Vec<String>,
    /// Any of these decisions.
    pub decisions: Vec<DecisionFilter>,
    /// Agent names (case-insensitive) or ids (`3` or `#3`).
    pub agents: Vec<String>,
    /// Calls requested at or after this time (also applies to session
    /// records, by their time).
    pub since: Option<DateTime<Utc>>,
    /// A substring (case-insensitive) of the summary, the arguments, the
    /// decision's reason, the output excerpt or the diff.
    pub grep: Option<String>,
}

impl CallFilter {
    /// True when a filter other than `--since` is set: records that are not
    /// about a call are then left out.
    pub fn selects_calls(&self) -> bool {
        !(self.tools.is_empty()
            && self.decisions.is_empty()
            && self.agents.is_empty()
            && self.grep.is_none())
    }

    /// True when nothing is filtered.
    pub fn is_empty(&self) -> bool {
        !self.selects_calls() && self.since.is_none()
    }

    /// Does a session-level record written at `ts` pass?
    pub fn passes_event(&self, ts: DateTime<Utc>) -> bool {
        !self.selects_calls() && self.since.is_none_or(|s| ts >= s)
    }

    /// Does the call match? `complete` says no more records will come for
    /// it (the whole trail has been read): undecided criteria then fail.
    pub fn check(&self, c: &CallEntry, complete: bool) -> Tri {
        let mut t = Tri::from(self.since.is_none_or(|s| c.call.received_at >= s));
        if !self.tools.is_empty() {
            t = t.and(Tri::from(self.tools.contains(&c.call.tool)));
        }
        if !self.agents.is_empty() {
            let a = &c.call.agent;
            let hit = self.agents.iter().any(|x| {
                let id = x.strip_prefix('#').unwrap_or(x);
                x.eq_ignore_ascii_case(&a.name) || id.parse::<u64>().is_ok_and(|n| n == a.id)
            });
            t = t.and(Tri::from(hit));
        }
        if !self.decisions.is_empty() {
            t = t.and(self.check_decision(c, complete));
        }
        if let Some(g) = &self.grep {
            t = t.and(check_grep(c, g, complete));
        }
        t
    }

    fn check_decision(&self, c: &CallEntry, complete: bool) -> Tri {
        let class = c.class();
        let mut out = Tri::No;
        for d in &self.decisions {
            let r = match d {
                DecisionFilter::Class(DecisionClass::Pending) => {
                    Tri::from(class == DecisionClass::Pending)
                }
                _ if class == DecisionClass::Pending && !complete => Tri::Unknown,
                DecisionFilter::Approved => Tri::from(class.approved()),
                DecisionFilter::Class(k) => Tri::from(class == *k),
                DecisionFilter::Blocked => Tri::from(matches!(
                    class,
                    DecisionClass::Blocked | DecisionClass::Refused
                )),
                DecisionFilter::Error if !class.approved() => Tri::No,
                DecisionFilter::Error if c.finished.is_none() && !complete => Tri::Unknown,
                DecisionFilter::Error => Tri::from(c.failed()),
            };
            match r {
                Tri::Yes => return Tri::Yes,
                Tri::Unknown => out = Tri::Unknown,
                Tri::No => {}
            }
        }
        out
    }
}

fn contains(hay: &str, needle_lower: &str) -> bool {
    hay.to_lowercase().contains(needle_lower)
}

fn check_grep(c: &CallEntry, g: &str, complete: bool) -> Tri {
    let g = g.to_lowercase();
    if contains(&c.call.summary, &g) || contains(&c.call.args.to_string(), &g) {
        return Tri::Yes;
    }
    if let Some(reason) = c.decided.as_ref().and_then(|d| d.decision.reason())
        && contains(reason, &g)
    {
        return Tri::Yes;
    }
    match &c.finished {
        Some(f) => {
            let diff = f
                .change
                .as_ref()
                .and_then(|ch| ch.diff.as_deref())
                .unwrap_or("");
            Tri::from(contains(&f.excerpt, &g) || contains(diff, &g))
        }
        None if complete => Tri::No,
        None => Tri::Unknown,
    }
}

/// Parse `--since`: an RFC 3339 time (`2026-11-30T09:00:00Z`) or a time
/// span back from `now`: a number and a unit, `s`, `m`, `h`, `d` or `w`,
/// possibly several (`1h30m`).
pub fn parse_since(text: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    let t = text.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(t) {
        return Ok(at.with_timezone(&Utc));
    }
    let bad = || {
        format!(
            "--since {text:?}: give an RFC 3339 time (2026-11-30T09:00:00Z) or a span like 10m, 2h, 1d, 1h30m"
        )
    };
    let mut total = 0i64;
    let mut digits = String::new();
    for ch in t.chars() {
        if ch.is_ascii_digit() {
            digits.push(ch);
            continue;
        }
        let unit = match ch {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'w' => 7 * 86_400,
            _ => return Err(bad()),
        };
        let n: i64 = digits.parse().map_err(|_| bad())?;
        total = n
            .checked_mul(unit)
            .and_then(|s| total.checked_add(s))
            .ok_or_else(bad)?;
        digits.clear();
    }
    if !digits.is_empty() || t.is_empty() {
        return Err(bad());
    }
    let span = chrono::Duration::try_seconds(total).ok_or_else(bad)?;
    now.checked_sub_signed(span).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decision_words_are_the_filters_own() {
        let listed: Vec<&str> = DECISION_WORDS
            .split(", ")
            .map(|w| w.trim_end_matches(" (or you)"))
            .collect();
        let words: Vec<&str> = DecisionFilter::ALL.iter().map(|f| f.word()).collect();
        assert_eq!(listed, words);
        for f in DecisionFilter::ALL {
            assert_eq!(f.word().parse::<DecisionFilter>(), Ok(f));
        }
        assert_eq!(
            "you".parse::<DecisionFilter>(),
            Ok(DecisionFilter::Class(DecisionClass::User))
        );
    }

    #[test]
    fn since_takes_times_and_spans() {
        let now = DateTime::parse_from_rfc3339("2026-01-02T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let at = |s: &str| parse_since(s, now).unwrap().to_rfc3339();
        assert_eq!(at("10m"), "2026-01-02T11:50:00+00:00");
        assert_eq!(at("1h30m"), "2026-01-02T10:30:00+00:00");
        assert_eq!(at("2d"), "2025-12-31T12:00:00+00:00");
        assert_eq!(at("2026-01-01T08:00:00+01:00"), "2026-01-01T07:00:00+00:00");
        for bad in ["", "10", "m", "10x", "yesterday", "99999999999999999999h"] {
            assert!(parse_since(bad, now).is_err(), "{bad}");
        }
    }

    #[test]
    fn decision_words_parse() {
        assert_eq!(
            "you".parse::<DecisionFilter>().unwrap(),
            DecisionFilter::Class(DecisionClass::User)
        );
        assert_eq!(
            "Blocked".parse::<DecisionFilter>().unwrap(),
            DecisionFilter::Blocked
        );
        assert!(
            "maybe"
                .parse::<DecisionFilter>()
                .unwrap_err()
                .contains("approved, auto")
        );
    }
}
