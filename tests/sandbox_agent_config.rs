//! An approved command cannot rewrite the agents' project settings, which
//! run outside the sandbox later without asking: Claude Code's
//! `.claude/settings*.json` (hooks, permissions) and `.mcp.json` (servers
//! approved by name), Codex's `.codex/config.toml`, Gemini CLI's
//! `.gemini/settings.json`, whether they exist already or not. An absent
//! `.mcp.json` gets no empty placeholder (Claude Code would fail to parse
//! it). The control: with `protect = []` every one of these writes lands.

mod sandbox_support;

use sandbox_support::{Fixture, fixture};

/// Files `airlock init --project` writes, present before the shell starts.
const PRESENT: &[&str] = &[
    ".claude/settings.local.json",
    ".mcp.json",
    ".codex/config.toml",
    ".gemini/settings.json",
];

/// Files an attacker would create.
const ABSENT: &[&str] = &[".claude/settings.json", ".claude/commands/run.md"];

fn setup(f: &Fixture) {
    for p in PRESENT {
        let path = f.ws.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "{}\n").unwrap();
    }
}

/// The paths the shell managed to change (written, replaced or created).
async fn changed(f: &Fixture) -> Vec<String> {
    let mut out = Vec::new();
    for p in PRESENT.iter().chain(ABSENT) {
        let dir = std::path::Path::new(p)
            .parent()
            .unwrap()
            .display()
            .to_string();
        let mkdir = if dir.is_empty() {
            String::new()
        } else {
            format!("mkdir -p '{dir}'; ")
        };
        for attempt in [
            format!("{mkdir}echo '{{\"hooks\":1}}' > '{p}'"),
            format!("{mkdir}echo '{{\"hooks\":1}}' > /tmp/x && mv /tmp/x '{p}'"),
        ] {
            let _ = f.bash(&attempt).await;
        }
        let now = std::fs::read_to_string(f.ws.join(p)).unwrap_or_default();
        if now.contains("hooks") {
            out.push((*p).to_string());
        }
    }
    out
}

#[tokio::test]
async fn agent_settings_stay_read_only() {
    let f = fixture("");
    setup(&f);
    assert!(!f.ws.join(".claude/settings.json").exists());
    f.restart().await;
    let got = changed(&f).await;
    assert!(got.is_empty(), "the shell changed {got:?}");
    for p in PRESENT {
        assert_eq!(
            std::fs::read_to_string(f.ws.join(p)).unwrap(),
            "{}\n",
            "{p}"
        );
    }
}

#[tokio::test]
async fn an_absent_mcp_json_gets_no_placeholder() {
    let f = fixture("");
    f.ok("true").await;
    assert!(
        !f.ws.join(".mcp.json").exists(),
        "an empty .mcp.json would break Claude Code's parse"
    );
    assert!(f.ws.join(".claude").is_dir(), "the .claude placeholder");
}

#[tokio::test]
async fn control_without_protect_every_write_lands() {
    let f = fixture("protect = []");
    setup(&f);
    f.restart().await;
    let got = changed(&f).await;
    let all: Vec<String> = PRESENT
        .iter()
        .chain(ABSENT)
        .map(|p| (*p).to_string())
        .collect();
    assert_eq!(got, all);
}
