//! Finding the id of a request that could not be read: a line over the size
//! limit (only its head and tail are kept) or one that is not valid JSON (a
//! lone UTF-16 surrogate, a cut message). The error reply carries the id
//! when it can be found cheaply, so the client can match it to its request
//! instead of waiting forever; otherwise the reply's id is null.

use rmcp::model::RequestId;
use serde_json::Value;

/// The id of the request in `head` (the start of a message) or, failing
/// that, `tail` (its end). `None` for a response (it has `result` or
/// `error`) or when no top-level id is found.
pub fn recover(head: &[u8], tail: &[u8]) -> Option<RequestId> {
    let scan = scan_head(head);
    if scan.response {
        return None;
    }
    let id = scan.id.or_else(|| id_at_end(tail))?;
    serde_json::from_value(id).ok()
}

/// What a scan of the start of a message found at the top level.
#[derive(Debug, Default, PartialEq)]
struct Scan {
    id: Option<Value>,
    response: bool,
}

/// Walk the top-level object's keys (strings and nesting skipped, so an
/// `"id"` inside `params` does not count).
fn scan_head(bytes: &[u8]) -> Scan {
    let mut found = Scan::default();
    let (mut depth, mut i) = (0usize, 0usize);
    let mut object = false;
    let mut expect_key = false;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let Some((end, content)) = string_at(bytes, i) else {
                    break;
                };
                if depth == 1 && object && expect_key {
                    expect_key = false;
                    let j = skip_ws(bytes, end);
                    if bytes.get(j) == Some(&b':') {
                        let v = skip_ws(bytes, j + 1);
                        match content {
                            b"id" => found.id = found.id.take().or_else(|| scalar_at(bytes, v)),
                            b"result" | b"error" => found.response = true,
                            _ => {}
                        }
                    }
                }
                i = end;
                continue;
            }
            b'{' | b'[' => {
                depth += 1;
                if depth == 1 {
                    object = bytes[i] == b'{';
                }
                expect_key = depth == 1 && object;
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' if depth == 1 => expect_key = object,
            _ => {}
        }
        i += 1;
    }
    found
}

/// `…,"id":VALUE}` at the very end of a message: the last top-level member.
fn id_at_end(bytes: &[u8]) -> Option<Value> {
    let mut end = trim_end(bytes, bytes.len());
    if end == 0 || bytes[end - 1] != b'}' {
        return None;
    }
    end = trim_end(bytes, end - 1);
    let (start, value) = if end > 0 && bytes[end - 1] == b'"' {
        let open = opening_quote(bytes, end - 1)?;
        (
            open,
            serde_json::from_slice::<Value>(&bytes[open..end]).ok()?,
        )
    } else {
        let start = bytes[..end]
            .iter()
            .rposition(|b| !(b.is_ascii_digit() || *b == b'-'))
            .map_or(0, |p| p + 1);
        let n: i64 = std::str::from_utf8(&bytes[start..end]).ok()?.parse().ok()?;
        (start, Value::from(n))
    };
    let colon = trim_end(bytes, start);
    if colon == 0 || bytes[colon - 1] != b':' {
        return None;
    }
    let key_end = trim_end(bytes, colon - 1);
    if !bytes[..key_end].ends_with(b"\"id\"") {
        return None;
    }
    let before = trim_end(bytes, key_end - 4);
    matches!(bytes[..before].last(), Some(b',' | b'{')).then_some(value)
}

/// The string starting at the quote `bytes[i]`: the index after its closing
/// quote and its raw content; `None` when it does not end in `bytes`.
fn string_at(bytes: &[u8], i: usize) -> Option<(usize, &[u8])> {
    let mut j = i + 1;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            b'"' => return Some((j + 1, &bytes[i + 1..j])),
            _ => j += 1,
        }
    }
    None
}

/// The quote that opens the string whose closing quote is `bytes[close]`.
fn opening_quote(bytes: &[u8], close: usize) -> Option<usize> {
    let mut j = close;
    while j > 0 {
        j -= 1;
        if bytes[j] == b'"' {
            let slashes = bytes[..j].iter().rev().take_while(|b| **b == b'\\').count();
            if slashes % 2 == 0 {
                return Some(j);
            }
        }
    }
    None
}

/// A string or integer id at `bytes[i]`, complete (followed by `,` or `}`).
fn scalar_at(bytes: &[u8], i: usize) -> Option<Value> {
    let (end, value) = if bytes.get(i)? == &b'"' {
        let (end, _) = string_at(bytes, i)?;
        (end, serde_json::from_slice::<Value>(&bytes[i..end]).ok()?)
    } else {
        let len = bytes[i..]
            .iter()
            .take_while(|b| b.is_ascii_digit() || **b == b'-')
            .count();
        let n: i64 = std::str::from_utf8(&bytes[i..i + len]).ok()?.parse().ok()?;
        (i + len, Value::from(n))
    };
    let next = skip_ws(bytes, end);
    matches!(bytes.get(next), Some(b',' | b'}')).then_some(value)
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

fn trim_end(bytes: &[u8], mut end: usize) -> usize {
    while end > 0 && bytes[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn id(head: &str, tail: &str) -> Option<Value> {
        recover(head.as_bytes(), tail.as_bytes()).map(|i| serde_json::to_value(i).unwrap())
    }

    #[test]
    fn finds_the_top_level_id_at_the_start() {
        let m = r#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"x":"#;
        assert_eq!(id(m, ""), Some(json!(42)));
        let m = r#"{ "id" : "a\"b", "method":"x""#;
        assert_eq!(id(m, ""), Some(json!("a\"b")));
        // Nested ids and ids inside strings do not count.
        let m = r#"{"method":"x","params":{"id":5,"s":"\"id\":6,"},"id":7,"x":"#;
        assert_eq!(id(m, ""), Some(json!(7)));
        let m = r#"{"method":"x","params":{"id":5,"#;
        assert_eq!(id(m, ""), None);
        // A value cut by the end of the head is not guessed at.
        assert_eq!(id(r#"{"id":12"#, ""), None);
    }

    #[test]
    fn finds_the_last_member_id_at_the_end() {
        assert_eq!(id(r#"{"method":"#, r#"xxxx"},"id":99}"#), Some(json!(99)));
        assert_eq!(
            id(r#"{"method":"#, "aaa\"}, \"id\" : \"t-1\" }\n"),
            Some(json!("t-1"))
        );
        // An id that closes a nested object is not the request's.
        assert_eq!(id(r#"{"method":"#, r#"x","id":5}}"#), None);
        assert_eq!(id(r#"{"method":"#, r#"x":"y,\"id\":5}"}"#), None);
    }

    #[test]
    fn responses_and_lone_surrogates() {
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#, ""), None);
        let m = r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"path":"\ud800"}}"#;
        assert_eq!(id(m, m), Some(json!(8)));
        let m = r#"{"jsonrpc":"2.0","method":"tools/call","params":{"path":"\ud800"},"id":"s"}"#;
        assert_eq!(id(m, m), Some(json!("s")));
    }
}
