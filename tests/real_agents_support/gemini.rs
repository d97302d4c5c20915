//! The Gemini API for Gemini CLI (`GOOGLE_GEMINI_BASE_URL`): `POST
//! /v1beta/models/M:streamGenerateContent?alt=sse` answered as SSE, plain
//! `:generateContent` as JSON and `:countTokens` with a count.

use serde_json::{Value, json};

use super::http::{Request, Response};
use super::script::{ToolRef, Wire};

pub struct Gemini;

fn turn(req: &Request, part: Value) -> Response {
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
                    out.push(ToolRef {
                        namespace: None,
                        name: name.into(),
                    });
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
            json!({ "functionCall": { "id": format!("call_scripted_{n}"), "name": tool.name,
                "args": args } }),
        )
    }

    fn say(&self, req: &Request, text: &str) -> Response {
        turn(req, json!({ "text": text }))
    }
}
