#!/usr/bin/env bash
# Runs every test: installs packages, generates the fixtures, starts the PulseAudio null sink
# (real-time ALSA playback with no sound card), builds, and runs the whole suite serially (the
# playback tests measure wall-clock time and must not compete for the two cores).
# The run is also logged; when anything fails, the failures are repeated at the very end, so
# the last lines of a long CI log name the test and the expectation that failed.
#
# --fast: the developer's tier after each change: unit and view tests only (no playback in real
# time, no tmux or X terminals, no network servers), on an already set-up machine; well under two
# minutes. The full run (no argument) is what CI runs.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
if [ "${1:-}" = "--fast" ]; then
    shift
    [ -d Tests/Fixtures/out ] || bash Tests/Fixtures/make-fixtures.sh
    swift build --build-tests
    fast='TerminalGraphicsTests\.|AetherTUITests\.'
    fast+='|AetherEngineTests\.(BoundedQueueTests|MasterClockTests|InspectionNumberTests|StreamSelectionTests|CoverArtTests|MediaTagsTests|FrameRateTests|VideoFormatClassifierTests|TextSanitizerTests|TextSanitizerUnicodeTests|ScalerTests|SheetDecoderTests|SubtitleStoreTests|TimelineTests|SourceOptionsTests|EncryptionScanTests|Windows1252Tests|ThumbnailSpriteParsingTests|SpectrumTests|DecoderThreadsTests|ISOBMFFStructureTests|TransportStreamStructureTests|MatroskaHostileTests|FrameStepperTests|WVTTReaderTests)/'
    fast+='|AetherControlTests\.(DoorsTests|OutsideValueTests|JSONValueTests|PlayerCommandTests|PropertyValueJSONTests|PlaylistTests|WatchLaterTests|ConfigFileTests)/'
    exec swift test --skip-build --no-parallel --filter "$fast" "$@"
fi
bash Tests/Scripts/install-deps.sh
bash Tests/Fixtures/make-fixtures.sh
eval "$(bash Tests/Scripts/pulse-null-sink.sh /tmp/aether-test-xdg)"
swift build --build-tests
log="$(mktemp /tmp/aether-test-log.XXXXXX)"
status=0
swift test --skip-build --no-parallel "$@" 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
    echo
    echo "==== failures (repeated from above) ===="
    # Swift Testing: "✘ Test x() recorded an issue at File.swift:N:M: …" and its detail lines;
    # XCTest: "… error: …". Keep a few lines after each so multi-line messages survive.
    grep -n -A6 -E '✘|recorded an issue|error: |Fatal error|Assertion failed' "$log" | head -200 || true
fi
rm -f "$log"
exit "$status"
