#!/usr/bin/env bash
# The long runs, before a release (not in CI, not in test.sh): the SoakTests target (the
# real-terminal matrix: the 720p clip in xterm sixel and half-block, mlterm, kitty, foot and tmux
# in xterm under Xvfb, each picture's PSNR against the source; three minutes of a live stream in
# bounded memory) and, with --memory MINUTES, soak.py's memory soak (random keys, clicks and
# resizes in tmux against the same files played untouched).
#
#   soak.sh                   the SoakTests target (about 5 minutes), and the equalizer's
#                             response with every preset (about a minute)
#   soak.sh --memory 60       + 60 minutes of soak.py, then its straight baseline
# Other arguments go to `swift test` (`soak.sh --filter TerminalMatrixTests`). Figures go to the
# closing notes.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
minutes=""
if [ "${1:-}" = "--memory" ]; then
    minutes="${2:?soak.sh --memory MINUTES}"
    shift 2
fi
bash Tests/Scripts/install-deps.sh
bash Tests/Fixtures/make-fixtures.sh
eval "$(bash Tests/Scripts/pulse-null-sink.sh /tmp/aether-test-xdg)"
swift build --build-tests
swift test --skip-build --no-parallel --filter '^SoakTests\.' "$@"
# The equalizer's response with every preset (the realtime tier measures the two profiles).
AETHER_EQ_EVERY_PRESET=1 swift test --skip-build --no-parallel --filter 'theEqualizerPlaysItsAnalyticCurve'
if [ -n "$minutes" ]; then
    swift build -c release --product aether-tui
    clips=(Tests/Fixtures/out/h264-720p.mkv Tests/Fixtures/out/h264-aac-2audio-srt-ass.mkv Tests/Fixtures/out/vp9-opus.webm)
    python3 Tests/Scripts/soak.py --minutes "$minutes" -- .build/release/aether-tui --loop-playlist=inf "${clips[@]}"
    python3 Tests/Scripts/soak.py --straight --minutes "$minutes" -- .build/release/aether-tui --loop-playlist=inf "${clips[@]}"
fi
