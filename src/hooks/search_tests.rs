//! The native tools' paths as the agent's tool uses them (relative ones
//! against the event's `cwd`), and recursive reads checked for what they
//! can reach below where they start. CONTROLS: the checks made before
//! (the path against the workspace, the start alone) pass each attack,
//! and where a real tool exists here it really reads what the check
//! refuses.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::event::{HookAgent, HookEvent};
use super::native::{Mapped, NativeCall, map, map_with};
use crate::call::{Subject, ToolKind};
use crate::policy::{Action, PathRules, Rule};
use crate::scope::{Scope, ScopeError};
use crate::tools::ToolError;

/// ```text
/// outside/secret.txt   OUTSIDE-SECRET
/// ws/.env              SECRET=env
/// ws/notes.txt         hello
/// ws/sub/notes.txt     sub hello
/// ws/src/app.rs        fn main() {}
/// ws/docs/private/plan.md
/// ```
struct Fixture {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    outside: PathBuf,
    scope: Scope,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let (ws, outside) = (root.join("ws"), root.join("outside"));
    for d in ["sub", "src", "docs/private"] {
        std::fs::create_dir_all(ws.join(d)).unwrap();
    }
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "OUTSIDE-SECRET\n").unwrap();
    std::fs::write(ws.join(".env"), "SECRET=env\n").unwrap();
    std::fs::write(ws.join("notes.txt"), "hello\n").unwrap();
    std::fs::write(ws.join("sub/notes.txt"), "sub hello\n").unwrap();
    std::fs::write(ws.join("src/app.rs"), "fn main() {}\n").unwrap();
    std::fs::write(ws.join("docs/private/plan.md"), "PLAN\n").unwrap();
    let excluded: Vec<String> = crate::scope::DEFAULT_EXCLUDED
        .iter()
        .map(ToString::to_string)
        .collect();
    let scope = Scope::new(&ws, &[], &excluded).unwrap();
    Fixture {
        _dir: dir,
        ws,
        outside,
        scope,
    }
}

fn event(agent: HookAgent, tool: &str, input: &Value, cwd: &Path) -> HookEvent {
    let name = if agent == HookAgent::Gemini {
        "BeforeTool"
    } else {
        "PreToolUse"
    };
    let e = json!({"session_id": "s", "cwd": cwd, "tool_name": tool,
        "tool_input": input.clone(), "hook_event_name": name});
    HookEvent::from_value(agent, e).unwrap()
}

fn paths_of(m: &Mapped) -> Vec<PathBuf> {
    match m {
        Mapped::Call(NativeCall {
            subject: Subject::Paths { paths },
            ..
        }) => paths.clone(),
        other => panic!("not a call about paths: {other:?}"),
    }
}

fn refusal(m: &Mapped) -> String {
    match m {
        Mapped::Refused { error, .. } => error.to_string(),
        other => panic!("not refused: {other:?}"),
    }
}

/// A search refused because of what lies below its start.
fn reaches(m: &Mapped, found: &str) {
    match m {
        Mapped::Refused {
            error: ToolError::Scope(ScopeError::SearchReaches { found: f, .. }),
            ..
        } => assert!(f.to_string().contains(found), "{f}"),
        other => panic!("not refused for what it reaches: {other:?}"),
    }
}

/// CONTROL helper: the real grep run from `cwd` prints `secret`.
fn grep_reads(cwd: &Path, args: &[&str], secret: &str) {
    let out = std::process::Command::new("grep")
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(secret), "control: grep {args:?}: {text:?}");
}

