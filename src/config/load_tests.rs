//! A project file the user has not trusted only tightens; a trusted one is
//! a full layer (the control: the same file, trusted, does loosen). The
//! "every key" tests are generated from `classes::KEYS`, so a new key is
//! covered by them as soon as it is classified.

use std::path::PathBuf;

use super::classes::{Class, KEYS};
use super::*;
use crate::policy::persist;

/// A workspace, a trust store, and the user's own file as given text.
struct World {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    store: TrustStore,
}

impl World {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap().join("ws");
        std::fs::create_dir(&ws).unwrap();
        let store = TrustStore::new(&dir.path().join("data"));
        Self {
            _dir: dir,
            ws,
            store,
        }
    }

    fn project(&self) -> PathBuf {
        self.ws.join(PROJECT_CONFIG)
    }

    fn write_project(&self, text: &str) {
        std::fs::write(self.project(), text).unwrap();
    }

    fn trust_project(&self) {
        let text = std::fs::read_to_string(self.project()).unwrap();
        self.store.trust(&self.project(), &text).unwrap();
    }

    /// Load with `user` as the user's own file.
    fn load(&self, user: &str) -> LoadedConfig {
        let user = Layer {
            path: PathBuf::from("user.toml"),
            text: user.to_string(),
            authority: Authority::User,
        };
        load_from(Some(user), &self.ws, None, &self.store).unwrap()
    }
}

/// The effective value of dotted `key`.
fn value(loaded: &LoadedConfig, key: &str) -> Option<toml::Value> {
    let all = toml::Value::try_from(&loaded.config).unwrap();
    key.split('.')
        .try_fold(&all, |v, part| v.get(part))
        .cloned()
}

fn has_rule(loaded: &LoadedConfig, action: Action, text: &str) -> bool {
    loaded
        .rules
        .iter()
        .any(|r| r.action == action && r.text() == text)
}

fn strings(items: &[&str]) -> toml::Value {
    toml::Value::Array(items.iter().map(|s| toml::Value::from(*s)).collect())
}

/// For each class: a looser and a stricter value.
fn looser_stricter(class: Class) -> (toml::Value, toml::Value) {
    use toml::Value as V;
    match class {
        Class::Order(order) => (V::from(*order.last().unwrap()), V::from(order[0])),
        Class::Lower => (V::Integer(1000), V::Integer(5)),
        Class::LowerNonZero => (V::Integer(0), V::Integer(5)),
        Class::On => (V::Boolean(false), V::Boolean(true)),
        Class::Off => (V::Boolean(true), V::Boolean(false)),
        Class::Union => (strings(&["from-the-project"]), strings(&["from-the-user"])),
        Class::Subset => (strings(&["/a", "/b"]), strings(&["/a"])),
        Class::Fixed => (V::from("0.0.0.0:2"), V::from("127.0.0.1:1")),
        Class::AllowRules => (strings(&["bash"]), strings(&[])),
        Class::TighteningRules => (strings(&["bash(rm *)"]), strings(&[])),
    }
}

/// A TOML file setting each key (dotted) to `pick(class)`.
fn file(pick: impl Fn(&str, Class) -> Option<toml::Value>) -> String {
    let mut root = toml::Table::new();
    for (key, class) in KEYS {
        let Some(v) = pick(key, *class) else { continue };
        let mut parts: Vec<&str> = key.split('.').collect();
        let last = parts.pop().unwrap();
        let mut t = &mut root;
        for p in parts {
            t = t
                .entry(p)
                .or_insert_with(|| toml::Value::Table(toml::Table::new()))
                .as_table_mut()
                .unwrap();
        }
        t.insert(last.to_string(), v);
    }
    toml::to_string(&root).unwrap()
}

