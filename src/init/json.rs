//! JSON (and JSON with comments) edited in place through a concrete syntax
//! tree (`jsonc-parser`'s CST): values are added, replaced and removed by
//! key path, and everything else — comments, indentation, key order,
//! blank lines — is rendered back exactly as it was.

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstNode, CstObject, CstRootNode};

use super::Val;
use super::doc::Document;

/// A parsed JSON file.
pub(crate) struct JsonDoc {
    root: CstRootNode,
}

impl JsonDoc {
    /// Parse `text`; `comments` allows `//` and `/* */` (Gemini CLI strips
    /// them), otherwise the text must be strict JSON (Claude Code reads its
    /// files with `JSON.parse`). Empty text is an empty object.
    pub(crate) fn parse(text: &str, comments: bool) -> Result<Self, String> {
        let opts = ParseOptions {
            allow_comments: comments,
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
        let source = if text.trim().is_empty() { "{}\n" } else { text };
        let root = CstRootNode::parse(source, &opts).map_err(|e| e.to_string())?;
        match root.value() {
            Some(CstNode::Container(c)) if c.as_object().is_some() => Ok(JsonDoc { root }),
            _ => Err("the top level is not a JSON object".into()),
        }
    }

    fn top(&self) -> CstObject {
        self.root.object_value_or_set()
    }

    /// The object at `path` (every key an object), if it is there.
    fn object_at(&self, path: &[String]) -> Option<CstObject> {
        let mut obj = self.top();
        for key in path {
            obj = obj.object_value(key)?;
        }
        Some(obj)
    }

    /// The object at `path`, created where missing; the index of the first
    /// key created. Fails when a key holds something that is not an object.
    fn object_at_or_create(
        &self,
        path: &[String],
        created: &mut Option<usize>,
    ) -> Result<CstObject, String> {
        let mut obj = self.top();
        for (i, key) in path.iter().enumerate() {
            if obj.get(key).is_none() && created.is_none() {
                *created = Some(i);
            }
            obj = obj
                .object_value_or_create(key)
                .ok_or_else(|| format!("{} is not an object", super::dotted(&path[..=i])))?;
        }
        Ok(obj)
    }
}

impl Document for JsonDoc {
    fn get(&self, path: &[String]) -> Option<serde_json::Value> {
        let (last, parents) = path.split_last()?;
        let prop = self.object_at(parents)?.get(last)?;
        prop.value()?.to_serde_value()
    }

    fn set(&mut self, path: &[String], value: &Val) -> Result<Option<usize>, String> {
        let (last, parents) = path.split_last().ok_or("empty key path")?;
        let mut created = None;
        let obj = self.object_at_or_create(parents, &mut created)?;
        if let Some(prop) = obj.get(last) {
            prop.set_value(input(value));
        } else {
            created.get_or_insert(parents.len());
            obj.append(last, input(value));
        }
        Ok(created.filter(|&i| i < parents.len()))
    }

    fn remove(&mut self, path: &[String]) -> bool {
        let Some((last, parents)) = path.split_last() else {
            return false;
        };
        match self.object_at(parents).and_then(|o| o.get(last)) {
            Some(prop) => {
                prop.remove();
                true
            }
            None => false,
        }
    }

    fn push(&mut self, path: &[String], item: &str) -> Result<Option<usize>, String> {
        self.push_value(path, &Val::from(item))
    }

    fn pull(&mut self, path: &[String], item: &str) -> bool {
        self.pull_value(path, &Val::from(item))
    }

    fn push_value(&mut self, path: &[String], value: &Val) -> Result<Option<usize>, String> {
        let (last, parents) = path.split_last().ok_or("empty key path")?;
        let mut created = None;
        let obj = self.object_at_or_create(parents, &mut created)?;
        if obj.get(last).is_none() && created.is_none() {
            created = Some(parents.len());
        }
        let array = obj
            .array_value_or_create(last)
            .ok_or_else(|| format!("{} is not an array", super::dotted(path)))?;
        array.append(input(value));
        Ok(created)
    }

    fn pull_value(&mut self, path: &[String], value: &Val) -> bool {
        let Some((last, parents)) = path.split_last() else {
            return false;
        };
        let Some(array) = self.object_at(parents).and_then(|o| o.array_value(last)) else {
            return false;
        };
        let want = value.to_json();
        match array
            .elements()
            .into_iter()
            .find(|e| e.to_serde_value().as_ref() == Some(&want))
        {
            Some(node) => {
                node.remove();
                true
            }
            None => false,
        }
    }

    fn is_empty_container(&self, path: &[String]) -> bool {
        match self.get(path) {
            Some(serde_json::Value::Object(o)) => o.is_empty(),
            Some(serde_json::Value::Array(a)) => a.is_empty(),
            _ => false,
        }
    }

    fn render(&self) -> String {
        self.root.to_string()
    }
}

/// A [`Val`] as the CST's input value (keys in the `Val`'s order).
fn input(v: &Val) -> CstInputValue {
    match v {
        Val::Bool(b) => CstInputValue::Bool(*b),
        Val::Int(i) => CstInputValue::Number(i.to_string()),
        Val::Str(s) => CstInputValue::String(s.clone()),
        Val::List(l) => CstInputValue::Array(l.iter().map(input).collect()),
        Val::Table(t) => {
            CstInputValue::Object(t.iter().map(|(k, v)| (k.clone(), input(v))).collect())
        }
    }
}
