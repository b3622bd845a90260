#!/usr/bin/env bash
# Runs the suite by tiers. A tier is a set of test targets (Package.swift), not a name pattern:
#
#   unit       AetherEngineTests AetherControlTests AetherTUITests TerminalGraphicsTests
#              pure tests: no real-time playback, no terminal, no server; in parallel, one process
#   cli        EndToEndTests: the built binary headless and in tmux (each test its own tmux
#              server, config and sockets); its suites in 4 processes at once
#   realtime   RealTimeTests: playback measured against the ALSA clock (PulseAudio null sink,
#              recorded from its monitor); serially, one process (one clock, two cores)
#   network    NetworkTests: loopback HTTP servers, fault proxies, live streams; its suites in
#              5 processes at once (a suite that records plays into a null
#              sink of its own: SinkRecorder(.own))
#   terminals  TerminalTests: real terminals under Xvfb (xterm -ti vt340, mlterm, kitty); serially,
#              beside the cli tier when both run
#
# Long runs (the terminal matrix, three minutes of live memory, soak.py) are in soak.sh, not here.
#
#   test.sh                 installs packages, generates fixtures, starts the null sink, builds,
#                           runs every tier (what CI runs); at most 10 minutes on two cores
#   test.sh --fast          the unit tier on an already set-up machine (at most 60 s)
#   test.sh --tier NAME     one tier (set up as for the whole run)
# Other arguments go to `swift test` and make every tier one process (`test.sh --tier cli --filter
# ProbeTests`). AETHER_SCRATCH_PATH builds there instead of .build (a second worktree's build).
# Each tier prints its time; the end repeats any failure and prints "N passed, N failed".
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

declare -A targets=(
    [unit]="AetherEngineTests AetherControlTests AetherTUITests TerminalGraphicsTests"
    [cli]="EndToEndTests"
    [realtime]="RealTimeTests"
    [network]="NetworkTests"
    [terminals]="TerminalTests"
)
# parallel: one process, Swift Testing's own parallelism; serial: one process, one test at a
# time; suites: each suite a process of its own, a few at a time (most of these tests wait on
# real time, a server or a pane, not on the cores).
declare -A mode=([unit]=parallel [cli]=suites [realtime]=serial [network]=suites [terminals]=serial)
order=(unit cli realtime network terminals)
# Processes at once in a "suites" tier. The network tier's suites mostly wait on servers and
# paced links (about 40 % of two cores at 3 at once), so it runs more of them.
# AETHER_TEST_WORKERS=N runs N at once in both.
declare -A workers=([cli]="${AETHER_TEST_WORKERS:-4}" [network]="${AETHER_TEST_WORKERS:-5}")

tiers=("${order[@]}")
fast=no
if [ "${1:-}" = "--fast" ]; then
    fast=yes; tiers=(unit); shift
elif [ "${1:-}" = "--tier" ]; then
    [ -n "${targets[${2:-}]:-}" ] || { echo "test.sh: unknown tier '${2:-}' (${order[*]})" >&2; exit 2; }
    tiers=("$2"); shift 2
fi

if [ "$fast" = no ]; then
    bash Tests/Scripts/install-deps.sh
fi
[ -d Tests/Fixtures/out ] && [ "$fast" = yes ] || bash Tests/Fixtures/make-fixtures.sh
# The null sink's daemon: started for this run unless one was up already, and then stopped at the
# end with its keep-alive stream (a run leaves nothing running).
pulse_started=no
if [ "$fast" = no ]; then
    XDG_RUNTIME_DIR=/tmp/aether-test-xdg pactl info >/dev/null 2>&1 || pulse_started=yes
    eval "$(bash Tests/Scripts/pulse-null-sink.sh /tmp/aether-test-xdg)"
fi
stop_pulse() {
    [ "$pulse_started" = yes ] || return 0
    pkill -f "pacat.*aether-keepalive" 2>/dev/null || true
    XDG_RUNTIME_DIR=/tmp/aether-test-xdg pulseaudio --kill 2>/dev/null || true
}
# The TLS tests' certificates, and their test authority in the system store for the run (taken
# out again at the end; its key is gone once the certificates are signed).
ca_installed=no
if [ "$fast" = no ]; then
    bash Tests/Scripts/test-ca.sh --install && ca_installed=yes
