//! A project file the user has not trusted: what of it applies. Each key
//! is judged by its class (`classes::KEYS`) against what the layers before
//! it (the defaults and the user's own files) set: a value at least as
//! strict applies, a list of what is kept from the agent is added to, and
//! anything that loosens is left out and said.

use std::fmt;

use serde::Serialize;

use super::classes::{Class, class_of};

/// One setting of an untrusted project file that was not applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ignored {
    /// The dotted key (`sandbox.allow_network`; `allow` for a rule).
    pub key: String,
    /// The value the file sets (for a rule list: one rule).
    pub value: String,
    /// Why it loosens (`looser than "read-only"`).
    pub why: String,
}

impl fmt::Display for Ignored {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} = {} ({})", self.key, self.value, self.why)
    }
}

/// What of an untrusted layer applies.
#[derive(Debug, Default)]
pub struct Restricted {
    /// The layer with what loosens taken out (and the lists it adds to
    /// holding the others' entries too), to merge as usual.
    pub table: toml::Table,
    /// What was taken out.
    pub ignored: Vec<Ignored>,
}

/// Judge `layer` against `base` (the configuration so far, serialized).
/// `keep_allow` says which allow rules apply anyway (saved by the human at
/// the prompt, or already allowed by the user's own files).
pub fn restrict(
    base: &toml::Table,
    layer: toml::Table,
    keep_allow: &dyn Fn(&str) -> bool,
) -> Restricted {
    let mut out = Restricted::default();
    out.table = walk("", Some(base), layer, keep_allow, &mut out.ignored);
    out
}

fn walk(
    prefix: &str,
    base: Option<&toml::Table>,
    layer: toml::Table,
    keep_allow: &dyn Fn(&str) -> bool,
    ignored: &mut Vec<Ignored>,
) -> toml::Table {
    let mut out = toml::Table::new();
    for (k, v) in layer {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        let here = base.and_then(|b| b.get(&k));
        let class = class_of(&key);
        match (class, v) {
            (None, toml::Value::Table(t)) => {
                let section = walk(
                    &key,
                    here.and_then(toml::Value::as_table),
                    t,
                    keep_allow,
                    ignored,
                );
                if !section.is_empty() {
                    out.insert(k, toml::Value::Table(section));
                }
            }
            (Some(Class::AllowRules), toml::Value::Array(rules)) => {
                let (kept, left): (Vec<_>, Vec<_>) = rules
                    .into_iter()
                    .partition(|r| r.as_str().is_some_and(keep_allow));
                for r in left {
                    ignored.push(Ignored {
                        key: key.clone(),
                        value: r.to_string(),
                        why: "an allow rule".into(),
                    });
                }
                if !kept.is_empty() {
                    out.insert(k, toml::Value::Array(kept));
                }
            }
            (Some(class), v) => match judge(class, here, &v) {
                Ok(applied) => {
                    out.insert(k, applied);
                }
                Err(why) => ignored.push(Ignored {
                    key,
                    value: v.to_string(),
                    why,
                }),
            },
            (None, v) => ignored.push(Ignored {
                key,
                value: v.to_string(),
                why: "a key with no class".into(),
            }),
        }
    }
    out
}

