#!/usr/bin/env python3
"""A minimal JSON-RPC-over-stdio client that times MCP tool calls.

It launches an MCP server, does the `initialize` handshake, sends a few
warm-up calls, then times N sequential `tools/call` round trips (write one
line, read lines until the reply with the same id arrives). The client does
as little as possible inside the timed window: one write + flush, then
reading lines; each reply is parsed and checked after its clock stopped.

Standard library only, so both servers are measured by the same, cheap
client.

    rpc_bench.py --name airlock --tool read_file --path /tmp/ws/file.txt \
        --expect MARKER -- airlock serve --stdio --workspace /tmp/ws

Exit status: 0 on success, 1 if any call failed (JSON-RPC error, a result
with isError, or a reply without the expected text), 2 on usage errors.
With --json, the summary is printed as one JSON object on stdout; with
--samples FILE, every timed round trip (ns) is also written to FILE as a
JSON list (bench/read_file.sh merges several rounds from these).

bench/rpc_bench_http.py imports the reply check, the statistics and the
report from here, so both transports are summarized the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time

PROTOCOL_VERSION = "2025-11-25"


class ServerError(Exception):
    """The server answered with an error, or did not answer at all."""


class Server:
    """A child process speaking newline-delimited JSON-RPC on stdio."""

    def __init__(self, argv: list[str], stderr_path: str | None) -> None:
        self._stderr = open(stderr_path, "wb") if stderr_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            bufsize=0,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._stdin = self.proc.stdin
        # Our own buffered reader over the raw pipe: readline() is then a
        # cheap C-level loop.
        self._stdout = os.fdopen(self.proc.stdout.fileno(), "rb", buffering=1 << 16, closefd=False)
        self._next_id = 0

    def send(self, message: dict) -> None:
        self._stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def request(self, method: str, params: dict | None = None) -> tuple[dict, int]:
        """Send one request; return (reply, round trip in ns).

        The clock stops when the reply's line has been read; parsing it
        happens outside the timed window. Lines that are not the reply
        (notifications, server->client requests) are skipped.
        """
        self._next_id += 1
        rid = self._next_id
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        line = json.dumps(msg, separators=(",", ":")).encode() + b"\n"
        start = time.perf_counter_ns()
        self._stdin.write(line)
        while True:
            raw = self._stdout.readline()
            end = time.perf_counter_ns()
            if not raw:
                raise ServerError(f"server closed stdout (exit status {self.proc.poll()})")
            reply = json.loads(raw)
            if isinstance(reply, dict) and reply.get("id") == rid and ("result" in reply or "error" in reply):
                return reply, end - start

    def close(self) -> None:
        try:
            self._stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self._stderr is not subprocess.DEVNULL:
            self._stderr.close()


def check_call_reply(reply: dict, expect: list[str]) -> None:
    if "error" in reply:
        raise ServerError(f"JSON-RPC error: {json.dumps(reply['error'])}")
    result = reply.get("result")
    if not isinstance(result, dict):
        raise ServerError(f"reply has no result object: {json.dumps(reply)[:300]}")
    check_result(result, expect)


def check_result(result: dict, expect: list[str]) -> None:
    """A `tools/call` result must not be an error and must hold every `expect` text."""
    texts = [c.get("text", "") for c in result.get("content", []) if isinstance(c, dict)]
    if result.get("isError"):
        raise ServerError(f"tool error (isError): {' '.join(texts)[:300]}")
    joined = "\n".join(texts)
    for needle in expect:
        if needle not in joined:
            raise ServerError(f"reply text lacks {needle!r}: {joined[:300]!r}")


def percentile(sorted_ns: list[int], q: float) -> int:
    """Nearest-rank percentile of an ascending list."""
    k = max(0, min(len(sorted_ns) - 1, int(round(q * len(sorted_ns) + 0.5)) - 1))
    return sorted_ns[k]


def run(args: argparse.Namespace) -> dict:
    server = Server(args.command, args.stderr)
    try:
        reply, _ = server.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "airlock-bench", "version": "1"},
            },
        )
        if "result" not in reply:
            raise ServerError(f"initialize failed: {json.dumps(reply)[:300]}")
        server_info = reply["result"].get("serverInfo", {})
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

        params = {"name": args.tool, "arguments": {"path": args.path}}
        for _ in range(args.warmup):
            reply, _ = server.request("tools/call", params)
            check_call_reply(reply, args.expect)

        samples: list[int] = []
        for _ in range(args.calls):
            reply, ns = server.request("tools/call", params)
            check_call_reply(reply, args.expect)
            samples.append(ns)
    finally:
        server.close()

    if args.samples:
        with open(args.samples, "w") as out:
            json.dump(samples, out)
    return summarize(args.name, server_info, args.tool, samples)


def summarize(name: str, server_info: dict, tool: str, samples: list[int]) -> dict:
    """The summary of the timed round trips (ns), in microseconds."""
    ordered = sorted(samples)
    return {
        "name": name,
        "server": f"{server_info.get('name', '?')} {server_info.get('version', '?')}",
        "tool": tool,
        "calls": len(samples),
        "median_us": statistics.median(ordered) / 1000,
        "p90_us": percentile(ordered, 0.90) / 1000,
        "p99_us": percentile(ordered, 0.99) / 1000,
        "mean_us": statistics.fmean(ordered) / 1000,
        "min_us": ordered[0] / 1000,
        "max_us": ordered[-1] / 1000,
    }


def run_and_report(args: argparse.Namespace, run, name_width: int) -> int:
    """Run `run(args)` under the --timeout alarm and print its summary (one
    JSON object with --json, else one line, the name right-aligned in
    `name_width`); the exit status."""

    def on_alarm(_signum, _frame):
        raise ServerError(f"no result after {args.timeout} s")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(args.timeout)
    try:
        summary = run(args)
    except (ServerError, OSError, ValueError) as e:
        print(f"{args.name}: FAILED: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"{summary['name']:>{name_width}}: {summary['calls']} x {summary['tool']}  "
            f"median {summary['median_us']:.1f} us  p90 {summary['p90_us']:.1f} us  "
            f"p99 {summary['p99_us']:.1f} us  ({summary['server']})"
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--name", required=True, help="label for the report")
    parser.add_argument("--tool", required=True, help="tool to call")
    parser.add_argument("--path", required=True, help="the `path` argument of every call")
    parser.add_argument("--expect", action="append", default=[], help="text every reply must contain")
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--stderr", help="file for the server's stderr (default: discarded)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--samples", help="write every timed round trip (ns) to this file as JSON")
    parser.add_argument("--timeout", type=int, default=600, help="give up after this many seconds")
    parser.add_argument("command", nargs="+", help="the server command line (after --)")
    args = parser.parse_args()
    if args.calls < 1 or args.warmup < 0:
        parser.error("--calls must be >= 1 and --warmup >= 0")

    return run_and_report(args, run, 10)


if __name__ == "__main__":
    sys.exit(main())
