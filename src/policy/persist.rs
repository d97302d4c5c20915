//! "Always": append a rule to the project's `.airlock.toml`, keeping the
//! file's comments and layout.

use std::path::Path;

use toml_edit::{Array, DocumentMut, Item, Value};

use super::rule::Action;

/// Writing the project config failed.
#[derive(Debug, thiserror::Error)]
pub enum PersistError {
    /// Reading or writing the file failed.
    #[error("cannot update {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid TOML, or its rule list is not an array.
    #[error("cannot update {path}: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
}

/// Append `rule` to the `allow`/`ask`/`deny` list of the config file at
/// `path` (created if missing). Returns false if it was already there.
pub fn append_rule(path: &Path, action: Action, rule: &str) -> Result<bool, PersistError> {
    let shown = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(PersistError::Io {
                path: shown,
                source,
            });
        }
    };
    let mut doc: DocumentMut =
        text.parse()
            .map_err(|e: toml_edit::TomlError| PersistError::Invalid {
                path: shown.clone(),
                message: e.to_string(),
            })?;
    let key = action.as_str();
    if !doc.contains_key(key) {
        doc.insert(key, Item::Value(Value::Array(Array::new())));
    }
    let Some(array) = doc.get_mut(key).and_then(Item::as_array_mut) else {
        return Err(PersistError::Invalid {
            path: shown,
            message: format!("`{key}` is not an array"),
        });
    };
    if array.iter().any(|v| v.as_str() == Some(rule)) {
        return Ok(false);
    }
    // Keep the list's layout: a multi-line list gets the rule on a line of
    // its own (a comment after the old last item stays with that item), an
    // inline list stays inline.
    let trailing = array.trailing().as_str().unwrap_or("").to_string();
    let multiline = array.is_empty()
        || trailing.contains('\n')
        || array.iter().any(|v| {
            v.decor()
                .prefix()
                .and_then(|p| p.as_str())
                .is_some_and(|p| p.contains('\n'))
        });
    let was_empty = array.is_empty();
    array.push(rule);
    let last = array.len() - 1;
    if let Some(v) = array.get_mut(last) {
        let prefix = if !multiline {
            " ".to_string()
        } else if trailing.contains('\n') {
            format!("{}    ", trailing.trim_end_matches([' ', '\t']))
        } else {
            "\n    ".to_string()
        };
        v.decor_mut().set_prefix(if was_empty && !multiline {
            String::new()
        } else {
            prefix
        });
    }
    if multiline {
        array.set_trailing("\n");
        array.set_trailing_comma(true);
    }
    let out = doc.to_string();
    let tmp = path.with_extension(format!("toml.airlock-{:08x}.tmp", rand::random::<u32>()));
    let io = |source| PersistError::Io {
        path: shown.clone(),
        source,
    };
    std::fs::write(&tmp, out.as_bytes()).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(e)
    })?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_comments_and_layout() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".airlock.toml");
        let original = "# Project policy for airlock.\n# Keep this comment.\n\nmode = \"default\" # inline comment\n\nallow = [\n    \"bash(git status)\", # status is fine\n]\n\n[limits]\n# a comment in a table\ntimeout_secs = 5\n";
        std::fs::write(&p, original).unwrap();
        assert!(append_rule(&p, Action::Allow, "bash(cargo test *)").unwrap());
        let text = std::fs::read_to_string(&p).unwrap();
        for keep in [
            "# Project policy for airlock.",
            "# Keep this comment.",
            "# inline comment",
            "# status is fine",
            "# a comment in a table",
            "timeout_secs = 5",
        ] {
            assert!(text.contains(keep), "lost {keep:?}:\n{text}");
        }
        let parsed: toml::Table = toml::from_str(&text).unwrap();
        let allow: Vec<&str> = parsed["allow"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(allow, ["bash(git status)", "bash(cargo test *)"]);
        assert!(
            !append_rule(&p, Action::Allow, "bash(cargo test *)").unwrap(),
            "no duplicates"
        );
    }

    #[test]
    fn inline_lists_stay_inline() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".airlock.toml");
        std::fs::write(&p, "# top\nallow = [\"ls\"] # mine\n").unwrap();
        append_rule(&p, Action::Allow, "pwd").unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "# top\nallow = [\"ls\", \"pwd\"] # mine\n"
        );
    }

    #[test]
    fn creates_the_file_and_the_list() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".airlock.toml");
        append_rule(&p, Action::Deny, "bash(rm *)").unwrap();
        let parsed: toml::Table = toml::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(
            parsed["deny"].as_array().unwrap()[0].as_str(),
            Some("bash(rm *)")
        );
        // A file with tables but no top-level list gets the list at the top level.
        std::fs::write(&p, "[limits]\ntimeout_secs = 5\n").unwrap();
        append_rule(&p, Action::Allow, "ls").unwrap();
        let parsed: toml::Table = toml::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(parsed["allow"].as_array().unwrap()[0].as_str(), Some("ls"));
        assert_eq!(parsed["limits"]["timeout_secs"].as_integer(), Some(5));
    }

    #[test]
    fn any_rule_text_round_trips() {
        // Exact rules carry the agent's command verbatim: quotes, escapes,
        // newlines, TOML's own delimiters, control characters.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".airlock.toml");
        std::fs::write(&p, "allow = [\n    \"ls\",\n]\n").unwrap();
        let rules = [
            "bash(=rm -f *)",
            r#"bash(=echo "a'b" '"c"' \\ # """ ''' *)"#,
            "bash(=printf 'x\\n'\n\trm -rf y\r *)",
            "bash(=echo \u{7}\u{1b}[31m \u{202e} \u{fffd} ]\" = 1)",
            r#"write_file(=a]"b\c.rs)"#,
        ];
        for r in rules {
            assert!(append_rule(&p, Action::Allow, r).unwrap(), "{r:?}");
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let parsed: toml::Table = toml::from_str(&text).unwrap();
        let allow: Vec<&str> = parsed["allow"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(allow[0], "ls");
        assert_eq!(&allow[1..], rules, "{text}");
        for r in rules {
            assert!(!append_rule(&p, Action::Allow, r).unwrap(), "{r:?} twice");
        }
    }
}
