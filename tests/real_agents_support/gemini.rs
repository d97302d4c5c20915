//! The Gemini API for Gemini CLI (`GOOGLE_GEMINI_BASE_URL`): `POST
//! /v1beta/models/M:streamGenerateContent?alt=sse` answered as SSE, plain
//! `:generateContent` as JSON and `:countTokens` with a count.

use serde_json::{Value, json};

use super::http::{Request, Response};
use super::script::{ToolRef, Wire};

pub struct Gemini;

fn turn(req: &Request, part: &Value) -> Response {
    let chunk = json!({
        "candidates": [{ "content": { "role": "model", "parts": [part] },
            "finishReason": "STOP", "index": 0 }],
        "usageMetadata": { "promptTokenCount": 10, "candidatesTokenCount": 5,
            "totalTokenCount": 15 },
    });
    if req.target.contains(":streamGenerateContent") {
        Response::sse(&[("", chunk)])
    } else {
        Response::json(&chunk)
    }
}

impl Wire for Gemini {
    fn other(&self, req: &Request) -> Option<Response> {
        let p = req.path();
        if p.ends_with(":countTokens") {
            Some(Response::json(&json!({ "totalTokens": 100 })))
        } else if p.ends_with(":streamGenerateContent") || p.ends_with(":generateContent") {
            None
        } else {
            Some(Response::not_found(p))
        }
    }

    fn offered(&self, body: &Value) -> Vec<ToolRef> {
        let mut out = Vec::new();
        for t in body["tools"].as_array().into_iter().flatten() {
            for f in t["functionDeclarations"].as_array().into_iter().flatten() {
                if let Some(name) = f["name"].as_str() {
                    out.push(ToolRef::plain(name));
                }
            }
        }
        out
    }

    fn results(&self, body: &Value) -> Vec<Value> {
        let mut out = Vec::new();
        for c in body["contents"].as_array().into_iter().flatten() {
            for p in c["parts"].as_array().into_iter().flatten() {
                if let Some(r) = p.get("functionResponse") {
                    out.push(r["response"].clone());
                }
            }
        }
        out
    }

    fn call(&self, req: &Request, tool: &ToolRef, args: &Value, n: usize) -> Response {
        turn(
            req,
            &json!({ "functionCall": { "id": format!("call_scripted_{n}"), "name": tool.name,
                "args": args } }),
        )
    }

    fn say(&self, req: &Request, text: &str) -> Response {
        let config = &req.body["generationConfig"];
        if config["responseMimeType"] == "application/json" {
            // Gemini CLI's own side questions (which model to route to,
            // who speaks next) want JSON of a schema: its first choices.
            let schema = config
                .get("responseJsonSchema")
                .or_else(|| config.get("responseSchema"))
                .unwrap_or(&Value::Null);
            return turn(req, &json!({ "text": fill(schema).to_string() }));
        }
        turn(req, &json!({ "text": text }))
    }
}

/// A value of JSON schema `schema`: an enum's first value, every property.
fn fill(schema: &Value) -> Value {
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    let ty = schema["type"]
        .as_str()
        .unwrap_or("object")
        .to_ascii_lowercase();
    match ty.as_str() {
        "object" => {
            let props = schema["properties"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            Value::Object(props.iter().map(|(k, v)| (k.clone(), fill(v))).collect())
        }
        "array" => json!([]),
        "boolean" => json!(false),
        "number" | "integer" => json!(0),
        _ => json!("scripted"),
    }
}
