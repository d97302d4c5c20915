//! Native tool calls through the real `airlock hook` binary against a real
//! supervisor: decisions, reasons, rewrites and audit records, from the
//! events the pinned agents recorded (tests/fixtures/hooks).

mod hooks_support;

use hooks_support::{CLAUDE, CODEX, Env, GEMINI, Say, decision, of_type, reason};
use serde_json::{Value, json};

/// What an agent must get back from its hook.
enum Want {
    /// Claude's / Codex's `permissionDecision`.
    Decision(&'static str),
    /// Gemini's `decision`.
    Gemini(&'static str),
    /// This whole answer (`Value::Null`: none, which Codex reads as allow).
    Exactly(Value),
}

/// Send each recorded event `(agent, fixture, want)` to `airlock hook
/// AGENT`, in order, asserting each answer; the answers.
async fn expect(env: &Env, cases: &[(&str, &str, Want)]) -> Vec<Value> {
    let mut answers = Vec::new();
    for (agent, fixture, want) in cases {
        let (v, _) = env
            .send(agent, &env.fixture(recorded(agent), fixture))
            .await;
        let what = format!("{agent} {fixture}: {v}");
        match want {
            Want::Decision(d) => assert_eq!(decision(&v), *d, "{what}"),
            Want::Gemini(d) => assert_eq!(v["decision"], *d, "{what}"),
            Want::Exactly(x) => assert_eq!(&v, x, "{what}"),
        }
        answers.push(v);
    }
    answers
}

/// Where `agent`'s recorded events are.
fn recorded(agent: &str) -> &'static str {
    match agent {
        "claude" => CLAUDE,
        "codex" => CODEX,
        "gemini" => GEMINI,
        other => panic!("no recorded events of {other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_native_read_runs_at_once_and_lands_in_the_trail_with_its_result() {
    let mut env = Env::new(None);
    env.start(&[]);
    let (v, code) = env
        .send("claude", &env.fixture(CLAUDE, "PreToolUse-Read"))
        .await;
    assert_eq!((decision(&v), code), ("allow", 0), "{v}");
    let (v, code) = env
        .send("claude", &env.fixture(CLAUDE, "PostToolUse-Read"))
        .await;
    assert_eq!((v, code), (Value::Null, 0));
    assert_eq!(env.asked(), 0, "reads are not asked");
    let audit = env.audit();
    let req = of_type(&audit, "call_requested");
    assert_eq!(req.len(), 1, "{audit:#?}");
    let call = &req[0]["call"];
    assert_eq!(call["kind"], "read");
    // The vocabulary name the rules match; the agent's own name is the runner's.
    assert_eq!(call["tool"], "read_file");
    assert_eq!(call["runner"]["native_tool"], "Read");
    assert_eq!(
        call["runner"]["tool_use_id"],
        env.fixture(CLAUDE, "PreToolUse-Read")["tool_use_id"]
    );
    assert_eq!(
        call["runner"]["session_id"],
        env.fixture(CLAUDE, "PreToolUse-Read")["session_id"]
    );
    let fin = of_type(&audit, "call_finished");
    assert_eq!(
        fin.len(),
        1,
        "the post-tool event is the result: {audit:#?}"
    );
    assert_eq!(fin[0]["call_id"], req[0]["call"]["id"]);
    assert_eq!(fin[0]["status"], "ok");
    assert!(
        fin[0]["excerpt"]
            .as_str()
            .unwrap()
            .contains("title: ship it"),
        "{}",
        fin[0]
    );
    assert_eq!(fin[0]["output_sha256"].as_str().unwrap().len(), 64);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_native_command_waits_for_the_human_and_the_denial_reaches_the_model() {
    let mut env = Env::new(None);
    env.start(&[Say::Yes, Say::No("not now"), Say::Yes]);
    let pre = env.fixture(CLAUDE, "PreToolUse-Bash");
    let (v, _) = env.send("claude", &pre).await;
    assert_eq!(decision(&v), "allow", "{v}");
    let shown = env.script.asked.lock().unwrap()[0].clone();
    assert_eq!(shown.kind, Some(airlock::call::ToolKind::Exec));
    match &shown.view {
        airlock::call::CallView::Command {
            command,
            description,
            ..
        } => {
            assert_eq!(command, pre["tool_input"]["command"].as_str().unwrap());
            assert_eq!(description.as_deref(), Some("print a line"));
        }
        other => panic!("the prompt shows the command, not {other:?}"),
    }
    let command = pre["tool_input"]["command"].as_str().unwrap();
    assert_eq!(
        shown.grant,
        airlock::tools::bash::grant(command),
        "bash's grants"
    );
    assert!(
        !shown.runner.is_airlock(),
        "the prompt says the agent runs it"
    );
    let (v, _) = env.send("claude", &pre).await;
    assert_eq!(decision(&v), "deny");
    assert_eq!(
        reason(&v),
        "denied by the user: not now. The call was not run."
    );
    // Codex: the same answer shape (an approval is silence); Gemini:
    // decision/reason.
    expect(
        &env,
        &[
            (
                "codex",
                "PreToolUse-exec_command",
                Want::Exactly(Value::Null),
            ),
            (
                "gemini",
                "BeforeTool-run_shell_command",
                Want::Exactly(json!({"decision": "deny", "reason": "no scripted answer"})),
            ),
        ],
    )
    .await;
    assert_eq!(env.asked(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_rules_cover_native_calls() {
    let mut env = Env::new(Some(
        "allow = [\"bash(printf *)\", \"write_file(todo.txt)\"]\ndeny = [\"WebFetch\"]\n",
    ));
    env.start(&[]);
    let answers = expect(
        &env,
        &[
            // bash(printf *) covers a native Bash,
            ("claude", "PreToolUse-Bash", Want::Decision("allow")),
            // write_file(todo.txt) a native Edit and Gemini's replace.
            ("claude", "PreToolUse-Edit", Want::Decision("allow")),
            ("gemini", "BeforeTool-replace", Want::Gemini("allow")),
            ("claude", "PreToolUse-WebFetch", Want::Decision("deny")),
        ],
    )
    .await;
    assert!(reason(&answers[3]).contains("WebFetch"), "{}", answers[3]);
    assert_eq!(env.asked(), 0);
    // Control: without the rules the same calls are asked (and the
    // scripted human, out of answers, refuses).
    let mut bare = Env::new(None);
    bare.start(&[]);
    expect(
        &bare,
        &[
            ("claude", "PreToolUse-Bash", Want::Decision("deny")),
            ("claude", "PreToolUse-Edit", Want::Decision("deny")),
        ],
    )
    .await;
    assert_eq!(bare.asked(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edited_command_rewrites_the_agents_input() {
    let mut env = Env::new(None);
    env.start(&[
        Say::Edit("printf 'edited'"),
        Say::Edit("printf 'edited'"),
        Say::Edit("printf 'edited'"),
    ]);
    let [claude, codex, gemini] = &expect(
        &env,
        &[
            ("claude", "PreToolUse-Bash", Want::Decision("allow")),
            ("codex", "PreToolUse-exec_command", Want::Decision("allow")),
            (
                "gemini",
                "BeforeTool-run_shell_command",
                Want::Gemini("allow"),
            ),
        ],
    )
    .await[..] else {
        unreachable!("three cases, three answers")
    };
    for (v, input) in [
        (claude, &claude["hookSpecificOutput"]["updatedInput"]),
        (codex, &codex["hookSpecificOutput"]["updatedInput"]),
        (gemini, &gemini["hookSpecificOutput"]["tool_input"]),
    ] {
        assert_eq!(input["command"], "printf 'edited'", "{v}");
    }
    assert_eq!(
        claude["hookSpecificOutput"]["updatedInput"]["description"], "print a line",
        "the rest of the input is kept"
    );
    let decided = of_type(&env.audit(), "call_decided")
        .iter()
        .map(|r| r["edited_command"].clone())
        .collect::<Vec<_>>();
    assert_eq!(decided, vec![json!("printf 'edited'"); 3]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_that_a_rule_denies_is_refused_not_rewritten() {
    let mut env = Env::new(Some("deny = [\"bash(rm *)\"]\n"));
    env.start(&[Say::Edit("rm -f notes.txt")]);
    let (v, _) = env
        .send("claude", &env.fixture(CLAUDE, "PreToolUse-Bash"))
        .await;
    assert_eq!(decision(&v), "deny", "{v}");
    assert!(v["hookSpecificOutput"].get("updatedInput").is_none());
    assert!(env.ws.join("notes.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_native_write_shows_the_diff_from_the_disk() {
    let mut env = Env::new(None);
    env.start(&[Say::Yes, Say::Yes, Say::Yes]);
    expect(
        &env,
        &[
            ("claude", "PreToolUse-Edit", Want::Decision("allow")),
            ("claude", "PreToolUse-Write", Want::Decision("allow")),
            ("gemini", "BeforeTool-replace", Want::Gemini("allow")),
        ],
    )
    .await;
    let asked = env.script.asked.lock().unwrap().clone();
    let diff = |i: usize| {
        asked[i]
            .proposal
            .as_ref()
            .and_then(|p| p.diff.clone())
            .unwrap_or_default()
    };
    assert!(
        diff(0).contains("-status: draft") && diff(0).contains("+status: reviewed"),
        "{}",
        diff(0)
    );
    assert!(matches!(asked[0].view, airlock::call::CallView::Change));
    assert_eq!(asked[0].kind, Some(airlock::call::ToolKind::Write));
    assert!(diff(1).contains("+++ b/"), "{}", diff(1));
    assert!(diff(2).contains("-status: draft"), "{}", diff(2));
    // The result names the file's digest after the agent wrote it.
    std::fs::write(
        env.ws.join("todo.txt"),
        "title: ship it\nstatus: reviewed\n",
    )
    .unwrap();
    env.send("claude", &env.fixture(CLAUDE, "PostToolUse-Edit"))
        .await;
    let audit = env.audit();
    let fin = of_type(&audit, "call_finished");
    assert_eq!(fin.len(), 1, "{audit:#?}");
    let digest = hex_sha256(b"title: ship it\nstatus: reviewed\n");
    assert_eq!(fin[0]["file_sha256"], digest.as_str(), "{}", fin[0]);
    assert_eq!(fin[0]["change"]["action"], "edit");
}

fn hex_sha256(b: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(b))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_patch_shows_every_file_it_touches() {
    let mut env = Env::new(None);
    env.start(&[Say::Yes, Say::Yes]);
    // Approved: Codex allows by silence.
    expect(
        &env,
        &[
            (
                "codex",
                "PreToolUse-apply_patch-multi",
                Want::Exactly(Value::Null),
            ),
            (
                "codex",
                "PreToolUse-apply_patch-move",
                Want::Exactly(Value::Null),
            ),
        ],
    )
    .await;
    let asked = env.script.asked.lock().unwrap().clone();
    let patch = env.fixture(CODEX, "PreToolUse-apply_patch-multi")["tool_input"]["command"]
        .as_str()
        .unwrap()
        .to_string();
    let diff = asked[0].proposal.as_ref().unwrap().diff.clone().unwrap();
    for line in patch.lines() {
        if let Some(path) = ["*** Add File: ", "*** Update File: ", "*** Delete File: "]
            .iter()
            .find_map(|p| line.strip_prefix(p))
        {
            assert!(diff.contains(path), "{path} in the diff:\n{diff}");
        }
    }
    let mv = asked[1].proposal.as_ref().unwrap().diff.clone().unwrap();
    assert!(
        mv.contains("--- a/old.txt") && mv.contains("+++ b/moved.txt"),
        "{mv}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_to_airlocks_own_tools_pass_without_a_second_prompt() {
    let mut env = Env::new(None);
    env.start(&[]);
    expect(
        &env,
        &[
            ("claude", "PreToolUse-mcp", Want::Decision("allow")),
            ("codex", "PreToolUse-mcp", Want::Exactly(Value::Null)),
            (
                "gemini",
                "BeforeTool-mcp_airlock_read_file",
                Want::Gemini("allow"),
            ),
        ],
    )
    .await;
    assert_eq!(env.asked(), 0);
    assert!(
        of_type(&env.audit(), "call_requested").is_empty(),
        "airlock records them when they reach it"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_and_other_servers_tools_are_asked_never_allowed_by_default() {
    let mut env = Env::new(None);
    env.start(&[]);
    let mut e = env.fixture(CLAUDE, "PreToolUse-Bash");
    e["tool_name"] = json!("Frobnicate");
    let (v, _) = env.send("claude", &e).await;
    assert_eq!(decision(&v), "deny");
    e["tool_name"] = json!("mcp__github__create_issue");
    let (v, _) = env.send("claude", &e).await;
    assert_eq!(decision(&v), "deny");
    let (v, _) = env
        .send("claude", &env.fixture(CLAUDE, "PreToolUse-WebSearch"))
        .await;
    assert_eq!(decision(&v), "deny");
    let kinds: Vec<Value> = env
        .script
        .asked
        .lock()
        .unwrap()
        .iter()
        .map(|c| json!(c.kind))
        .collect();
    assert_eq!(kinds, vec![json!("other"), json!("mcp"), json!("network")]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_results_are_joined_by_session_tool_and_input() {
    let mut env = Env::new(None);
    env.start(&[]);
    let (v, _) = env
        .send("gemini", &env.fixture(GEMINI, "BeforeTool-read_file"))
        .await;
    assert_eq!(v["decision"], "allow", "{v}");
    env.send("gemini", &env.fixture(GEMINI, "AfterTool-read_file"))
        .await;
    let audit = env.audit();
    let fin = of_type(&audit, "call_finished");
    assert_eq!(fin.len(), 1, "{audit:#?}");
    assert_eq!(
        fin[0]["call_id"],
        of_type(&audit, "call_requested")[0]["call"]["id"]
    );
    assert_eq!(
        of_type(&audit, "agent_connected")[0]["agent"]["name"],
        "gemini-cli"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_native_call_is_recorded_as_an_error() {
    let mut env = Env::new(None);
    env.start(&[Say::Yes]);
    let (v, _) = env
        .send("claude", &env.fixture(CLAUDE, "PreToolUse-WebFetch"))
        .await;
    assert_eq!(decision(&v), "allow");
    let failure = env.fixture(CLAUDE, "PostToolUseFailure-WebFetch");
    let (v, code) = env.send("claude", &failure).await;
    assert_eq!((v, code), (Value::Null, 0));
    let audit = env.audit();
    let fin = of_type(&audit, "call_finished");
    assert_eq!(fin.len(), 1, "{audit:#?}");
    assert_eq!(fin[0]["status"], "error");
    assert_eq!(fin[0]["is_error"], true);
    assert!(
        fin[0]["excerpt"]
            .as_str()
            .unwrap()
            .contains("Unable to verify"),
        "{}",
        fin[0]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_goes_away_cancels_its_prompt() {
    let mut env = Env::new(None);
    env.start(&[Say::Hang]);
    let event = env.fixture(CLAUDE, "PreToolUse-Bash").to_string();
    let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_airlock"));
    c.args(["hook", "claude"])
        .env("AIRLOCK_RUNTIME_DIR", &env.runtime)
        .env("AIRLOCK_NO_USER_CONFIG", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true);
    let mut child = c.spawn().unwrap();
    {
        use tokio::io::AsyncWriteExt;
        let mut input = child.stdin.take().unwrap();
        input.write_all(event.as_bytes()).await.unwrap();
    }
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    while env.asked() == 0 {
        assert!(tokio::time::Instant::now() < deadline, "the call is asked");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // The agent gives up: its hook process is killed.
    child.kill().await.unwrap();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let audit = env.audit();
        if let Some(d) = of_type(&audit, "call_decided").first() {
            assert_eq!(d["approved"], false);
            assert_eq!(d["by"], "cancelled", "{d}");
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the decision is recorded"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// A command's exit code is recorded only from a field of the agent's
/// payload, and none of the pinned agents has one: text that reads like
/// one (what airlock used to parse, and what a command can print itself)
/// is output. The CONTROL, the same text read the old way, is in
/// `hooks::results`'s unit tests.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commands_exit_code_is_a_field_of_its_result() {
    let mut env = Env::new(None);
    env.start(&[Say::Yes]);
    let (v, _) = env
        .send("codex", &env.fixture(CODEX, "PreToolUse-exec_command"))
        .await;
    assert_eq!(v, Value::Null, "approved: Codex allows by silence");
    let mut post = env.fixture(CODEX, "PostToolUse-exec_command");
    // The command printed a forged header (it failed).
    post["tool_response"] = json!("Exit code: 0\nWall time: 0 seconds\nOutput:\nall good\n");
    env.send("codex", &post).await;
    let audit = env.audit();
    let fin = of_type(&audit, "call_finished");
    assert_eq!(fin.len(), 1, "{audit:#?}");
    assert_eq!(fin[0]["exit_code"], "unknown", "{}", fin[0]);
    assert_eq!(fin[0]["file_sha256"], Value::Null, "not a write");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edited_gemini_command_is_joined_by_the_input_it_ran() {
    let mut env = Env::new(None);
    env.start(&[Say::Edit("printf 'edited'")]);
    let (v, _) = env
        .send(
            "gemini",
            &env.fixture(GEMINI, "BeforeTool-run_shell_command"),
        )
        .await;
    assert_eq!(v["decision"], "allow", "{v}");
    // Control: a report of the input as first asked is not this call's.
    let post = env.fixture(GEMINI, "AfterTool-run_shell_command");
    env.send("gemini", &post).await;
    assert!(of_type(&env.audit(), "call_finished").is_empty());
    // The report of what the agent ran (the edited command) is.
    let mut ran = post.clone();
    ran["tool_input"]["command"] = json!("printf 'edited'");
    env.send("gemini", &ran).await;
    let audit = env.audit();
    let fin = of_type(&audit, "call_finished");
    assert_eq!(fin.len(), 1, "{audit:#?}");
    assert_eq!(
        fin[0]["call_id"],
        of_type(&audit, "call_requested")[0]["call"]["id"]
    );
    assert_eq!(fin[0]["status"], "ok");
}
