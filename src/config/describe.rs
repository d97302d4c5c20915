//! `airlock config`: the effective configuration and where each value came
//! from.

use std::fmt::Write;

use super::{Ignored, LoadedConfig};

/// Render the effective configuration, one `key = value` per line, each
/// with the file that set it; rules list their files one by one.
pub fn describe(loaded: &LoadedConfig) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# files read, later ones override earlier ones:");
    for s in &loaded.sources {
        let _ = writeln!(out, "#   {}", s.path.display());
    }
    if let Some(p) = &loaded.project {
        let file = p.path.display();
        if p.trusted {
            let _ = writeln!(
                out,
                "# {file} is trusted (airlock trust): all of it applies"
            );
        } else if p.ignored.is_empty() {
            let _ = writeln!(
                out,
                "# {file} is not trusted; it only tightens, so all of it applies"
            );
        } else {
            let _ = writeln!(
                out,
                "# {file} is NOT trusted: what in it loosens your configuration is ignored:"
            );
            for i in &p.ignored {
                let _ = writeln!(out, "#   {i}");
            }
            let _ = writeln!(
                out,
                "# `airlock trust` shows the file's loosening again and applies it"
            );
        }
    }
    let effective = toml::Value::try_from(&loaded.config)
        .unwrap_or(toml::Value::Table(toml::map::Map::default()));
    let mut flat = Vec::new();
    flatten("", &effective, &mut flat);
    let width = flat
        .iter()
        .map(|(k, v)| k.len() + v.len() + 3)
        .filter(|w| *w < 60)
        .max()
        .unwrap_or(40);
    for (key, value) in &flat {
        if matches!(key.as_str(), "allow" | "ask" | "deny") {
            continue;
        }
        let line = format!("{key} = {value}");
        let _ = writeln!(out, "{line:<width$}  # {}", source_of(loaded, key));
    }
    let _ = writeln!(out, "{RULE_FORMS}");
    for action in ["deny", "ask", "allow"] {
        let rules: Vec<_> = loaded
            .rules
            .iter()
            .filter(|r| r.action.as_str() == action)
            .collect();
        if rules.is_empty() {
            let _ = writeln!(out, "{action} = []");
            continue;
        }
        let _ = writeln!(out, "{action} = [");
        for r in rules {
            let item = format!("    {:?},", r.text());
            let _ = writeln!(out, "{item:<width$}  # {}", r.source);
        }
        let _ = writeln!(out, "]");
    }
    out
}

/// What the rules' specifiers mean (README's Policy section says more).
const RULE_FORMS: &str = "\
# rules: tool = every call; bash(cargo test *) = those words, then anything;
#   bash(git status) = exactly those words; bash(=TEXT) = exactly this command
#   line, nothing in it a pattern (what \"always\" saves for one command);
#   write_file(src/**) = a glob; write_file(=PATH) = exactly this file";

fn flatten(prefix: &str, v: &toml::Value, out: &mut Vec<(String, String)>) {
    match v {
        toml::Value::Table(t) => {
            for (k, v) in t {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        other => out.push((prefix.to_string(), other.to_string())),
    }
}

/// The last layer that set `key` (a dotted path).
fn source_of(loaded: &LoadedConfig, key: &str) -> String {
    let parts: Vec<&str> = key.split('.').collect();
    for (name, table) in loaded.layers.iter().rev() {
        let mut cur: Option<&toml::Value> = None;
        let mut tbl = Some(table);
        for p in &parts {
            cur = tbl.and_then(|t| t.get(*p));
            tbl = cur.and_then(toml::Value::as_table);
        }
        if cur.is_some() {
            return name.clone();
        }
    }
    "built-in".to_string()
}

/// What `airlock trust` says about `file` before it records it: what in it
/// loosens the user's configuration (and so applies only once trusted).
pub fn describe_loosening(file: &std::path::Path, sha256: &str, ignored: &[Ignored]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} (sha256 {sha256})", file.display());
    if ignored.is_empty() {
        let _ = writeln!(
            out,
            "  loosens nothing in your configuration: it applies untrusted too"
        );
        return out;
    }
    let _ = writeln!(
        out,
        "  loosens your configuration, applied only while you trust this content:"
    );
    for i in ignored {
        let _ = writeln!(out, "    {i}");
    }
    out
}
