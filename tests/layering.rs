//! The layers go one way. Every file under `src/` is read for the crate
//! paths it names (`use crate::x::…`, `use crate::{x, y::z}`, `crate::x::f()`,
//! `super::` that climbs to the crate root); each path is an edge from the
//! file's top-level module to the one it names. The check fails on an edge
//! from a lower layer to a higher one, on a cycle between top-level modules
//! (also inside one layer), on a cycle between the submodules of one
//! top-level module (`hooks::change` ↔ `hooks::native`; `super::` paths and
//! names re-exported by the module's `mod.rs` count; the few not fixed yet
//! are listed in `KNOWN_SUBMODULE_EDGES` with what fixes them), on a module
//! no layer lists or a listed module that does not exist, and on a terminal
//! crate in the core or MCP in the TUI. The control tests inject an upward
//! import and cycles into the same sources and show each is caught.
//!
//! Run it with `cargo test --test layering` (`LAYERING_SRC=/other/src` checks
//! another checkout); ARCHITECTURE.md explains the layers.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first. A module may name modules of its own layer or
/// lower ones, never a higher one, and never in a circle.
const LAYERS: &[(&str, &[&str])] = &[
    ("call vocabulary", &["call"]),
    (
        "core",
        &[
            "dirs", "files", "scope", "policy", "tools", "audit", "sandbox", "config",
        ],
    ),
    ("supervisor", &["supervisor", "session"]),
    ("transports", &["mcp", "hooks"]),
    ("front ends", &["tui", "report", "init", "demo"]),
];

/// External crates a layer must not use: the core and the supervisor know
/// nothing about terminals; the TUI does not speak MCP.
const FORBIDDEN_CRATES: &[(&str, &[&str])] = &[
    ("call", &["ratatui", "crossterm", "rmcp"]),
    ("core", &["ratatui", "crossterm"]),
    ("supervisor", &["ratatui", "crossterm"]),
    ("tui", &["rmcp"]),
];

/// One import: `from` (a top-level module) names `to` in `file:line`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    from: String,
    to: String,
    file: String,
    line: usize,
}

/// The sources: path relative to `src/` → text.
type Sources = BTreeMap<String, String>;

/// This crate's `src/`, or the directory in `LAYERING_SRC` (to check
/// another checkout's sources with this test before merging it).
fn read_sources() -> Sources {
    let root = std::env::var_os("LAYERING_SRC").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        PathBuf::from,
    );
    let mut out = Sources::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read src") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(&root).expect("under src");
                let text = std::fs::read_to_string(&path).expect("read source");
                out.insert(rel.to_string_lossy().into_owned(), text);
            }
        }
    }
    out
}

