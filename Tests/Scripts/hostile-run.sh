#!/usr/bin/env bash
# hostile-run.sh — plays the hostile corpus (Tests/Scripts/hostile-corpus.sh) through aether-tui,
# headless and (--pty) in a 120x40 pseudo-terminal, and fails on a crash, a hang, a silent
# failure, raw control bytes from a file on the terminal, or a terminal left in raw mode or in
# the alternate screen. Every process it starts is killed (SIGKILL to its process group) past
# its deadline and when the runner itself is interrupted.
#
# Usage: Tests/Scripts/hostile-run.sh BINARY CORPUS_DIR [--pty] [--json REPORT.json] [options]
#   e.g. swift build && Tests/Scripts/hostile-corpus.sh Tests/Fixtures/out/hostile &&
#        Tests/Scripts/hostile-run.sh .build/debug/aether-tui Tests/Fixtures/out/hostile --pty
# Options (hostile-run.sh --help for all): --only REGEX, --strict (WARN fails too), --length S,
# --speed X, --no-probe, --no-names, --no-interrupts, --keep, --doors CLIP (the text doors:
# config, input.conf, playlists, watch-later, IPC; Tests/Scripts/hostile_doors.py).
# Exit status: 0 no FAIL, 1 any FAIL (or WARN with --strict), 2 usage.
exec python3 "$(dirname "$0")/hostile_run.py" "$@"