#[test]
fn writes_and_edits_use_the_agents_directory() {
    let f = fixture();
    let sub = f.ws.join("sub");
    let cases = [
        (
            HookAgent::Claude,
            "Write",
            json!({"file_path": "x.txt", "content": "new\n"}),
        ),
        (
            HookAgent::Gemini,
            "write_file",
            json!({"file_path": "x.txt", "content": "new\n"}),
        ),
        (
            HookAgent::Claude,
            "Edit",
            json!({"file_path": "notes.txt", "old_string": "sub hello", "new_string": "bye"}),
        ),
        (
            HookAgent::Gemini,
            "replace",
            json!({"file_path": "notes.txt", "old_string": "sub hello", "new_string": "bye"}),
        ),
        (
            HookAgent::Claude,
            "MultiEdit",
            json!({"file_path": "notes.txt", "edits": [{"old_string": "sub", "new_string": "a"}]}),
        ),
        (
            HookAgent::Claude,
            "NotebookEdit",
            json!({"notebook_path": "nb.ipynb", "new_source": "x"}),
        ),
    ];
    for (agent, tool, input) in &cases {
        let m = map(&event(*agent, tool, input, &sub), &f.scope);
        let Mapped::Call(call) = &m else {
            panic!("{tool}: {m:?}");
        };
        let file = input["file_path"]
            .as_str()
            .or(input["notebook_path"].as_str())
            .unwrap();
        assert_eq!(paths_of(&m), vec![sub.join(file)], "{tool}");
        // What the prompt shows and the trail records.
        assert!(
            call.summary.contains(&format!("sub/{file}")),
            "{tool}: {}",
            call.summary
        );
        if let Some(p) = &call.proposal {
            assert_eq!(p.path, format!("sub/{file}"), "{tool}");
        }
        // CONTROL: resolved against the workspace, the same argument names
        // another file.
        assert_eq!(f.scope.absolute(file).unwrap(), f.ws.join(file));
    }
    // The Edit is diffed against the file in the agent's directory.
    let edit = map(
        &event(HookAgent::Claude, "Edit", &cases[2].2, &sub),
        &f.scope,
    );
    let Mapped::Call(call) = edit else { panic!() };
    let diff = call.proposal.unwrap().diff.unwrap();
    assert!(
        diff.contains("-sub hello") && diff.contains("+bye"),
        "{diff}"
    );
}

#[test]
fn a_directory_outside_the_workspace_is_refused_never_re_rooted() {
    let f = fixture();
    for (agent, tool, input) in [
        (
            HookAgent::Claude,
            "Write",
            json!({"file_path": "secret.txt", "content": "x"}),
        ),
        (
            HookAgent::Claude,
            "Read",
            json!({"file_path": "secret.txt"}),
        ),
        (
            HookAgent::Gemini,
            "read_file",
            json!({"file_path": "secret.txt"}),
        ),
        (
            HookAgent::Gemini,
            "list_directory",
            json!({"dir_path": "."}),
        ),
        (HookAgent::Gemini, "grep_search", json!({"pattern": "x"})),
        (HookAgent::Claude, "Glob", json!({"pattern": "*.txt"})),
        (
            HookAgent::Gemini,
            "read_many_files",
            json!({"include": ["*.txt"]}),
        ),
    ] {
        let m = map(&event(agent, tool, &input, &f.outside), &f.scope);
        assert!(
            refusal(&m).contains("outside the allowed roots"),
            "{tool}: {m:?}"
        );
    }
    // No cwd: a relative path names no file airlock can know.
    let e = HookEvent::from_value(
        HookAgent::Claude,
        json!({"hook_event_name": "PreToolUse", "tool_name": "Write",
            "tool_input": {"file_path": "notes.txt", "content": "x"}}),
    )
    .unwrap();
    assert!(refusal(&map(&e, &f.scope)).contains("cannot tell"));
}

#[test]
fn reads_and_listings_use_the_agents_directory() {
    let f = fixture();
    let sub = f.ws.join("sub");
    let read = map(
        &event(
            HookAgent::Gemini,
            "read_file",
            &json!({"file_path": "notes.txt"}),
            &sub,
        ),
        &f.scope,
    );
    assert_eq!(paths_of(&read), vec![sub.join("notes.txt")]);
    let ls = map(
        &event(
            HookAgent::Gemini,
            "list_directory",
            &json!({"dir_path": "."}),
            &sub,
        ),
        &f.scope,
    );
    assert_eq!(paths_of(&ls), vec![sub.clone()]);
    // Gemini reads `dir_path`: an older `path` beside it is checked too,
    // and without `dir_path` so is the agent's directory.
    let both = map(
        &event(
            HookAgent::Gemini,
            "list_directory",
            &json!({"path": "../src"}),
            &sub,
        ),
        &f.scope,
    );
    assert_eq!(paths_of(&both), vec![f.ws.join("src"), sub]);
}

