//! Applying a [`FilePlan`] to a file's text and undoing it, the same way for
//! JSON and TOML: a [`Document`] addresses values by key paths; install and
//! remove are written once against it.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::record::{Entry, Record};
use super::{Change, FilePlan, Format, InitError};

/// A value init writes, with the key order it is written in. Serialized
/// as the JSON value it is (a table as an object, keys in order).
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A string.
    Str(String),
    /// An array.
    List(Vec<Val>),
    /// An object / table, keys in this order.
    Table(Vec<(String, Val)>),
}

impl Val {
    /// The same value as JSON (for comparing with what a file holds).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Val::Bool(b) => (*b).into(),
            Val::Int(i) => (*i).into(),
            Val::Str(s) => s.as_str().into(),
            Val::List(l) => l.iter().map(Val::to_json).collect(),
            Val::Table(t) => t.iter().map(|(k, v)| (k.clone(), v.to_json())).collect(),
        }
    }

    /// A JSON value as a `Val` (to restore what a file held); `null` and
    /// floats have no `Val` and give `None`.
    pub fn from_json(v: &serde_json::Value) -> Option<Val> {
        Some(match v {
            serde_json::Value::Bool(b) => Val::Bool(*b),
            serde_json::Value::Number(n) => Val::Int(n.as_i64()?),
            serde_json::Value::String(s) => Val::Str(s.clone()),
            serde_json::Value::Array(a) => {
                Val::List(a.iter().map(Val::from_json).collect::<Option<_>>()?)
            }
            serde_json::Value::Object(o) => Val::Table(
                o.iter()
                    .map(|(k, v)| Some((k.clone(), Val::from_json(v)?)))
                    .collect::<Option<_>>()?,
            ),
            serde_json::Value::Null => return None,
        })
    }
}

