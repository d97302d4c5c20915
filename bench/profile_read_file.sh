#!/usr/bin/env bash
# Where one `read_file` call's time goes inside `airlock serve --stdio`.
#
# Runs the same client and 4 KiB file as bench/read_file.sh, twice:
#   1. under `perf stat`: airlock's CPU time per call (task-clock, all
#      threads, user + kernel) and its context switches per call;
#   2. under `perf record -e cpu-clock --call-graph dwarf`: a sampled
#      profile whose inclusive shares are summed into the stages of a call
#      (matched by function name in the real code paths):
#        parse   the request line to rmcp's message (mcp::transport::classify)
#        scope   resolve the path, check it, open it (Scope::open_file)
#        policy  the verdict (Policy::evaluate)
#        read    read the file and format its numbered lines (read_file::read)
#        audit   the three hash-chained records (AuditLog::append_all)
#        encode  the reply to JSON (mcp::transport::encode)
#        other   the rest: tokio's scheduler, rmcp's request handler, pipe I/O,
#                the pipeline's own bookkeeping (events, ids, output hash)
#   The shares times the CPU per call give microseconds per stage.
#
# Usage: bench/profile_read_file.sh
# Environment: CALLS=3000, AIRLOCK_BIN=... (else a release build),
#   KEEP=DIR keeps perf.data and the full report in DIR.
# Needs: perf (Debian's linux-perf; the software cpu-clock event is enough).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
calls=${CALLS:-3000}
command -v perf >/dev/null || {
    echo "perf not found (apt-get install linux-perf)" >&2
    exit 2
}
# shellcheck source=bench/common.sh
. "$root/bench/common.sh"
bench_bins
bench_workspace

client() { # DATA-DIR -- COMMAND...
    local data=$1
    shift 2
    AIRLOCK_NO_USER_CONFIG=1 python3 "$root/bench/rpc_bench.py" --calls "$calls" --warmup 50 \
        --name airlock --tool read_file --path "$file" \
        --expect BENCH-FIRST-LINE --expect BENCH-LAST-LINE --stderr "$tmp/stderr" -- "$@" \
        "$airlock" serve --stdio --workspace "$ws" --data-dir "$data" >&2
}

echo "== $calls calls under perf stat" >&2
client "$tmp/d1" -- perf stat -x, -e task-clock,context-switches -o "$tmp/stat.csv"
echo "== $calls calls under perf record" >&2
client "$tmp/d2" -- perf record -q -e cpu-clock -F 4000 --call-graph dwarf,16384 -o "$tmp/perf.data"
perf report -i "$tmp/perf.data" --stdio --children --sort sym -g none 2>/dev/null >"$tmp/report.txt"
if [[ -n "${KEEP:-}" ]]; then
    mkdir -p "$KEEP"
    cp "$tmp/perf.data" "$tmp/report.txt" "$KEEP/"
fi

python3 - "$tmp/stat.csv" "$tmp/report.txt" "$calls" <<'EOF'
import re, sys

stat, report, calls = sys.argv[1], sys.argv[2], int(sys.argv[3])
cpu_ms = cs = None
for line in open(stat):
    f = line.split(",")
    if len(f) > 2 and f[2].startswith("task-clock"):
        cpu_ms = float(f[0])
    if len(f) > 2 and f[2].startswith("context-switches"):
        cs = float(f[0])
# (warm-up and start-up are included: a few percent at 3000 calls)
per_call = cpu_ms * 1000 / (calls + 50)

# Inclusive ("children") share of each symbol, the largest when a symbol
# appears more than once (inlined copies).
share = {}
for line in open(report):
    m = re.match(r"\s+([\d.]+)%\s+[\d.]+%\s+\[[.k]\]\s+(.*)$", line)
    if m:
        # An inlined copy (a release build with LTO inlines most stages)
        # counts as the function itself.
        sym = re.sub(r" \(inlined\)$", "", m.group(2).strip())
        share[sym] = max(share.get(sym, 0.0), float(m.group(1)))

def stage(*patterns):
    best = 0.0
    for sym, pct in share.items():
        if any(re.search(p, sym) for p in patterns):
            best = max(best, pct)
    return best

stages = [
    ("parse", stage(r"^airlock::mcp::transport::classify")),
    ("scope", stage(r"airlock::scope::Scope>::open_file$", r"Scope::open_file$")),
    ("policy", stage(r"^airlock::policy::.*Policy(>)?::evaluate$")),
    ("read", stage(r"^airlock::tools::readonly::read_file::read$")),
    ("audit", stage(r"^airlock::audit::writer::AuditLog::append(_all)?$")),
    ("encode", stage(r"^airlock::mcp::transport::encode$")),
]
# A read served inline (src/mcp/inline.rs) goes through call_inline.
pipeline = stage(r"^airlock::supervisor::.*Supervisor>?::call(_inline)?::\{\{closure\}\}$")
known = sum(p for _, p in stages)
print(f"airlock CPU per read_file call: {per_call:.1f} us (user + kernel, all threads), "
      f"{cs / (calls + 50):.2f} context switches per call")
print(f"{'stage':<8} {'share':>7} {'us/call':>8}")
for name, pct in stages + [("other", max(0.0, 100 - known))]:
    print(f"{name:<8} {pct:>6.1f}% {pct * per_call / 100:>8.1f}")
print(f"(the pipeline, Supervisor::call or call_inline, is {pipeline:.1f}% in all: scope, policy, read and audit are inside it)")
EOF
