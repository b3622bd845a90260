#!/usr/bin/env bash
# Starts (idempotently) a PulseAudio daemon with a null sink for the audio tests, so ALSA's
# `pulse` and `default` devices play in real time with no sound card, and `parec -d
# nullsink.monitor` records what was played.
#   usage: pulse-null-sink.sh [XDG_RUNTIME_DIR]     (default /tmp/aether-test-xdg)
# The null sink idles with a 2 s latency and only notices a new stream when that timer fires, so
# a stream's first start could stall up to 2 s — no real card does that. A silent 20 ms
# keep-alive stream holds the sink at a sound card's latency.
set -euo pipefail
# shellcheck source=needs.sh
source "$(dirname "${BASH_SOURCE[0]}")/needs.sh"
needs pulse-null-sink pulseaudio=pulseaudio pactl=pulseaudio-utils pacat=pulseaudio-utils
export XDG_RUNTIME_DIR="${1:-/tmp/aether-test-xdg}"
mkdir -p "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
if ! pactl info >/dev/null 2>&1; then
    # High priority and real-time scheduling where allowed (root, as in CI): the sink's timer
    # thread is the suite's measuring instrument, and a loaded machine must not starve it (a
    # 20-28 ms gap in a recording, with no underrun counted by the player, twice in CI runs).
    pulseaudio --daemonize=yes --exit-idle-time=-1 -n --high-priority=yes --realtime=yes \
        --load="module-null-sink sink_name=nullsink" --load=module-native-protocol-unix \
        --log-target=file:"$XDG_RUNTIME_DIR/pulse.log" </dev/null >/dev/null 2>&1 || true
    for _ in $(seq 50); do pactl info >/dev/null 2>&1 && break; sleep 0.1; done
    pactl info >/dev/null 2>&1 || { echo "pulse-null-sink: PulseAudio did not start" >&2; exit 1; }
    pactl set-default-sink nullsink
fi
if ! pgrep -f "pacat.*aether-keepalive" >/dev/null 2>&1; then
    nohup pacat -p --client-name=aether-keepalive --stream-name=aether-keepalive --latency-msec=20 \
        --raw --format=s16le --rate=48000 --channels=2 /dev/zero </dev/null >/dev/null 2>&1 &
    sleep 0.3
fi
echo "export XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR"
