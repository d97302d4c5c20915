//! `airlock log --verify`: what the chain check found, in words.

use std::path::Path;

use crate::audit::VerifyReport;

/// The text for a verification of the trail at `path`, and whether it
/// passed. On failure the text names the first line that does not verify
/// and what is wrong with it.
pub fn verify_text(path: &Path, report: &VerifyReport) -> (String, bool) {
    match &report.error {
        None if !report.torn_tail => (
            format!("verified {} records in {}", report.verified, path.display()),
            true,
        ),
        None => (
            format!(
                "{}: torn last line after {} verified records",
                path.display(),
                report.verified
            ),
            false,
        ),
        Some(e) => {
            let cause = if report.torn_tail {
                "the last line is incomplete (a crash while it was written, or it was cut)"
            } else {
                "the trail was edited, or lines were deleted, inserted or reordered"
            };
            (
                format!(
                    "{}: line {}: {}\n{} records before it verify; {cause}",
                    path.display(),
                    e.line,
                    e.message,
                    report.verified
                ),
                false,
            )
        }
    }
}
