//! The message an agent sends most, parsed the short way.
//!
//! rmcp reads a line through several layers of buffered serde (an untagged
//! enum, a shape check, two flattened structs), which costs more than the
//! rest of a small read-only call. A `tools/call` request with nothing but
//! `jsonrpc`, `id`, `method` and `params` holding `name` and `arguments`
//! (no `_meta`, no other key, no key twice) is parsed here straight into
//! the same rmcp message. Anything else (or anything this parse refuses)
//! goes the general way, so what rmcp is handed never depends on which way
//! a line took (the tests compare both ways).

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, JsonObject,
    JsonRpcVersion2_0, RequestId,
};
use serde::Deserialize;

const METHOD: &str = "tools/call";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line<'a> {
    #[serde(rename = "jsonrpc")]
    _jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    #[serde(borrow)]
    method: std::borrow::Cow<'a, str>,
    params: Params,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    name: String,
    #[serde(default)]
    arguments: Option<JsonObject>,
}

/// `line` as rmcp's message when it is a plain `tools/call` request;
/// `None`: parse it the general way.
pub(super) fn parse(line: &[u8]) -> Option<ClientJsonRpcMessage> {
    let parsed: Line<'_> = serde_json::from_slice(line).ok()?;
    if parsed.method != METHOD {
        return None;
    }
    let mut params = CallToolRequestParams::new(parsed.params.name);
    params.arguments = parsed.params.arguments;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    Some(ClientJsonRpcMessage::request(request, parsed.id))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What rmcp's own parse makes of `line`.
    fn general(line: &str) -> ClientJsonRpcMessage {
        serde_json::from_str(line).unwrap()
    }

    fn same(a: &ClientJsonRpcMessage, b: &ClientJsonRpcMessage) -> bool {
        serde_json::to_value(a).unwrap() == serde_json::to_value(b).unwrap()
            && format!("{a:?}") == format!("{b:?}")
    }

    #[test]
    fn plain_tool_calls_parse_to_what_rmcp_makes_of_them() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}"#,
            r#"{"id":"abc","params":{"arguments":{"path":"a b/ü.txt","offset":3},"name":"read_file"},"method":"tools/call","jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":-7,"method":"tools/call","params":{"name":"bash"}}"#,
            r#"{"jsonrpc":"2.0","id":1e2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"ls"}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":null}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools\/call","params":{"name":"r\u0065ad","arguments":{"k":[1,{"n":null}],"e":"\n\t\"\\"}}}"#,
            r#" { "jsonrpc" : "2.0" , "id" : 9223372036854775807 , "method" : "tools/call" , "params" : { "name" : "ls" , "arguments" : { } } } "#,
        ] {
            let fast = parse(line.as_bytes()).unwrap_or_else(|| panic!("not plain: {line}"));
            let slow = general(line);
            assert!(same(&fast, &slow), "{line}\nfast {fast:?}\nslow {slow:?}");
        }
    }

    #[test]
    fn anything_else_goes_the_general_way() {
        for line in [
            // Other methods, metadata, extra or repeated keys, bad shapes.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","requestState":"s"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"},"extra":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","name":"y"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":"s"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}]"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}} trailing"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\ud800"}}"#,
        ] {
            assert!(
                parse(line.as_bytes()).is_none(),
                "took the short way: {line}"
            );
        }
    }
}
