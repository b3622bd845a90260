#!/usr/bin/env bash
# make-spliced-fixtures.sh OUTDIR — HLS streams spliced the way a server inserts an ad
# (make-network-fixtures.sh runs it into OUTDIR/spliced; served like the rest of net/):
#   hls/index.m3u8   VOD, EXT-X-VERSION 3, TARGETDURATION 2, ENDLIST; 10.000 s in 6 segments:
#       p0.ts p1.ts     programme 0–4 s: 640x360 (16:9) at 25 fps, H.264 Main, AAC stereo 440 Hz,
#                       PIDs 0x100/0x101, timestamps from 1.4 s (ffmpeg's mux delay)
#       #EXT-X-DISCONTINUITY
#       a0.ts a1.ts     the ad, 3 s (2 + 1): 960x720 (4:3) at 30 fps, H.264 High, AAC mono
#                       880 Hz, PIDs 0x200/0x201, its timestamps starting again at 1.4 s
#       #EXT-X-DISCONTINUITY
#       p2.ts p3.ts     programme 4–7 s (2 + 1), its own timestamps going on (5.4 s up), as
#                       a server that cuts the ad into the programme leaves them
#   Frames: 100 + 90 + 75 = 265; keyframes every segment start (one each second).
#   dash/spliced.mpd  the same splice as DASH (static, three Periods of PT4S, PT3S, PT3S at 0, 4
#       and 7 s): the programme encoded once as fMP4 (ffmpeg's dash muxer, 1 s SegmentTemplate
#       $Number$ segments, init prog-init-{0,1}.m4s, media prog-{0,1}-N.m4s), its first period
#       segments 1–4, its last 5–7 (presentationTimeOffset 4000000 of timescale 1000000); the ad
#       its own encode (ad-init-*.m4s, ad-*-N.m4s, 1–3), its timestamps from 0.
# Regenerated when this script is newer than OUTDIR/.stamp. Needs ffmpeg (libx264, aac).
set -euo pipefail
out=${1:?usage: make-spliced-fixtures.sh OUTDIR}
script="${BASH_SOURCE[0]}"
if [ -f "$out/.stamp" ] && [ "$out/.stamp" -nt "$script" ]; then exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ff=(ffmpeg -hide_banner -nostdin -loglevel error -y)
x264=(-c:v libx264 -preset veryfast -threads 1 -pix_fmt yuv420p -sc_threshold 0 -bf 0)
# The programme: 7 s, cut at 4 s into two parts that keep their timestamps.
"${ff[@]}" -f lavfi -i "testsrc2=s=640x360:r=25" -f lavfi -i "sine=f=440:r=48000" -t 7 \
    "${x264[@]}" -profile:v main -g 25 -keyint_min 25 -c:a aac -b:a 96k -ac 2 -bitexact \
    -f hls -hls_time 2 -hls_list_size 0 -hls_segment_filename "$work/p%d.ts" "$work/programme.m3u8"
# The ad: its own encode, its own PIDs, timestamps from the start again.
"${ff[@]}" -f lavfi -i "smptehdbars=s=960x720:r=30" -f lavfi -i "sine=f=880:r=48000" -t 3 \
    "${x264[@]}" -profile:v high -g 30 -keyint_min 30 -c:a aac -b:a 64k -ac 1 -bitexact \
    -streamid 0:0x200 -streamid 1:0x201 \
    -f hls -hls_time 2 -hls_list_size 0 -hls_segment_filename "$work/a%d.ts" "$work/ad.m3u8"
# Each part's EXTINF lines as ffmpeg measured them.
extinf() { grep -A1 '^#EXTINF' "$1" | grep -v '^--$' | paste - - | sed -n "$2"; }
{
    printf '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n'
    extinf "$work/programme.m3u8" 1,2p | tr '\t' '\n'
    printf '#EXT-X-DISCONTINUITY\n'
    extinf "$work/ad.m3u8" 1,2p | tr '\t' '\n'
    printf '#EXT-X-DISCONTINUITY\n'
    extinf "$work/programme.m3u8" 3,4p | tr '\t' '\n'
    printf '#EXT-X-ENDLIST\n'
} > "$work/index.m3u8"
# DASH: the same sources as fMP4, joined by periods.
mkdir -p "$work/dash"
dash=(-f dash -seg_duration 1 -use_template 1 -use_timeline 0)
"${ff[@]}" -f lavfi -i "testsrc2=s=640x360:r=25" -f lavfi -i "sine=f=440:r=48000" -t 7 \
    "${x264[@]}" -profile:v main -g 25 -keyint_min 25 -c:a aac -b:a 96k -ac 2 -bitexact "${dash[@]}" \
    -init_seg_name 'prog-init-$RepresentationID$.m4s' -media_seg_name 'prog-$RepresentationID$-$Number$.m4s' "$work/dash/prog.mpd"
"${ff[@]}" -f lavfi -i "smptehdbars=s=960x720:r=30" -f lavfi -i "sine=f=880:r=48000" -t 3 \
    "${x264[@]}" -profile:v high -g 30 -keyint_min 30 -c:a aac -b:a 64k -ac 1 -bitexact "${dash[@]}" \
    -init_seg_name 'ad-init-$RepresentationID$.m4s' -media_seg_name 'ad-$RepresentationID$-$Number$.m4s' "$work/dash/ad.mpd"
python3 - "$work/dash" <<'PY'
import re, sys
d = sys.argv[1]
def sets(name):
    return re.search(r'(<AdaptationSet.*</AdaptationSet>)', open(f"{d}/{name}.mpd").read(), re.S).group(1)
def period(pid, start, seconds, body, number, offset):
    body = body.replace('startNumber="1"', f'startNumber="{number}" presentationTimeOffset="{offset}"')
    return f'<Period id="{pid}" start="PT{start}S" duration="PT{seconds}S">\n{body}\n</Period>\n'
with open(f"{d}/spliced.mpd", "w") as f:
    f.write('<?xml version="1.0" encoding="utf-8"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" '
            'profiles="urn:mpeg:dash:profile:isoff-live:2011" type="static" mediaPresentationDuration="PT10.0S" '
            'maxSegmentDuration="PT1.0S" minBufferTime="PT2.0S">\n'
            + period("programme", 0, 4, sets("prog"), 1, 0) + period("ad", 4, 3, sets("ad"), 1, 0)
            + period("programme-2", 7, 3, sets("prog"), 5, 4000000) + '</MPD>\n')
PY
rm "$work/dash/prog.mpd" "$work/dash/ad.mpd"
mkdir -p "$out"
rm -rf "$out/hls" "$out/dash"
mkdir -p "$out/hls"
mv "$work"/p?.ts "$work"/a?.ts "$work/index.m3u8" "$out/hls/"
mv "$work/dash" "$out/dash"
touch "$out/.stamp"
echo "spliced/hls/index.m3u8               $(cat "$out"/hls/*.ts | wc -c) bytes of segments"
echo "spliced/dash/spliced.mpd             $(cat "$out"/dash/*.m4s | wc -c) bytes of segments"
