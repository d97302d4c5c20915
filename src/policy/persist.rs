//! "Always": append a rule to the project's `.airlock.toml`, keeping the
//! file's comments and layout, written the way `airlock init` writes
//! (`crate::files`: atomic, durable, permissions kept, under a lock).

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

/// Told about each "always" save while the file is still locked, so what
/// it keeps about the file (the trust store: `config::trust`) changes
/// with it. Implemented above the policy; the policy only calls it.
pub trait SaveObserver: Send + Sync + std::fmt::Debug {
    /// `file` (where the rule went: a symlink's target) held `old` (`None`:
    /// it did not exist) and now holds `new` (the same text when the rule
    /// was there already) after the human chose "always" for `rule`.
    fn saved(&self, file: &Path, old: Option<&str>, new: &str, action: Action, rule: &str);
}

/// Append `rule` to the `allow`/`ask`/`deny` list of the config file at
/// `path` (created if missing). Returns false if it was already there.
pub fn append_rule(path: &Path, action: Action, rule: &str) -> Result<bool, PersistError> {
    append_rule_with(path, action, rule, None)
}

/// [`append_rule`], telling `observer` under the lock. The file is
/// replaced atomically and durably with its permissions kept; a symlink is
/// written through to its target when that is in the same directory tree,
/// and refused otherwise; the directory is locked (`flock`) and the file
/// re-read under the lock, so two sessions saving at once keep both rules.
pub fn append_rule_with(
    path: &Path,
    action: Action,
    rule: &str,
    observer: Option<&dyn SaveObserver>,
) -> Result<bool, PersistError> {
    let shown = path.display().to_string();
    let io = |source| PersistError::Io {
        path: shown.clone(),
        source,
    };
    let target = write_target(path)?;
    let _lock = crate::files::DirLock::for_file(&target).map_err(io)?;
    let old = match std::fs::read_to_string(&target) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => return Err(io(source)),
    };
    let text = old.as_deref().unwrap_or("");
    let changed = with_rule(text, action, rule).map_err(|message| PersistError::Invalid {
        path: shown.clone(),
        message,
    })?;
    if let Some(new) = &changed {
        // A new project file is readable like any file of the repository.
        crate::files::replace(&target, new.as_bytes(), 0o644).map_err(io)?;
    }
    if let Some(o) = observer {
        o.saved(
            &target,
            old.as_deref(),
            changed.as_deref().unwrap_or(text),
            action,
            rule,
        );
    }
    Ok(changed.is_some())
}

/// Where a save of `path` writes: the file, or a symlink's target when
/// that stays under the link's directory (the workspace). A symlink out of
/// it (a cloned repository's `.airlock.toml -> ~/.bashrc`, or to the user
/// config), a dangling one, and anything but a regular file are refused.
fn write_target(path: &Path) -> Result<std::path::PathBuf, PersistError> {
    let refuse = |message: String| PersistError::Invalid {
        path: path.display().to_string(),
        message,
    };
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(path.to_path_buf()),
        Err(source) => {
            return Err(PersistError::Io {
                path: path.display().to_string(),
                source,
            });
        }
    };
    let target = if meta.file_type().is_symlink() {
        let Some(target) = crate::files::link_target(path) else {
            return Err(refuse("a symlink whose target does not exist".into()));
        };
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let home = std::fs::canonicalize(dir).map_err(|source| PersistError::Io {
            path: dir.display().to_string(),
            source,
        })?;
        if !target.starts_with(&home) {
            return Err(refuse(format!(
                "a symlink to {}, outside {}; airlock saves rules only inside the workspace",
                target.display(),
                home.display()
            )));
        }
        target
    } else {
        path.to_path_buf()
    };
    match std::fs::metadata(&target) {
        Ok(m) if m.is_file() => Ok(target),
        Ok(_) => Err(refuse("not a regular file".into())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(target),
        Err(source) => Err(PersistError::Io {
            path: target.display().to_string(),
            source,
        }),
    }
}

/// `text` with `rule` appended to its `action` list, keeping comments and
/// layout; `None` when the rule is there already.
fn with_rule(text: &str, action: Action, rule: &str) -> Result<Option<String>, String> {
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| e.to_string())?;
    let key = action.as_str();
    if !doc.contains_key(key) {
        doc.insert(key, Item::Value(Value::Array(Array::new())));
    }
    let Some(array) = doc.get_mut(key).and_then(Item::as_array_mut) else {
        return Err(format!("`{key}` is not an array"));
    };
    if array.iter().any(|v| v.as_str() == Some(rule)) {
        return Ok(None);
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
    Ok(Some(doc.to_string()))
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

    #[test]
    fn the_mode_is_kept_and_a_symlink_inside_is_written_through() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(ws.join("conf")).unwrap();
        let real = ws.join("conf/airlock.toml");
        std::fs::write(&real, "allow = []\n").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        let p = ws.join(".airlock.toml");
        std::os::unix::fs::symlink("conf/airlock.toml", &p).unwrap();
        append_rule(&p, Action::Allow, "ls").unwrap();
        assert!(
            std::fs::symlink_metadata(&p)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(std::fs::read_to_string(&real).unwrap().contains("\"ls\""));
        let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o640);
        let left: Vec<_> = std::fs::read_dir(ws.join("conf")).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file left: {left:?}");
    }

    #[test]
    fn a_symlink_out_of_the_workspace_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir(&ws).unwrap();
        let outside = dir.path().join("bashrc");
        std::fs::write(&outside, "allow = []\n").unwrap();
        let p = ws.join(".airlock.toml");
        std::os::unix::fs::symlink(&outside, &p).unwrap();
        let e = append_rule(&p, Action::Allow, "ls")
            .unwrap_err()
            .to_string();
        assert!(e.contains("outside"), "{e}");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "allow = []\n");
        assert!(
            std::fs::symlink_metadata(&p)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        std::fs::remove_file(&p).unwrap();
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &p).unwrap();
        let e = append_rule(&p, Action::Allow, "ls")
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not exist"), "{e}");
    }

    #[test]
    fn two_writers_at_once_keep_every_rule() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".airlock.toml");
        std::fs::write(&p, "allow = [\n]\n").unwrap();
        let writers: Vec<_> = (0..4)
            .map(|w| {
                let p = p.clone();
                std::thread::spawn(move || {
                    for i in 0..25 {
                        append_rule(&p, Action::Allow, &format!("bash(=echo {w}-{i})")).unwrap();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        let parsed: toml::Table = toml::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(parsed["allow"].as_array().unwrap().len(), 100);
    }

    #[derive(Debug, Default)]
    struct Seen(std::sync::Mutex<Vec<(Option<String>, String, String)>>);

    impl SaveObserver for Seen {
        fn saved(&self, _: &Path, old: Option<&str>, new: &str, _: Action, rule: &str) {
            self.0
                .lock()
                .unwrap()
                .push((old.map(String::from), new.to_string(), rule.to_string()));
        }
    }

    #[test]
    fn the_observer_sees_the_old_and_the_new_text_even_when_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".airlock.toml");
        let seen = Seen::default();
        assert!(append_rule_with(&p, Action::Allow, "ls", Some(&seen)).unwrap());
        assert!(!append_rule_with(&p, Action::Allow, "ls", Some(&seen)).unwrap());
        let seen = seen.0.lock().unwrap();
        assert_eq!(seen[0].0, None);
        assert_eq!(seen[0].1, std::fs::read_to_string(&p).unwrap());
        assert_eq!(seen[1].0.as_deref(), Some(seen[1].1.as_str()));
        assert_eq!(seen[1].2, "ls");
    }
}
