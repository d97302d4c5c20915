//! Anthropic Messages for Claude Code (`ANTHROPIC_BASE_URL`): `POST
//! /v1/messages` answered as SSE when `stream` is set (`message_start`,
//! `content_block_start`/`_delta`/`_stop`, `message_delta`, `message_stop`)
//! and as one JSON message otherwise, and `POST /v1/messages/count_tokens`.

use serde_json::{Value, json};

use super::http::{Request, Response};
use super::script::{ToolRef, Wire};

pub struct Anthropic;

fn model(req: &Request) -> Value {
    req.body.get("model").cloned().unwrap_or(json!("scripted"))
}

/// `block` as one message: SSE events, or the JSON message.
fn message(req: &Request, block: &Value, stop: &str, n: usize) -> Response {
    let id = format!("msg_scripted_{n}");
    let usage = json!({ "input_tokens": 10, "output_tokens": 5 });
    if req.body.get("stream") != Some(&json!(true)) {
        return Response::json(&json!({
            "id": id, "type": "message", "role": "assistant", "model": model(req),
            "content": [block], "stop_reason": stop, "stop_sequence": null, "usage": usage,
        }));
    }
    let (start, delta) = match block["type"].as_str() {
        Some("tool_use") => {
            let mut start = block.clone();
            start["input"] = json!({});
            let partial = block["input"].to_string();
            (
                start,
                json!({ "type": "input_json_delta", "partial_json": partial }),
            )
        }
        _ => (
            json!({ "type": "text", "text": "" }),
            json!({ "type": "text_delta", "text": block["text"] }),
        ),
    };
    Response::sse(&[
        (
            "message_start",
            json!({ "type": "message_start", "message": {
                "id": id, "type": "message", "role": "assistant", "model": model(req),
                "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": { "input_tokens": 10, "output_tokens": 1 } } }),
        ),
        (
            "content_block_start",
            json!({ "type": "content_block_start", "index": 0, "content_block": start }),
        ),
        (
            "content_block_delta",
            json!({ "type": "content_block_delta", "index": 0, "delta": delta }),
        ),
        (
            "content_block_stop",
            json!({ "type": "content_block_stop", "index": 0 }),
        ),
        (
            "message_delta",
            json!({ "type": "message_delta",
                "delta": { "stop_reason": stop, "stop_sequence": null },
                "usage": { "output_tokens": 5 } }),
        ),
        ("message_stop", json!({ "type": "message_stop" })),
    ])
}

impl Wire for Anthropic {
    fn other(&self, req: &Request) -> Option<Response> {
        match req.path() {
            "/v1/messages/count_tokens" => Some(Response::json(&json!({ "input_tokens": 100 }))),
            "/v1/messages" => None,
            p => Some(Response::not_found(p)),
        }
    }

    fn offered(&self, body: &Value) -> Vec<ToolRef> {
        body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["name"].as_str())
            .map(ToolRef::plain)
            .collect()
    }

    fn results(&self, body: &Value) -> Vec<Value> {
        let mut out = Vec::new();
        for m in body["messages"].as_array().into_iter().flatten() {
            for block in m["content"].as_array().into_iter().flatten() {
                if block["type"] == "tool_result" {
                    out.push(block["content"].clone());
                }
            }
        }
        out
    }

    fn call(&self, req: &Request, tool: &ToolRef, args: &Value, n: usize) -> Response {
        let block = json!({ "type": "tool_use", "id": format!("toolu_scripted_{n}"),
            "name": tool.name, "input": args });
        message(req, &block, "tool_use", n)
    }

    fn say(&self, req: &Request, text: &str) -> Response {
        message(
            req,
            &json!({ "type": "text", "text": text }),
            "end_turn",
            99,
        )
    }
}
