#!/usr/bin/env bash
# Runs every test: installs packages, generates the fixtures, starts the PulseAudio null sink
# (real-time ALSA playback with no sound card), builds, and runs the whole suite serially (the
# playback tests measure wall-clock time and must not compete for the two cores).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
bash Tests/Scripts/install-deps.sh
bash Tests/Fixtures/make-fixtures.sh
eval "$(bash Tests/Scripts/pulse-null-sink.sh /tmp/aether-test-xdg)"
swift build --build-tests
swift test --skip-build --no-parallel "$@"
