//! `airlock log` on a real session with every outcome: the human timeline
//! says who decided each call and how it ended; `--json` is the raw
//! records; every filter selects the right calls, with all their records.

mod log_support;

use std::collections::{BTreeMap, BTreeSet};

use log_support::*;

/// The call ids on the human timeline's call lines (`HH:MM:SS  #N …`).
fn human_ids(text: &str) -> BTreeSet<u64> {
    text.lines()
        .filter_map(|l| l.split_whitespace().nth(1))
        .filter_map(|t| t.strip_prefix('#'))
        .map(|n| n.parse().unwrap())
        .collect()
}

/// The call ids in `--json` output; each call must come with its request,
/// decision and result.
fn json_ids(text: &str) -> BTreeSet<u64> {
    let mut kinds: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for r in records(text) {
        let id = r["call_id"].as_u64().or(r["call"]["id"].as_u64());
        if let Some(id) = id {
            kinds
                .entry(id)
                .or_default()
                .push(r["type"].as_str().unwrap().to_string());
        }
    }
    for (id, k) in &kinds {
        assert_eq!(
            k,
            &["call_requested", "call_decided", "call_finished"],
            "call #{id}"
        );
    }
    kinds.into_keys().collect()
}

fn expected_ids(classes: &[&str]) -> BTreeSet<u64> {
    EXPECTED
        .iter()
        .enumerate()
        .filter(|(_, (_, c))| classes.contains(c))
        .map(|(i, _)| i as u64 + 1)
        .collect()
}

fn set(ids: &[u64]) -> BTreeSet<u64> {
    ids.iter().copied().collect()
}