/// The value to apply for `v` of `class` over `base`, or why it loosens.
fn judge(class: Class, base: Option<&toml::Value>, v: &toml::Value) -> Result<toml::Value, String> {
    use toml::Value::{Array, Boolean, Integer, String as Text};
    let same = || Ok(v.clone());
    match (class, base, v) {
        (Class::TighteningRules, _, _) | (Class::Subset, None, Array(_)) => same(),
        (Class::Lower, Some(Integer(b)), Integer(p)) if p <= b => same(),
        (Class::Lower, Some(Integer(b)), Integer(_)) => Err(format!("higher than {b}")),
        (Class::LowerNonZero, Some(Integer(b)), Integer(p)) => match (*b, *p) {
            (_, 0) if *b != 0 => Err(format!("0 is no limit, longer than {b}")),
            (0, _) => same(),
            (b, p) if p <= b => same(),
            (b, _) => Err(format!("higher than {b}")),
        },
        (Class::Order(order), Some(Text(b)), Text(p)) => {
            let rank = |w: &str| order.iter().position(|o| *o == w);
            match (rank(b), rank(p)) {
                (Some(rb), Some(rp)) if rp <= rb => same(),
                _ => Err(format!("looser than \"{b}\"")),
            }
        }
        (Class::On, Some(Boolean(b)), Boolean(p)) if *p || !*b => same(),
        (Class::Off, Some(Boolean(b)), Boolean(p)) if !*p || *b => same(),
        (Class::On | Class::Off, Some(Boolean(b)), Boolean(_)) => Err(format!("looser than {b}")),
        (Class::Union, Some(Array(b)), Array(p)) => {
            let mut all = b.clone();
            all.extend(p.iter().filter(|e| !b.contains(e)).cloned());
            Ok(Array(all))
        }
        (Class::Subset, Some(Array(b)), Array(p)) => {
            let everywhere = b.iter().any(|e| e.as_str() == Some("/"));
            let added: Vec<String> = p
                .iter()
                .filter(|e| !everywhere && !b.contains(e))
                .map(ToString::to_string)
                .collect();
            if added.is_empty() {
                same()
            } else {
                Err(format!("adds {}", added.join(", ")))
            }
        }
        (Class::Fixed, b, p) if b == Some(p) => same(),
        (Class::Fixed, _, _) => Err("changes what only your own config may set".into()),
        (_, None, _) => Err("nothing to compare it with".into()),
        _ => Err("a value of another type".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    fn applied(base: &str, layer: &str) -> (toml::Table, Vec<String>) {
        let r = restrict(&table(base), table(layer), &|_| false);
        let mut keys: Vec<String> = r.ignored.iter().map(|i| i.key.clone()).collect();
        keys.sort();
        (r.table, keys)
    }

    #[test]
    fn stricter_values_apply_and_looser_ones_are_said() {
        let base = "mode = \"default\"\napproval_timeout_secs = 30\n[limits]\ntimeout_secs = 10\n[sandbox]\nallow_network = false\nrequired = false\n";
        let (t, ignored) = applied(
            base,
            "mode = \"read-only\"\napproval_timeout_secs = 5\n[limits]\ntimeout_secs = 3\n[sandbox]\nrequired = true\n",
        );
        assert!(ignored.is_empty(), "{ignored:?}");
        assert_eq!(t["mode"].as_str(), Some("read-only"));
        assert_eq!(t["limits"]["timeout_secs"].as_integer(), Some(3));
        let (t, ignored) = applied(
            base,
            "mode = \"trust-edits\"\napproval_timeout_secs = 0\n[limits]\ntimeout_secs = 99\n[sandbox]\nallow_network = true\n",
        );
        assert_eq!(
            ignored,
            [
                "approval_timeout_secs",
                "limits.timeout_secs",
                "mode",
                "sandbox.allow_network"
            ]
        );
        assert!(t.is_empty(), "{t:?}");
    }

    #[test]
    fn lists_kept_from_the_agent_are_added_to_and_lists_let_through_only_shrink() {
        let base = "[scope]\nexcluded = [\".env\"]\nextra_roots = [\"/a\"]\n[sandbox]\nallow_read = [\"/\"]\n";
        let (t, ignored) = applied(
            base,
            "[scope]\nexcluded = []\nextra_roots = [\"/a\", \"/\"]\n[sandbox]\nallow_read = [\"/home/me\"]\n",
        );
        assert_eq!(ignored, ["scope.extra_roots"]);
        assert_eq!(t["scope"]["excluded"].as_array().unwrap().len(), 1);
        assert_eq!(t["sandbox"]["allow_read"].as_array().unwrap().len(), 1);
        let (t, ignored) = applied(base, "[scope]\nexcluded = [\"*.db\"]\nextra_roots = []\n");
        assert!(ignored.is_empty());
        assert_eq!(t["scope"]["excluded"].as_array().unwrap().len(), 2);
        assert!(t["scope"]["extra_roots"].as_array().unwrap().is_empty());
    }

    #[test]
    fn allow_rules_apply_only_when_kept() {
        let r = restrict(
            &toml::Table::new(),
            table("allow = [\"bash\", \"ls\"]\ndeny = [\"bash(rm *)\"]\n"),
            &|rule| rule == "ls",
        );
        assert_eq!(r.table["allow"].as_array().unwrap().len(), 1);
        assert_eq!(r.table["deny"].as_array().unwrap().len(), 1);
        assert_eq!(r.ignored.len(), 1);
        assert_eq!(r.ignored[0].to_string(), "allow = \"bash\" (an allow rule)");
    }
}
