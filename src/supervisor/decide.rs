//! Stage 2, decide: the policy's verdict (rules, session grants), then the
//! confirmer only when the verdict is "ask", bounded by the agent's
//! cancellation, its disconnect, shutdown and the approval timeout.

use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::confirm::ConfirmRequest;
use super::core::{Supervisor, WaitHook};
use crate::call::{
    ApprovedBy, CallInfo, CallView, Decision, PolicyVerdict, RefusedBy, Runner, ShellEnv,
    ShellSite, Subject, ToolKind, Verdict, VerdictSource,
};
use crate::policy::Action;
use crate::tools::readonly::READ_FILE;

/// How often the wait hook fires.
const WAIT_TICK: Duration = Duration::from_secs(5);

impl Supervisor {
    /// Decide about `info`, whose policy subject is `subject`: a rule or
    /// grant answers at once; "ask" goes to the confirmer. `cancel` is the
    /// agent's cancellation; the agent's disconnect, shutdown and the
    /// approval timeout also end the wait, never as an approval. Nothing is
    /// recorded here (see [`Supervisor::record_decision`]).
    pub async fn decide(
        &self,
        info: &CallInfo,
        subject: &Subject,
        cancel: &CancellationToken,
        on_wait: Option<WaitHook>,
    ) -> Decision {
        let verdict = self.verdict(info, subject, &reported_site(info));
        self.decide_verdict(info, verdict, cancel, on_wait).await
    }

    /// The policy's verdict about `info`, whose policy subject is `subject`;
    /// a command would run at `site`. A `read_file(PATH)` deny or ask rule
    /// is about reading PATH: it judges every read tool's call about PATH
    /// (`cat`, `grep`, `ls` …) as it judges `read_file`'s, deny before ask,
    /// ask before allow.
    pub(super) fn verdict(
        &self,
        info: &CallInfo,
        subject: &Subject,
        site: &ShellSite,
    ) -> PolicyVerdict {
        let kind = info.kind.unwrap_or(ToolKind::Other);
        let own = self.policy.evaluate_at(&info.tool, kind, subject, site);
        if kind != ToolKind::Read || info.tool == READ_FILE || own.verdict == Verdict::Deny {
            return own;
        }
        let Subject::Paths { paths } = subject else {
            return own;
        };
        let rules = self.path_rules();
        match rules.judge(&[READ_FILE], paths) {
            Some(r) if r.action == Action::Deny || own.verdict == Verdict::Allow => PolicyVerdict {
                verdict: if r.action == Action::Deny {
                    Verdict::Deny
                } else {
                    Verdict::Ask
                },
                rule: r.text(),
                source: VerdictSource::File(r.source.clone().into()),
            },
            _ => own,
        }
    }

    /// The human edited the call (its command) at the prompt and approved
    /// it: judge the edited `subject` again (guardrails and deny rules still
    /// hold). `Err` is the refusal to record instead.
    pub fn recheck_edited(&self, info: &CallInfo, subject: &Subject) -> Result<(), Decision> {
        let kind = info.kind.unwrap_or(ToolKind::Other);
        // Only a refusal counts here: where it would run does not matter.
        let verdict = self
            .policy
            .evaluate_at(&info.tool, kind, subject, &ShellSite::default());
        if verdict.verdict == Verdict::Deny {
            return Err(blocked(&verdict));
        }
        Ok(())
    }

