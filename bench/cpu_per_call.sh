#!/usr/bin/env bash
# CPU per `read_file` call of the floor and of airlock, side by side: what
# each server process spends (user + kernel, all its threads), start-up left
# out. The latency ratio of bench/read_file.sh also holds the machine's
# wake-ups and the client's own time, which fall on both servers alike; this
# is the ratio of the servers' work.
#
# Each server is timed by `perf stat -e task-clock` twice, over SHORT and
# over LONG calls of bench/rpc_bench.py (same client, same 4 KiB file as
# bench/read_file.sh); (cpu(LONG) - cpu(SHORT)) / (LONG - SHORT) is the CPU
# of one more call. ROUNDS pairs of runs alternate floor and airlock, and the
# report gives every round and the medians.
#
# Usage: bench/cpu_per_call.sh
# Environment:
#   ROUNDS=3        rounds (floor then airlock, each SHORT then LONG calls)
#   SHORT=500 LONG=5500
#   PIN=CPU         the one CPU the client and the servers run on (taskset);
#                   default: the last CPU. PIN= (empty) leaves them where the
#                   scheduler puts them, which on a VM counts the cross-CPU
#                   wake-ups (tens of microseconds, very unsteady) as the
#                   servers' CPU time
#   AIRLOCK_BIN=... FLOOR_BIN=...   use these instead of release builds
# Needs: perf (the software task-clock event is enough), python3, cargo.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
rounds=${ROUNDS:-3}
short=${SHORT:-500}
long=${LONG:-5500}
command -v perf >/dev/null || {
    echo "perf not found (apt-get install linux-perf)" >&2
    exit 2
}
PIN=${PIN-$(($(nproc) - 1))}
# shellcheck source=bench/common.sh
. "$root/bench/common.sh"
bench_pin "$PIN"
bench_bins floor
bench_workspace

# cpu NAME CALLS -- COMMAND...: the server's task-clock (ms) over CALLS calls,
# appended to $tmp/NAME.CALLS.
cpu() {
    local name=$1 calls=$2
    shift 3
    rm -rf "$tmp/data"
    AIRLOCK_NO_USER_CONFIG=1 "${pin[@]}" python3 "$root/bench/rpc_bench.py" --json \
        --calls "$calls" --warmup 50 --name "$name" --tool read_file --path "$file" \
        --expect BENCH-FIRST-LINE --expect BENCH-LAST-LINE --stderr "$tmp/$name.stderr" -- \
        perf stat -x, -e task-clock -o "$tmp/stat.csv" "$@" >/dev/null || {
        echo "$name failed; its stderr:" >&2
        cat "$tmp/$name.stderr" >&2
        exit 1
    }
    awk -F, '$3 ~ /^task-clock/ {print $1}' "$tmp/stat.csv" >>"$tmp/$name.$calls"
}

echo "== $rounds rounds: floor and airlock, $short and $long calls each${PIN:+, all on CPU $PIN}" >&2
for ((r = 0; r < rounds; r++)); do
    for n in "$short" "$long"; do
        cpu floor "$n" -- "$floor"
        cpu airlock "$n" -- "$airlock" serve --stdio --workspace "$ws" --data-dir "$tmp/data"
    done
done

python3 - "$tmp" "$short" "$long" "$PIN" <<'EOF'
import statistics, sys

tmp, short, long, pin = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
per_call = {}
for name in ("floor", "airlock"):
    a = [float(x) for x in open(f"{tmp}/{name}.{short}")]
    b = [float(x) for x in open(f"{tmp}/{name}.{long}")]
    per_call[name] = [(y - x) * 1000 / (long - short) for x, y in zip(a, b)]
print(f"CPU per read_file call (server process, user + kernel){f', pinned to CPU {pin}' if pin else ''}")
for name, xs in per_call.items():
    rounds = " ".join(f"{x:.1f}" for x in xs)
    print(f"{name:<8} median {statistics.median(xs):6.1f} us   rounds: {rounds}")
ratio = statistics.median(per_call["airlock"]) / statistics.median(per_call["floor"])
print(f"airlock / floor (CPU): {ratio:.2f}x")
EOF