#[tokio::test]
#[expect(clippy::too_many_lines, reason = "one scenario, read top to bottom")]
async fn human_log_says_who_decided_every_call() {
    let f = every_outcome().await;
    let o = airlock(&f.data, &["log"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(!text.contains('\x1b'), "no colours into a pipe:\n{text}");
    let line = |id: u64| {
        text.lines()
            .find(|l| l.split_whitespace().nth(1) == Some(&format!("#{id}")))
            .unwrap_or_else(|| panic!("no line for #{id}:\n{text}"))
            .to_string()
    };
    let wants: &[(u64, &[&str])] = &[
        (
            1,
            &[
                "agent-a",
                "read_file",
                "notes.txt",
                "approved by rule default: read-only",
                "(built-in)",
                "→ ok",
            ],
        ),
        (
            2,
            &[
                "echo auto-run",
                "approved by rule bash(echo auto-run) (.airlock.toml)",
                "→ ok",
            ],
        ),
        (3, &["approved by you", "→ ok"]),
        (4, &["denied by you", "not run"]),
        (5, &["agent-b", "denied (headless: no one to ask)"]),
        (
            6,
            &[
                "rm -f notes.txt",
                "blocked by rule bash(rm *) (.airlock.toml)",
                "not run",
            ],
        ),
        (7, &["blocked by guardrail: mkfs"]),
        (8, &["path=../outside.txt", "refused by the path scope"]),
        (9, &["timeout (no answer in time)", "not run, waited 1.0s"]),
        (10, &["cancelled by the agent"]),
        (11, &["approved by you", "→ error waited ", " · ran "]),
        (
            12,
            &[
                "write_file",
                "create new.txt (+1 −0)",
                "approved by you",
                "→ ok",
            ],
        ),
        (13, &["edit_file", "edit notes.txt (+1 −1)"]),
        (
            14,
            &["approved by session grant bash(=echo granted)", "→ ok"],
        ),
    ];
    for (id, parts) in wants {
        let l = line(*id);
        for p in *parts {
            assert!(l.contains(p), "#{id} lacks {p:?}: {l}");
        }
    }
    for detail in [
        "reason: not today",
        "reason: ../outside.txt: outside the allowed roots",
        "error: exit code: 1",
    ] {
        assert!(text.contains(detail), "lacks {detail:?}:\n{text}");
    }
    for event in [
        "started on",
        "agent agent-a connected (1.0)",
        "you granted for this session: bash(=echo granted)",
        "agent agent-b disconnected",
        "session ended: test done",
    ] {
        assert!(text.contains(event), "lacks {event:?}:\n{text}");
    }
    assert!(
        text.contains("14 of 14 calls shown · in the trail: 3 auto, 4 approved by you, 2 denied, 3 blocked, 2 unanswered, 1 errors"),
        "{text}"
    );

    // The same trail by id, unique prefix, path and --last; colours on demand.
    let prefix = &f.id[..f.id.len() - 2];
    for spec in [
        &["log", f.id.as_str()][..],
        &["log", prefix],
        &["log", f.trail.to_str().unwrap()],
        &["log", "--last"],
    ] {
        assert_eq!(stdout(&airlock(&f.data, spec)), text, "{spec:?}");
    }
    let coloured = stdout(&airlock(&f.data, &["log", "--color", "always"]));
    assert!(coloured.contains("\x1b[31mdenied by you"), "{coloured}");
    assert!(coloured.contains("\x1b[32mok\x1b[0m"), "{coloured}");
    let o = airlock(&f.data, &["log", "nosuchsession"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no session \"nosuchsession\""),
        "{}",
        stderr(&o)
    );
}

#[tokio::test]
#[expect(clippy::too_many_lines, reason = "one scenario, read top to bottom")]
async fn json_is_the_raw_trail_and_every_filter_selects_whole_calls() {
    let f = every_outcome().await;
    let raw = std::fs::read_to_string(&f.trail).unwrap();
    let o = airlock(&f.data, &["log", "--json"]);
    assert!(o.status.success());
    assert_eq!(
        stdout(&o),
        raw,
        "unfiltered --json is the trail byte for byte"
    );

    let all: Vec<&str> = EXPECTED.iter().map(|(_, c)| *c).collect();
    let cases: Vec<(Vec<&str>, BTreeSet<u64>)> = vec![
        (
            vec!["--decision", "approved"],
            expected_ids(&["auto", "user"]),
        ),
        (vec!["--decision", "auto"], expected_ids(&["auto"])),
        (vec!["--decision", "user"], expected_ids(&["user"])),
        (vec!["--decision", "you"], expected_ids(&["user"])),
        (vec!["--decision", "denied"], expected_ids(&["denied"])),
        (
            vec!["--decision", "blocked"],
            expected_ids(&["blocked", "refused"]),
        ),
        (vec!["--decision", "refused"], expected_ids(&["refused"])),
        (vec!["--decision", "timeout"], expected_ids(&["timeout"])),
        (
            vec!["--decision", "cancelled"],
            expected_ids(&["cancelled"]),
        ),
        (vec!["--decision", "pending"], set(&[])),
        (vec!["--decision", "error"], set(&[11])),
        (
            vec!["--decision", "denied,timeout"],
            expected_ids(&["denied", "timeout"]),
        ),
        (vec!["--tool", "read_file,write_file"], set(&[1, 8, 12])),
        (
            vec!["--tool", "bash", "--tool", "edit_file"],
            set(&[2, 3, 4, 5, 6, 7, 9, 10, 11, 13, 14]),
        ),
        (vec!["--agent", "agent-b"], set(&[5, 6, 7, 8, 14])),
        (vec!["--agent", "#1"], set(&[1, 2, 3, 4, 9, 10, 11, 12, 13])),
        (
            vec![
                "--agent",
                "AGENT-B",
                "--tool",
                "bash",
                "--decision",
                "denied",
            ],
            set(&[5]),
        ),
        (vec!["--grep", "not today"], set(&[4])),
        (vec!["--grep", "fresh line"], set(&[12])),
        (vec!["--grep", "gamma"], set(&[13])),
        (vec!["--grep", "exit code: 1"], set(&[11])),
        (vec!["--grep", "APPROVE-ME"], set(&[3, 11])),
        (vec!["--grep", "nothing like this"], set(&[])),
        (vec!["--since", "1h"], expected_ids(&all)),
    ];
    for (args, want) in &cases {
        let mut human = vec!["log"];
        human.extend(args);
        let o = airlock(&f.data, &human);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let text = stdout(&o);
        assert_eq!(&human_ids(&text), want, "human {args:?}:\n{text}");
        let mut json = human.clone();
        json.push("--json");
        let o = airlock(&f.data, &json);
        let text = stdout(&o);
        assert_eq!(&json_ids(&text), want, "json {args:?}:\n{text}");
        // Session-level records only pass when no call filter is set.
        let session_level = records(&text)
            .iter()
            .filter(|r| r.get("call_id").is_none() && r.get("call").is_none())
            .count();
        if args[0] == "--since" {
            assert_eq!(session_level, 6, "{text}");
        } else {
            assert_eq!(session_level, 0, "{args:?}: {text}");
        }
        // Filtered records are still the trail's own lines.
        for l in text.lines() {
            assert!(raw.lines().any(|r| r == l));
        }
    }

    // --since a time: the calls requested from then on.
    let recs = records(&raw);
    let ninth = recs.iter().find(|r| r["call"]["id"] == 9).unwrap()["call"]["received_at"]
        .as_str()
        .unwrap()
        .to_string();
    let o = airlock(&f.data, &["log", "--json", "--since", &ninth]);
    assert_eq!(json_ids(&stdout(&o)), set(&[9, 10, 11, 12, 13, 14]));
    let o = airlock(&f.data, &["log", "--since", "2099-01-01T00:00:00Z"]);
    assert_eq!(human_ids(&stdout(&o)), set(&[]));
    assert!(stdout(&o).contains("0 of 14 calls shown"), "{}", stdout(&o));

    // Bad filters are refused with the words that work.
    let o = airlock(&f.data, &["log", "--decision", "maybe"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("approved, auto, user"),
        "{}",
        stderr(&o)
    );
    let o = airlock(&f.data, &["log", "--since", "yesterday"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("RFC 3339"), "{}", stderr(&o));
}