#[test]
fn a_search_is_refused_when_it_could_read_an_excluded_file_below_its_start() {
    let f = fixture();
    let ws = &f.ws;
    // CONTROL: the agents' searches read `.env` (the real grep, as
    // Gemini's fallback runs it), and the old check, of the start alone,
    // passes.
    grep_reads(ws, &["-r", "SECRET", "."], "SECRET=env");
    grep_reads(ws, &["-r", "--include=.env*", "SECRET", "."], "SECRET=env");
    assert!(f.scope.resolve(&ws.display().to_string()).is_ok());
    for (agent, tool, input) in [
        (
            HookAgent::Gemini,
            "grep_search",
            json!({"pattern": "SECRET"}),
        ),
        (
            HookAgent::Gemini,
            "grep_search",
            json!({"pattern": "S", "include_pattern": ".env*"}),
        ),
        (
            HookAgent::Gemini,
            "grep_search",
            json!({"pattern": "S", "include": "*"}),
        ),
        (
            HookAgent::Gemini,
            "grep_search",
            json!({"pattern": "S", "include_pattern": "*.rs", "include": "x"}),
        ),
        (
            HookAgent::Gemini,
            "search_file_content",
            json!({"pattern": "S", "path": "."}),
        ),
        (HookAgent::Claude, "Grep", json!({"pattern": "SECRET"})),
        (
            HookAgent::Claude,
            "Grep",
            json!({"pattern": "S", "glob": "*.rs", "type": "rust"}),
        ),
        (HookAgent::Claude, "Glob", json!({"pattern": "**/.env"})),
        (
            HookAgent::Gemini,
            "glob",
            json!({"pattern": "**/*", "dir_path": "."}),
        ),
        (
            HookAgent::Gemini,
            "read_many_files",
            json!({"include": ["**/*"]}),
        ),
        (
            HookAgent::Gemini,
            "read_many_files",
            json!({"include": ["src/*.rs", "*.env"]}),
        ),
    ] {
        let m = map(&event(agent, tool, &input, ws), &f.scope);
        reaches(&m, ".env");
    }
    // What the pattern cannot reach, or a start below the secret, passes.
    for (agent, tool, input, cwd) in [
        (
            HookAgent::Gemini,
            "grep_search",
            json!({"pattern": "S", "include_pattern": "*.rs"}),
            ws.clone(),
        ),
        (
            HookAgent::Claude,
            "Grep",
            json!({"pattern": "S", "glob": "*.{rs,md}"}),
            ws.clone(),
        ),
        (
            HookAgent::Claude,
            "Grep",
            json!({"pattern": "S", "path": "src"}),
            ws.clone(),
        ),
        (
            HookAgent::Claude,
            "Grep",
            json!({"pattern": "S"}),
            ws.join("sub"),
        ),
        (
            HookAgent::Claude,
            "Grep",
            json!({"pattern": "S", "path": "notes.txt"}),
            ws.clone(),
        ),
        (
            HookAgent::Claude,
            "Glob",
            json!({"pattern": "**/*.txt"}),
            ws.clone(),
        ),
        (
            HookAgent::Gemini,
            "read_many_files",
            json!({"include": ["src/*.rs"]}),
            ws.clone(),
        ),
    ] {
        let m = map(&event(agent, tool, &input, &cwd), &f.scope);
        assert!(matches!(m, Mapped::Call(_)), "{tool} {input}: {m:?}");
    }
}

