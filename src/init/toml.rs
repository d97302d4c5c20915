//! TOML edited in place with `toml_edit`: values are added, replaced and
//! removed by key path; comments, order and formatting of everything else
//! are kept. New parent tables are implicit (`[mcp_servers.airlock]` without
//! an empty `[mcp_servers]` header).

use toml_edit::{Array, ArrayOfTables, DocumentMut, Item, Table, TableLike, Value};

use super::Val;
use super::doc::Document;

/// A parsed TOML file.
pub(crate) struct TomlDoc {
    doc: DocumentMut,
    /// The file's lines end in CRLF (`toml_edit` renders LF only).
    crlf: bool,
}

impl TomlDoc {
    /// Parse `text` (empty text is an empty document).
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let doc = text
            .parse::<DocumentMut>()
            .map_err(|e| e.to_string().trim_end().to_string())?;
        Ok(TomlDoc {
            doc,
            crlf: text.contains("\r\n"),
        })
    }

    fn item(&self, path: &[String]) -> Option<&Item> {
        let mut item = self.doc.as_item();
        for key in path {
            item = item.as_table_like()?.get(key)?;
        }
        Some(item)
    }

    fn table_mut(&mut self, path: &[String]) -> Option<&mut dyn TableLike> {
        let mut t: &mut dyn TableLike = self.doc.as_table_mut();
        for key in path {
            t = t.get_mut(key)?.as_table_like_mut()?;
        }
        Some(t)
    }

    /// The table at `path`, created where missing (implicit except the
    /// last); the index of the first key created.
    fn table_or_create(
        &mut self,
        path: &[String],
        created: &mut Option<usize>,
    ) -> Result<&mut dyn TableLike, String> {
        let mut t: &mut dyn TableLike = self.doc.as_table_mut();
        for (i, key) in path.iter().enumerate() {
            if t.get(key).is_none() {
                created.get_or_insert(i);
                let mut new = Table::new();
                new.set_implicit(i + 1 < path.len());
                t.insert(key, Item::Table(new));
            }
            t = t
                .get_mut(key)
                .and_then(Item::as_table_like_mut)
                .ok_or_else(|| format!("{} is not a table", super::dotted(&path[..=i])))?;
        }
        Ok(t)
    }
}

impl Document for TomlDoc {
    fn get(&self, path: &[String]) -> Option<serde_json::Value> {
        item_json(self.item(path)?)
    }

    fn set(&mut self, path: &[String], value: &Val) -> Result<Option<usize>, String> {
        let (last, parents) = path.split_last().ok_or("empty key path")?;
        let mut created = None;
        let table = self.table_or_create(parents, &mut created)?;
        if table.get(last).is_none() && created.is_none() {
            created = Some(parents.len());
        }
        match table.get_mut(last) {
            // Keep the key's own formatting and the value's comment.
            Some(Item::Value(old)) => {
                let decor = old.decor().clone();
                *old = toml_value(value);
                *old.decor_mut() = decor;
            }
            Some(other) => *other = Item::Value(toml_value(value)),
            None => {
                table.insert(last, Item::Value(toml_value(value)));
            }
        }
        Ok(created.filter(|&i| i < parents.len()))
    }

    fn remove(&mut self, path: &[String]) -> bool {
        let Some((last, parents)) = path.split_last() else {
            return false;
        };
        self.table_mut(parents)
            .and_then(|t| t.remove(last))
            .is_some()
    }

    fn push(&mut self, path: &[String], item: &str) -> Result<Option<usize>, String> {
        let (last, parents) = path.split_last().ok_or("empty key path")?;
        let mut created = None;
        let table = self.table_or_create(parents, &mut created)?;
        if table.get(last).is_none() {
            created.get_or_insert(parents.len());
            table.insert(last, Item::Value(Value::Array(Array::new())));
        }
        let array = table
            .get_mut(last)
            .and_then(Item::as_array_mut)
            .ok_or_else(|| format!("{} is not an array", super::dotted(path)))?;
        array.push(item);
        Ok(created)
    }

    fn pull(&mut self, path: &[String], item: &str) -> bool {
        let Some((last, parents)) = path.split_last() else {
            return false;
        };
        let Some(array) = self
            .table_mut(parents)
            .and_then(|t| t.get_mut(last))
            .and_then(Item::as_array_mut)
        else {
            return false;
        };
        let found = array.iter().position(|v| v.as_str() == Some(item));
        match found {
            Some(i) => {
                array.remove(i);
                true
            }
            None => false,
        }
    }

