//! Applying a [`FilePlan`] to a file's text and undoing it, the same way for
//! JSON and TOML: a `Document` (`doc.rs`) addresses values by key paths;
//! install and remove are written once against it.

use std::path::Path;

use super::doc::{Document, Val};
use super::record::{Entry, Record};
use super::{Change, FilePlan, Format, InitError};

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
