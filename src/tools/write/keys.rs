//! The write tools' argument names, and the arguments of a call to each,
//! for a caller that maps another tool's call onto them (the hooks map an
//! agent's own writes): the names are the tools' to know.

use serde_json::{Map, Value};

/// The file written or edited (both tools).
pub const PATH: &str = "path";
/// `write_file`: the full new content (or the text to append).
pub const CONTENT: &str = "content";
/// `write_file`: append instead of replacing.
pub const APPEND: &str = "append";
/// `edit_file`: the exact text replaced.
pub const OLD_TEXT: &str = "old_text";
/// `edit_file`: its replacement.
pub const NEW_TEXT: &str = "new_text";
/// `edit_file`: replace every occurrence, not exactly one.
pub const REPLACE_ALL: &str = "replace_all";

fn text(s: &str) -> Value {
    Value::String(s.to_string())
}

/// `write_file`'s arguments to write `content` to `path` (replacing it).
pub fn write_file_args(path: &str, content: &str) -> Map<String, Value> {
    Map::from_iter([(PATH.into(), text(path)), (CONTENT.into(), text(content))])
}

/// `edit_file`'s arguments to replace `old_text` with `new_text` in `path`
/// (every occurrence with `replace_all`).
pub fn edit_file_args(
    path: &str,
    old_text: &str,
    new_text: &str,
    replace_all: bool,
) -> Map<String, Value> {
    Map::from_iter([
        (PATH.into(), text(path)),
        (OLD_TEXT.into(), text(old_text)),
        (NEW_TEXT.into(), text(new_text)),
        (REPLACE_ALL.into(), Value::Bool(replace_all)),
    ])
}