#[test]
fn every_loosening_key_is_ignored_when_untrusted_and_applies_when_trusted() {
    let w = World::new();
    let user = file(|_, c| Some(looser_stricter(c).1));
    w.write_project(&file(|_, c| Some(looser_stricter(c).0)));

    let loaded = w.load(&user);
    let project = loaded.project.clone().unwrap();
    assert!(!project.trusted);
    let mut ignored: Vec<&str> = project.ignored.iter().map(|i| i.key.as_str()).collect();
    ignored.sort_unstable();
    ignored.dedup();
    let mut loosening: Vec<&str> = KEYS
        .iter()
        .filter(|(_, c)| !matches!(c, Class::Union | Class::TighteningRules))
        .map(|(k, _)| *k)
        .collect();
    loosening.sort_unstable();
    assert_eq!(ignored, loosening);
    for (key, class) in KEYS {
        let (loose, strict) = looser_stricter(*class);
        match class {
            Class::AllowRules => assert!(!has_rule(&loaded, Action::Allow, "bash")),
            Class::TighteningRules => assert!(has_rule(&loaded, Action::Deny, "bash(rm *)")),
            Class::Union => assert_eq!(
                value(&loaded, key),
                Some(strings(&["from-the-user", "from-the-project"])),
                "{key}: added to, not replaced"
            ),
            _ => assert_eq!(value(&loaded, key), Some(strict), "{key} (not {loose})"),
        }
    }
    assert!(project.notice().unwrap().contains("not trusted"));

    // The control: the same file, trusted, is a full layer.
    w.trust_project();
    let loaded = w.load(&user);
    let project = loaded.project.clone().unwrap();
    assert!(project.trusted && project.ignored.is_empty());
    assert_eq!(project.notice(), None);
    for (key, class) in KEYS {
        let (loose, _) = looser_stricter(*class);
        match class {
            Class::AllowRules => assert!(has_rule(&loaded, Action::Allow, "bash")),
            Class::TighteningRules => assert!(has_rule(&loaded, Action::Deny, "bash(rm *)")),
            _ => assert_eq!(value(&loaded, key), Some(loose), "{key}"),
        }
    }
}

#[test]
fn every_tightening_value_applies_untrusted() {
    let w = World::new();
    let user = file(|_, c| Some(looser_stricter(c).0));
    w.write_project(&file(|_, c| match c {
        // Nothing stricter than the same address; no allow rules.
        Class::Fixed => Some(looser_stricter(c).0),
        Class::AllowRules => None,
        _ => Some(looser_stricter(c).1),
    }));
    let loaded = w.load(&user);
    let project = loaded.project.clone().unwrap();
    assert!(!project.trusted);
    assert_eq!(project.ignored, []);
    for (key, class) in KEYS {
        let (loose, strict) = looser_stricter(*class);
        match class {
            Class::AllowRules => assert!(has_rule(&loaded, Action::Allow, "bash")),
            Class::TighteningRules => assert!(has_rule(&loaded, Action::Deny, "bash(rm *)")),
            Class::Union => assert_eq!(
                value(&loaded, key),
                Some(strings(&["from-the-project", "from-the-user"])),
                "{key}"
            ),
            Class::Fixed => assert_eq!(value(&loaded, key), Some(loose), "{key}"),
            _ => assert_eq!(value(&loaded, key), Some(strict), "{key}"),
        }
    }
}

/// The red team's file: with the user at read-only, a cloned repository
/// asked for trust-edits, every tool allowed, no exclusions, every path a
/// root, nothing hidden or protected, and the network.
const RED_TEAM: &str = r#"mode = "trust-edits"
allow = ["bash", "*"]

[scope]
excluded = []
extra_roots = ["/"]

[sandbox]
deny_read = []
protect = []
allow_network = true

[hooks]
when_absent = "ask"
"#;

const USER: &str = "mode = \"read-only\"\n[hooks]\nwhen_absent = \"deny\"\n";

#[test]
fn the_red_team_file_only_tightens_until_trusted() {
    let w = World::new();
    w.write_project(RED_TEAM);
    let defaults = Config::default();

    let loaded = w.load(USER);
    let c = &loaded.config;
    assert_eq!(c.mode, Mode::ReadOnly);
    assert!(!loaded.rules.iter().any(|r| r.action == Action::Allow));
    assert_eq!(c.scope.excluded, defaults.scope.excluded);
    assert!(c.scope.extra_roots.is_empty());
    assert_eq!(c.sandbox.deny_read, defaults.sandbox.deny_read);
    assert_eq!(c.sandbox.protect, defaults.sandbox.protect);
    assert!(!c.sandbox.allow_network);
    assert_eq!(c.hooks.when_absent, hooks::WhenAbsent::Deny);
    let said: Vec<String> = loaded
        .project
        .as_ref()
        .unwrap()
        .ignored
        .iter()
        .map(ToString::to_string)
        .collect();
    for what in [
        "mode = \"trust-edits\" (looser than \"read-only\")",
        "allow = \"bash\" (an allow rule)",
        "allow = \"*\" (an allow rule)",
        "scope.extra_roots = [\"/\"] (adds \"/\")",
        "sandbox.allow_network = true (looser than false)",
        "hooks.when_absent = \"ask\" (looser than \"deny\")",
    ] {
        assert!(said.iter().any(|s| s == what), "{what} in {said:#?}");
    }

    // The control: trusted, the same file does all of that.
    w.trust_project();
    let loaded = w.load(USER);
    let c = &loaded.config;
    assert_eq!(c.mode, Mode::TrustEdits);
    assert!(has_rule(&loaded, Action::Allow, "bash") && has_rule(&loaded, Action::Allow, "*"));
    assert!(c.scope.excluded.is_empty());
    assert_eq!(c.scope.extra_roots, [PathBuf::from("/")]);
    assert!(c.sandbox.deny_read.is_empty() && c.sandbox.protect.is_empty());
    assert!(c.sandbox.allow_network);
    assert_eq!(c.hooks.when_absent, hooks::WhenAbsent::Ask);
}