#[test]
fn a_search_through_a_link_or_out_of_its_start_is_checked_where_it_leads() {
    let f = fixture();
    let ws = &f.ws;
    std::fs::create_dir(ws.join("lib")).unwrap();
    symlink(&f.outside, ws.join("lib/vendor")).unwrap();
    // CONTROL: a search that follows links reads the secret outside.
    grep_reads(ws, &["-R", "OUTSIDE", "lib"], "OUTSIDE-SECRET");
    let m = map(
        &event(
            HookAgent::Claude,
            "Grep",
            &json!({"pattern": "x", "path": "lib"}),
            ws,
        ),
        &f.scope,
    );
    reaches(&m, "outside the allowed roots");
    std::fs::remove_file(ws.join("lib/vendor")).unwrap();
    symlink(ws.join(".env"), ws.join("lib/cfg")).unwrap();
    let m = map(
        &event(
            HookAgent::Gemini,
            "grep_search",
            &json!({"pattern": "x", "dir_path": "lib"}),
            ws,
        ),
        &f.scope,
    );
    reaches(&m, "excluded");
    // A pattern that climbs out of its start reaches where it leads.
    let sub = ws.join("sub");
    for input in [json!({"pattern": "../*"}), json!({"pattern": "/etc/*"})] {
        let m = map(&event(HookAgent::Claude, "Glob", &input, &sub), &f.scope);
        assert!(matches!(m, Mapped::Refused { .. }), "{input}: {m:?}");
    }
    let m = map(
        &event(
            HookAgent::Claude,
            "Glob",
            &json!({"pattern": "*/../../x"}),
            &sub,
        ),
        &f.scope,
    );
    assert!(refusal(&m).contains("cannot tell"), "{m:?}");
    // A hard link below the start, another name of the secret.
    std::fs::hard_link(ws.join(".env"), ws.join("src/env.rs")).unwrap();
    let m = map(
        &event(
            HookAgent::Claude,
            "Grep",
            &json!({"pattern": "x", "glob": "*.rs", "path": "src"}),
            ws,
        ),
        &f.scope,
    );
    reaches(&m, "hard link");
}

#[test]
fn deny_read_paths_below_the_start_refuse_the_search() {
    let f = fixture();
    let scope = f
        .scope
        .clone()
        .with_deny_read(&["docs/private".to_string()], None);
    let e = event(
        HookAgent::Gemini,
        "grep_search",
        &json!({"pattern": "PLAN", "include_pattern": "*.md"}),
        &f.ws,
    );
    // CONTROL: without deny_read the same search is a call.
    assert!(matches!(map(&e, &f.scope), Mapped::Call(_)));
    reaches(&map(&e, &scope), "sandbox.deny_read");
}

#[test]
fn entries_a_path_rule_covers_join_the_subject() {
    let f = fixture();
    let rules = [
        Rule::parse(Action::Deny, "read_file(docs/private/**)", "test").unwrap(),
        Rule::parse(Action::Ask, "grep(src/**)", "test").unwrap(),
    ];
    let rules = PathRules::new(&rules, &f.ws);
    let e = event(
        HookAgent::Gemini,
        "grep_search",
        &json!({"pattern": "x", "include_pattern": "*.md"}),
        &f.ws,
    );
    let m = map_with(&e, &f.scope, &rules);
    let paths = paths_of(&m);
    assert_eq!(paths[0], f.ws, "the start first");
    assert!(
        paths.contains(&f.ws.join("docs/private/plan.md")),
        "{paths:?}"
    );
    assert!(
        !paths.contains(&f.ws.join("src/app.rs")),
        "not matched by *.md"
    );
    // CONTROL: without the rules, the subject is the start alone (what
    // the policy judged before).
    assert_eq!(paths_of(&map(&e, &f.scope)), vec![f.ws.clone()]);
    let e = event(
        HookAgent::Claude,
        "Grep",
        &json!({"pattern": "x"}),
        &f.ws.join("src"),
    );
    let paths = paths_of(&map_with(&e, &f.scope, &rules));
    assert!(paths.contains(&f.ws.join("src/app.rs")), "{paths:?}");
    let Mapped::Call(call) = map_with(&e, &f.scope, &rules) else {
        panic!()
    };
    assert_eq!(call.kind, ToolKind::Read);
}
