#!/usr/bin/env bash
# live_hls.sh — writes a live HLS stream in real time, for network tests.
#
# Usage: Tests/Scripts/live_hls.sh OUTDIR SECONDS [--no-endlist]
#   Runs ffmpeg in the foreground for SECONDS of wall-clock time (-re), writing into OUTDIR
#   (created if missing): index.m3u8, a live media playlist (no EXT-X-PLAYLIST-TYPE, no
#   EXT-X-ENDLIST while running) of 2 s MPEG-TS segments seg00000.ts, seg00001.ts ...,
#   the last 6 listed (-hls_list_size 6), older ones deleted (delete_segments; ffmpeg keeps
#   a few unlisted ones on disk for clients still fetching them), each with an
#   EXT-X-PROGRAM-DATE-TIME (wall clock). Segments and the playlist are written to a
#   temporary name and renamed (temp_file), so a server never hands out a half-written one.
#   The first segment is listed about 2 s after the start.
#   Content: 640x360 24 fps testsrc2 (with, when DejaVu Sans Mono Bold is installed, the frame
#   number, the stream time and the wall-clock time drawn at the top left), H.264 ultrafast
#   with a keyframe every 48 frames (2 s), AAC-LC stereo 48 kHz 96 kb/s 440 Hz sine.
#   When it ends (SECONDS reached, SIGTERM or SIGINT) ffmpeg finishes the last segment and
#   appends EXT-X-ENDLIST, as a live event that ends does; with --no-endlist it does not (the
#   playlist then looks like a live stream that stopped updating). Exits 0 in all these cases
#   (ffmpeg's status if it fails on its own).
#
# Background-friendly: serve OUTDIR with range_http.py, run this in the background, and kill
# it (SIGTERM to its pid) when the test is done:
#   Tests/Scripts/live_hls.sh "$dir" 60 & live=$!; ...; kill $live; wait $live
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 || ! $2 =~ ^[0-9]+([.][0-9]+)?$ || ( $# -eq 3 && $3 != --no-endlist ) ]]; then
    sed -n '4,5p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
outdir=$1 seconds=$2
flags=delete_segments+program_date_time+temp_file
if [[ ${3:-} == --no-endlist ]]; then
    flags+=+omit_endlist
fi
mkdir -p "$outdir"

video="testsrc2=s=640x360:r=24"
font=/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf
if [[ -f $font ]] && ffmpeg -hide_banner -nostdin -filters 2>/dev/null >"$outdir/.filters" &&
    grep -q ' drawtext ' "$outdir/.filters"; then
    video+=",drawtext=fontfile=$font:text='%{frame_num} %{pts\\:hms} %{localtime\\:%T}'"
    video+=":x=18:y=18:fontsize=36:fontcolor=white:box=1:boxcolor=black@0.6:boxborderw=6"
fi
rm -f "$outdir/.filters"

ffmpeg -hide_banner -nostdin -loglevel error -y -re -f lavfi -i "$video" -re -f lavfi -i "sine=f=440:r=48000" \
    -t "$seconds" -map 0:v -map 1:a \
    -c:v libx264 -preset ultrafast -tune zerolatency -pix_fmt yuv420p -g 48 -keyint_min 48 -sc_threshold 0 \
    -b:v 800k -maxrate 800k -bufsize 1600k -c:a aac -ar 48000 -ac 2 -b:a 96k \
    -f hls -hls_time 2 -hls_list_size 6 -hls_flags "$flags" \
    -hls_segment_filename "$outdir/seg%05d.ts" "$outdir/index.m3u8" &
pid=$!
stopped=0
stop() { stopped=1; kill -TERM "$pid" 2>/dev/null || true; }
trap stop TERM INT
# `wait` returns early when a trapped signal arrives: wait again until ffmpeg has really gone.
status=0
while kill -0 "$pid" 2>/dev/null; do
    status=0
    wait "$pid" || status=$?
done
if [[ $stopped -eq 1 ]]; then
    exit 0  # ffmpeg says 255 when a signal ends it; that is the normal way to stop this script
fi
exit "$status"
