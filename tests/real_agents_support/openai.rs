//! OpenAI Responses for Codex (a `[model_providers.X]` with `base_url` and
//! `wire_api = "responses"`): `POST /v1/responses` answered as SSE
//! (`response.created`, `response.output_item.done`, `response.completed`).
//! MCP tools come as one `namespace` tool whose `tools` are airlock's; a
//! call names the tool and its `namespace`.

use serde_json::{Value, json};

use super::http::{Request, Response};
use super::script::{ToolRef, Wire};

pub struct OpenAi;

fn turn(item: &Value, n: usize) -> Response {
    let id = format!("resp_scripted_{n}");
    Response::sse(&[
        (
            "response.created",
            json!({ "type": "response.created", "response": { "id": id } }),
        ),
        (
            "response.output_item.done",
            json!({ "type": "response.output_item.done", "output_index": 0, "item": item }),
        ),
        (
            "response.completed",
            json!({ "type": "response.completed", "response": { "id": id, "usage": {
                "input_tokens": 10, "input_tokens_details": null, "output_tokens": 5,
                "output_tokens_details": null, "total_tokens": 15 } } }),
        ),
    ])
}

impl Wire for OpenAi {
    fn other(&self, req: &Request) -> Option<Response> {
        match req.path() {
            "/v1/responses" => None,
            p => Some(Response::not_found(p)),
        }
    }

    fn offered(&self, body: &Value) -> Vec<ToolRef> {
        let mut out = Vec::new();
        for t in body["tools"].as_array().into_iter().flatten() {
            let name = t["name"].as_str().unwrap_or_default().to_string();
            match t["tools"].as_array() {
                Some(inner) => out.extend(inner.iter().filter_map(|i| {
                    Some(ToolRef {
                        namespace: Some(name.clone()),
                        name: i["name"].as_str()?.into(),
                        custom: false,
                    })
                })),
                None => out.push(ToolRef {
                    namespace: None,
                    name,
                    custom: t["type"] == "custom",
                }),
            }
        }
        out
    }

    fn results(&self, body: &Value) -> Vec<Value> {
        body["input"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|i| {
                i["type"] == "function_call_output" || i["type"] == "custom_tool_call_output"
            })
            .map(|i| i["output"].clone())
            .collect()
    }

    fn call(&self, _req: &Request, tool: &ToolRef, args: &Value, n: usize) -> Response {
        if let (true, Some(input)) = (tool.custom, args.as_str()) {
            let item = json!({ "type": "custom_tool_call", "id": format!("ctc_scripted_{n}"),
                "call_id": format!("call_scripted_{n}"), "name": tool.name, "input": input });
            return turn(&item, n);
        }
        let args = match args.as_str() {
            Some(input) => json!({ "input": input }),
            None => args.clone(),
        };
        let mut item = json!({ "type": "function_call", "id": format!("fc_scripted_{n}"),
            "call_id": format!("call_scripted_{n}"), "name": tool.name,
            "arguments": args.to_string() });
        if let Some(ns) = &tool.namespace {
            item["namespace"] = json!(ns);
        }
        turn(&item, n)
    }

    fn say(&self, _req: &Request, text: &str) -> Response {
        turn(
            &json!({ "type": "message", "role": "assistant", "id": "msg_scripted",
                "content": [{ "type": "output_text", "text": text }] }),
            99,
        )
    }
}
