//! Every key of the configuration, classified: which way is stricter, and so
//! what a project `.airlock.toml` the user has not trusted may change (only
//! towards stricter; see `restrict`). This is the one table: a test walks
//! the fields of [`super::Config`] and fails on a key that is not in it.

/// Which way a key is stricter. A project file the user has not trusted
/// (`airlock trust`) applies a value only when it is at least as strict as
/// what the built-in defaults and the user's own files set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Rules that refuse or ask (`deny`, `ask`): always applied, combined
    /// with every other file's.
    TighteningRules,
    /// Allow rules: each one loosens. Applied only from a trusted file, or
    /// when the human saved it with "always" at the prompt.
    AllowRules,
    /// A number; lower is stricter (limits, timeouts).
    Lower,
    /// A number; lower is stricter, but 0 means no limit (the loosest).
    LowerNonZero,
    /// A word, one of these, strictest first.
    Order(&'static [&'static str]),
    /// A switch that is stricter `true`.
    On,
    /// A switch that is stricter `false`.
    Off,
    /// A list of what is kept from the agent (exclusions, hidden and
    /// protected paths, withheld variables): the project's entries are
    /// added to the others', never replace them.
    Union,
    /// A list of what is let through (roots, writable paths, variables,
    /// tools, origins): applied only when it takes away, every entry one
    /// that applies already (or the others' list holds `/`, everywhere;
    /// or sets none, which for `tools.enabled` means every tool).
    Subset,
    /// Any change loosens (`http.listen`: a project may not open a port).
    Fixed,
}

/// `mode`, strictest first.
pub const MODES: &[&str] = &["read-only", "default", "trust-edits"];
/// `sandbox.mode`, strictest first.
pub const SANDBOX_MODES: &[&str] = &["read-only", "workspace-write", "off"];
/// `scope.hard_links`, strictest first.
pub const HARD_LINKS: &[&str] = &["refuse", "packages", "allow"];
/// `hooks.when_absent`, strictest first.
pub const WHEN_ABSENT: &[&str] = &["deny", "ask"];

/// Every key (dotted: `section.key`) and its class.
pub const KEYS: &[(&str, Class)] = &[
    ("mode", Class::Order(MODES)),
    ("approval_timeout_secs", Class::LowerNonZero),
    ("allow", Class::AllowRules),
    ("ask", Class::TighteningRules),
    ("deny", Class::TighteningRules),
    ("tools.enabled", Class::Subset),
    ("limits.timeout_secs", Class::Lower),
    ("limits.max_output_bytes", Class::Lower),
    ("limits.max_read_bytes", Class::Lower),
    ("limits.max_entries", Class::Lower),
    ("scope.extra_roots", Class::Subset),
    ("scope.excluded", Class::Union),
    ("scope.hard_links", Class::Order(HARD_LINKS)),
    ("bash.timeout_secs", Class::Lower),
    ("bash.max_timeout_secs", Class::Lower),
    ("bash.max_output_bytes", Class::Lower),
    ("bash.env_deny", Class::Union),
    ("bash.env_allow", Class::Subset),
    ("bash.auto_approve_read_only", Class::Off),
    ("sandbox.mode", Class::Order(SANDBOX_MODES)),
    ("sandbox.required", Class::On),
    ("sandbox.allow_write", Class::Subset),
    ("sandbox.allow_read", Class::Subset),
    ("sandbox.deny_read", Class::Union),
    ("sandbox.deny_excluded", Class::On),
    ("sandbox.protect", Class::Union),
    ("sandbox.protect_git", Class::On),
    ("sandbox.protect_airlock", Class::On),
    ("sandbox.contain_processes", Class::On),
    ("sandbox.allow_network", Class::Off),
    ("sandbox.allow_env", Class::Subset),
    ("http.listen", Class::Fixed),
    ("http.allowed_origins", Class::Subset),
    ("http.allowed_hosts", Class::Subset),
    ("http.idle_timeout_secs", Class::Lower),
    ("http.max_body_bytes", Class::Lower),
    ("hooks.when_absent", Class::Order(WHEN_ABSENT)),
];

/// The class of the dotted `key`; `None` for a key not in [`KEYS`] (which
/// the loader treats as loosening).
pub fn class_of(key: &str) -> Option<Class> {
    KEYS.iter().find(|(k, _)| *k == key).map(|(_, c)| *c)
}

impl Class {
    /// What loosens, in words (for `airlock config` and the docs).
    pub fn loosens(self) -> &'static str {
        match self {
            Class::TighteningRules => "nothing (always applied)",
            Class::AllowRules => "every rule",
            Class::Lower => "a higher value",
            Class::LowerNonZero => "a higher value, or 0 (no limit)",
            Class::Order(_) => "a looser word",
            Class::On => "false",
            Class::Off => "true",
            Class::Union => "nothing (entries are added)",
            Class::Subset => "an entry that does not apply already",
            Class::Fixed => "any change",
        }
    }
}

#[cfg(test)]
#[path = "classes_tests.rs"]
mod tests;
