#!/usr/bin/env python3
"""Drive an airlock MCP server with the official MCP Python SDK (`mcp`).

    sdk_compat.py --workspace W [--modes legacy,auto] -- COMMAND [ARG...]
    sdk_compat.py --workspace W [--modes legacy,auto] --url URL

COMMAND is a stdio MCP server whose workspace is W (e.g.
`airlock serve --stdio --workspace W` or `airlock connect --socket S` with a
supervisor on W). With --url, the SDK's Streamable HTTP client connects to
URL instead (`airlock serve --http` on W, or a supervisor started with
--http); the checks are the same. The script first writes known files into W (and one file
next to W, outside it), then for each connect mode of the SDK's `Client`:

* "legacy": the `initialize` handshake (protocol revisions up to 2025-11-25);
* "auto":   the SDK's default: a `server/discover` probe at the stateless
            2026-07-28 revision, falling back to `initialize` only if the
            server does not speak it (airlock does, so auto must end modern
            unless --auto-may-fall-back is given);

it lists the tools (the 11 read-only tools, each with readOnlyHint true),
calls every one with valid arguments and checks the results are right, and
checks that path escapes and excluded files are refused with isError and
never leak content.

Exit status 0 when every check passed, 1 otherwise (each failure is printed).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import traceback
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import Implementation
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

READ_ONLY_TOOLS = ["read_file", "cat", "head", "tail", "ls", "find", "grep", "wc", "stat", "diff", "pwd"]

# Secrets planted where no tool may reach. Only their marker tails are
# looked for (never hex, so no hash in an audit trail can match by chance;
# never a search pattern used below, so an echoed pattern cannot either).
ENV_SECRET = "API_TOKEN=sk-ENVSECRET-zqx-env-7"
ENV_LOCAL_SECRET = "DB_PASSWORD=ENVLOCALSECRET-zqx-envlocal-7"
OUTSIDE_SECRET = "OUTSIDESECRET-zqx-outside-7 this file is outside the workspace"
SSH_SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- SSHSECRET-zqx-ssh-7"
PEM_SECRET = "PEMSECRET-zqx-pem-7"
BEYOND_SECRET = "BEYONDSECRET-zqx-beyond-7 in a directory outside, reached by a symlink"
LEAK_MARKERS = ["zqx-env-7", "zqx-envlocal-7", "zqx-outside-7", "zqx-ssh-7", "zqx-pem-7", "zqx-beyond-7"]

HELLO = "alpha\nbeta\ngamma\ndelta\nepsilon\n"
NUMBERS = "".join(f"row {i:02d}\n" for i in range(1, 31))
WORDS = "one two three\nfour five\n"  # 2 lines, 5 words, 24 bytes
DIFF_A = "same 1\nsame 2\nold line\nsame 3\n"
DIFF_B = "same 1\nsame 2\nnew line\nsame 3\n"
LONG_LINES = 2500
OUTSIDE_NAME = "airlock-sdk-outside.txt"
OUTSIDE_DIR = "airlock-sdk-outside-dir"
BEYOND_NAME = "beyond-the-link.txt"


def prepare_workspace(ws: Path) -> None:
    """Write the files the checks expect (idempotent)."""
    ws.mkdir(parents=True, exist_ok=True)
    files = {
        "hello.txt": HELLO,
        "numbers.txt": NUMBERS,
        "words.txt": WORDS,
        "a.txt": DIFF_A,
        "b.txt": DIFF_B,
        # Short lines: 2,000 of them (with line numbers) stay under the 32 KiB output limit.
        "long.txt": "".join(f"x{i}\n" for i in range(1, LONG_LINES + 1)),
        ".hidden": "a hidden file\n",
        "src/main.rs": 'fn main() {\n    println!("the needle is here");\n}\n',
        "src/lib.rs": "// nothing to see\npub fn needle() {}\n",
        "docs/guide.md": "# Guide\nno match in here\n",
        ".env": f"{ENV_SECRET}\nneedle\n",
        ".env.local": f"{ENV_LOCAL_SECRET}\nneedle\n",
        "config/.ssh/id_rsa": f"{SSH_SECRET}\nneedle\n",
        "certs/server.pem": f"{PEM_SECRET}\nneedle\n",
    }
    for rel, text in files.items():
        p = ws / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    outside = ws.parent / OUTSIDE_NAME
    outside.write_text(f"{OUTSIDE_SECRET}\nneedle\n")
    beyond = ws.parent / OUTSIDE_DIR
    beyond.mkdir(exist_ok=True)
    (beyond / BEYOND_NAME).write_text(f"{BEYOND_SECRET}\nneedle\n")
    for name, target in (("link-out", outside), ("link-dir", beyond)):
        link = ws / name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(target)


@dataclass
class Report:
    mode: str
    passed: int = 0
    failures: list[str] = field(default_factory=list)

    def check(self, ok: bool, what: str, detail: str = "") -> bool:
        if ok:
            self.passed += 1
        else:
            self.failures.append(f"{what}: {detail}" if detail else what)
            print(f"  FAIL [{self.mode}] {what}" + (f"\n       {detail}" if detail else ""), flush=True)
        return ok


def text_of(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content if getattr(c, "type", None) == "text")


def short(s: str, n: int = 400) -> str:
    return repr(s if len(s) <= n else s[:n] + "...")


def lines_of(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def names_in_listing(text: str) -> set[str]:
    """Every path-like token's last component, from ls/find output (tree
    drawings, sizes and trailing slashes tolerated)."""
    names = set()
    for token in re.split(r"[\s│├└─]+", text):
        token = token.strip().rstrip("/")
        if token:
            names.add(token.rsplit("/", 1)[-1])
    return names


def in_order(text: str, parts: list[str]) -> bool:
    pos = 0
    for part in parts:
        found = text.find(part, pos)
        if found < 0:
            return False
        pos = found + len(part)
    return True


class Checks:
    def __init__(self, client: Client, ws: Path, report: Report) -> None:
        self.client = client
        self.ws = ws
        self.r = report
        self.last: Any = None

    async def call(self, name: str, args: dict[str, Any]) -> Any:
        return await self.client.call_tool(name, args)

    async def ok(self, name: str, args: dict[str, Any]) -> str | None:
        """Call a tool that must succeed; its text, or None (failure recorded)."""
        label = f"{name}({args})"
        try:
            result = await self.call(name, args)
        except MCPError as e:
            self.r.check(False, label, f"JSON-RPC error {e.code}: {e}")
            return None
        text = text_of(result)
        if not self.r.check(not result.is_error, f"{label} succeeds", short(text)):
            return None
        self.last = result
        return text

    async def refused(self, name: str, args: dict[str, Any], reason: str) -> None:
        """Call that must be refused with isError, name `reason`, leak nothing."""
        label = f"{name}({args}) refused"
        try:
            result = await self.call(name, args)
        except MCPError as e:
            self.r.check(False, label, f"JSON-RPC error {e.code} instead of an isError result: {e}")
            return
        text = text_of(result)
        self.r.check(result.is_error, f"{label} with isError", short(text))
        self.r.check(reason.lower() in text.lower(), f"{label}: message says {reason!r}", short(text))
        self.no_leak(label, text, result.structured_content)

    def no_leak(self, label: str, text: str, structured: Any = None) -> None:
        blob = text + repr(structured)
        leaked = [m for m in LEAK_MARKERS if m in blob]
        self.r.check(not leaked, f"{label}: leaks nothing", f"found {leaked} in {short(blob)}")

    async def tool_list(self) -> None:
        tools = []
        cursor = None
        for _ in range(20):
            page = await self.client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        by_name = {t.name: t for t in tools}
        for name in READ_ONLY_TOOLS:
            tool = by_name.get(name)
            if not self.r.check(tool is not None, f"tools/list has {name}", f"got {sorted(by_name)}"):
                continue
            ro = tool.annotations.read_only_hint if tool.annotations else None
            self.r.check(ro is True, f"{name} has annotations.readOnlyHint true", f"annotations={tool.annotations}")
            self.r.check(
                isinstance(tool.input_schema, dict) and tool.input_schema.get("type") == "object",
                f"{name} has an object inputSchema",
                repr(tool.input_schema),
            )
            self.r.check(bool(tool.description), f"{name} has a description")
        extra = sorted(set(by_name) - set(READ_ONLY_TOOLS))
        if extra:
            print(f"  note [{self.r.mode}] further tools listed: {extra}")

    async def pwd(self) -> None:
        text = await self.ok("pwd", {})
        if text is not None:
            real = os.path.realpath(self.ws)
            self.r.check(text.strip() in (real, str(self.ws)), "pwd is the workspace", f"{short(text)} vs {real!r}")

    async def read_file(self) -> None:
        text = await self.ok("read_file", {"path": "hello.txt"})
        if text is not None:
            self.r.check(in_order(text, HELLO.split()), "read_file hello.txt: every line in order", short(text))
        text = await self.ok("read_file", {"path": "hello.txt", "offset": 2, "limit": 2})
        if text is not None:
            self.r.check(in_order(text, ["beta", "gamma"]), "read_file offset 2 limit 2: lines 2-3", short(text))
            absent = [w for w in ("alpha", "delta", "epsilon") if w in text]
            self.r.check(not absent, "read_file offset 2 limit 2: nothing else", f"has {absent}: {short(text)}")
        text = await self.ok("read_file", {"path": str(self.ws / "src" / "main.rs")})
        if text is not None:
            self.r.check("the needle is here" in text, "read_file of an absolute path inside", short(text))
        text = await self.ok("read_file", {"path": "long.txt"})
        if text is not None:
            self.r.check(
                re.search(r"\bx2000\b", text) is not None and "x2001" not in text,
                f"read_file of a {LONG_LINES}-line file stops at line 2000",
                short(text[-300:]),
            )
            self.r.check(str(LONG_LINES) in text, f"read_file of a long file says it has {LONG_LINES} lines", short(text[-300:]))

    async def cat(self) -> None:
        text = await self.ok("cat", {"path": "hello.txt"})
        if text is not None:
            self.r.check(HELLO.rstrip("\n") in text, "cat hello.txt: the exact content", short(text))

    async def head_tail(self) -> None:
        text = await self.ok("head", {"path": "numbers.txt", "lines": 3})
        if text is not None:
            self.r.check(in_order(text, ["row 01", "row 02", "row 03"]) and "row 04" not in text, "head lines 3", short(text))
        text = await self.ok("head", {"path": "numbers.txt"})
        if text is not None:
            self.r.check("row 10" in text and "row 11" not in text, "head defaults to 10 lines", short(text))
        text = await self.ok("tail", {"path": "numbers.txt", "lines": 2})
        if text is not None:
            self.r.check(in_order(text, ["row 29", "row 30"]) and "row 28" not in text, "tail lines 2", short(text))
        text = await self.ok("tail", {"path": "numbers.txt"})
        if text is not None:
            self.r.check("row 21" in text and "row 20" not in text, "tail defaults to 10 lines", short(text))

    async def ls(self) -> None:
        text = await self.ok("ls", {})
        if text is not None:
            names = names_in_listing(text)
            missing = {"hello.txt", "src", "docs", "numbers.txt"} - names
            self.r.check(not missing, "ls lists the workspace", f"missing {missing}: {short(text)}")
            self.r.check(".hidden" not in names, "ls hides dot files by default", short(text))
            self.r.check("main.rs" not in names, "ls depth 1 does not descend", short(text))
        text = await self.ok("ls", {"path": ".", "show_hidden": True})
        if text is not None:
            names = names_in_listing(text)
            self.r.check(".hidden" in names, "ls show_hidden lists .hidden", short(text))
            bad = {".env", ".env.local"} & names
            self.r.check(not bad, "ls never lists excluded entries", f"{bad}: {short(text)}")
        text = await self.ok("ls", {"path": "src"})
        if text is not None:
            self.r.check({"main.rs", "lib.rs"} <= names_in_listing(text), "ls src", short(text))
        text = await self.ok("ls", {"path": ".", "depth": 2})
        if text is not None:
            names = names_in_listing(text)
            self.r.check({"src", "main.rs", "guide.md"} <= names, "ls depth 2 shows a tree", short(text))
            self.r.check(BEYOND_NAME not in names, "ls depth 2 does not descend into a symlinked directory", short(text))

    async def find(self) -> None:
        text = await self.ok("find", {"pattern": "*.rs"})
        if text is not None:
            names = names_in_listing(text)
            self.r.check({"main.rs", "lib.rs"} <= names, "find *.rs finds both .rs files", short(text))
            self.r.check("hello.txt" not in names, "find *.rs finds nothing else", short(text))
        text = await self.ok("find", {"path": ".", "file_type": "directory"})
        if text is not None:
            names = names_in_listing(text)
            self.r.check({"src", "docs"} <= names, "find file_type directory", short(text))
            self.r.check("hello.txt" not in names, "find file_type directory lists no files", short(text))
        text = await self.ok("find", {"path": ".", "pattern": "*"})
        if text is not None:
            names = names_in_listing(text)
            self.r.check("guide.md" in names, "find * descends", short(text))
            bad = {".env", ".env.local", ".ssh", "id_rsa", "server.pem"} & names
            self.r.check(not bad, "find never lists excluded entries", f"{bad}: {short(text)}")
            self.r.check(BEYOND_NAME not in names, "find does not descend into a symlinked directory", short(text))
        text = await self.ok("find", {"path": ".", "pattern": "*.rs", "max_depth": 1})
        if text is not None:
            self.r.check("main.rs" not in names_in_listing(text), "find max_depth 1 stays shallow", short(text))

    async def grep(self) -> None:
        text = await self.ok("grep", {"pattern": "needle"})
        if text is not None:
            self.r.check(re.search(r"(^|/)src/main\.rs:2:.*the needle is here", text, re.M) is not None,
                         "grep: path:line:text for src/main.rs", short(text))
            self.r.check(re.search(r"(^|/)src/lib\.rs:2:pub fn needle", text, re.M) is not None,
                         "grep: path:line:text for src/lib.rs", short(text))
            bad = [n for n in (".env", ".env.local", "id_rsa", "server.pem", OUTSIDE_NAME, "link-out", BEYOND_NAME) if re.search(
                rf"(^|/){re.escape(n)}:", text, re.M)]
            self.r.check(not bad, "grep skips excluded files and symlinks", f"{bad}: {short(text)}")
            self.no_leak("grep needle", text)
        text = await self.ok("grep", {"pattern": "ne.dle", "path": "src"})
        if text is not None:
            self.r.check("main.rs:" not in text, "grep is literal by default", short(text))
        text = await self.ok("grep", {"pattern": "ne.dle", "path": "src", "regex": True})
        if text is not None:
            self.r.check("main.rs:2:" in text and "lib.rs:2:" in text, "grep regex true", short(text))
        text = await self.ok("grep", {"pattern": "NEEDLE", "path": "src", "ignore_case": True})
        if text is not None:
            self.r.check("main.rs:2:" in text, "grep ignore_case", short(text))
        text = await self.ok("grep", {"pattern": "needle", "include": "*.rs"})
        if text is not None:
            self.r.check("main.rs:2:" in text, "grep include *.rs", short(text))
        text = await self.ok("grep", {"pattern": "SECRET"})
        if text is not None:
            self.no_leak("grep SECRET over the workspace", text)

    async def wc(self) -> None:
        text = await self.ok("wc", {"path": "words.txt"})
        if text is not None:
            sc = self.last.structured_content
            want = {"lines": 2, "words": 5, "bytes": 24}
            got = {k: sc.get(k) for k in want} if isinstance(sc, dict) else sc
            self.r.check(got == want, "wc structuredContent lines/words/bytes", f"{sc!r}")
            self.r.check(all(str(v) in text for v in want.values()), "wc text has the counts", short(text))

    async def stat(self) -> None:
        text = await self.ok("stat", {"path": "hello.txt"})
        if text is not None:
            sc = self.last.structured_content
            if self.r.check(isinstance(sc, dict), "stat has structuredContent", repr(sc)):
                self.r.check(sc.get("size") == len(HELLO), "stat size", repr(sc))
                self.r.check("file" in str(sc.get("type", "")).lower(), "stat type is file", repr(sc))
                self.r.check(sc.get("modified") not in (None, ""), "stat modified", repr(sc))
                self.r.check(sc.get("permissions") not in (None, ""), "stat permissions", repr(sc))
            self.r.check(str(len(HELLO)) in text, "stat text has the size", short(text))
        text = await self.ok("stat", {"path": "src"})
        if text is not None:
            sc = self.last.structured_content
            self.r.check(isinstance(sc, dict) and "dir" in str(sc.get("type", "")).lower(), "stat type is directory", repr(sc))

    async def diff(self) -> None:
        text = await self.ok("diff", {"path_a": "a.txt", "path_b": "b.txt"})
        if text is not None:
            ok = re.search(r"^-old line$", text, re.M) and re.search(r"^\+new line$", text, re.M)
            self.r.check(bool(ok), "diff: -old line / +new line", short(text))
            self.r.check(re.search(r"^@@ .* @@", text, re.M) is not None, "diff: unified hunk header", short(text))
            self.r.check("a.txt" in text and "b.txt" in text, "diff: names both files", short(text))
        text = await self.ok("diff", {"path_a": "a.txt", "path_b": "b.txt", "context_lines": 0})
        if text is not None:
            self.r.check(" same 2" not in text, "diff context_lines 0", short(text))
        text = await self.ok("diff", {"path_a": "hello.txt", "path_b": "hello.txt"})
        if text is not None:
            self.r.check("+alpha" not in text and "-alpha" not in text, "diff of identical files has no changes", short(text))

    async def escapes(self) -> None:
        outside = self.ws.parent / OUTSIDE_NAME
        await self.refused("read_file", {"path": f"../{OUTSIDE_NAME}"}, "outside")
        await self.refused("read_file", {"path": f"src/../../{OUTSIDE_NAME}"}, "outside")
        await self.refused("cat", {"path": str(outside)}, "outside")
        await self.refused("read_file", {"path": "link-out"}, "outside")
        await self.refused("read_file", {"path": f"link-dir/{BEYOND_NAME}"}, "outside")
        await self.refused("ls", {"path": "link-dir"}, "outside")
        await self.refused("head", {"path": "/etc/passwd"}, "outside")
        await self.refused("ls", {"path": ".."}, "outside")
        await self.refused("read_file", {"path": ".env"}, "exclu")
        await self.refused("cat", {"path": ".env.local"}, "exclu")
        await self.refused("tail", {"path": "config/.ssh/id_rsa"}, "exclu")
        await self.refused("wc", {"path": "certs/server.pem"}, "exclu")
        await self.refused("grep", {"pattern": "SECRET", "path": ".env"}, "exclu")
        await self.refused("diff", {"path_a": "hello.txt", "path_b": ".env"}, "exclu")
        await self.refused("stat", {"path": f"../{OUTSIDE_NAME}"}, "outside")
        await self.refused("read_file", {"path": "does-not-exist.txt"}, "not found")

    async def run_all(self) -> None:
        for step in (self.tool_list, self.pwd, self.read_file, self.cat, self.head_tail, self.ls, self.find,
                     self.grep, self.wc, self.stat, self.diff, self.escapes):
            try:
                await step()
            except Exception as e:  # one broken step must not hide the others
                self.r.check(False, f"{step.__name__} raised {type(e).__name__}", "".join(
                    traceback.format_exception_only(type(e), e)).strip())


async def run_mode(mode: str, command: list[str], ws: Path, auto_may_fall_back: bool, timeout: float,
                   url: str | None = None) -> Report:
    report = Report(mode)
    # The SDK passes only a few variables (HOME, PATH ...) to the server;
    # hand on airlock's own (AIRLOCK_RUNTIME_DIR, AIRLOCK_DATA_DIR ...).
    env = {k: v for k, v in os.environ.items() if k.startswith("AIRLOCK_")}
    params: Any = url if url else StdioServerParameters(command=command[0], args=command[1:], cwd=str(ws), env=env)
    info = Implementation(name=f"sdk-compat-{mode}", version=version("mcp"))
    try:
        with anyio.fail_after(timeout):
            async with Client(params, mode=mode, read_timeout_seconds=30, client_info=info) as client:
                proto = client.protocol_version
                server = client.server_info
                print(f"  [{mode}] connected, protocol {proto}, server {server}", flush=True)
                if mode == "legacy":
                    report.check(proto in HANDSHAKE_PROTOCOL_VERSIONS, "legacy mode negotiates a handshake revision", proto)
                    report.check(server is not None and server.name == "airlock" and bool(server.version),
                                 "serverInfo names airlock and its version", repr(server))
                elif not auto_may_fall_back:
                    report.check(proto in MODERN_PROTOCOL_VERSIONS, "auto mode settles on the stateless revision", proto)
                await Checks(client, ws, report).run_all()
    except TimeoutError:
        report.check(False, f"finished within {timeout} s")
    except Exception as e:
        report.check(False, "connect and run", "".join(traceback.format_exception_only(type(e), e)).strip())
    return report


async def main_async(args: argparse.Namespace) -> int:
    ws = Path(args.workspace).absolute()
    prepare_workspace(ws)
    failed = 0
    for mode in args.modes.split(","):
        target = "Streamable HTTP" if args.url else " ".join(args.command)
        print(f"sdk-compat: mode {mode}: {target}", flush=True)
        report = await run_mode(mode, args.command, ws, args.auto_may_fall_back, args.timeout, args.url)
        status = "ok" if not report.failures else f"{len(report.failures)} FAILED"
        print(f"sdk-compat: mode {mode}: {report.passed} checks passed, {status}", flush=True)
        failed += len(report.failures)
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workspace", required=True, help="the server's workspace (files are written into it)")
    parser.add_argument("--modes", default="legacy,auto", help="comma-separated SDK connect modes")
    parser.add_argument("--auto-may-fall-back", action="store_true",
                        help="accept auto mode ending on the initialize handshake (for legacy-only servers)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per mode")
    parser.add_argument("--url", help="connect to this Streamable HTTP URL instead of running COMMAND")
    parser.add_argument("command", nargs="*", help="the server command line (after --)")
    args = parser.parse_args()
    if bool(args.url) == bool(args.command):
        parser.error("give either --url URL or -- COMMAND")
    for mode in args.modes.split(","):
        if mode not in ("legacy", "auto"):
            parser.error(f"unknown mode {mode!r}")
    return anyio.run(main_async, args)


if __name__ == "__main__":
    sys.exit(main())
