//! What `/` matches in a review: a case-insensitive substring of the
//! call's tool, agent, summary, arguments, decision class, who decided (as
//! `airlock log` words it), reason, edited command, outcome, output excerpt
//! or diff. The text part is `airlock log --grep`'s own check.

use crate::audit::timeline::{CallEntry, Timeline};
use crate::report::{CallFilter, Tri, who};

/// Does call `c` match `text`?
pub fn matches(c: &CallEntry, workspace: Option<&str>, text: &str) -> bool {
    let needle = text.to_lowercase();
    let has = |hay: &str| hay.to_lowercase().contains(&needle);
    let class = c.class();
    if has(&c.call.tool)
        || has(&c.call.agent.name)
        || has(class.as_str())
        || (class.approved() && has("approved"))
        || has(c.status().settled().describe())
    {
        return true;
    }
    if let Some(d) = &c.decided
        && has(&who(&d.decision, workspace))
    {
        return true;
    }
    let grep = CallFilter {
        grep: Some(text.to_string()),
        ..CallFilter::default()
    };
    grep.check(c, true) == Tri::Yes
}

/// The indices of the calls in `t` that match `text`.
pub fn apply(t: &Timeline, text: &str) -> Vec<usize> {
    let workspace = t.session.as_ref().map(|s| s.workspace.as_str());
    t.calls
        .iter()
        .enumerate()
        .filter(|(_, c)| matches(c, workspace, text))
        .map(|(i, _)| i)
        .collect()
}