    fn push_value(&mut self, path: &[String], value: &Val) -> Result<Option<usize>, String> {
        let (last, parents) = path.split_last().ok_or("empty key path")?;
        let mut created = None;
        let table = self.table_or_create(parents, &mut created)?;
        if table.get(last).is_none() {
            created.get_or_insert(parents.len());
            table.insert(last, Item::ArrayOfTables(ArrayOfTables::new()));
        }
        match table.get_mut(last) {
            Some(Item::ArrayOfTables(a)) => a.push(toml_table(value)),
            Some(Item::Value(Value::Array(a))) => a.push(toml_value(value)),
            _ => return Err(format!("{} is not an array", super::dotted(path))),
        }
        Ok(created)
    }

    fn pull_value(&mut self, path: &[String], value: &Val) -> bool {
        let Some((last, parents)) = path.split_last() else {
            return false;
        };
        let want = value.to_json();
        match self.table_mut(parents).and_then(|t| t.get_mut(last)) {
            Some(Item::ArrayOfTables(a)) => {
                let found = a.iter().position(|t| table_json(t) == want);
                found.map(|i| a.remove(i)).is_some()
            }
            Some(Item::Value(Value::Array(a))) => {
                let found = a.iter().position(|v| value_json(v) == want);
                found.map(|i| a.remove(i)).is_some()
            }
            _ => false,
        }
    }

    fn is_empty_container(&self, path: &[String]) -> bool {
        match self.item(path) {
            Some(Item::ArrayOfTables(a)) => a.is_empty(),
            Some(item) => match (item.as_table_like(), item.as_array()) {
                (Some(t), _) => t.is_empty(),
                (None, Some(a)) => a.is_empty(),
                _ => false,
            },
            None => false,
        }
    }

    fn render(&self) -> String {
        let text = self.doc.to_string();
        if self.crlf {
            text.replace("\r\n", "\n").replace('\n', "\r\n")
        } else {
            text
        }
    }
}

fn toml_value(v: &Val) -> Value {
    match v {
        Val::Bool(b) => (*b).into(),
        Val::Int(i) => (*i).into(),
        Val::Str(s) => s.as_str().into(),
        Val::List(l) => Value::Array(l.iter().map(toml_value).collect()),
        Val::Table(t) => {
            let mut inline = toml_edit::InlineTable::new();
            for (k, v) in t {
                inline.insert(k, toml_value(v));
            }
            Value::InlineTable(inline)
        }
    }
}

/// A [`Val::Table`] as a TOML table, a list of tables in it as an array
/// of tables (`[[hooks.PreToolUse.hooks]]`); anything else as a value.
fn toml_table(v: &Val) -> Table {
    let mut table = Table::new();
    if let Val::Table(entries) = v {
        for (k, v) in entries {
            let item = match v {
                Val::List(l) if !l.is_empty() && l.iter().all(|x| matches!(x, Val::Table(_))) => {
                    let mut a = ArrayOfTables::new();
                    for x in l {
                        a.push(toml_table(x));
                    }
                    Item::ArrayOfTables(a)
                }
                Val::Table(_) => Item::Table(toml_table(v)),
                _ => Item::Value(toml_value(v)),
            };
            table.insert(k, item);
        }
    }
    table
}

/// A TOML item as JSON (datetimes as strings).
fn item_json(item: &Item) -> Option<serde_json::Value> {
    match item {
        Item::None => None,
        Item::Value(v) => Some(value_json(v)),
        Item::Table(t) => Some(table_json(t)),
        Item::ArrayOfTables(a) => Some(a.iter().map(|t| table_json(t)).collect()),
    }
}

fn table_json(t: &dyn TableLike) -> serde_json::Value {
    t.iter()
        .filter_map(|(k, v)| Some((k.to_string(), item_json(v)?)))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

fn value_json(v: &Value) -> serde_json::Value {
    match v {
        Value::String(s) => s.value().as_str().into(),
        Value::Integer(i) => (*i.value()).into(),
        Value::Float(f) => (*f.value()).into(),
        Value::Boolean(b) => (*b.value()).into(),
        Value::Datetime(d) => d.value().to_string().into(),
        Value::Array(a) => a.iter().map(value_json).collect(),
        Value::InlineTable(t) => table_json(t),
    }
}
