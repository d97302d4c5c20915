#!/usr/bin/env bash
# The tinytodo tests: each run starts from an empty list.
set -u
cd "$(dirname "$0")/.."

pass=0
fail=0
check() {
    local name="$1" expected="$2" actual="$3"
    sleep 0.4
    if [[ "$expected" == "$actual" ]]; then
        echo "test $name ... ok"
        pass=$((pass + 1))
    else
        echo "test $name ... FAILED"
        echo "    expected: $expected"
        echo "    got:      $actual"
        fail=$((fail + 1))
    fi
}

TODO_FILE="$(mktemp)"
export TODO_FILE
echo "running 5 tests"
bash todo.sh add "buy milk"
check add_one_item "[ ] buy milk" "$(cat "$TODO_FILE")"
bash todo.sh add "call mum"
check list_numbers_items " 2. [ ] call mum" "$(bash todo.sh list | tail -n 1)"
bash todo.sh done 1
check done_marks_the_item "[x] buy milk" "$(head -n 1 "$TODO_FILE")"
check done_leaves_the_others "[ ] call mum" "$(tail -n 1 "$TODO_FILE")"
check unknown_command_exits_2 "2" "$(bash todo.sh frobnicate 2>/dev/null; echo $?)"
rm -f "$TODO_FILE"

echo
if [[ $fail -eq 0 ]]; then
    echo "all $pass tests ok"
else
    echo "$fail of $((pass + fail)) tests FAILED"
    exit 1
fi