fi
stop_ca() { [ "$ca_installed" = yes ] && bash Tests/Scripts/test-ca.sh --uninstall; return 0; }
work="$(mktemp -d /tmp/aether-test.XXXXXX)"
trap 'rm -rf "$work"; stop_pulse; stop_ca' EXIT
# Every temporary file of the run (the build's, the tests' servers, players and homes) goes in
# here and with it at the end.
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"

scratch=()
[ -n "${AETHER_SCRATCH_PATH:-}" ] && scratch=(--scratch-path "$AETHER_SCRATCH_PATH")
swift build "${scratch[@]}" --build-tests
bundle="$(swift build "${scratch[@]}" --show-bin-path)/aether-tuiPackageTests.xctest"
export NO_COLOR=1
# Seconds each suite took last time (longest first next time, so a long suite does not start last).
durations="${AETHER_SCRATCH_PATH:-.build}/aether-suite-seconds"
touch "$durations"

# Swift Testing's lines for one test (not its closing "Test run with N tests …" line).
count() { sed 's/\x1b\[[0-9;]*m//g' "$3" | grep -E "^$1 Test .* $2" | grep -cv "^$1 Test run with" || true; }
# Tests passed in a log: its "Test run with N tests" lines' N less the failed and skipped tests,
# or its ✔ lines where they are more (a process that crashed prints no run line). A test's own
# line is sometimes missing from a log (77 of 695 once) where the run line says all passed.
passed() {
    local lines total
    lines=$(count ✔ 'passed after' "$1")
    total=$(sed 's/\x1b\[[0-9;]*m//g' "$1" | sed -nE 's/^. Test run with ([0-9]+) tests? .*/\1/p' \
        | awk '{ sum += $1 } END { print sum + 0 }')
    total=$(( total - $(count ✘ 'failed after' "$1") - $(count ➜ 'skipped' "$1") ))
    echo $(( total > lines ? total : lines ))
}

# Runs one suite ("Target.Suite") in a process of its own; its output goes to a file of its own.
# The network suites that judge recorded sound (a silence at a bit-rate switch): they start
# first, and the other suites of the tier wait `settle` seconds, so that the start of five test
# processes at once (loading, players, encoders) does not starve the sound server in their
# first seconds (seen once: a 20 ms gap in the recording with no underrun on the player's side).
recorded="NetworkTests.AdaptiveBitrateEndToEndTests NetworkTests.ThrottledDASHTests NetworkTests.LiveAdaptiveBitrateTests"
settle=8
run_suite() {
    local suite="$1" out="$work/suite.$1.log"
    if [[ " $recorded " != *" $suite "* ]]; then
        local wait=$(( ${tier_started:-0} + settle - $(date +%s) ))
        [ "$wait" -gt 0 ] && sleep "$wait"   # the recorded suites' first seconds
    fi
    if "$bundle" --testing-library swift-testing --no-parallel --filter "^${suite//./\\.}/" >"$out" 2>&1; then
        echo "  ✔ $suite"
    else
        echo "  ✘ $suite"
        echo "$suite" >>"$failed_list"
    fi
}
export -f run_suite
export bundle work recorded settle

