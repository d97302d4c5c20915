//! "Always → this exact command" saves a rule that matches that command
//! only (review F7): approving exactly `rm -f *` (or `git add *`, or `rm
//! -rf build # *`, whose trailing comment an agent adds to get a ` *`)
//! saves `bash(=…)`, which the prompt shows as it will be saved, which
//! round-trips through `.airlock.toml`, and which allows the identical
//! command and nothing else. "Always" on a write saves `write_file(=…)`:
//! a file named `*` or `~/x` is not a pattern either.
//! CONTROLS: the same command saved as a plain rule (`bash(rm -f *)`,
//! what was saved before) allows `rm -f ../../anything`; the same file name
//! as a plain path rule allows writes to other files.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use airlock::call::{
    AgentInfo, CallInfo, CallView, GrantShape, Runner, Subject, ToolKind, Verdict,
};
use airlock::config::{TrustKeeper, TrustStore};
use airlock::policy::{Action, Mode, Policy, Rule};
use airlock::tui::prompt::choices;

fn call(grant: GrantShape) -> CallInfo {
    CallInfo {
        id: 1,
        agent: AgentInfo {
            id: 1,
            name: "a".into(),
            version: None,
        },
        tool: "bash".into(),
        kind: None,
        args: serde_json::json!({}),
        summary: String::new(),
        received_at: chrono::DateTime::UNIX_EPOCH,
        runner: Runner::default(),
        view: CallView::default(),
        edit: None,
        grant,
        proposal: None,
    }
}

fn bash_verdict(p: &Policy, command: &str) -> Verdict {
    let subject = Subject::Command {
        command: command.to_owned(),
    };
    p.evaluate("bash", ToolKind::Exec, &subject).verdict
}

fn write_verdict(p: &Policy, path: &Path) -> Verdict {
    let subject = Subject::Paths {
        paths: vec![path.to_path_buf()],
    };
    p.evaluate("write_file", ToolKind::Write, &subject).verdict
}

/// The trust store of the test's data directory (inside `ws`).
fn store(ws: &Path) -> TrustStore {
    TrustStore::new(&ws.join(".test-data"))
}

/// A session's policy for `ws`: what "always" saves is kept in the trust
/// store, as `session::start` wires it.
fn saving(ws: &Path) -> Policy {
    Policy::with_rules(Mode::Default, Vec::new(), ws, false)
        .with_save_observer(Arc::new(TrustKeeper::new(store(ws))))
}

/// The rules of `ws`'s `.airlock.toml` as a fresh session reads them.
fn reloaded(ws: &Path) -> Policy {
    let loaded = airlock::config::load_with(ws, None, false, &store(ws)).unwrap();
    Policy::with_rules(Mode::Default, loaded.rules, ws, false)
}

/// (exact command approved "always", other commands it must not allow)
const COMMANDS: &[(&str, &[&str])] = &[
    (
        "rm -f *",
        &["rm -f ../../anything", "rm -f * ../x", "rm -f"],
    ),
    ("git add *", &["git add ../x", "git add -A"]),
    (
        "rm -rf build # *",
        &["rm -rf build /home/u/project", "rm -rf build"],
    ),
    (
        "echo \"a'b\" '\"c\"' \\\\ # \"\"\" ''' *",
        &["echo \"a'b\" '\"c\"' \\\\ x"],
    ),
    ("printf '%s\\n' x\t*", &["printf '%s\\n' x y"]),
];

#[test]
fn always_this_exact_command_matches_it_only() {
    for (command, others) in COMMANDS {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        let c = choices(&call(airlock::tools::bash::grant(command)));
        let shown = &c[0].rules;
        assert_eq!(c[0].label, "this exact command");
        assert_eq!(shown.len(), 1);
        let policy = saving(ws);
        let saved = policy.always(Action::Allow, &shown[0]).unwrap();
        // The prompt shows exactly the rule it saves, and the file holds it.
        assert_eq!(&saved.text(), &shown[0]);
        let fresh = reloaded(ws);
        let texts: Vec<String> = fresh.rules().iter().map(Rule::text).collect();
        assert!(texts.contains(&shown[0]), "{texts:?} lacks {}", shown[0]);
        for p in [&policy, &fresh] {
            assert_eq!(bash_verdict(p, command), Verdict::Allow, "{command}");
            for other in *others {
                assert_ne!(
                    bash_verdict(p, other),
                    Verdict::Allow,
                    "{shown:?} allowed {other}"
                );
            }
        }
        // CONTROL: the command as a plain rule, as it was saved before.
        let plain = Rule::parse(Action::Allow, &format!("bash({command})"), "t").unwrap();
        let old = Policy::with_rules(Mode::Default, vec![plain], ws, false);
        let widened = others
            .iter()
            .any(|o| bash_verdict(&old, o) == Verdict::Allow);
        if command.trim_end().ends_with('*') {
            assert!(widened, "control: bash({command}) should allow more");
        }
    }
}

#[test]
fn always_this_file_matches_it_only() {
    for name in ["*", "**", "src/*.rs", "~/notes", "a.rs", "[ab]"] {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        let path = ws.join(name);
        let c = choices(&call(airlock::tools::write::grant(path.clone(), name)));
        let policy = saving(&ws);
        for rule in &c[0].rules {
            policy.always(Action::Allow, rule).unwrap();
        }
        let fresh = reloaded(&ws);
        let others: Vec<PathBuf> = ["sub/a.rs", "b", "src/b.rs"]
            .iter()
            .map(|o| ws.join(o))
            .collect();
        for p in [&policy, &fresh] {
            assert_eq!(write_verdict(p, &path), Verdict::Allow, "{name}");
            for o in &others {
                assert_ne!(write_verdict(p, o), Verdict::Allow, "{name} allowed {o:?}");
            }
        }
        // CONTROL: the name as a plain path rule covers more.
        let plain = Rule::parse(Action::Allow, &format!("write_file({name})"), "t").unwrap();
        let old = Policy::with_rules(Mode::Default, vec![plain], &ws, false);
        let widened = others
            .iter()
            .any(|p| write_verdict(&old, p) == Verdict::Allow);
        if let Some(rest) = name.strip_prefix("~/") {
            // The plain rule means a file in the home directory instead.
            let home = PathBuf::from(std::env::var_os("HOME").unwrap()).join(rest);
            assert_eq!(
                write_verdict(&old, &home),
                Verdict::Allow,
                "control: {name}"
            );
            assert_ne!(write_verdict(&fresh, &home), Verdict::Allow, "{name}");
        } else {
            assert!(widened, "control: write_file({name}) should allow more");
        }
    }
}
