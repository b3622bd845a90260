# Sourced, not run: one line per check of a script that checks what a user gets (package-check.sh,
# apt-repo-check.sh).
#
#   check NAME COMMAND...   runs COMMAND; prints "$check_label: NAME: ok", or "… NAME FAILED:"
#                           and the last 8 lines it printed, and sets failed=1
failed=0
check_label=${check_label:-check}
check() {
    local name="$1" out
    shift
    if out="$("$@" 2>&1)"; then
        echo "$check_label: $name: ok"
    else
        echo "$check_label: $name FAILED:"
        echo "$out" | tail -n 8 | sed 's/^/    /'
        failed=1
    fi
}

#   refused NAME PATTERN COMMAND...   COMMAND must fail, saying PATTERN (an extended regex): "NAME:
#                                     ok" and the first line that says it; FAILED when COMMAND
#                                     succeeded, or failed for another reason
refused() {
    local name="$1" pattern="$2" out
    shift 2
    if out="$("$@" 2>&1)"; then
        echo "$check_label: $name FAILED: it was not refused"
        failed=1
    elif grep -qE "$pattern" <<<"$out"; then
        echo "$check_label: $name: ok ($(grep -m1 -E "$pattern" <<<"$out" | sed 's/^ *//'))"
    else
        echo "$check_label: $name FAILED: refused, but not for that:"
        echo "$out" | tail -n 5 | sed 's/^/    /'
        failed=1
    fi
}
