//! Native reads in airlock's terms: one file (Claude `Read`, Gemini
//! `read_file`) checked by `read_file` itself, a listing (`LS`,
//! `list_directory`) by the scope, and the recursive searches (Claude
//! `Grep`/`Glob`, Gemini `grep_search`/`glob`/`read_many_files`) by
//! everything below where they start ([`search`]). Every path is the one
//! the agent's tool uses: relative ones against the event's `cwd`, and
//! where a tool takes its directory in one of several arguments (Gemini's
//! `dir_path`, older `path` or `directory`), every one given is checked,
//! with the agent's directory when the tool's own argument is absent.

use std::path::Path;

use serde_json::{Map, Value};

use super::agent_path;
use super::mapped::{Mapped, NativeCall, airlock_tool, one_line, unreadable};
use super::search::{Reach, Search};
use super::search_filter::{Filter, split};
use crate::call::{Subject, ToolKind};
use crate::policy::PathRules;
use crate::scope::Scope;
use crate::tools::ToolError;
use crate::tools::readonly::{READ_FILE, read_file_args};

/// What a native read is given: its name, arguments, the agent's
/// directory, the scope and the policy's path rules.
pub struct ReadCall<'a> {
    /// The agent's tool name.
    pub native: &'a str,
    /// Its arguments.
    pub input: &'a Map<String, Value>,
    /// The event's `cwd`.
    pub cwd: Option<&'a Path>,
    /// The scope.
    pub scope: &'a Scope,
    /// The policy's deny and ask rules about paths.
    pub rules: &'a PathRules,
}

/// The arguments a search's start and pattern are in.
pub struct Args<'k> {
    /// Where it starts, the tool's own argument first; the agent's
    /// directory when that one is absent.
    pub start: &'k [&'k str],
    /// Its filter (grep) or selection (glob) pattern.
    pub pattern: &'k [&'k str],
    /// Arguments that widen the selection beyond what airlock reads of
    /// the pattern (Claude `Grep`'s `type`): any entry may be read.
    pub widen: &'k [&'k str],
}

