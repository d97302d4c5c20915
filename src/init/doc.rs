//! What `init` writes and where: a [`Val`] (a value with its key order)
//! and the `Document` a configuration file is edited through (JSON in
//! `json.rs`, TOML in `toml.rs`; `edit.rs` applies plans to either).

use serde::{Deserialize, Serialize};

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