#[test]
fn a_change_of_content_ends_the_trust() {
    let w = World::new();
    w.write_project("mode = \"trust-edits\"\n");
    w.trust_project();
    assert_eq!(w.load("").config.mode, Mode::TrustEdits);
    w.write_project("mode = \"trust-edits\"\n# one more line\n");
    let loaded = w.load("");
    assert_eq!(loaded.config.mode, Mode::Default);
    assert!(!loaded.project.unwrap().trusted);
    // Another path with the same content is another file.
    let other = World::new();
    other.write_project("mode = \"trust-edits\"\n");
    w.store
        .trust(&other.project(), "mode = \"trust-edits\"\n")
        .unwrap();
    assert_eq!(other.load("").config.mode, Mode::Default);
}

fn save(w: &World, rule: &str) {
    let keeper = TrustKeeper::new(w.store.clone());
    persist::append_rule_with(&w.project(), Action::Allow, rule, Some(&keeper)).unwrap();
}

#[test]
fn an_always_rule_keeps_a_trusted_file_trusted() {
    let w = World::new();
    w.write_project("mode = \"trust-edits\"\nallow = [\"bash(make *)\"]\n");
    w.trust_project();
    save(&w, "bash(cargo test *)");
    let loaded = w.load("");
    assert!(loaded.project.as_ref().unwrap().trusted);
    assert_eq!(loaded.config.mode, Mode::TrustEdits);
    assert!(has_rule(&loaded, Action::Allow, "bash(make *)"));
    assert!(has_rule(&loaded, Action::Allow, "bash(cargo test *)"));
}

#[test]
fn an_always_rule_in_a_new_file_trusts_it() {
    let w = World::new();
    save(&w, "bash(cargo test *)");
    let loaded = w.load("");
    assert!(loaded.project.as_ref().unwrap().trusted);
    assert!(has_rule(&loaded, Action::Allow, "bash(cargo test *)"));
}

#[test]
fn an_always_rule_in_an_untrusted_file_applies_alone() {
    let w = World::new();
    w.write_project("mode = \"trust-edits\"\nallow = [\"bash\"]\n");
    save(&w, "bash(cargo test *)");
    let loaded = w.load("");
    let project = loaded.project.as_ref().unwrap();
    assert!(
        !project.trusted,
        "the save does not trust what it did not write"
    );
    assert_eq!(loaded.config.mode, Mode::Default);
    assert!(!has_rule(&loaded, Action::Allow, "bash"));
    assert!(has_rule(&loaded, Action::Allow, "bash(cargo test *)"));
    // An allow rule the file had, saved by the human at the prompt, applies too.
    save(&w, "bash");
    assert!(has_rule(&w.load(""), Action::Allow, "bash"));
    // Revoked: none of it.
    assert!(w.store.revoke(&w.project()).unwrap());
    assert!(!has_rule(&w.load(""), Action::Allow, "bash(cargo test *)"));
}

#[test]
fn loosening_lists_what_trust_would_apply() {
    let w = World::new();
    let said = loosening_from(None, &w.ws, RED_TEAM).unwrap();
    assert!(said.iter().any(|i| i.key == "sandbox.allow_network"));
    assert!(
        said.iter()
            .any(|i| i.key == "allow" && i.value == "\"bash\"")
    );
    let tight = loosening_from(None, &w.ws, "deny = [\"bash\"]\n").unwrap();
    assert!(tight.is_empty(), "{tight:?}");
    // The user's own allow rules are not the project's loosening.
    let user = Layer {
        path: PathBuf::from("user.toml"),
        text: "allow = [\"bash\"]\n".into(),
        authority: Authority::User,
    };
    let said = loosening_from(Some(user), &w.ws, "allow = [\"bash\"]\n").unwrap();
    assert!(said.is_empty(), "{said:?}");
}
