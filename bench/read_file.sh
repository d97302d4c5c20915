#!/usr/bin/env bash
# Benchmark: 1,000 sequential reads of a 4 KiB file through
#   * airlock        (`airlock serve --stdio`, tool `read_file`), and
#   * the official filesystem MCP server
#                    (npm @modelcontextprotocol/server-filesystem, tool `read_text_file`),
# driven by the same minimal JSON-RPC client (bench/rpc_bench.py), which
# writes one request line and times until the reply line is read.
#
# Usage: bench/read_file.sh
# Environment:
#   CALLS=1000        timed calls per server
#   WARMUP=50         untimed calls first
#   AIRLOCK_BIN=...   use this binary instead of building target/release/airlock
#   MIN_RATIO=3       exit 3 if airlock's median is not at least this many times faster
#                     (default: report only)
# Needs: cargo, python3, node + npm (the npm registry, the first time).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
calls=${CALLS:-1000}
warmup=${WARMUP:-50}

# 1. airlock, release build.
if [[ -n "${AIRLOCK_BIN:-}" ]]; then
    airlock=$AIRLOCK_BIN
else
    echo "== building airlock (release)" >&2
    cargo build --release --quiet
    airlock=$root/target/release/airlock
fi

# 2. The reference server, pinned by bench/npm/package-lock.json, installed
#    into bench/.deps (gitignored).
deps=$root/bench/.deps
fs_server=$deps/node_modules/.bin/mcp-server-filesystem
if ! cmp -s "$root/bench/npm/package-lock.json" "$deps/package-lock.json" || [[ ! -x $fs_server ]]; then
    echo "== installing @modelcontextprotocol/server-filesystem into bench/.deps" >&2
    mkdir -p "$deps"
    cp "$root/bench/npm/package.json" "$root/bench/npm/package-lock.json" "$deps/"
    npm ci --prefix "$deps" --no-audit --no-fund --loglevel=error >&2
fi
fs_version=$(node -p "require('$deps/node_modules/@modelcontextprotocol/server-filesystem/package.json').version")

# 3. A throw-away workspace with one 4 KiB file (64 lines of 64 bytes).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tmp=$(cd "$tmp" && pwd -P) # the real path: both servers resolve symlinks
ws=$tmp/ws
mkdir -p "$ws" "$tmp/data"
file=$ws/bench.txt
python3 - "$file" <<'EOF'
import sys
lines = []
for i in range(64):
    tag = "BENCH-FIRST-LINE" if i == 0 else "BENCH-LAST-LINE" if i == 63 else f"line {i:02d}"
    lines.append((tag + " " + "abcdefghijklmnopqrstuvwxyz0123456789" * 2)[:63] + "\n")
data = "".join(lines).encode()
assert len(data) == 4096, len(data)
open(sys.argv[1], "wb").write(data)
EOF

run() {
    python3 "$root/bench/rpc_bench.py" --json --calls "$calls" --warmup "$warmup" \
        --expect BENCH-FIRST-LINE --expect BENCH-LAST-LINE "$@"
}

echo "== $calls x read_file via airlock serve --stdio" >&2
# The user's own config (rules, limits) must not change the numbers.
airlock_json=$(AIRLOCK_NO_USER_CONFIG=1 run --name airlock --tool read_file --path "$file" --stderr "$tmp/airlock.stderr" -- \
    "$airlock" serve --stdio --workspace "$ws" --data-dir "$tmp/data") || {
    echo "airlock failed; its stderr:" >&2
    cat "$tmp/airlock.stderr" >&2
    exit 1
}

echo "== $calls x read_text_file via server-filesystem $fs_version" >&2
fs_json=$(run --name filesystem --tool read_text_file --path "$file" --stderr "$tmp/fs.stderr" -- \
    "$fs_server" "$ws") || {
    echo "server-filesystem failed; its stderr:" >&2
    cat "$tmp/fs.stderr" >&2
    exit 1
}

python3 - "$airlock_json" "$fs_json" "${MIN_RATIO:-}" <<'EOF'
import json, sys
a, f = json.loads(sys.argv[1]), json.loads(sys.argv[2])
min_ratio = float(sys.argv[3]) if sys.argv[3] else None
print(f"{'':<12} {'calls':>6} {'median':>10} {'p90':>10} {'p99':>10}   server (tool)")
for label, r in (("airlock", a), ("filesystem", f)):
    print(f"{label:<12} {r['calls']:>6} {r['median_us']:>8.1f}us {r['p90_us']:>8.1f}us {r['p99_us']:>8.1f}us   {r['server']} ({r['tool']})")
ratio = f["median_us"] / a["median_us"]
print(f"median ratio (filesystem / airlock): {ratio:.2f}x  (target: >= 3x, {'met' if ratio >= 3 else 'NOT met'})")
print(f"p90 ratio: {f['p90_us'] / a['p90_us']:.2f}x")
if min_ratio is not None and ratio < min_ratio:
    print(f"FAIL: ratio {ratio:.2f} < MIN_RATIO {min_ratio}", file=sys.stderr)
    sys.exit(3)
EOF

# Streamable HTTP (issue 16): the same reads through `airlock serve --http`,
# one MCP session on one keep-alive connection (bench/rpc_bench_http.py),
# reported beside stdio.
echo "== $calls x read_file via airlock serve --http" >&2
http_json=$(AIRLOCK_NO_USER_CONFIG=1 python3 "$root/bench/rpc_bench_http.py" --json --calls "$calls" \
    --warmup "$warmup" --expect BENCH-FIRST-LINE --expect BENCH-LAST-LINE --name airlock-http \
    --tool read_file --path "$file" --stderr "$tmp/http.stderr" -- \
    "$airlock" serve --http --workspace "$ws" --data-dir "$tmp/data") || {
    echo "airlock over HTTP failed; its stderr:" >&2
    cat "$tmp/http.stderr" >&2
    exit 1
}
python3 - "$airlock_json" "$http_json" <<'EOF'
import json, sys
s, h = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"{'':<12} {'calls':>6} {'median':>10} {'p99':>10}   transport")
for label, r in (("airlock", s), ("airlock", h)):
    print(f"{label:<12} {r['calls']:>6} {r['median_us']:>8.1f}us {r['p99_us']:>8.1f}us   {'stdio' if r is s else 'Streamable HTTP'}")
print(f"HTTP / stdio median: {h['median_us'] / s['median_us']:.2f}x")
EOF
