# Shared by bench/read_file.sh, bench/cpu_per_call.sh and
# bench/profile_read_file.sh (sourced, from the repository root).

# bench_pin CPU: sets `pin` to the command prefix that runs on that one CPU
# (empty CPU: no prefix).
bench_pin() {
    pin=()
    if [[ -n "$1" ]]; then
        command -v taskset >/dev/null || {
            echo "PIN needs taskset (util-linux)" >&2
            exit 2
        }
        pin=(taskset -c "$1")
    fi
}

# bench_bins [floor]: sets `airlock` (and with `floor`, `floor`) to
# AIRLOCK_BIN / FLOOR_BIN, else to release builds made here (in cargo's
# target directory, wherever CARGO_TARGET_DIR puts it).
bench_bins() {
    local target= need=(--bin airlock)
    if [[ ${1:-} == floor ]]; then
        need+=(--example floor_server)
    fi
    if [[ -z "${AIRLOCK_BIN:-}" || (${1:-} == floor && -z "${FLOOR_BIN:-}") ]]; then
        echo "== building ${need[*]} (release)" >&2
        cargo build --release --quiet "${need[@]}"
        target=$(cargo metadata --format-version 1 --no-deps |
            python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
    fi
    airlock=${AIRLOCK_BIN:-$target/release/airlock}
    floor=${FLOOR_BIN:-$target/release/examples/floor_server}
}

# bench_workspace: a throw-away workspace with one 4 KiB file (64 lines of
# 64 bytes, the first and last tagged); sets `tmp` (its real path: the
# servers resolve symlinks, removed on exit unless KEEP_TMP is set), `ws`
# and `file`.
bench_workspace() {
    tmp=$(mktemp -d)
    trap '[[ -n "${KEEP_TMP:-}" ]] || rm -rf "$tmp"' EXIT
    tmp=$(cd "$tmp" && pwd -P)
    ws=$tmp/ws
    mkdir -p "$ws"
    file=$ws/bench.txt
    python3 - "$file" <<'PY'
import sys
lines = []
for i in range(64):
    tag = "BENCH-FIRST-LINE" if i == 0 else "BENCH-LAST-LINE" if i == 63 else f"line {i:02d}"
    lines.append((tag + " " + "abcdefghijklmnopqrstuvwxyz0123456789" * 2)[:63] + "\n")
data = "".join(lines).encode()
assert len(data) == 4096, len(data)
open(sys.argv[1], "wb").write(data)
PY
}