# Runs one tier: its output on stdout, its summary line in $work/summary.TIER, a failure marked
# by $work/failed.TIER.
run_tier() {
    local tier="$1" pattern tier_log start seconds
    pattern="$(echo "${targets[$tier]}" | tr ' ' '|')"
    tier_log="$work/tier.$tier.log"
    echo "==== tier $tier: ${targets[$tier]} (${mode[$tier]}) ===="
    start=$(date +%s)
    if [ "${mode[$tier]}" = suites ] && [ $# -eq 1 ]; then
        local queue="$work/queue.$tier" failed="$work/failed-suites.$tier"
        "$bundle" --testing-library swift-testing --list-tests 2>/dev/null | sed 's#/.*##' | sort -u \
            | grep -E "^($pattern)\." >"$work/suites.$tier" || true
        # Longest first by the last run's figures; unknown suites after, by name.
        awk 'FILENAME == ARGV[1] { s[$1] = $2; next } { print (($1 in s) ? s[$1] : 0), $1 }' "$durations" "$work/suites.$tier" \
            | sort -k1,1nr -k2 | cut -d' ' -f2 >"$queue"
        rm -f "$failed"
        # Recorded suites first (see `recorded`), then the rest longest first.
        { grep -xF -f <(tr ' ' '\n' <<<"$recorded") "$queue" || true; grep -vxF -f <(tr ' ' '\n' <<<"$recorded") "$queue" || true; } >"$queue.ordered"
        mv "$queue.ordered" "$queue"
        local wait_for=0
        grep -qxF -f <(tr ' ' '\n' <<<"$recorded") "$queue" && wait_for=$settle
        tier_started=$(date +%s) settle=$wait_for failed_list="$failed" xargs -a "$queue" -P "${workers[$tier]}" -I{} bash -c 'run_suite "$@"' _ {}
        : >"$tier_log"
        while read -r suite; do
            cat "$work/suite.$suite.log" >>"$tier_log"
            seconds=$(sed 's/\x1b\[[0-9;]*m//g' "$work/suite.$suite.log" | grep -E '^. Test run with' | grep -oE 'after [0-9.]+' | cut -d' ' -f2 || true)
            grep -v "^$suite " "$durations" >"$work/durations" || true
            [ -n "$seconds" ] && echo "$suite $seconds" >>"$work/durations"
            cp "$work/durations" "$durations"
        done <"$queue"
        if [ -s "$failed" ]; then
            : >"$work/failed.$tier"
            while read -r suite; do cat "$work/suite.$suite.log"; done <"$failed"
        fi
    else
        shift
        local flag=--no-parallel
        [ "${mode[$tier]}" = parallel ] && flag=--parallel
        # A --filter of the caller's narrows the tier (swift test ORs its filters: the tier's
        # own is left out then).
        local tier_filter=(--filter "^($pattern)\\.")
        for a in "$@"; do [ "$a" = --filter ] && tier_filter=(); done
        swift test "${scratch[@]}" --skip-build "$flag" "${tier_filter[@]}" "$@" 2>&1 | tee "$tier_log" || : >"$work/failed.$tier"
    fi
    seconds=$(( $(date +%s) - start ))
    echo "$tier: $(passed "$tier_log") passed, $(count ✘ 'failed after' "$tier_log") failed, $(count ➜ 'skipped' "$tier_log") skipped in ${seconds} s" >"$work/summary.$tier"
}

# The terminals tier (real terminals under Xvfb, one test at a time) runs beside the cli tier,
# whose suites mostly wait on panes (about 57 % of two cores at 4 at once): its output follows
# the cli tier's. Not with arguments for `swift test`: each tier is then a `swift test` of its
# own, and two at once would wait on each other's lock of the build folder.
beside_cli=no
[[ $# -eq 0 && " ${tiers[*]} " == *" cli "* && " ${tiers[*]} " == *" terminals "* ]] && beside_cli=yes
for tier in "${tiers[@]}"; do
    if [ "$tier" = terminals ] && [ "$beside_cli" = yes ]; then
        continue
    fi
    if [ "$tier" = cli ] && [ "$beside_cli" = yes ]; then
        run_tier terminals "$@" >"$work/out.terminals" 2>&1 &
        beside=$!
        run_tier cli "$@"
        wait "$beside" || true
        cat "$work/out.terminals"
    else
        run_tier "$tier" "$@"
    fi
done
status=0
summary=()
for tier in "${tiers[@]}"; do
    if [ -e "$work/failed.$tier" ] || [ ! -e "$work/summary.$tier" ]; then status=1; fi
    summary+=("$(cat "$work/summary.$tier" 2>/dev/null || echo "$tier: did not finish")")
    cat "$work/tier.$tier.log" >>"$work/all.log" 2>/dev/null || true
done

# Sizes are reported, not capped (#60): types over the house's guide, targets' lines.
sizes=$(sed 's/\x1b\[[0-9;]*m//g' "$work/all.log" 2>/dev/null | grep -E '^size: ' | sort -u || true)
if [ -n "$sizes" ]; then
    echo
    echo "==== sizes (reported, not capped) ===="
    echo "$sizes"
fi
echo
echo "==== tiers ===="
printf '%s\n' "${summary[@]}"
if [ "$status" -ne 0 ]; then
    echo
    echo "==== failures (repeated from above) ===="
    # Swift Testing: "✘ Test x() recorded an issue at File.swift:N:M: …" and its detail lines.
    # Keep a few lines after each so multi-line messages survive.
    sed 's/\x1b\[[0-9;]*m//g' "$work/all.log" | grep -n -A6 -E '✘|recorded an issue|error: |Fatal error|Assertion failed' | head -200 || true
fi
echo "$(passed "$work/all.log") passed, $(count ✘ 'failed after' "$work/all.log") failed"
exit "$status"
