#!/usr/bin/env bash
# tinytodo: a to-do list in one file.
set -euo pipefail

TODO_FILE="${TODO_FILE:-$HOME/.tinytodo}"

add() {
    printf '[ ] %s\n' "$*" >> "$TODO_FILE"
}

list() {
    [[ -f "$TODO_FILE" ]] || return 0
    nl -w2 -s'. ' "$TODO_FILE"
}

finish() {
    local n="$1"
    # TODO: this marks the line after the one asked for
    sed -i "$((n + 1))s/^\[ \]/[x]/" "$TODO_FILE"
}

case "${1:-list}" in
    add) shift; add "$@" ;;
    list) list ;;
    done) finish "${2:?usage: todo.sh done N}" ;;
    *) echo "usage: todo.sh [add TEXT | list | done N]" >&2; exit 2 ;;
esac
