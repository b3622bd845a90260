#!/usr/bin/env bash
# Runs the test suite (or the tests matching $2…) under AddressSanitizer and ThreadSanitizer, each
# in its own build folder, and then the hostile-media corpus with the sanitized player. Fails on
# any sanitizer report. Not part of CI (a sanitized build and run take about 10 minutes each).
#   bash Tests/Scripts/sanitizers.sh [address|thread|both] [swift test --filter pattern]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
which="${1:-both}"; shift || true
filter=()
if (($#)); then filter=(--filter "$1"); fi
bash Tests/Scripts/install-deps.sh
bash Tests/Fixtures/make-fixtures.sh
eval "$(bash Tests/Scripts/pulse-null-sink.sh /tmp/aether-test-xdg)"
status=0
run() {
    local kind="$1" dir=".build-${1:0:1}san"
    [ "$kind" = address ] && dir=.build-asan
    [ "$kind" = thread ] && dir=.build-tsan
    # One log per run: two runs at once (two worktrees) must not write into each other's.
    local log
    log=$(mktemp "/tmp/aether-$kind-sanitizer.XXXXXX.log")
    echo "== $kind: building in $dir" >&2
    swift build --build-tests -Xswiftc "-sanitize=$kind" --scratch-path "$dir" >/dev/null
    echo "== $kind: swift test (log: $log)" >&2
    # Timing tests may miss their bounds under a sanitizer's slowdown; reports are what count here.
    ASAN_OPTIONS="detect_leaks=0:halt_on_error=0" TSAN_OPTIONS="halt_on_error=0:report_signal_unsafe=0" \
        swift test --skip-build --scratch-path "$dir" --no-parallel "${filter[@]}" >"$log" 2>&1 || true
    if [ -x Tests/Scripts/hostile-run.sh ] && [ -d Tests/Fixtures/out/hostile ]; then
        ASAN_OPTIONS="detect_leaks=0" TSAN_OPTIONS="report_signal_unsafe=0" \
            bash Tests/Scripts/hostile-run.sh "$dir/debug/aether-tui" Tests/Fixtures/out/hostile >>"$log" 2>&1 || true
    fi
    local reports
    reports=$(grep -c -E "ERROR: AddressSanitizer|WARNING: ThreadSanitizer" "$log" || true)
    grep -E "Test run with|tests? (passed|failed)" "$log" | tail -1 >&2 || true
    echo "== $kind: $reports sanitizer report(s)" >&2
    if [ "$reports" != 0 ]; then grep -E "SUMMARY: (Address|Thread)Sanitizer" "$log" | sort | uniq -c >&2; status=1; fi
}
case "$which" in
    address|thread) run "$which" ;;
    both) run address; run thread ;;
    *) echo "usage: $0 [address|thread|both] [filter]" >&2; exit 2 ;;
esac
exit $status
