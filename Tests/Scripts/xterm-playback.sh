#!/usr/bin/env bash
# Plays FILE with PLAYER inside a real `xterm -ti vt340` under Xvfb (160×48 cells, DejaVu Sans
# Mono 10, 256 colour registers, maxGraphicSize the 1920x1080 screen: XTERM_GRAPHIC_SIZE
# overrides it; xterm clears a buffer that large for every image), audio through the
# PulseAudio null sink, and prints the player's --stats-file summary line (frames painted,
# superseded and dropped, A/V gap, the output the governor settled on). Ends Xvfb and xterm before it returns.
#   bash Tests/Scripts/xterm-playback.sh PLAYER FILE [player options…]
set -euo pipefail
player="$1"; file="$2"; shift 2
root="$(cd "$(dirname "$0")/../.." && pwd)"
export XDG_RUNTIME_DIR=/tmp/aether-test-xdg
eval "$(bash "$root/Tests/Scripts/pulse-null-sink.sh" "$XDG_RUNTIME_DIR")" >/dev/null
work=$(mktemp -d /tmp/aether-xterm-XXXXXX)
cleanup() {
    [ -n "${xterm_pid:-}" ] && kill -9 "$xterm_pid" 2>/dev/null || true
    [ -n "${xvfb_pid:-}" ] && kill "$xvfb_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
# Xvfb picks a free display number itself and writes it to fd 3.
Xvfb -displayfd 3 -screen 0 1920x1080x24 -nolisten tcp 3>"$work/display" >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 200); do [ -s "$work/display" ] && break; sleep 0.05; done
display=":$(head -1 "$work/display")"
quoted=$(printf "'%s' " "$player" "$file" --ao=alsa --audio-device=pulse --stats-file="$work/stats.jsonl" "$@")
DISPLAY="$display" xterm -ti vt340 -xrm 'XTerm*numColorRegisters: 256' -xrm "XTerm*maxGraphicSize: ${XTERM_GRAPHIC_SIZE:-1920x1080}" \
    -fa 'DejaVu Sans Mono' -fs 10 -geometry 160x48+0+0 -bw 0 -b 0 \
    -e sh -c "XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR $quoted; echo \$? > $work/exit" >"$work/xterm.log" 2>&1 &
xterm_pid=$!
for _ in $(seq 1200); do [ -f "$work/exit" ] && break; kill -0 "$xterm_pid" 2>/dev/null || break; sleep 0.1; done
[ -f "$work/exit" ] || { echo "xterm-playback: the player did not finish within 120 s" >&2; cat "$work/xvfb.log" "$work/xterm.log" >&2; exit 1; }
echo "exit status $(cat "$work/exit")" >&2
[ -n "${STATS_OUT:-}" ] && cp "$work/stats.jsonl" "$STATS_OUT"
grep '"summary"' "$work/stats.jsonl" | tail -1
