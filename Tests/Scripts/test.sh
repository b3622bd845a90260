#!/usr/bin/env bash
# Runs the suite by tiers. A tier is a set of test targets (Package.swift), not a name pattern:
#
#   unit       AetherEngineTests AetherControlTests AetherTUITests TerminalGraphicsTests
#              pure tests: no real-time playback, no terminal, no server; run in parallel
#   cli        EndToEndTests: the built binary headless (probe, extract, inspect, hostile files,
#              docs against --help); in parallel
#   realtime   RealTimeTests: playback paced by the real ALSA clock (PulseAudio null sink) and the
#              TUI in tmux; serially (one clock, two cores)
#   network    NetworkTests: loopback HTTP servers, fault proxies, live streams; serially
#   terminals  TerminalTests: real terminals under Xvfb (xterm -ti vt340, mlterm, kitty); serially
#
# Long runs (the terminal matrix, three minutes of live memory, soak.py) are in soak.sh, not here.
#
#   test.sh                 installs packages, generates fixtures, starts the null sink, builds,
#                           runs every tier (what CI runs); at most 10 minutes on two cores
#   test.sh --fast          the unit tier on an already set-up machine (at most 60 s)
#   test.sh --tier NAME     one tier (set-up as for the whole run)
# Other arguments go to `swift test` (`test.sh --tier cli --filter ProbeTests`).
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
declare -A parallel=([unit]=yes [cli]=yes [realtime]=no [network]=no [terminals]=no)
order=(unit cli realtime network terminals)

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
if [ "$fast" = no ]; then
    eval "$(bash Tests/Scripts/pulse-null-sink.sh /tmp/aether-test-xdg)"
fi
swift build --build-tests

# Swift Testing's lines for one test (not its closing "Test run with N tests …" line).
count() { grep -E "^$1 Test .* $2" "${3}" | grep -cv "^$1 Test run with" || true; }

log="$(mktemp /tmp/aether-test-log.XXXXXX)"
trap 'rm -f "$log"' EXIT
status=0
summary=()
for tier in "${tiers[@]}"; do
    filter="^($(echo "${targets[$tier]}" | tr ' ' '|'))\\."
    mode=(--no-parallel)
    [ "${parallel[$tier]}" = yes ] && mode=(--parallel)
    echo "==== tier $tier: ${targets[$tier]} (${mode[*]#--}) ===="
    start=$(date +%s)
    tier_log="$(mktemp /tmp/aether-tier-log.XXXXXX)"
    swift test --skip-build "${mode[@]}" --filter "$filter" "$@" 2>&1 | tee "$tier_log" || status=1
    seconds=$(( $(date +%s) - start ))
    passed=$(count ✔ 'passed after' "$tier_log")
    failed=$(count ✘ 'failed after' "$tier_log")
    skipped=$(count ➜ 'skipped' "$tier_log")
    summary+=("$tier: $passed passed, $failed failed, $skipped skipped in ${seconds} s")
    cat "$tier_log" >> "$log"
    rm -f "$tier_log"
done

echo
echo "==== tiers ===="
printf '%s\n' "${summary[@]}"
if [ "$status" -ne 0 ]; then
    echo
    echo "==== failures (repeated from above) ===="
    # Swift Testing: "✘ Test x() recorded an issue at File.swift:N:M: …" and its detail lines.
    # Keep a few lines after each so multi-line messages survive.
    grep -n -A6 -E '✘|recorded an issue|error: |Fatal error|Assertion failed' "$log" | head -200 || true
fi
total_passed=$(count ✔ 'passed after' "$log")
total_failed=$(count ✘ 'failed after' "$log")
total_skipped=$(count ➜ 'skipped' "$log")
echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
exit "$status"