impl Serialize for Val {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Val::Bool(b) => s.serialize_bool(*b),
            Val::Int(i) => s.serialize_i64(*i),
            Val::Str(v) => s.serialize_str(v),
            Val::List(l) => {
                let mut seq = s.serialize_seq(Some(l.len()))?;
                for v in l {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Val::Table(t) => {
                let mut map = s.serialize_map(Some(t.len()))?;
                for (k, v) in t {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Val {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValVisitor)
    }
}

struct ValVisitor;

impl<'de> serde::de::Visitor<'de> for ValVisitor {
    type Value = Val;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a boolean, integer, string, array or object")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Val, E> {
        Ok(Val::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Val, E> {
        Ok(Val::Int(v))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Val, E> {
        i64::try_from(v).map(Val::Int).map_err(E::custom)
    }

    fn visit_str<E>(self, v: &str) -> Result<Val, E> {
        Ok(Val::Str(v.to_string()))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Val, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(Val::List(out))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Val, A::Error> {
        let mut out = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Val>()? {
            out.push((k, v));
        }
        Ok(Val::Table(out))
    }
}

impl From<&str> for Val {
    fn from(s: &str) -> Self {
        Val::Str(s.to_string())
    }
}

impl From<String> for Val {
    fn from(s: String) -> Self {
        Val::Str(s)
    }
}

impl From<bool> for Val {
    fn from(b: bool) -> Self {
        Val::Bool(b)
    }
}

impl From<i64> for Val {
    fn from(i: i64) -> Self {
        Val::Int(i)
    }
}

/// A parsed configuration file that values can be read, set and removed in
/// by key path, and rendered back with everything else unchanged.
pub(crate) trait Document {
    /// The value at `path`, as JSON; `None` when absent.
    fn get(&self, path: &[String]) -> Option<serde_json::Value>;
    /// Set the value at `path`, creating parent objects/tables. Returns the
    /// index in `path` of the first container it had to create.
    fn set(&mut self, path: &[String], value: &Val) -> Result<Option<usize>, String>;
    /// Remove the value at `path`; false when it was not there.
    fn remove(&mut self, path: &[String]) -> bool;
    /// Append `item` to the array at `path` (created if absent). Returns the
    /// index in `path` of the first container it had to create (the array
    /// itself counts).
    fn push(&mut self, path: &[String], item: &str) -> Result<Option<usize>, String>;
    /// Take `item` out of the array at `path`; false when it was not there.
    fn pull(&mut self, path: &[String], item: &str) -> bool;
    /// Append the element `value` (an object / table) to the array at
    /// `path` (created if absent; in TOML an array of tables). Returns the
    /// index in `path` of the first container it had to create.
    fn push_value(&mut self, path: &[String], value: &Val) -> Result<Option<usize>, String>;
    /// Take the element equal to `value` out of the array at `path`; false
    /// when it was not there.
    fn pull_value(&mut self, path: &[String], value: &Val) -> bool;
    /// Whether the container at `path` exists and is empty.
    fn is_empty_container(&self, path: &[String]) -> bool;
    /// The whole file's text.
    fn render(&self) -> String;
}

/// A file's text before and after, and what was done to it.
#[derive(Debug)]
pub struct Edited {
    /// The text before (`None`: the file does not exist).
    pub before: Option<String>,
    /// The text after.
    pub after: String,
    /// Changes install made (with what they replaced).
    pub applied: Vec<Entry>,
    /// Record entries remove undid.
    pub undone: Vec<Entry>,
    /// One line per change made, for the report.
    pub lines: Vec<String>,
}

impl Edited {
    /// Whether the file's text changes.
    pub fn changed(&self) -> bool {
        self.before.as_deref().unwrap_or("") != self.after
    }

    /// Whether the text after is an empty document (`{}` or nothing).
    pub fn is_empty_doc(&self) -> bool {
        let t = self.after.trim();
        t.is_empty() || t.chars().filter(|c| !c.is_whitespace()).collect::<String>() == "{}"
    }

    /// A unified diff of the change (empty when nothing changes).
    pub fn diff(&self) -> String {
        if !self.changed() {
            return String::new();
        }
        let before = self.before.as_deref().unwrap_or("");
        similar::TextDiff::from_lines(before, &self.after)
            .unified_diff()
            .context_radius(3)
            .header("before", "after")
            .to_string()
    }
}

/// Make every change of the plan true, keeping all else.
pub fn install(plan: &FilePlan, record: &Record) -> Result<Edited, InitError> {
    let before = super::file::read(&plan.path)?;
    let mut doc = parse(plan, before.as_deref())?;
    let mut applied = Vec::new();
    let mut lines = Vec::new();
    for change in &plan.changes {
        let shape = |message: String| InitError::Shape {
            path: plan.path.clone(),
            message,
        };
        match change {
            Change::Set { path, value } => {
                let previous = doc.get(path);
                if previous.as_ref() == Some(&value.to_json()) {
                    continue;
                }
                let created = doc.set(path, value).map_err(shape)?;
                lines.push(format!("+ {}", change.describe()));
                // A second install after the user changed the value: the
                // first install's record still knows what was there before.
                let earlier = record.find(change);
                applied.push(match earlier {
                    Some(e) => Entry {
                        change: change.clone(),
                        previous: e.previous.clone(),
                        created: e.created,
                    },
                    None => Entry {
                        change: change.clone(),
                        previous,
                        created,
                    },
                });
            }
            Change::Include { path, item } => {
                if array_has(&*doc, path, item) {
                    continue;
                }
                let created = doc.push(path, item).map_err(shape)?;
                lines.push(format!("+ {}", change.describe()));
                applied.push(Entry {
                    change: change.clone(),
                    previous: None,
                    created,
                });
            }
            Change::Append { path, value } => {
                if array_holds(&*doc, path, &value.to_json()) {
                    continue;
                }
                // The element an earlier install added (another airlock
                // path, another timeout) is replaced, not doubled.
                let earlier = record.find(change).filter(|e| present(&*doc, &e.change));
                let created = if let Some(e) = earlier {
                    if let Change::Append { value: old, .. } = &e.change {
                        doc.pull_value(path, old);
                    }
                    doc.push_value(path, value).map_err(shape)?;
                    lines.push(format!("~ {}", change.describe()));
                    e.created
                } else {
                    let created = doc.push_value(path, value).map_err(shape)?;
                    lines.push(format!("+ {}", change.describe()));
                    created
                };
                applied.push(Entry {
                    change: change.clone(),
                    previous: None,
                    created,
                });
            }
        }
    }
    let mut after = doc.render();
    if before.is_none() && !after.ends_with('\n') {
        after.push('\n');
    }
    Ok(Edited {
        before,
        after,
        applied,
        undone: Vec::new(),
        lines,
    })
}

/// Undo what install added: the record's entries when there is a record,
/// else whatever of the plan is present exactly as install writes it.
pub fn remove(plan: &FilePlan, record: &Record) -> Result<Edited, InitError> {
    let before = super::file::read(&plan.path)?;
    let Some(text) = before.as_deref() else {
        return Ok(Edited {
            before: None,
            after: String::new(),
            applied: Vec::new(),
            undone: Vec::new(),
            lines: Vec::new(),
        });
    };
    let mut doc = parse(plan, Some(text))?;
    let mut undone = Vec::new();
    let mut lines = Vec::new();
    // What install recorded. Without any record (a deleted data
    // directory), only what is airlock's own for sure: entries inside its
    // server entry and items naming airlock; the rest is listed, not
    // touched (a deny rule may be the user's).
    let entries: Vec<Entry> = if record.found() {
        record.entries().to_vec()
    } else {
        let mut own = Vec::new();
        for change in &plan.changes {
            let created = owned_start(plan, change.path());
            let airlocks = match change {
                Change::Set { .. } => created.is_some(),
                Change::Include { item, .. } => item.contains(super::SERVER_NAME),
                Change::Append { value, .. } => {
                    value.to_json().to_string().contains(super::SERVER_NAME)
                }
            };
            if airlocks {
                own.push(Entry {
                    change: change.clone(),
                    previous: None,
                    created,
                });
            } else if present(&*doc, change) {
                lines.push(format!(
                    "? {} left: no record of airlock init for this file, it may be yours",
                    change.describe()
                ));
            }
        }
        own
    };
    // Newest first, so containers created by an earlier change are pruned
    // after the later changes inside them are gone.
    for entry in entries.into_iter().rev() {
        let shape = |message: String| InitError::Shape {
            path: plan.path.clone(),
            message,
        };
        if let Some(line) = undo(&mut *doc, &entry).map_err(shape)? {
            lines.push(line);
        }
        undone.push(entry);
    }
    let after = doc.render();
    Ok(Edited {
        before,
        after,
        applied: Vec::new(),
        undone,
        lines,
    })
}

/// Undo one entry; `Ok(None)` when there was nothing of it left to undo.
fn undo(doc: &mut dyn Document, entry: &Entry) -> Result<Option<String>, String> {
    let path = entry.change.path();
    let line = match &entry.change {
        Change::Set { value, .. } => {
            if doc.get(path).as_ref() != Some(&value.to_json()) {
                // Changed by the user since: theirs now, left alone.
                return Ok(None);
            }
            if let Some(prev) = entry.previous.as_ref().and_then(Val::from_json) {
                doc.set(path, &prev)?;
                format!("~ {} restored", super::dotted(path))
            } else {
                doc.remove(path);
                format!("- {}", entry.change.describe())
            }
        }
        Change::Include { item, .. } => {
            if !doc.pull(path, item) {
                return Ok(None);
            }
            format!("- {}", entry.change.describe())
        }
        Change::Append { value, .. } => {
            if !doc.pull_value(path, value) {
                // Changed by the user since: theirs now, left alone.
                return Ok(None);
            }
            format!("- {}", entry.change.describe())
        }
    };
    if let Some(start) = entry.created {
        // Containers init created, innermost first, while empty.
        let last = match entry.change {
            Change::Include { .. } | Change::Append { .. } => path.len(),
            Change::Set { .. } => path.len() - 1,
        };
        for end in (start + 1..=last).rev() {
            if doc.is_empty_container(&path[..end]) {
                doc.remove(&path[..end]);
            } else {
                break;
            }
        }
    }
    Ok(Some(line))
}

/// For a change inside a container airlock owns, the index of that
/// container's key (so remove without a record still prunes it).
fn owned_start(plan: &FilePlan, path: &[String]) -> Option<usize> {
    plan.owned
        .iter()
        .find(|o| path.starts_with(o) && path.len() > o.len())
        .map(|o| o.len() - 1)
}

/// Whether the file holds the change as install writes it.
fn present(doc: &dyn Document, change: &Change) -> bool {
    match change {
        Change::Set { path, value } => doc.get(path) == Some(value.to_json()),
        Change::Include { path, item } => array_has(doc, path, item),
        Change::Append { path, value } => array_holds(doc, path, &value.to_json()),
    }
}

fn array_holds(doc: &dyn Document, path: &[String], value: &serde_json::Value) -> bool {
    match doc.get(path) {
        Some(serde_json::Value::Array(a)) => a.iter().any(|v| v == value),
        _ => false,
    }
}

fn array_has(doc: &dyn Document, path: &[String], item: &str) -> bool {
    match doc.get(path) {
        Some(serde_json::Value::Array(a)) => a.iter().any(|v| v.as_str() == Some(item)),
        _ => false,
    }
}

/// Parse the file's text (or start an empty document).
fn parse(plan: &FilePlan, text: Option<&str>) -> Result<Box<dyn Document>, InitError> {
    let err = |path: &Path, message: String| InitError::Parse {
        path: path.to_path_buf(),
        message,
    };
    let text = text.unwrap_or("");
    Ok(match plan.format {
        Format::Json => {
            Box::new(super::json::JsonDoc::parse(text, false).map_err(|m| err(&plan.path, m))?)
        }
        Format::JsonWithComments => {
            Box::new(super::json::JsonDoc::parse(text, true).map_err(|m| err(&plan.path, m))?)
        }
        Format::Toml => {
            Box::new(super::toml::TomlDoc::parse(text).map_err(|m| err(&plan.path, m))?)
        }
    })
}
