#!/usr/bin/env bash
# Benchmark: sequential reads of a 4 KiB file through three stdio servers,
# driven by the same minimal JSON-RPC client (bench/rpc_bench.py), which
# writes one request line and times until the reply line is read:
#   * floor       (examples/floor_server.rs, release): a JSON-RPC server
#                 written for this benchmark, no MCP library, that only
#                 parses the line, reads the file and answers: what any
#                 server must spend;
#   * airlock     (`airlock serve --stdio`, tool `read_file`): the whole
#                 pipeline (scope, policy, audit trail, tool, rmcp);
#   * filesystem  (npm @modelcontextprotocol/server-filesystem, the official
#                 reference server, tool `read_text_file`).
# The calls are made in ROUNDS rounds; each round starts every server afresh
# (in a rotating order) and times CALLS/ROUNDS calls of each, so a change of
# load on the machine falls on all three alike. The report gives each
# server's median / p90 / p99 over all rounds and the two ratios side by
# side: airlock / floor (target <= 2x) and filesystem / airlock (>= 4x).
#
# Usage: bench/read_file.sh
# Environment:
#   CALLS=1000        timed calls per server (over all rounds)
#   ROUNDS=5          rounds (each with its own server processes and warm-up)
#   WARMUP=50         untimed calls per server and round
#   AIRLOCK_BIN=...   use this airlock binary instead of building it
#   FLOOR_BIN=...     use this floor server instead of building it
#   CHECK=1           exit 3 when a target is missed (default: report only)
#   PIN=CPU           run the client and every server on that one CPU
#                     (taskset): each call then costs what the two processes
#                     do on one core, without the machine's cross-CPU wake-up
#                     (on a VM, tens of microseconds that fall on every server
#                     alike and so bring the ratios towards 1)
# Needs: cargo, python3, node + npm (the npm registry, the first time).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
calls=${CALLS:-1000}
rounds=${ROUNDS:-5}
warmup=${WARMUP:-50}
per_round=$(((calls + rounds - 1) / rounds))
# shellcheck source=bench/common.sh
. "$root/bench/common.sh"
bench_pin "${PIN:-}"

# 1. airlock and the floor server, release builds (in cargo's target
#    directory, wherever CARGO_TARGET_DIR puts it).
bench_bins floor

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
bench_workspace

# 4. The rounds. run NAME TOOL ROUND -- COMMAND...: one server, one round.
run() {
    local name=$1 tool=$2 round=$3
    shift 4
    "${pin[@]}" python3 "$root/bench/rpc_bench.py" --json --calls "$per_round" --warmup "$warmup" \
        --expect BENCH-FIRST-LINE --expect BENCH-LAST-LINE \
        --name "$name" --tool "$tool" --path "$file" \
        --samples "$tmp/$name.$round.json" --stderr "$tmp/$name.stderr" -- "$@" \
        >"$tmp/$name.summary.json" || {
        echo "$name failed; its stderr:" >&2
        cat "$tmp/$name.stderr" >&2
        exit 1
    }
}
run_floor() { run floor read_file "$1" -- "$floor"; }
# The user's own config (rules, limits) must not change the numbers; each
# round has a fresh data directory (a fresh audit trail).
run_airlock() {
    AIRLOCK_NO_USER_CONFIG=1 run airlock read_file "$1" -- \
        "$airlock" serve --stdio --workspace "$ws" --data-dir "$tmp/data.$1"
}
run_filesystem() { run filesystem read_text_file "$1" -- "$fs_server" "$ws"; }

order=(floor airlock filesystem)
echo "== $rounds rounds x $per_round calls each: floor, airlock (read_file), server-filesystem $fs_version (read_text_file)${PIN:+, all on CPU $PIN}" >&2
for ((r = 0; r < rounds; r++)); do
    for ((i = 0; i < 3; i++)); do
        "run_${order[(r + i) % 3]}" "$r"
    done
    echo "   round $((r + 1))/$rounds done" >&2
done

# 5. The report.
python3 - "$tmp" "$rounds" "${CHECK:-}" "${PIN:-}" <<'EOF'
import json, statistics, sys

tmp, rounds, check, pin = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
if pin:
    print(f"(client and servers pinned to CPU {pin})")


def pct(xs, q):
    k = max(0, min(len(xs) - 1, int(round(q * len(xs) + 0.5)) - 1))
    return xs[k]


rows = {}
for name in ("floor", "airlock", "filesystem"):
    per_round = [json.load(open(f"{tmp}/{name}.{r}.json")) for r in range(rounds)]
    ns = sorted(x for samples in per_round for x in samples)
    summary = json.load(open(f"{tmp}/{name}.summary.json"))
    rows[name] = dict(
        calls=len(ns),
        median=statistics.median(ns) / 1000,
        p90=pct(ns, 0.9) / 1000,
        p99=pct(ns, 0.99) / 1000,
        rounds=" ".join(f"{statistics.median(s) / 1000:.0f}" for s in per_round),
        server=f"{summary['server']} ({summary['tool']})",
    )
print(f"{'':<11} {'calls':>6} {'median':>10} {'p90':>10} {'p99':>10}   {'round medians (us)':<26} server (tool)")
for name, r in rows.items():
    print(
        f"{name:<11} {r['calls']:>6} {r['median']:>8.1f}us {r['p90']:>8.1f}us {r['p99']:>8.1f}us"
        f"   {r['rounds']:<26} {r['server']}"
    )
a, f, fs = rows["airlock"]["median"], rows["floor"]["median"], rows["filesystem"]["median"]
vs_floor, vs_fs = a / f, fs / a
ok_floor, ok_fs = vs_floor <= 2, vs_fs >= 4
print(f"airlock / floor:      {vs_floor:.2f}x  (target <= 2x: {'met' if ok_floor else 'NOT met'})")
print(f"filesystem / airlock: {vs_fs:.2f}x  (target >= 4x: {'met' if ok_fs else 'NOT met'})")
print(f"airlock's cost above the floor: {a - f:.1f} us per call (median)")
if check and not (ok_floor and ok_fs):
    print("FAIL: a target was missed", file=sys.stderr)
    sys.exit(3)
EOF

# Streamable HTTP (issue 16): the same reads through `airlock serve --http`,
# one MCP session on one keep-alive connection (bench/rpc_bench_http.py),
# reported beside stdio.
echo "== $calls x read_file via airlock serve --http" >&2
http_json=$(AIRLOCK_NO_USER_CONFIG=1 "${pin[@]}" python3 "$root/bench/rpc_bench_http.py" --json --calls "$calls" \
    --warmup "$warmup" --expect BENCH-FIRST-LINE --expect BENCH-LAST-LINE --name airlock-http \
    --tool read_file --path "$file" --stderr "$tmp/http.stderr" -- \
    "$airlock" serve --http --workspace "$ws" --data-dir "$tmp/data") || {
    echo "airlock over HTTP failed; its stderr:" >&2
    cat "$tmp/http.stderr" >&2
    exit 1
}
python3 - "$(cat "$tmp/airlock.summary.json")" "$http_json" <<'EOF'
import json, sys
s, h = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"{'':<12} {'calls':>6} {'median':>10} {'p99':>10}   transport")
for label, r in (("airlock", s), ("airlock", h)):
    print(f"{label:<12} {r['calls']:>6} {r['median_us']:>8.1f}us {r['p99_us']:>8.1f}us   {'stdio' if r is s else 'Streamable HTTP'}")
print(f"HTTP / stdio median: {h['median_us'] / s['median_us']:.2f}x")
EOF
