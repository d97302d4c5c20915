//! Processes found through /proc: which `airlock connect` relays run in a
//! directory, and what environment they were given.

use std::path::Path;

/// A running `airlock connect`.
#[derive(Debug, Clone)]
pub struct Relay {
    pub pid: u32,
    pub args: Vec<String>,
    /// The names of its environment variables.
    pub env: Vec<String>,
}

fn split(bytes: &[u8]) -> Vec<String> {
    bytes
        .split(|b| *b == 0)
        .filter(|s| !s.is_empty())
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect()
}

/// Every `airlock connect` whose working directory is `dir`.
pub fn relays_in(dir: &Path) -> Vec<Relay> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in rd.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let proc = e.path();
        if std::fs::read_link(proc.join("cwd")).ok().as_deref() != Some(dir) {
            continue;
        }
        let args = split(&std::fs::read(proc.join("cmdline")).unwrap_or_default());
        let is_relay = args.first().is_some_and(|a| a.ends_with("airlock"))
            && args.iter().any(|a| a == "connect");
        if !is_relay {
            continue;
        }
        let env = split(&std::fs::read(proc.join("environ")).unwrap_or_default())
            .into_iter()
            .filter_map(|kv| kv.split_once('=').map(|(k, _)| k.to_string()))
            .collect();
        out.push(Relay { pid, args, env });
    }
    out
}