    /// Decide about `info` given the policy's `verdict`: at once for a
    /// rule or grant (see [`immediate`]), else by the confirmer.
    pub(super) async fn decide_verdict(
        &self,
        info: &CallInfo,
        verdict: PolicyVerdict,
        cancel: &CancellationToken,
        on_wait: Option<WaitHook>,
    ) -> Decision {
        if let Some(decision) = immediate(&verdict) {
            return decision;
        }
        let gone = self.connection_token(&info.agent);
        let cancelled = || {
            let by = if gone.is_cancelled() {
                RefusedBy::Disconnected
            } else {
                RefusedBy::Cancelled
            };
            Decision::deny(by, None)
        };
        if cancel.is_cancelled() || gone.is_cancelled() {
            return cancelled();
        }
        let prompt_cancel = cancel.child_token();
        let request = ConfirmRequest {
            call: info.clone(),
            verdict,
            cancel: prompt_cancel.clone(),
        };
        let confirmer = self.confirmer.clone();
        // A panicking confirmer must not take the pipeline down, nor approve.
        let mut answer = tokio::spawn(async move { confirmer.confirm(request).await });
        let deadline = self
            .approval_timeout
            .map(|t| tokio::time::Instant::now() + t);
        let waited_since = Instant::now();
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + WAIT_TICK, WAIT_TICK);
        let decision = loop {
            tokio::select! {
                res = &mut answer => break match res {
                    Ok(d) => d,
                    Err(e) => {
                        tracing::error!("confirmer failed: {e}");
                        Decision::deny(RefusedBy::ConfirmerFailed, None)
                    }
                },
                () = cancel.cancelled() => break cancelled(),
                () = gone.cancelled() => break cancelled(),
                () = self.shutdown.cancelled() => break Decision::deny(RefusedBy::Shutdown, None),
                () = sleep_until(deadline) => break Decision::deny(RefusedBy::Timeout, None),
                _ = tick.tick() => {
                    if let Some(hook) = &on_wait {
                        hook(waited_since.elapsed().as_secs());
                    }
                }
            }
        };
        prompt_cancel.cancel();
        answer.abort();
        decision
    }
}

/// Where a command the agent runs itself runs, for the policy: the
/// directory the agent reports (which the prompt shows), with nothing
/// hidden from it. airlock's own calls say where through their invocation
/// ([`crate::tools::Invocation::shell_site`]); here theirs is unknown.
pub(super) fn reported_site(info: &CallInfo) -> ShellSite {
    let cwd = match (&info.runner, &info.view) {
        (Runner::Agent { .. }, CallView::Command { cwd: Some(cwd), .. }) => {
            Some(std::path::PathBuf::from(cwd))
        }
        _ => None,
    };
    ShellSite {
        cwd,
        hides_excluded: false,
        env: ShellEnv::Agents,
    }
}

/// The decision a verdict gives at once (a rule or a grant allows or
/// denies); `None` when the human is asked.
pub(super) fn immediate(verdict: &PolicyVerdict) -> Option<Decision> {
    match verdict.verdict {
        Verdict::Allow => Some(Decision::approve(approver(verdict))),
        Verdict::Deny => Some(blocked(verdict)),
        Verdict::Ask => None,
    }
}

/// Who a verdict's rule approves as: a session grant or a configured rule
/// (also who refuses, for a deny verdict).
fn approver(verdict: &PolicyVerdict) -> ApprovedBy {
    match &verdict.source {
        VerdictSource::Session => ApprovedBy::Grant {
            rule: verdict.rule.clone(),
        },
        source => ApprovedBy::Rule {
            rule: verdict.rule.clone(),
            source: source.clone(),
        },
    }
}

/// The refusal for a deny verdict, naming its rule.
fn blocked(verdict: &PolicyVerdict) -> Decision {
    let reason = format!("blocked by rule {} (from {})", verdict.rule, verdict.source);
    let by = match &verdict.source {
        VerdictSource::Session => RefusedBy::Grant {
            rule: verdict.rule.clone(),
        },
        source => RefusedBy::Rule {
            rule: verdict.rule.clone(),
            source: source.clone(),
        },
    };
    Decision::deny(by, Some(reason))
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(v: Verdict, source: VerdictSource) -> PolicyVerdict {
        PolicyVerdict {
            verdict: v,
            rule: "bash(ls)".into(),
            source,
        }
    }

    #[test]
    fn a_session_verdict_is_the_grant_and_a_configured_one_the_rule() {
        let grant = approver(&verdict(Verdict::Allow, VerdictSource::Session));
        assert_eq!(
            grant,
            ApprovedBy::Grant {
                rule: "bash(ls)".into()
            }
        );
        let rule = approver(&verdict(Verdict::Allow, "/w/.airlock.toml".into()));
        assert_eq!(
            rule,
            ApprovedBy::Rule {
                rule: "bash(ls)".into(),
                source: "/w/.airlock.toml".into()
            }
        );
    }

    #[test]
    fn a_deny_verdict_is_blocked_naming_the_rule() {
        let d = blocked(&verdict(Verdict::Deny, "built-in".into()));
        assert!(!d.is_approved());
        assert_eq!(d.reason(), Some("blocked by rule bash(ls) (from built-in)"));
        assert_eq!(d.refusal_outcome(), Some(crate::call::Outcome::Blocked));
    }
}
