#!/usr/bin/env bash
# The project's test command: `cargo test` plus the official MCP Python SDK
# compatibility tests (tests/python_sdk.rs), which must run here.
#
# Creates .venv/ (gitignored) with `python3 -m venv` if missing, installs the
# pinned SDK from tests/python/requirements.txt when it is not installed yet,
# then runs `cargo test` with any arguments given to this script.
# Needs: cargo, python3 (>= 3.10, with the venv module), PyPI the first time.
# PYTHON=/path/to/python3 picks another interpreter for the venv.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

venv=$root/.venv
requirements=$root/tests/python/requirements.txt
python=${PYTHON:-python3}

if [[ ! -x $venv/bin/python ]]; then
    if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
        echo "scripts/test.sh: $python (>= 3.10) is needed for the MCP Python SDK tests" >&2
        exit 1
    fi
    echo "scripts/test.sh: creating .venv" >&2
    if ! "$python" -m venv "$venv"; then
        rm -rf "$venv"
        echo "scripts/test.sh: '$python -m venv' failed (on Debian/Ubuntu: apt-get install python3-venv)" >&2
        exit 1
    fi
fi

# Reinstall only when requirements.txt changed since the last install.
stamp=$venv/.airlock-requirements
if ! cmp -s "$requirements" "$stamp" || ! "$venv/bin/python" -c 'import mcp.client' 2>/dev/null; then
    echo "scripts/test.sh: installing $(grep -v '^#' "$requirements" | xargs) into .venv" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$stamp"
fi

export AIRLOCK_TEST_PYTHON=$venv/bin/python
export AIRLOCK_REQUIRE_PYTHON_SDK=1
exec cargo test "$@"
