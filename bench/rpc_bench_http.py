#!/usr/bin/env python3
"""Times MCP tool calls over Streamable HTTP (the HTTP twin of rpc_bench.py).

It launches `airlock serve --http ...` (the URL, secret included, is the
server's first line on stderr), opens an MCP session (`initialize`,
`notifications/initialized`), sends warm-up calls, then times N sequential
`tools/call` round trips on one keep-alive connection: from writing the
POST to having read the whole answer (the call's SSE stream ends with its
result). Standard library only; each reply is parsed and checked after
its clock stopped.

    rpc_bench_http.py --name airlock-http --tool read_file --path /tmp/ws/f.txt \\
        --expect MARKER -- airlock serve --http --workspace /tmp/ws

Exit status: 0 on success, 1 if any call failed. With --json, the summary
is printed as one JSON object on stdout (the same keys as rpc_bench.py:
the reply check, the statistics and the report are rpc_bench.py's).
"""

from __future__ import annotations

import argparse
import http.client
import json
import subprocess
import sys
import time
from urllib.parse import urlsplit

from rpc_bench import PROTOCOL_VERSION, ServerError, check_result, run_and_report, summarize


def messages(body: bytes, content_type: str) -> list[dict]:
    if content_type.startswith("text/event-stream"):
        out = []
        for line in body.split(b"\n"):
            if line.startswith(b"data:"):
                data = line[5:].strip()
                if data:
                    out.append(json.loads(data))
        return out
    return [json.loads(body)] if body.strip() else []


class Session:
    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.path = parts.path
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        self.headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        self.next_id = 0

    def post(self, msg: dict) -> tuple[int, bytes, str, int]:
        body = json.dumps(msg, separators=(",", ":")).encode()
        start = time.perf_counter_ns()
        self.conn.request("POST", self.path, body=body, headers=self.headers)
        resp = resp_ = self.conn.getresponse()
        data = resp.read()
        end = time.perf_counter_ns()
        sid = resp_.getheader("mcp-session-id")
        if sid:
            self.headers["Mcp-Session-Id"] = sid
        return resp.status, data, resp.getheader("content-type") or "", end - start

    def request(self, method: str, params: dict) -> tuple[dict, int]:
        self.next_id += 1
        rid = self.next_id
        status, data, ctype, ns = self.post({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        if status != 200:
            raise ServerError(f"{method}: HTTP {status}: {data[:300]!r}")
        for m in messages(data, ctype):
            if m.get("id") == rid:
                if "error" in m:
                    raise ServerError(f"JSON-RPC error: {json.dumps(m['error'])}")
                return m["result"], ns
        raise ServerError(f"{method}: no answer in {data[:300]!r}")


def run(args: argparse.Namespace) -> dict:
    stderr = open(args.stderr, "w+b") if args.stderr else subprocess.PIPE
    proc = subprocess.Popen(args.command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        if args.stderr:
            deadline = time.time() + 30
            first = b""
            while b"\n" not in first and time.time() < deadline:
                time.sleep(0.02)
                with open(args.stderr, "rb") as f:
                    first = f.read()
            url = first.split(b"\n")[0].decode().strip()
        else:
            url = proc.stderr.readline().decode().strip()
        if not url.startswith("http://"):
            raise ServerError(f"no URL on the server's first stderr line: {url!r}")
        s = Session(url)
        init, _ = s.request("initialize", {
            "protocolVersion": PROTOCOL_VERSION, "capabilities": {},
            "clientInfo": {"name": "rpc-bench-http", "version": "1"}})
        status, _, _, _ = s.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        if status != 202:
            raise ServerError(f"notifications/initialized: HTTP {status}")
        s.headers["MCP-Protocol-Version"] = init.get("protocolVersion", PROTOCOL_VERSION)
        call = {"name": args.tool, "arguments": {"path": args.path}}
        samples = []
        for i in range(args.warmup + args.calls):
            result, ns = s.request("tools/call", call)
            check_result(result, args.expect)
            if i >= args.warmup:
                samples.append(ns)
        info = init.get("serverInfo", {})
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    return summarize(args.name, info, args.tool, samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--name", required=True)
    parser.add_argument("--tool", required=True)
    parser.add_argument("--path", required=True)
    parser.add_argument("--expect", action="append", default=[])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--stderr", help="file for the server's stderr")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--timeout", type=int, default=600)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    return run_and_report(args, run, 12)


if __name__ == "__main__":
    sys.exit(main())