/// The module path of a file: `tools/bash/mod.rs` → `[tools, bash]`.
fn module_path(rel: &str) -> Vec<String> {
    let p = PathBuf::from(rel);
    let mut parts: Vec<String> = p.iter().map(|c| c.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

/// The code of a line without its `//` comment (doc links are not imports).
fn code_of(line: &str) -> &str {
    match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    }
}

/// How many inline modules (`mod tests {`) each line is inside. Sources
/// are rustfmt'ed: an inline module closes with a `}` at its own indent.
fn inline_depths(code: &[&str]) -> Vec<usize> {
    let mut open: Vec<String> = Vec::new();
    let mut out = Vec::with_capacity(code.len());
    for line in code {
        let indent = &line[..line.len() - line.trim_start().len()];
        if open
            .last()
            .is_some_and(|i| line.trim_end() == format!("{i}}}"))
        {
            open.pop();
        }
        out.push(open.len());
        let t = line.trim();
        let t = t.strip_prefix("pub ").unwrap_or(t);
        if let Some(rest) = t.strip_prefix("mod ")
            && rest.trim_end().ends_with('{')
        {
            open.push(indent.to_string());
        }
    }
    out
}

/// Where a `super::` chain on `line` (at inline depth `depth`) of the file
/// whose module path is `module` climbs to: how many of `module`'s parts
/// remain. `None` when it climbs out of the crate.
fn climbs_to(line: &str, col: usize, module: &[String], depth: usize) -> Option<(usize, usize)> {
    let mut rest = &line[col..];
    let mut ups = 0;
    while let Some(r) = rest.strip_prefix("super::") {
        ups += 1;
        rest = r;
    }
    // The inline modules come first, then the file's own path.
    let remain = (module.len() + depth).checked_sub(ups)?;
    (remain <= module.len()).then_some((remain, line.len() - rest.len()))
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The first identifier of `s`.
fn ident(s: &str) -> &str {
    let s = s.trim_start();
    let end = s.find(|c: char| !is_ident(c)).unwrap_or(s.len());
    &s[..end]
}

/// The top-level names a crate path starting at `rest` (just after
/// `crate::`) names: one for `x::…`, each item's first for `{x, y::z}`.
fn names_after(rest: &str, text_after: &str) -> Vec<String> {
    let rest = rest.trim_start();
    if !rest.starts_with('{') {
        return vec![ident(rest).to_string()];
    }
    // A group may span lines: take the text up to its matching brace.
    let mut depth = 0usize;
    let mut items = Vec::new();
    let mut current = String::new();
    for c in text_after.chars() {
        match c {
            '{' => {
                depth += 1;
                if depth == 1 {
                    continue;
                }
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    items.push(std::mem::take(&mut current));
                    break;
                }
            }
            ',' if depth == 1 => {
                items.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        if depth >= 1 {
            current.push(c);
        }
    }
    items
        .iter()
        .map(|i| ident(i).to_string())
        .filter(|i| !i.is_empty())
        .collect()
}

/// Every crate path named in one file.
fn edges_of(rel: &str, text: &str) -> Vec<Edge> {
    let Some(from) = module_path(rel).first().cloned() else {
        return Vec::new(); // lib.rs
    };
    // `super::` chains count when they climb out of the top-level module.
    crate_paths(rel, text, "crate::", 0)
        .into_iter()
        .map(|(to, n)| edge(&from, &to, rel, n))
        .collect()
}

/// The names crate paths in the file `rel` name (with their 0-based line),
/// read the same way for the top-level and the submodule checks: each name
/// after `prefix` (`crate::` or `crate::top::`), and after each `super::`
/// chain that climbs to where `climb_to` parts of the file's module path
/// remain (0: the crate root, 1: its top-level module).
fn crate_paths(rel: &str, text: &str, prefix: &str, climb_to: usize) -> Vec<(String, usize)> {
    let module = module_path(rel);
    // Comment-free text, to read groups that span lines.
    let code: Vec<&str> = text.lines().map(code_of).collect();
    let depths = inline_depths(&code);
    let joined_from = |line: usize, col: usize| -> String {
        let mut s = code[line][col..].to_string();
        for l in code.iter().skip(line + 1).take(40) {
            s.push('\n');
            s.push_str(l);
        }
        s
    };
    let mut out = Vec::new();
    for (n, line) in code.iter().enumerate() {
        for (col, _) in line.match_indices(prefix) {
            let before = line[..col].chars().next_back();
            if before.is_some_and(|c| is_ident(c) || c == '$') {
                continue;
            }
            let start = col + prefix.len();
            for name in names_after(&line[start..], &joined_from(n, start)) {
                out.push((name, n));
            }
        }
        for (col, _) in line.match_indices("super::") {
            if line[..col].chars().next_back().is_some_and(is_ident)
                || line[..col].ends_with("super::")
            {
                continue;
            }
            match climbs_to(line, col, &module, depths[n]) {
                Some((left, start)) if left == climb_to => {
                    for name in names_after(&line[start..], &joined_from(n, start)) {
                        out.push((name, n));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

fn edge(from: &str, to: &str, rel: &str, line: usize) -> Edge {
    Edge {
        from: from.to_string(),
        to: to.to_string(),
        file: format!("src/{rel}"),
        line: line + 1,
    }
}

/// The layer index of each top-level module.
fn layer_of() -> BTreeMap<&'static str, usize> {
    let mut out = BTreeMap::new();
    for (i, (_, mods)) in LAYERS.iter().enumerate() {
        for m in *mods {
            out.insert(*m, i);
        }
    }
    out
}

/// The crate's top-level modules: `src/x.rs` and `src/x/mod.rs`.
fn top_level_modules(sources: &Sources) -> BTreeSet<String> {
    sources
        .keys()
        .filter_map(|rel| module_path(rel).first().cloned())
        .filter(|m| m != "main")
        .collect()
}

/// Everything wrong with the sources' layering, one line each.
fn violations(sources: &Sources) -> Vec<String> {
    let layers = layer_of();
    let modules = top_level_modules(sources);
    let mut problems = Vec::new();
    for m in &modules {
        if !layers.contains_key(m.as_str()) {
            problems.push(format!(
                "module `{m}` is in no layer: add it to LAYERS in tests/layering.rs and to ARCHITECTURE.md"
            ));
        }
    }
    let mut edges: Vec<Edge> = sources
        .iter()
        // main.rs is its own crate (the binary, the top layer).
        .filter(|(rel, _)| rel.as_str() != "main.rs")
        .flat_map(|(rel, text)| edges_of(rel, text))
        .filter(|e| e.from != e.to && modules.contains(&e.to))
        .collect();
    edges.sort();
    for e in &edges {
        if let (Some(f), Some(t)) = (layers.get(e.from.as_str()), layers.get(e.to.as_str()))
            && t > f
        {
            problems.push(format!(
                "{}:{}: `{}` ({}) imports `{}` ({}), a higher layer",
                e.file, e.line, e.from, LAYERS[*f].0, e.to, LAYERS[*t].0
            ));
        }
    }
    problems.extend(cycles(&edges));
    problems.extend(submodule_cycles(sources));
    problems.extend(forbidden_crates(sources));
    problems
}

/// The submodules of each top-level module: `hooks` → `{answer, change, …}`
/// (`hooks/change.rs` and `hooks/x/mod.rs` alike).
fn submodules(sources: &Sources) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for rel in sources.keys() {
        if let [top, sub, ..] = module_path(rel).as_slice() {
            out.entry(top.clone()).or_default().insert(sub.clone());
        }
    }
    out
}

/// What a top-level module's `mod.rs` re-exports from its submodules:
/// `pub use pipeline::{CallError, Supervisor};` → `CallError` → `pipeline`.
fn reexports(mod_rs: &str, children: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let code: Vec<&str> = mod_rs.lines().map(code_of).collect();
    for (n, line) in code.iter().enumerate() {
        let Some(rest) = ["pub use ", "pub(crate) use ", "pub(super) use "]
            .iter()
            .find_map(|p| line.strip_prefix(p))
        else {
            continue;
        };
        let mut stmt = rest.to_string();
        for l in code.iter().skip(n + 1).take(40) {
            if stmt.contains(';') {
                break;
            }
            stmt.push_str(l);
        }
        let stmt = stmt.split(';').next().unwrap_or_default();
        let stmt = stmt.trim().trim_start_matches("self::");
        let child = ident(stmt);
        if !children.contains(child) {
            continue;
        }
        for piece in stmt[child.len()..].split(['{', '}', ',']) {
            let piece = piece.trim();
            if piece.is_empty() || piece.ends_with("::") || piece.ends_with('*') {
                continue;
            }
            let name = piece.rsplit(" as ").next().unwrap_or(piece);
            let name = ident(name.rsplit("::").next().unwrap_or(name));
            if !name.is_empty() {
                out.insert(name.to_string(), child.to_string());
            }
        }
    }
    out
}

/// Each crate path a file of `top` names inside `top`: `crate::top::x::…`
/// and `super::x` climbing to `top` (from `top/a/b.rs`, `[top, a, b]`, two
/// `super::` reach it), with the name after `top`.
fn paths_inside(rel: &str, text: &str, top: &str) -> Vec<(String, usize)> {
    crate_paths(rel, text, &format!("crate::{top}::"), 1)
}

/// Imports between submodules that close a cycle and are not fixed yet,
/// each with what fixes it. Each must still exist (a test checks), so the
/// entry goes once the cycle is broken.
const KNOWN_SUBMODULE_EDGES: &[(&str, &str, &str)] = &[];

/// Import cycles between the submodules of one top-level module
/// (`hooks::change` → `hooks::native` → `hooks::change`), a name the
/// module's `mod.rs` re-exports counted as its submodule's.
fn submodule_cycles(sources: &Sources) -> Vec<String> {
    let edges: Vec<Edge> = submodule_edges(sources)
        .into_iter()
        .filter(|e| {
            !KNOWN_SUBMODULE_EDGES
                .iter()
                .any(|(f, t, _)| e.from == *f && e.to == *t)
        })
        .collect();
    cycles(&edges)
}

/// Every import from one submodule to another of the same top-level
/// module, sorted.
fn submodule_edges(sources: &Sources) -> Vec<Edge> {
    let mut edges = Vec::new();
    for (top, children) in submodules(sources) {
        let mod_rs = sources
            .get(&format!("{top}/mod.rs"))
            .map_or(BTreeMap::new(), |t| reexports(t, &children));
        for (rel, text) in sources {
            let module = module_path(rel);
            let [t, from, ..] = module.as_slice() else {
                continue;
            };
            if *t != top {
                continue;
            }
            for (name, line) in paths_inside(rel, text, &top) {
                let to = if children.contains(&name) {
                    Some(&name)
                } else {
                    mod_rs.get(&name)
                };
                if let Some(to) = to.filter(|to| *to != from) {
                    edges.push(edge(
                        &format!("{top}::{from}"),
                        &format!("{top}::{to}"),
                        rel,
                        line,
                    ));
                }
            }
        }
    }
    edges.sort();
    edges
}

/// Each cycle between top-level modules, with one `file:line` per step.
fn cycles(edges: &[Edge]) -> Vec<String> {
    let mut graph: BTreeMap<&str, BTreeMap<&str, &Edge>> = BTreeMap::new();
    for e in edges {
        graph
            .entry(e.from.as_str())
            .or_default()
            .entry(e.to.as_str())
            .or_insert(e);
    }
    let mut reported: BTreeSet<BTreeSet<&str>> = BTreeSet::new();
    let mut out = Vec::new();
    for &start in graph.keys() {
        // Breadth-first from `start` back to itself: the shortest cycle.
        let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        let mut found = None;
        while let Some(n) = queue.pop_front() {
            for &next in graph.get(n).map(|m| m.keys()).into_iter().flatten() {
                if next == start {
                    found = Some(n);
                    break;
                }
                if !prev.contains_key(next) {
                    prev.insert(next, n);
                    queue.push_back(next);
                }
            }
            if found.is_some() {
                break;
            }
        }
        let Some(mut n) = found else { continue };
        let mut path = vec![start];
        let mut back = vec![n];
        while n != start {
            n = prev.get(n).copied().unwrap_or(start);
            if n != start {
                back.push(n);
            }
        }
        back.reverse();
        path.extend(back);
        let members: BTreeSet<&str> = path.iter().copied().collect();
        if !reported.insert(members) {
            continue;
        }
        path.push(start);
        let steps: Vec<String> = path
            .windows(2)
            .map(|w| {
                let e = graph[w[0]][w[1]];
                format!("{} → {} ({}:{})", w[0], w[1], e.file, e.line)
            })
            .collect();
        out.push(format!("import cycle: {}", steps.join(", ")));
    }
    out
}

/// `use ratatui` in the core and the like.
fn forbidden_crates(sources: &Sources) -> Vec<String> {
    let layers = layer_of();
    let mut out = Vec::new();
    for (rel, text) in sources {
        let Some(module) = module_path(rel).first().cloned() else {
            continue;
        };
        let group = match layers.get(module.as_str()) {
            Some(0) => "call",
            Some(1) => "core",
            Some(2) => "supervisor",
            _ if module == "tui" => "tui",
            _ => continue,
        };
        let banned = FORBIDDEN_CRATES
            .iter()
            .find(|(g, _)| *g == group)
            .map_or(&[][..], |(_, c)| *c);
        for (n, line) in text.lines().enumerate() {
            let code = code_of(line);
            for krate in banned {
                let hit = code.match_indices(krate).any(|(i, _)| {
                    let before = code[..i].chars().next_back();
                    let after = &code[i + krate.len()..];
                    !before.is_some_and(|c| is_ident(c) || c == '"') && after.starts_with("::")
                });
                if hit {
                    out.push(format!(
                        "src/{rel}:{}: `{module}` ({group}) uses the `{krate}` crate",
                        n + 1
                    ));
                }
            }
        }
    }
    out
}

#[test]
fn the_layers_go_one_way_and_no_modules_import_in_a_circle() {
    let problems = violations(&read_sources());
    assert!(
        problems.is_empty(),
        "{} layering problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn control_an_injected_upward_import_is_caught() {
    let mut sources = read_sources();
    let scope = sources.get_mut("scope/mod.rs").expect("scope/mod.rs");
    scope.push_str("\n#[allow(unused_imports)]\nuse crate::tui::App; // injected\n");
    let problems = violations(&sources);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("`scope` (core) imports `tui` (front ends), a higher layer")),
        "{problems:#?}"
    );
}

#[test]
fn control_grouped_and_multi_line_imports_are_read() {
    let text = "use crate::{\n    dirs,\n    tools::{Tool, ToolSpec},\n};\nfn f() { crate::audit::x(); let _ = pub_crate::y; }\n// crate::tui in a comment\n";
    let mut to: Vec<String> = edges_of("scope/x.rs", text)
        .into_iter()
        .map(|e| e.to)
        .collect();
    to.sort();
    assert_eq!(to, ["audit", "dirs", "tools"]);
    let climb = edges_of("policy/shell/x.rs", "use super::super::super::tui::App;\n");
    assert_eq!(climb.first().map(|e| e.to.as_str()), Some("tui"));
}

#[test]
fn control_an_injected_cycle_inside_a_layer_is_caught() {
    let mut sources = Sources::new();
    sources.insert("dirs.rs".into(), "use crate::scope::Scope;\n".into());
    sources.insert("scope/mod.rs".into(), "use crate::dirs::data_dir;\n".into());
    let problems = violations(&sources);
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("import cycle: dirs → scope (src/dirs.rs:1), scope → dirs")),
        "{problems:#?}"
    );
    // The same two files without the back edge are fine.
    sources.insert("dirs.rs".into(), "pub fn data_dir() {}\n".into());
    assert_eq!(violations(&sources), Vec::<String>::new());
}

#[test]
fn every_module_the_layers_list_exists() {
    let modules = top_level_modules(&read_sources());
    let missing: Vec<&str> = LAYERS
        .iter()
        .flat_map(|(_, mods)| mods.iter().copied())
        .filter(|m| !modules.contains(*m))
        .collect();
    assert_eq!(
        missing,
        Vec::<&str>::new(),
        "LAYERS lists modules src/ does not have"
    );
}

#[test]
fn each_known_submodule_exception_is_still_needed() {
    let edges = submodule_edges(&read_sources());
    for (from, to, why) in KNOWN_SUBMODULE_EDGES {
        assert!(
            edges.iter().any(|e| e.from == *from && e.to == *to),
            "{from} no longer imports {to} ({why}): remove it from KNOWN_SUBMODULE_EDGES"
        );
    }
}

#[test]
fn control_an_injected_cycle_between_submodules_is_caught() {
    let mut sources = Sources::new();
    let mod_rs = "mod a;\nmod b;\nmod c;\npub use c::{\n    Gamma,\n    deep::Delta as D,\n};\n";
    sources.insert("dirs.rs".into(), String::new());
    sources.insert("scope/mod.rs".into(), mod_rs.into());
    sources.insert("scope/a.rs".into(), "use super::b::B;\n".into());
    sources.insert("scope/b.rs".into(), "pub struct B;\n".into());
    sources.insert("scope/c/mod.rs".into(), "pub struct Gamma;\n".into());
    sources.insert("scope/c/deep.rs".into(), "pub struct Delta;\n".into());
    assert_eq!(violations(&sources), Vec::<String>::new());
    // b → a closes a cycle, by `crate::` path or `super::`.
    for back in ["fn f() { crate::scope::a::g(); }\n", "use super::{a::A};\n"] {
        sources.insert("scope/b.rs".into(), back.into());
        let problems = violations(&sources);
        assert!(
            problems.iter().any(|p| p.starts_with(
                "import cycle: scope::a → scope::b (src/scope/a.rs:1), scope::b → scope::a (src/scope/b.rs:1)"
            )),
            "{problems:#?}"
        );
    }
    // Through names the parent re-exports, from a file one level deeper.
    sources.insert("scope/b.rs".into(), "pub struct B;\n".into());
    sources.insert("scope/a.rs".into(), "use super::{D, b::B};\n".into());
    sources.insert("scope/c/deep.rs".into(), "use super::super::a::A;\n".into());
    let problems = violations(&sources);
    assert!(
        problems.iter().any(|p| p.starts_with(
            "import cycle: scope::a → scope::c (src/scope/a.rs:1), scope::c → scope::a (src/scope/c/deep.rs:1)"
        )),
        "{problems:#?}"
    );
}

#[test]
fn control_a_terminal_crate_in_the_core_is_caught() {
    let mut sources = Sources::new();
    sources.insert(
        "policy/x.rs".into(),
        "use ratatui::text::Line;\nconst S: &str = \"ratatui::\";\n".into(),
    );
    let problems = violations(&sources);
    assert_eq!(
        problems,
        ["src/policy/x.rs:1: `policy` (core) uses the `ratatui` crate"]
    );
}
