//! `airlock log --verify`: what the check found, in words.

use std::path::Path;

use crate::audit::{AnchorCheck, TrailEnd, VerifyReport};

/// The text for a verification of the trail at `path`, and whether it
/// passed. On failure the text names the first line that does not verify
/// and what is wrong with it, or how the trail falls short of its anchor or
/// its end; on success, how the session ended and its head.
pub fn verify_text(path: &Path, report: &VerifyReport) -> (String, bool) {
    if let Some(e) = &report.error {
        let cause = if report.torn_tail {
            "the last line is incomplete (a crash while it was written, or it was cut)"
        } else {
            "the trail was edited, or lines were deleted, inserted or reordered"
        };
        let text = format!(
            "{}: line {}: {}\n{} records before it verify; {cause}",
            path.display(),
            e.line,
            e.message,
            report.verified
        );
        return (text, false);
    }
    let problems: Vec<String> = anchor_problem(report)
        .into_iter()
        .chain(end_problem(report))
        .map(|p| format!("{}: {p}", path.display()))
        .collect();
    if !problems.is_empty() {
        let text = format!(
            "{}\n{} records verify as a chain; the trail is not whole",
            problems.join("\n"),
            report.verified
        );
        return (text, false);
    }
    let text = format!(
        "verified {} records in {}\n{}; head {}",
        report.verified,
        path.display(),
        how_it_stands(report),
        report.head
    );
    (text, true)
}

/// What the anchor shows wrong, if anything.
fn anchor_problem(r: &VerifyReport) -> Option<String> {
    let next = r.verified + 1;
    Some(match &r.anchor {
        AnchorCheck::NotChecked | AnchorCheck::NotKept | AnchorCheck::Matches { .. } => {
            return None;
        }
        AnchorCheck::Missing { path } => format!(
            "its anchor {} is missing (deleted, or the trail was copied without it): a trail \
             cut short or rewritten cannot be ruled out",
            path.display()
        ),
        AnchorCheck::Unreadable { path, message } => {
            format!("its anchor {} cannot be read: {message}", path.display())
        }
        AnchorCheck::Short { path, anchored } => format!(
            "line {next}: the trail ends after {} records, but its anchor {} counts {anchored}: \
             records were cut from the end, or removed and the chain recomputed",
            r.verified,
            path.display()
        ),
        AnchorCheck::Differs { path, anchored } => format!(
            "line {anchored}: this record's hash is not the one its anchor {} keeps for it: the \
             trail was rewritten up to here with a recomputed chain (records edited, removed or \
             inserted)",
            path.display()
        ),
        AnchorCheck::EndAfter {
            path,
            anchored,
            line,
        } => format!(
            "line {line}: this session_end comes after the last record its anchor {} counts \
             ({anchored}): the end of the trail was rewritten",
            path.display()
        ),
    })
}

/// What the trail's end shows wrong, if anything.
fn end_problem(r: &VerifyReport) -> Option<String> {
    // A trail short of its anchor was cut: that says more.
    let cut = matches!(
        r.anchor,
        AnchorCheck::Short { .. } | AnchorCheck::Differs { .. }
    );
    if r.end != TrailEnd::Unfinished || cut {
        return None;
    }
    let vouched = match &r.anchor {
        AnchorCheck::Matches { records } if *records > 0 => format!(
            " (its anchor vouches for the first {records} records; any after them cannot be \
             checked)"
        ),
        AnchorCheck::NotKept => " (it has no anchor: an older airlock's trail)".into(),
        _ => String::new(),
    };
    Some(format!(
        "line {}: the trail ends after {} records without session_end, and no supervisor is \
         writing it: the supervisor was killed or crashed, or the end of the trail was cut \
         off{vouched}",
        r.verified + 1,
        r.verified
    ))
}

/// How a trail that verified stands: ended or still written, anchored or
/// not.
fn how_it_stands(r: &VerifyReport) -> String {
    let end = match r.end {
        TrailEnd::Ended { line } => format!("the session ended (session_end on line {line})"),
        TrailEnd::Running => "the session is still running (no session_end yet)".into(),
        TrailEnd::Unfinished | TrailEnd::NotChecked => "its end was not checked".into(),
    };
    let anchor = match &r.anchor {
        AnchorCheck::Matches { records } => {
            format!("the {records} records its anchor counts are all here")
        }
        AnchorCheck::NotKept => "it has no anchor (an older airlock's trail): records cut from \
                                 the end with session_end, or a rewrite with a recomputed \
                                 chain, would not show"
            .into(),
        _ => "its anchor was not checked".into(),
    };
    format!("{end}; {anchor}")
}
