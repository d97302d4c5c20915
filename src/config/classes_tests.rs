//! Every key of [`Config`] is classified, and each class fits its key's
//! type: the keys are found by deserializing `Config` with a deserializer
//! that records each field it is asked for (so `Option` fields, absent from
//! a serialized default, are found too).

use std::cell::RefCell;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use super::{Class, KEYS, class_of};
use crate::config::Config;

/// What a leaf key holds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Bool,
    Number,
    Text,
    List,
    Word(&'static [&'static str]),
}

type Found = RefCell<Vec<(String, Kind)>>;
type Error = de::value::Error;

/// Answers whatever is asked with an empty value of that type, recording
/// the dotted path of every leaf.
struct Probe<'a> {
    found: &'a Found,
    path: String,
}

impl Probe<'_> {
    fn leaf(&self, kind: Kind) {
        self.found.borrow_mut().push((self.path.clone(), kind));
    }
}

macro_rules! number {
    ($($name:ident => $visit:ident($zero:expr)),* $(,)?) => {$(
        fn $name<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            self.leaf(Kind::Number);
            v.$visit($zero)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Probe<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
        Err(de::Error::custom(format!(
            "{}: a key of no fixed type",
            self.path
        )))
    }
    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.leaf(Kind::Bool);
        v.visit_bool(false)
    }
    number! {
        deserialize_i8 => visit_i8(0), deserialize_i16 => visit_i16(0),
        deserialize_i32 => visit_i32(0), deserialize_i64 => visit_i64(0),
        deserialize_u8 => visit_u8(0), deserialize_u16 => visit_u16(0),
        deserialize_u32 => visit_u32(0), deserialize_u64 => visit_u64(0),
        deserialize_f32 => visit_f32(0.0), deserialize_f64 => visit_f64(0.0),
    }
    fn deserialize_char<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.leaf(Kind::Text);
        v.visit_char('x')
    }
    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.leaf(Kind::Text);
        v.visit_str("")
    }
    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_str(v)
    }
    fn deserialize_bytes<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.leaf(Kind::Text);
        v.visit_bytes(&[])
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(v)
    }
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        v.visit_some(self)
    }
    fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        v.visit_unit()
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        v: V,
    ) -> Result<V::Value, Error> {
        v.visit_unit()
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        v: V,
    ) -> Result<V::Value, Error> {
        v.visit_newtype_struct(self)
    }
    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.leaf(Kind::List);
        v.visit_seq(de::value::SeqDeserializer::<_, Error>::new(
            std::iter::empty::<()>(),
        ))
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, v: V) -> Result<V::Value, Error> {
        self.deserialize_seq(v)
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        v: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(v)
    }
    fn deserialize_map<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
        Err(de::Error::custom(format!(
            "{}: a map of free keys cannot be classified",
            self.path
        )))
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        v.visit_map(Fields {
            found: self.found,
            path: self.path,
            names: fields,
            next: 0,
        })
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        self.leaf(Kind::Word(variants));
        v.visit_enum(variants[0].into_deserializer())
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_str(v)
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        v.visit_unit()
    }
}

/// A struct's fields, each once, its value probed under its path.
struct Fields<'a> {
    found: &'a Found,
    path: String,
    names: &'static [&'static str],
    next: usize,
}

impl<'de> de::MapAccess<'de> for Fields<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some(name) = self.names.get(self.next) else {
            return Ok(None);
        };
        seed.deserialize((*name).into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let name = self.names[self.next];
        self.next += 1;
        let path = if self.path.is_empty() {
            name.to_string()
        } else {
            format!("{}.{name}", self.path)
        };
        seed.deserialize(Probe {
            found: self.found,
            path,
        })
    }
}

/// Every leaf key of [`Config`] and what it holds.
fn config_keys() -> Vec<(String, Kind)> {
    let found = Found::default();
    Config::deserialize(Probe {
        found: &found,
        path: String::new(),
    })
    .expect("the probe answers every field");
    found.into_inner()
}

#[test]
fn the_probe_finds_nested_and_optional_keys() {
    let keys: Vec<String> = config_keys().into_iter().map(|(k, _)| k).collect();
    for k in ["mode", "tools.enabled", "http.listen", "sandbox.protect"] {
        assert!(keys.iter().any(|x| x == k), "{k} in {keys:?}");
    }
}

#[test]
fn every_key_of_the_config_is_classified_and_none_twice() {
    let keys = config_keys();
    let unclassified: Vec<&String> = keys
        .iter()
        .map(|(k, _)| k)
        .filter(|k| class_of(k).is_none())
        .collect();
    assert!(
        unclassified.is_empty(),
        "keys with no class in config/classes.rs KEYS: {unclassified:?}"
    );
    for (k, _) in KEYS {
        assert!(
            keys.iter().any(|(x, _)| x == k),
            "{k} is classified but not a key of Config"
        );
        assert_eq!(KEYS.iter().filter(|(x, _)| x == k).count(), 1, "{k} twice");
    }
}

#[test]
fn each_class_fits_its_key() {
    for (key, kind) in config_keys() {
        let class = class_of(&key).unwrap();
        let fits = match (class, &kind) {
            (Class::Order(order), Kind::Word(variants)) => {
                let mut a: Vec<&str> = order.to_vec();
                let mut b: Vec<&str> = variants.to_vec();
                a.sort_unstable();
                b.sort_unstable();
                a == b
            }
            (Class::On | Class::Off, Kind::Bool)
            | (Class::Lower | Class::LowerNonZero, Kind::Number)
            | (
                Class::Union | Class::Subset | Class::AllowRules | Class::TighteningRules,
                Kind::List,
            )
            | (Class::Fixed, _) => true,
            _ => false,
        };
        assert!(fits, "{key}: class {class:?} does not fit {kind:?}");
    }
}