impl ReadCall<'_> {
    fn text(&self, key: &str) -> Option<&str> {
        self.input.get(key).and_then(Value::as_str)
    }

    fn call(&self, tool: &str, what: &str) -> NativeCall {
        NativeCall::new(
            ToolKind::Read,
            tool,
            one_line(&format!("{} {what}", self.native)),
        )
    }

    fn refused(&self, tool: &str, what: &str, error: ToolError) -> Mapped {
        Mapped::Refused {
            call: self.call(tool, what),
            error,
        }
    }

    /// One file, checked by `read_file` itself (same messages).
    pub fn file(&self, keys: &[&str]) -> Mapped {
        let Some(path) = keys.iter().find_map(|k| self.text(k)) else {
            return unreadable(ToolKind::Read, READ_FILE, self.native, "no path");
        };
        let path = match agent_path::resolve(self.native, self.cwd, path) {
            Ok(p) => p,
            Err(e) => return self.refused(READ_FILE, path, e),
        };
        let mut call = self.call(READ_FILE, &path);
        match airlock_tool(READ_FILE).prepare(&read_file_args(&path), self.scope) {
            Ok(inv) => {
                call.subject = inv.subject();
                Mapped::Call(call)
            }
            Err(error) => Mapped::Refused { call, error },
        }
    }

    /// The directories a tool starts from (see [`Args::start`]).
    fn starts(&self, keys: &[&str]) -> Result<Vec<String>, ToolError> {
        let mut given = Vec::new();
        for key in keys {
            match self.input.get(*key) {
                None | Some(Value::Null) => {}
                Some(Value::String(s)) => given.push(s.as_str()),
                Some(_) => {
                    return Err(ToolError::InvalidArguments {
                        tool: self.native.to_string(),
                        message: format!(
                            "{key} is not a string; airlock cannot tell where the tool reads, \
                             so the call was not run"
                        ),
                    });
                }
            }
        }
        let own_absent = keys
            .first()
            .is_none_or(|k| self.input.get(*k).is_none_or(Value::is_null));
        if own_absent {
            given.push(".");
        }
        let mut out = Vec::new();
        for p in given {
            let p = agent_path::resolve(self.native, self.cwd, p)?;
            if !out.contains(&p) {
                out.push(p);
            }
        }
        Ok(out)
    }

    /// A listing of one level (`LS`, `list_directory`): each directory it
    /// may list, checked by the scope.
    pub fn listing(&self, tool: &str, keys: &[&str]) -> Mapped {
        let starts = match self.starts(keys) {
            Ok(s) => s,
            Err(e) => return self.refused(tool, "", e),
        };
        let mut call = self.call(tool, &starts.join(" "));
        let mut paths = Vec::new();
        for start in &starts {
            match self.scope.resolve(start) {
                Ok(real) => paths.push(real),
                Err(e) => {
                    return Mapped::Refused {
                        call,
                        error: e.into(),
                    };
                }
            }
        }
        call.subject = Subject::Paths { paths };
        Mapped::Call(call)
    }

    /// A recursive search: from each start, what its pattern may select.
    pub fn search(&self, tool: &str, args: &Args<'_>) -> Mapped {
        let pattern = args.pattern.iter().find_map(|k| self.text(k));
        let what = pattern.unwrap_or_default();
        let starts = match self.starts(args.start) {
            Ok(s) => s,
            Err(e) => return self.refused(tool, what, e),
        };
        let widened = args.widen.iter().any(|k| self.input.contains_key(*k))
            || args
                .pattern
                .iter()
                .filter(|k| self.input.contains_key(**k))
                .count()
                > 1;
        let mut searches = Vec::new();
        for start in &starts {
            match searches_for(start, if widened { None } else { pattern }) {
                Ok(mut s) => searches.append(&mut s),
                Err(m) => return self.refused(tool, what, invalid(self.native, m)),
            }
        }
        let summary = match pattern {
            Some(p) => format!("{p} in {}", starts.join(" ")),
            None => starts.join(" "),
        };
        self.checked(tool, &summary, &searches)
    }

    /// Gemini `read_many_files`: every `include` (older: `paths`) pattern
    /// from the agent's directory (its `exclude` only narrows, in a
    /// dialect of its own: not counted on).
    pub fn many(&self) -> Mapped {
        let patterns: Vec<&str> = ["include", "paths"]
            .iter()
            .filter_map(|k| self.input.get(*k).and_then(Value::as_array))
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let what = patterns.join(" ");
        if patterns.is_empty() {
            return unreadable(
                ToolKind::Read,
                READ_FILE,
                self.native,
                "no include patterns",
            );
        }
        let base = match agent_path::resolve(self.native, self.cwd, ".") {
            Ok(b) => b,
            Err(e) => return self.refused(READ_FILE, &what, e),
        };
        let mut searches = Vec::new();
        for p in &patterns {
            match searches_for(&base, Some(p)) {
                Ok(mut s) => searches.append(&mut s),
                Err(m) => return self.refused(READ_FILE, &what, invalid(self.native, m)),
            }
        }
        self.checked(READ_FILE, &what, &searches)
    }

    fn checked(&self, tool: &str, what: &str, searches: &[Search]) -> Mapped {
        let mut call = self.call(tool, what);
        let reach = Reach {
            native: self.native,
            tool,
            scope: self.scope,
            rules: self.rules,
        };
        match reach.check(searches) {
            Ok(paths) => {
                call.subject = Subject::Paths { paths };
                Mapped::Call(call)
            }
            Err(error) => Mapped::Refused { call, error },
        }
    }
}

/// The searches a tool starting at `start` (absolute) makes for
/// `pattern`: a relative pattern filters what lies below the start; one
/// that is absolute or climbs out with `..` reaches where its literal
/// directory is instead.
fn searches_for(start: &str, pattern: Option<&str>) -> Result<Vec<Search>, String> {
    let Some(pattern) = pattern else {
        return Ok(vec![Search {
            start: start.to_string(),
            filter: Filter::Any,
        }]);
    };
    let (dir, rest) = split(Path::new(start), pattern)?;
    let escapes = Path::new(pattern).is_absolute()
        || Path::new(pattern)
            .components()
            .any(|c| c == std::path::Component::ParentDir);
    if escapes {
        return Ok(vec![Search {
            start: dir.display().to_string(),
            filter: rest.as_deref().map_or(Filter::Any, Filter::of),
        }]);
    }
    Ok(vec![Search {
        start: start.to_string(),
        filter: Filter::of(pattern),
    }])
}

fn invalid(native: &str, message: String) -> ToolError {
    ToolError::InvalidArguments {
        tool: native.to_string(),
        message,
    }
}
