//! How much of what an agent sends reaches the trail: long strings and
//! long keys are cut, a call's arguments are cut in total size, and the
//! writer cuts any record that is still too large before it is written
//! ([`bounded_record`]), so no text an agent controls — an argument's name,
//! a tool or client name, an error or refusal reason that quotes them — can
//! make one record large (a 5 MB argument name used to land in the trail
//! twice, in the request and in the refusal's reason).
//!
//! What is kept whole on purpose: a command the human approves (`command`,
//! `cmd`: the trail shows exactly what ran; bounded by the largest message,
//! 16 MiB over MCP, 80 MiB from a hook),
//! the command the human edited, and a write's diff (cut at 64 KiB where it
//! is recorded).

use serde_json::{Map, Value};

use super::record::AuditEvent;

/// Longest string kept verbatim (an argument, a name, a reason …).
const MAX_STRING: usize = 4096;

/// Longest object key kept verbatim (an argument's name).
const MAX_KEY: usize = 256;

/// About how many bytes of a call's arguments are kept (the arguments kept
/// whole not counted); the entries after that are left out and counted.
const MAX_ARGS_BYTES: usize = 64 * 1024;

/// A record longer than this, serialized, is cut by [`bounded_record`]
/// before it is written. Records this small are written as they are.
pub(super) const MAX_RECORD_BYTES: usize = 128 * 1024;

/// What a number, `true` or `null` counts for against [`MAX_ARGS_BYTES`].
const SCALAR_BYTES: usize = 8;

/// Top-level arguments a command tool's call keeps whole in a record cut
/// by [`bounded_record`] (bash's `command`, Codex's `cmd`): the tool's own
/// call already kept them whole or cut them.
const COMMAND_ARGS: &[&str] = &["command", "cmd"];

/// `args` with long strings and keys cut (marked with how many bytes were
/// left out) and, past about 64 KiB, entries left out (counted), so a
/// 10 MB argument, a 5 MB argument name or a million small arguments do not
/// bloat the trail.
pub fn bounded_args(args: &Value) -> Value {
    bounded_args_except(args, &[])
}

/// [`bounded_args`], except the top-level arguments named in `keep`, which
/// are kept whole (a bash command: the human approves all of it, and the
/// trail must show exactly what ran).
pub fn bounded_args_except(args: &Value, keep: &[&str]) -> Value {
    match args {
        Value::Object(o) => bounded_object(o, keep),
        other => {
            let mut budget = MAX_ARGS_BYTES;
            bounded_value(other, &mut budget)
        }
    }
}

/// The arguments object `o` as [`bounded_args_except`] keeps it, built
/// from a borrowed map (no copy of the whole arguments first).
pub fn bounded_object(o: &Map<String, Value>, keep: &[&str]) -> Value {
    let mut budget = MAX_ARGS_BYTES;
    Value::Object(bounded_map(o, keep, &mut budget))
}

/// `o` within `budget`: entries named in `keep` whole, the others bounded
/// until the budget is spent, then left out and counted.
fn bounded_map(o: &Map<String, Value>, keep: &[&str], budget: &mut usize) -> Map<String, Value> {
    let mut out = Map::new();
    let mut left_out = 0usize;
    for (k, v) in o {
        if keep.contains(&k.as_str()) {
            out.insert(k.clone(), v.clone());
        } else if *budget == 0 {
            left_out += 1;
        } else {
            let key = bounded_key(k);
            *budget = budget.saturating_sub(key.len());
            out.insert(key, bounded_value(v, budget));
        }
    }
    if left_out > 0 {
        out.insert(
            "…".into(),
            Value::String(format!("[{left_out} more entries left out]")),
        );
    }
    out
}

/// `v` within `budget` (see [`bounded_map`]).
fn bounded_value(v: &Value, budget: &mut usize) -> Value {
    match v {
        Value::String(s) => {
            let s = bounded_string(s);
            *budget = budget.saturating_sub(s.len());
            Value::String(s)
        }
        Value::Array(a) => {
            let mut out = Vec::new();
            for (i, item) in a.iter().enumerate() {
                if *budget == 0 {
                    out.push(Value::String(format!(
                        "[{} more items left out]",
                        a.len() - i
                    )));
                    break;
                }
                out.push(bounded_value(item, budget));
            }
            Value::Array(out)
        }
        Value::Object(o) => Value::Object(bounded_map(o, &[], budget)),
        other => {
            *budget = budget.saturating_sub(SCALAR_BYTES);
            other.clone()
        }
    }
}

/// `s` cut at [`MAX_STRING`] bytes, marked with how many were left out.
fn bounded_string(s: &str) -> String {
    cut_marked(s, MAX_STRING)
}

/// A key cut at [`MAX_KEY`] bytes, marked with how many were left out.
fn bounded_key(k: &str) -> String {
    cut_marked(k, MAX_KEY)
}

/// `s`, or its first `max` bytes and `… [N more bytes]`.
fn cut_marked(s: &str, max: usize) -> String {
    let head = cut(s, max);
    if head.len() == s.len() {
        s.to_string()
    } else {
        format!("{head}… [{} more bytes]", s.len() - head.len())
    }
}

/// `event` as the writer records it when it is too large
/// ([`MAX_RECORD_BYTES`]): every string and key cut (the shape, every
/// field and every type kept, so it reads as the same event), a call's
/// arguments bounded as [`bounded_args`] bounds them. Kept whole: a
/// command tool's `command`/`cmd`, the human's edited command, a write's
/// diff (bounded where they are made).
pub(super) fn bounded_record(event: &AuditEvent) -> Result<Value, serde_json::Error> {
    let mut v = serde_json::to_value(event)?;
    if let Value::Object(fields) = &mut v {
        for (name, field) in fields.iter_mut() {
            match name.as_str() {
                "edited_command" => {}
                "call" => bound_fields(field, |name, f| {
                    if name == "args" {
                        *f = bounded_args_except(f, COMMAND_ARGS);
                    } else {
                        cut_strings(f);
                    }
                }),
                "change" => bound_fields(field, |name, f| {
                    if name != "diff" {
                        cut_strings(f);
                    }
                }),
                _ => cut_strings(field),
            }
        }
    }
    Ok(v)
}

