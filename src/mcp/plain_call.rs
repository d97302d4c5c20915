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

use std::fmt;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, JsonObject,
    RequestId,
};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

const METHOD: &str = "tools/call";

/// The message's members. Read only from a JSON object (a derived struct
/// would also take an array of its fields, which rmcp refuses), each key
/// once, no other key.
struct Line {
    id: RequestId,
    method_ok: bool,
    params: Params,
}

/// `params`, by the same rules.
struct Params {
    name: String,
    arguments: Option<JsonObject>,
}

impl<'de> Deserialize<'de> for Line {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(LineVisitor)
    }
}

impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ParamsVisitor)
    }
}

struct LineVisitor;

impl<'de> Visitor<'de> for LineVisitor {
    type Value = Line;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a plain tools/call request")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Line, A::Error> {
        let (mut version, mut id, mut method, mut params) = (false, None, None, None);
        while let Some(key) = map.next_key::<Word>()? {
            match key {
                Word::Jsonrpc if !version => {
                    if map.next_value::<Word>()? != Word::Version2 {
                        return Err(de::Error::custom("not JSON-RPC 2.0"));
                    }
                    version = true;
                }
                Word::Id if id.is_none() => id = Some(map.next_value::<RequestId>()?),
                Word::Method if method.is_none() => {
                    method = Some(map.next_value::<Word>()? == Word::ToolsCall);
                }
                Word::Params if params.is_none() => params = Some(map.next_value::<Params>()?),
                _ => return Err(de::Error::custom("not a plain tools/call")),
            }
        }
        match (version, id, method, params) {
            (true, Some(id), Some(method_ok), Some(params)) => Ok(Line {
                id,
                method_ok,
                params,
            }),
            _ => Err(de::Error::custom("not a plain tools/call")),
        }
    }
}

struct ParamsVisitor;

impl<'de> Visitor<'de> for ParamsVisitor {
    type Value = Params;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tools/call params")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Params, A::Error> {
        let (mut name, mut arguments) = (None, None);
        while let Some(key) = map.next_key::<Word>()? {
            match key {
                Word::Name if name.is_none() => name = Some(map.next_value::<String>()?),
                Word::Arguments if arguments.is_none() => {
                    arguments = Some(map.next_value::<Option<JsonObject>>()?);
                }
                _ => return Err(de::Error::custom("not plain tools/call params")),
            }
        }
        let name = name.ok_or_else(|| de::Error::missing_field("name"))?;
        Ok(Params {
            name,
            arguments: arguments.flatten(),
        })
    }
}

/// A string of the message (a member's name, `jsonrpc`'s or `method`'s
/// value), told apart without copying it (serde's `Cow<str>` always
/// copies). A value that is not a string is refused, as rmcp refuses it.
#[derive(PartialEq, Eq)]
enum Word {
    Jsonrpc,
    Id,
    Method,
    Params,
    Name,
    Arguments,
    /// `"2.0"`, the only version rmcp's `JsonRpcVersion2_0` takes.
    Version2,
    /// `"tools/call"`.
    ToolsCall,
    /// Any other string: as a name, the line goes the general way.
    Other,
}

impl<'de> Deserialize<'de> for Word {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(WordVisitor)
    }
}

struct WordVisitor;

impl Visitor<'_> for WordVisitor {
    type Value = Word;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, word: &str) -> Result<Word, E> {
        Ok(match word {
            "jsonrpc" => Word::Jsonrpc,
            "id" => Word::Id,
            "method" => Word::Method,
            "params" => Word::Params,
            "name" => Word::Name,
            "arguments" => Word::Arguments,
            "2.0" => Word::Version2,
            METHOD => Word::ToolsCall,
            _ => Word::Other,
        })
    }
}

/// `line` as rmcp's message when it is a plain `tools/call` request;
/// `None`: parse it the general way.
pub(super) fn parse(line: &[u8]) -> Option<ClientJsonRpcMessage> {
    let parsed: Line = serde_json::from_slice(line).ok()?;
    if !parsed.method_ok {
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
            r#"{"json\u0072pc":"2\u002e0","\u0069d":4,"method":"tools/call","par\u0061ms":{"n\u0061me":"ls","\u0061rguments":{}}}"#,
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
            r#"{"jsonrpc":2.0,"id":1,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0 ","id":1,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7,"params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call ","params":{"name":"x"}}"#,
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
            // Arrays of the members (serde's derived structs take them).
            r#"["2.0",1,"tools/call",{"name":"read_file","arguments":{"path":"a.txt"}}]"#,
            r#"["2.0",1,"tools/call",["read_file",{"path":"a.txt"}]]"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["read_file",{"path":"a.txt"}]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["read_file"]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}"#,
            r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"},"params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{},"arguments":{}}}"#,
        ] {
            assert!(
                parse(line.as_bytes()).is_none(),
                "took the short way: {line}"
            );
        }
    }
}
