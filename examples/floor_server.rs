//! The floor for `bench/read_file.sh`: the least a stdio JSON-RPC server
//! can do to answer a `read_file` call, so that airlock's time can be put
//! beside what any server must spend (process wake-up, pipe I/O, JSON
//! parse, the read, JSON encode).
//!
//! ```text
//! cargo build --release --example floor_server
//! target/release/examples/floor_server        # speaks on stdin/stdout
//! ```
//!
//! No MCP library, no async runtime, no policy, no audit: one thread reads
//! a line, parses it with `serde_json`, and answers
//!
//! * `initialize` with a fixed result (enough for the benchmark client);
//! * `tools/call` by reading `arguments.path` and returning its text as
//!   MCP `content` (`isError: true` when the read fails);
//! * anything else with a `-32601` error; notifications get no answer.
//!
//! It is written for the benchmark only and is not a usable MCP server.

use std::io::{BufRead, BufWriter, Write};

use serde_json::{Value, json};

fn answer(request: &Value) -> Option<Value> {
    let id = request.get("id")?.clone();
    let method = request.get("method").and_then(Value::as_str).unwrap_or("");
    let body = match method {
        "initialize" => json!({"result": {
            "protocolVersion": request.pointer("/params/protocolVersion").cloned().unwrap_or(Value::Null),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "floor", "version": "1"},
        }}),
        "tools/call" => {
            let path = request
                .pointer("/params/arguments/path")
                .and_then(Value::as_str)
                .unwrap_or("");
            let result = match std::fs::read_to_string(path) {
                Ok(text) => json!({"content": [{"type": "text", "text": text}]}),
                Err(e) => {
                    json!({"content": [{"type": "text", "text": e.to_string()}], "isError": true})
                }
            };
            json!({ "result": result })
        }
        _ => json!({"error": {"code": -32601, "message": "method not found"}}),
    };
    let mut reply = body;
    reply["jsonrpc"] = json!("2.0");
    reply["id"] = id;
    Some(reply)
}

fn main() -> std::io::Result<()> {
    let stdin = std::io::stdin().lock();
    let mut out = BufWriter::new(std::io::stdout().lock());
    for line in stdin.lines() {
        let line = line?;
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if let Some(reply) = answer(&request) {
            serde_json::to_writer(&mut out, &reply)?;
            out.write_all(b"\n")?;
            out.flush()?;
        }
    }
    Ok(())
}