/// Apply `each` to every field of the object `v` (any other value: cut
/// its strings).
fn bound_fields(v: &mut Value, mut each: impl FnMut(&str, &mut Value)) {
    match v {
        Value::Object(fields) => {
            for (name, f) in fields.iter_mut() {
                each(name, f);
            }
        }
        other => cut_strings(other),
    }
}

/// Every string and key in `v` cut; nothing left out.
fn cut_strings(v: &mut Value) {
    match v {
        Value::String(s) if s.len() > MAX_STRING => *s = bounded_string(s),
        Value::Array(a) => a.iter_mut().for_each(cut_strings),
        Value::Object(o) if o.keys().any(|k| k.len() > MAX_KEY) => {
            let old = std::mem::take(o);
            for (k, mut item) in old {
                cut_strings(&mut item);
                o.insert(bounded_key(&k), item);
            }
        }
        Value::Object(o) => o.values_mut().for_each(cut_strings),
        _ => {}
    }
}

/// The first `max` bytes of `s` (on a character boundary).
pub fn excerpt(s: &str, max: usize) -> String {
    let head = cut(s, max);
    if head.len() < s.len() {
        format!("{head}…")
    } else {
        head.to_string()
    }
}

fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut i = max;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    &s[..i]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const HUGE: usize = 5 * 1024 * 1024;

    fn size(v: &Value) -> usize {
        serde_json::to_vec(v).unwrap().len()
    }

    #[test]
    fn a_huge_key_is_cut_and_marked() {
        let key = "k".repeat(HUGE);
        let args = json!({ key.clone(): 1, "path": "a.txt" });
        // Control: the arguments as sent are as large as the key.
        assert!(size(&args) > HUGE);
        let b = bounded_args(&args);
        assert!(size(&b) < 1024, "{}", size(&b));
        assert_eq!(b["path"], "a.txt");
        let cut_key = b.as_object().unwrap().keys().find(|k| k.starts_with('k'));
        assert_eq!(
            cut_key.unwrap(),
            &format!("{}… [{} more bytes]", "k".repeat(MAX_KEY), HUGE - MAX_KEY)
        );
    }

    #[test]
    fn many_small_arguments_are_cut_in_total() {
        let many: Map<String, Value> = (0..200_000)
            .map(|i| (format!("a{i}"), json!("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")))
            .collect();
        let nested =
            json!({ "list": vec![json!("y".repeat(100)); 100_000], "command": "x".repeat(HUGE) });
        assert!(size(&Value::Object(many.clone())) > HUGE);
        let b = bounded_object(&many, &[]);
        assert!(size(&b) < 2 * MAX_ARGS_BYTES, "{}", size(&b));
        let left = b["…"].as_str().unwrap();
        assert!(left.ends_with("more entries left out]"), "{left}");
        // Arrays too; an argument kept whole is not counted or cut.
        let b = bounded_args_except(&nested, &["command"]);
        assert_eq!(b["command"].as_str().unwrap().len(), HUGE);
        let list = b["list"].as_array().unwrap();
        assert!(list.len() < 1000, "{}", list.len());
        assert!(
            list.last()
                .unwrap()
                .as_str()
                .unwrap()
                .ends_with("more items left out]")
        );
    }

    #[test]
    fn small_arguments_are_kept_as_they_are() {
        let args =
            json!({"path": "src/main.rs", "lines": 20, "list": [1, "two", null], "o": {"k": "v"}});
        assert_eq!(bounded_args(&args), args);
    }

    #[test]
    fn a_bounded_record_keeps_its_type_and_shape() {
        let big = "r".repeat(HUGE);
        let call = json!({"type": "call_requested", "call": {"id": 1,
            "agent": {"id": 1, "name": big, "version": big}, "tool": big, "kind": "exec",
            "args": {"command": big, big.clone(): big}, "summary": big,
            "received_at": "2026-01-02T03:04:05Z",
            "runner": {"type": "agent", "native_tool": big, "tool_use_id": big}}});
        let event: AuditEvent = serde_json::from_value(call).unwrap();
        let b = bounded_record(&event).unwrap();
        // The command is kept whole, everything else is cut.
        assert_eq!(b["call"]["args"]["command"].as_str().unwrap().len(), HUGE);
        let mut rest = b.clone();
        rest["call"]["args"]
            .as_object_mut()
            .unwrap()
            .remove("command");
        assert!(size(&rest) < 64 * 1024, "{}", size(&rest));
        let back: AuditEvent = serde_json::from_value(b).unwrap();
        assert_eq!(back.kind(), "call_requested");

        let decided = json!({"type": "call_decided", "call_id": 1, "approved": false,
            "by": "invalid_arguments", "reason": format!("unknown field `{big}`")});
        let event: AuditEvent = serde_json::from_value(decided).unwrap();
        // Control: as it is, the record holds the whole reason.
        assert!(serde_json::to_vec(&event).unwrap().len() > HUGE);
        let b = bounded_record(&event).unwrap();
        assert!(size(&b) < 8 * 1024, "{}", size(&b));
        let back: AuditEvent = serde_json::from_value(b).unwrap();
        assert_eq!(back.kind(), "call_decided");
    }
}
