//! Shared set-up for the `airlock init` tests: a temporary home and project
//! with copies of real agent configuration files.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use airlock::init::{Action, Agent, AgentHomes, Options, Report};

/// The agent versions the fixtures come from and `init` was written for.
pub const PINNED: [(&str, &str); 3] = [
    ("Claude Code", "2.1.197"),
    ("Codex CLI", "0.171.0"),
    ("Gemini CLI", "0.61.0"),
];

/// A home directory, a project and airlock's data directory in a tempdir.
pub struct World {
    pub dir: tempfile::TempDir,
    pub home: PathBuf,
    pub project: PathBuf,
    pub data: PathBuf,
}

impl World {
    pub fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("proj");
        let data = dir.path().join("data");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        World {
            dir,
            home,
            project,
            data,
        }
    }

    /// Copy `tests/fixtures/init/<fixture>` to `dest` (relative to the
    /// tempdir root: `home/...` or `proj/...`); returns the copy's path.
    pub fn put(&self, fixture: &str, dest: &str) -> PathBuf {
        let to = self.dir.path().join(dest);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(fixture_path(fixture), &to).unwrap();
        to
    }

    pub fn options(&self, agent: Agent, action: Action) -> Options {
        Options {
            agent,
            action,
            project: false,
            trust_folder: false,
            dry_run: false,
            // The tests from before hooks: MCP only, native tools off.
            hooks: false,
            mcp: true,
            command: PathBuf::from("/opt/airlock/bin/airlock"),
            homes: AgentHomes {
                home: self.home.clone(),
                claude_config_dir: None,
                codex_home: None,
                gemini_cli_home: None,
            },
            project_dir: self.project.clone(),
            record_dir: self.data.join("init"),
            http_url: None,
        }
    }

    pub fn install(&self, agent: Agent) -> Report {
        airlock::init::run(&self.options(agent, Action::Install)).unwrap()
    }

    pub fn remove(&self, agent: Agent) -> Report {
        airlock::init::run(&self.options(agent, Action::Remove)).unwrap()
    }
}

pub fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/init")
        .join(name)
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Parse strict JSON (what Claude Code's `JSON.parse` accepts).
pub fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Parse JSON with comments the way Gemini CLI does (comments stripped).
pub fn jsonc(path: &Path) -> serde_json::Value {
    let text = read(path);
    let opts = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_extended_string_escapes: false,
        allow_non_finite_numbers: false,
    };
    jsonc_parser::cst::CstRootNode::parse(&text, &opts)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_serde_value()
        .unwrap_or(serde_json::Value::Null)
}

/// Parse TOML.
pub fn toml(path: &Path) -> toml::Table {
    read(path)
        .parse::<toml::Table>()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Whether every file of the report is unchanged.
pub fn all_unchanged(report: &Report) -> bool {
    !report.changed_anything()
}
