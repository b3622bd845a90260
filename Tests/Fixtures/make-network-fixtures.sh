#!/usr/bin/env bash
# make-network-fixtures.sh — generates the network-source corpus (progressive HTTP, HLS, DASH).
#
# Usage: Tests/Fixtures/make-network-fixtures.sh [--force] [OUTDIR]
#   OUTDIR   defaults to Tests/Fixtures/out/net (git-ignored).
#   --force  regenerates everything. Without it a file or directory is skipped when it
#            exists and is newer than this script (and than its inputs).
# Prints one line per generated file and nothing when everything is current.
# Needs: ffmpeg and ffprobe (libx264, aac, mjpeg, drawtext for the counter), python3.
# make-fixtures.sh runs it last, into its OUTDIR/net. About 12 s on 2 cores.
#
# Serve OUTDIR with Tests/Scripts/range_http.py (optionally behind Tests/Scripts/fault_proxy.py)
# and open http://127.0.0.1:PORT/<file>. All URIs inside playlists and manifests are relative.
#
# Output is deterministic for a given ffmpeg build: -bitexact everywhere, one thread per
# video encoder (x264 with VBV and several threads is not deterministic), fixed lavfi sources.
#
# Unless noted: video is lavfi testsrc2 at 24 fps with the frame number and the time drawn at
# the top left ("480 00:00:20.000", white on a dark box; DejaVu Sans Mono Bold — without that
# font, and without fontconfig's monospace, the picture is plain testsrc2), H.264 libx264
# ultrafast yuv420p Constrained Baseline, no B-frames, a keyframe exactly every 48 frames (2 s:
# frames 0, 48, 96 ...; no scene cuts), rate-capped (-b:v = -maxrate, bufsize 2 s). Audio is
# AAC-LC stereo 48 kHz, a 440 Hz sine (peak 1/8). Every clip is 20 s unless noted. HLS
# segments are MPEG-TS and 2 s (10 per 20 s); DASH segments are fMP4 (.m4s) and 2 s.
#
# Files (tests may assert these facts; keep this list and the code in step):
#
# Progressive download
#   progressive.mp4
#       640x360 video 500 kb/s + AAC 96 kb/s, 20 s (AAC ends at 20.011), moov first
#       (+faststart), about 1.4 MB: a Range request for any offset can seek.
#   progressive.srt
#       Sidecar SubRip for it (UTF-8), four cues: 1–3 s "Network one", 5–7 s "Network two",
#       10–12 s "Network three", 17–19 s "Réseau quatre".
#
# HLS
#   hls-vod/master.m3u8
#       Master playlist (EXT-X-VERSION 3) of three variants, in this order, each
#       EXT-X-STREAM-INF with BANDWIDTH (1.1 x the nominal video + audio rate), RESOLUTION
#       and CODECS:
#         v0/index.m3u8  320x180  video 180 kb/s + AAC 48 kb/s   BANDWIDTH=250800
#                        CODECS="avc1.42c00c,mp4a.40.2"
#         v1/index.m3u8  640x360  video 540 kb/s + AAC 96 kb/s   BANDWIDTH=699600
#                        CODECS="avc1.42c01e,mp4a.40.2"
#         v2/index.m3u8  960x540  video 1235 kb/s + AAC 128 kb/s BANDWIDTH=1499300
#                        CODECS="avc1.42c01f,mp4a.40.2"
#       Each variant has its own AAC encode (muxed in its segments; no EXT-X-MEDIA groups).
#   hls-vod/v{0,1,2}/index.m3u8, hls-vod/v{0,1,2}/seg000.ts ... seg009.ts
#       VOD media playlists (EXT-X-PLAYLIST-TYPE:VOD, TARGETDURATION 2, MEDIA-SEQUENCE 0,
#       ten "#EXTINF:2.000000," segments, EXT-X-ENDLIST). Segment N starts with a keyframe at
#       N*2 s of content (frame 48 N); the same N is the same content in every variant, so a
#       switch at a segment boundary is seamless. The directory names the variant.
#       MPEG-TS timestamps start at 1.4 s (mux delay).
#   hls-aes/index.m3u8, hls-aes/seg000.ts ... seg009.ts, hls-aes/enc.key
#       progressive.mp4's streams (stream copy) as one VOD media playlist (no master),
#       encrypted with AES-128: "#EXT-X-KEY:METHOD=AES-128,URI="enc.key"" (relative URI,
#       served over HTTP), no IV attribute (so the IV of segment N is N, its media sequence
#       number). The key, enc.key, is the 16 bytes 00 01 02 ... 0f. Segments are not
#       MPEG-TS without the key (no 0x47 sync byte every 188 bytes).
#   hls-thumbs/master.m3u8
#       Master playlist with one variant, v0/index.m3u8 (640x360, video 540 kb/s + AAC 96
#       kb/s, 30 s: fifteen 2 s segments seg000.ts ... seg014.ts), followed by a Roku-style
#       image stream (added after ffmpeg wrote the master):
#         #EXT-X-IMAGE-STREAM-INF:BANDWIDTH=<B>,RESOLUTION=160x90,CODECS="jpeg",URI="thumbs/index.m3u8"
#       B = the bigger sheet's size x 8 / 20 s, rounded up.
#   hls-thumbs/thumbs/index.m3u8, hls-thumbs/thumbs/tile1.jpg, tile2.jpg
#       The image media playlist: EXT-X-VERSION 7, TARGETDURATION 20, MEDIA-SEQUENCE 0,
#       PLAYLIST-TYPE VOD, EXT-X-IMAGES-ONLY, then per sheet "#EXTINF:<d>," +
#       "#EXT-X-TILES:RESOLUTION=160x90,LAYOUT=5x2,DURATION=2.000" + its URI, EXT-X-ENDLIST.
#       Each sheet is an 800x180 JPEG of 5 columns x 2 rows of 160x90 thumbnails, row-major,
#       thumbnail k (from 0, over all sheets) being video frame 48 k (k * 2 s; its counter
#       reads "48k"). Two sheets: tile1.jpg EXTINF 20.000 covers 0–20 s (10 thumbnails),
#       tile2.jpg EXTINF 10.000 covers 20–30 s: only its top row (5 thumbnails) is filled,
#       the bottom row is black. (30 s, so that there are two sheets and the last is partial.)
#
# DASH
#   dash-vod/manifest.mpd
#       Static MPD (profile isoff-live, mediaPresentationDuration PT20.0S), one Period,
#       AdaptationSet 0 video with Representation id 0 (320x180, bandwidth 180000,
#       avc1.42c00c) and id 1 (640x360, bandwidth 540000, avc1.42c01e); AdaptationSet 1
#       audio with Representation id 2 (AAC 96000, mp4a.40.2, 48 kHz, 2 channels). Each
#       Representation has a SegmentTemplate with a SegmentTimeline (video timescale 12288:
#       <S t="0" d="24576" r="9"/>, ten 2 s segments; audio timescale 48000, ten segments of
#       95232–96256 samples), initialization "init-stream$RepresentationID$.m4s", media
#       "chunk-stream$RepresentationID$-$Number%05d$.m4s", startNumber 1.
#   dash-vod/init-stream{0,1,2}.m4s, dash-vod/chunk-stream{0,1,2}-00001.m4s ... -00010.m4s
#   dash-number/...
#       The same content and file names, with -use_timeline 0: each SegmentTemplate has
#       duration= and no SegmentTimeline (video duration 24576 / timescale 12288 = 2 s), the
#       $Number$ addressing mode.
#   dash-thumbs/manifest.mpd, init-stream{0,1}.m4s, chunk-stream{0,1}-00001 ... 00020.m4s
#       40 s (twenty 2 s segments), Representation 0 video 640x360 540 kb/s, 1 audio AAC
#       96 kb/s, SegmentTimeline as in dash-vod. Then (added after ffmpeg wrote the MPD, as
#       the last AdaptationSet of the Period) a DASH-IF IOP 4.3 thumbnail set:
#         <AdaptationSet id="2" contentType="image" mimeType="image/jpeg">
#           <SegmentTemplate media="thumbs/tile$Number$.jpg" duration="20" startNumber="1"
#             timescale="1"/>
#           <Representation id="thumbs" bandwidth="<B>" width="800" height="180">
#             <EssentialProperty schemeIdUri="http://dashif.org/thumbnail_tile" value="5x2"/>
#           </Representation>
#         </AdaptationSet>
#       B as for hls-thumbs. Width/height are the whole sheet; each thumbnail is 800/5 x 180/2 =
#       160x90 and lasts 20 s / 10 = 2 s.
#   dash-thumbs/thumbs/tile1.jpg, tile2.jpg
#       Two full 800x180 sheets (5x2): tile1 frames 0, 48 ... 432 (0–18 s), tile2 frames
#       480 ... 912 (20–38 s), thumbnail k = frame 48 k as for hls-thumbs.
#
# Hostile playlists (a player must not read local files on a remote playlist's say-so)
#   hostile/passwd.m3u8
#       HLS VOD media playlist whose only segment URI is file:///etc/passwd.
#   hostile/passwd-master.m3u8
#       HLS master playlist whose only variant (BANDWIDTH 500000, 640x360) is
#       file:///etc/passwd.
#   hostile/remote-list.m3u
#       Extended M3U playlist of two entries: file:///etc/passwd (title "passwd"), then
#       ../progressive.mp4 (title "progressive"; over HTTP it resolves to /progressive.mp4,
#       which exists).
#
# Live HLS is not a fixture: Tests/Scripts/live_hls.sh OUTDIR SECONDS writes one in real time.

set -euo pipefail
shopt -s inherit_errexit

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
script="$script_dir/$(basename "${BASH_SOURCE[0]}")"

usage() { sed -n '2,9p' "$script" | sed 's/^# \{0,1\}//'; }

force=0
outdir=""
for arg in "$@"; do
    case $arg in
        --force) force=1 ;;
        -h|--help) usage; exit 0 ;;
        -*) printf 'make-network-fixtures: unknown option %s\n' "$arg" >&2; usage >&2; exit 2 ;;
        *)
            if [[ -n $outdir ]]; then
                printf 'make-network-fixtures: more than one OUTDIR given\n' >&2; exit 2
            fi
            outdir=$arg ;;
    esac
done
outdir=${outdir:-$script_dir/out/net}

for tool in ffmpeg ffprobe python3; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        printf 'make-network-fixtures: %s not found in PATH\n' "$tool" >&2
        exit 1
    fi
done

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
work="$outdir/.work"      # per-run scratch, removed on exit
rm -rf "$work"
mkdir -p "$work"
current=""   # the fixture being generated, for the failure message
on_exit() {
    local status=$?
    rm -rf "$work"
    if [[ $status -ne 0 && -n $current ]]; then
        printf 'make-network-fixtures: failed to generate %s\n' "$current" >&2
    fi
}
trap on_exit EXIT

ff=(ffmpeg -hide_banner -nostdin -loglevel error -y)
bitexact=(-bitexact)
# A keyframe exactly every 2 s at 24 fps; one thread (rate-capped x264 is only deterministic so).
x264=(-c:v libx264 -preset ultrafast -pix_fmt yuv420p -g 48 -keyint_min 48 -sc_threshold 0 -threads:v 1)
aac=(-c:a aac -ar 48000 -ac 2)

# shellcheck disable=SC2046  # $(vrate ...) must word-split
# vrate SPEC KBPS: a capped video rate for output stream SPEC (e.g. v:0), bufsize 2 s.
vrate() { printf -- '-b:%s\n%sk\n-maxrate:%s\n%sk\n-bufsize:%s\n%sk\n' "$1" "$2" "$1" "$2" "$1" $(($2 * 2)); }

# The counter's font: DejaVu Sans Mono Bold, else fontconfig's monospace, else none.
font=/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf
if [[ ! -f $font ]]; then
    font=$(fc-match -f '%{file}' 'monospace:bold' 2>/dev/null || true)
fi
filters=$(ffmpeg -hide_banner -nostdin -filters 2>/dev/null)  # not piped into grep -q: pipefail
if [[ -z $font || ! -f $font ]] || ! grep -q ' drawtext ' <<<"$filters"; then
    font=""
fi

# source W H SECONDS: the lavfi video: testsrc2 with the frame number and the time on it.
source_video() {
    local graph="testsrc2=s=$1x$2:r=24:d=$3" size=$(($2 / 10))
    if [[ -n $font ]]; then
        graph+=",drawtext=fontfile=$font:text='%{frame_num} %{pts\\:hms}':x=$((size / 2)):y=$((size / 2))"
        graph+=":fontsize=$size:fontcolor=white:box=1:boxcolor=black@0.6:boxborderw=$((size / 6))"
    fi
    printf '%s' "$graph"
}
tone() { printf 'sine=f=440:r=48000:d=%s' "$1"; }

# thumbnail_sheets DIR SECONDS: DIR/tile1.jpg, tile2.jpg ...: the source's frames 0, 48, 96 ...
# (one every 2 s) at 160x90, 5x2 to an 800x180 sheet (the last one padded with black).
# A run of its own: in the same run as the DASH muxer it changed how the audio was segmented.
thumbnail_sheets() {
    mkdir -p "$1"
    "${ff[@]}" -f lavfi -i "$(source_video 640 360 "$2")" \
        -vf "select='not(mod(n\\,48))',scale=160:90,tile=5x2" \
        -fps_mode passthrough -c:v mjpeg -q:v 3 -threads:v 1 -start_number 1 \
        "${bitexact[@]}" "$1/tile%d.jpg"
}

# is_current OUT [INPUT...]: OUT (file or directory) exists, is newer than this script and
# than every INPUT, and --force was not given.
is_current() {
    local out=$1 dep
    shift
    [[ $force -eq 0 && -e $out && $out -nt $script ]] || return 1
    for dep in "$@"; do
        [[ $out -nt $dep ]] || return 1
    done
}

report() { # NAME: one line per file under OUTDIR/NAME (or for the file itself)
    local path
    if [[ -d $outdir/$1 ]]; then
        (cd "$outdir" && find "$1" -type f | LC_ALL=C sort) | while read -r path; do
            printf '%-36s %9d bytes\n' "$path" "$(stat -c %s "$outdir/$path")"
        done
    else
        printf '%-36s %9d bytes\n' "$1" "$(stat -c %s "$outdir/$1")"
    fi
}

# build NAME FUNCTION [INPUT...]: unless OUTDIR/NAME is current, runs FUNCTION with a scratch
# path of the same name (a file, or for a directory fixture a directory it creates), then
# moves the result into place, so an interrupted run never leaves a half-written fixture that
# looks current.
build() {
    local name=$1 fn=$2
    shift 2
    local out="$outdir/$name" tmp="$work/$name"
    is_current "$out" "$@" && return 0
    rm -rf "$tmp"
    current=$name
    # Called plainly (not under `if`) so that set -e stays in force inside.
    "$fn" "$tmp"
    rm -rf "$out"
    mv -f "$tmp" "$out"
    touch "$out"
    current=""
    report "$name"
}

# ---------------------------------------------------------------------------
# Generators: each writes the fixture to the path in $1.

gen_progressive() {
    "${ff[@]}" -f lavfi -i "$(source_video 640 360 20)" -f lavfi -i "$(tone 20)" \
        "${x264[@]}" $(vrate v 500) "${aac[@]}" -b:a 96k \
        -movflags +faststart "${bitexact[@]}" -f mp4 "$1"
}

gen_progressive_srt() {
    printf '%s\n' 1 '00:00:01,000 --> 00:00:03,000' 'Network one' '' \
        2 '00:00:05,000 --> 00:00:07,000' 'Network two' '' \
        3 '00:00:10,000 --> 00:00:12,000' 'Network three' '' \
        4 '00:00:17,000 --> 00:00:19,000' 'Réseau quatre' >"$1"
}

# hls_out DIR [VAR_STREAM_MAP]: the options of an HLS VOD with 2 s segments in DIR/v%v/ and a
# master playlist DIR/master.m3u8.
hls_out() {
    printf -- '%s\n' -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_filename "$1/v%v/seg%03d.ts" \
        -master_pl_name master.m3u8 -var_stream_map "${2:-v:0,a:0}" "$1/v%v/index.m3u8"
}

gen_hls_vod() {
    mkdir -p "$1"
    local -a out
    mapfile -t out < <(hls_out "$1" "v:0,a:0 v:1,a:1 v:2,a:2")
    "${ff[@]}" -f lavfi -i "$(source_video 960 540 20)" -f lavfi -i "$(tone 20)" \
        -filter_complex "[0:v]split=3[a][b][v2];[a]scale=320:180[v0];[b]scale=640:360[v1];[1:a]asplit=3[a0][a1][a2]" \
        -map '[v0]' -map '[v1]' -map '[v2]' -map '[a0]' -map '[a1]' -map '[a2]' \
        "${x264[@]}" $(vrate v:0 180) $(vrate v:1 540) $(vrate v:2 1235) \
        "${aac[@]}" -b:a:0 48k -b:a:1 96k -b:a:2 128k \
        "${bitexact[@]}" "${out[@]}"
    grep -q 'CODECS=' "$1/master.m3u8"
}

gen_hls_aes() {
    mkdir -p "$1"
    printf '\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f' >"$1/enc.key"
    printf 'enc.key\n%s\n101112131415161718191a1b1c1d1e1f\n' "$1/enc.key" >"$work/hls-aes.keyinfo"
    "${ff[@]}" -i "$outdir/progressive.mp4" -map 0 -c copy \
        -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_filename "$1/seg%03d.ts" \
        -hls_key_info_file "$work/hls-aes.keyinfo" "${bitexact[@]}" "$1/index.m3u8"
}

# dash_out DIR USE_TIMELINE: a static MPD DIR/manifest.mpd with 2 s segments, video
# representations in AdaptationSet 0 and audio in 1.
dash_out() {
    printf -- '%s\n' -f dash -seg_duration 2 -use_template 1 -use_timeline "$2" \
        -adaptation_sets 'id=0,streams=v id=1,streams=a' "$1/manifest.mpd"
}

dash_two_videos() { # DIR USE_TIMELINE
    mkdir -p "$1"
    local -a out
    mapfile -t out < <(dash_out "$1" "$2")
    "${ff[@]}" -f lavfi -i "$(source_video 640 360 20)" -f lavfi -i "$(tone 20)" \
        -filter_complex "[0:v]split=2[a][v1];[a]scale=320:180[v0]" \
        -map '[v0]' -map '[v1]' -map 1:a \
        "${x264[@]}" $(vrate v:0 180) $(vrate v:1 540) "${aac[@]}" -b:a 96k \
        "${bitexact[@]}" "${out[@]}"
}
gen_dash_vod() { dash_two_videos "$1" 1; }
gen_dash_number() { dash_two_videos "$1" 0; }

# sheet_bandwidth FILE...: the biggest sheet's bits over the 20 s it covers, rounded up.
sheet_bandwidth() {
    local max
    max=$(stat -c %s "$@" | sort -n | tail -1)
    echo $(((max * 8 + 19) / 20))
}

gen_dash_thumbs() {
    local -a out
    mapfile -t out < <(dash_out "$1" 1)
    mkdir -p "$1"
    "${ff[@]}" -f lavfi -i "$(source_video 640 360 40)" -f lavfi -i "$(tone 40)" \
        -map 0:v -map 1:a "${x264[@]}" $(vrate v 540) "${aac[@]}" -b:a 96k \
        "${bitexact[@]}" "${out[@]}"
    thumbnail_sheets "$1/thumbs" 40
    python3 - "$1/manifest.mpd" "$(sheet_bandwidth "$1"/thumbs/tile*.jpg)" <<'EOF'
import sys, xml.etree.ElementTree as ET
path, bandwidth = sys.argv[1], sys.argv[2]
text = open(path, encoding="utf-8").read()
assert text.count("</Period>") == 1, "one Period expected"
ids = [int(a.get("id")) for a in ET.fromstring(text).iter("{urn:mpeg:dash:schema:mpd:2011}AdaptationSet")]
images = f"""\t\t<AdaptationSet id="{max(ids) + 1}" contentType="image" mimeType="image/jpeg">
\t\t\t<SegmentTemplate media="thumbs/tile$Number$.jpg" duration="20" startNumber="1" timescale="1" />
\t\t\t<Representation id="thumbs" bandwidth="{bandwidth}" width="800" height="180">
\t\t\t\t<EssentialProperty schemeIdUri="http://dashif.org/thumbnail_tile" value="5x2" />
\t\t\t</Representation>
\t\t</AdaptationSet>
"""
text = text.replace("\t</Period>", images + "\t</Period>")
ET.fromstring(text)  # still well-formed
open(path, "w", encoding="utf-8").write(text)
EOF
}

gen_hls_thumbs() {
    local -a out
    mapfile -t out < <(hls_out "$1")
    "${ff[@]}" -f lavfi -i "$(source_video 640 360 30)" -f lavfi -i "$(tone 30)" \
        -map 0:v -map 1:a "${x264[@]}" $(vrate v 540) "${aac[@]}" -b:a 96k \
        "${bitexact[@]}" "${out[@]}"
    thumbnail_sheets "$1/thumbs" 30
    local sheets=("$1"/thumbs/tile*.jpg) thumbs=15 i
    [[ ${#sheets[@]} -eq 2 ]]
    printf '#EXT-X-IMAGE-STREAM-INF:BANDWIDTH=%d,RESOLUTION=160x90,CODECS="jpeg",URI="thumbs/index.m3u8"\n' \
        "$(sheet_bandwidth "${sheets[@]}")" >>"$1/master.m3u8"
    {
        printf '#EXTM3U\n#EXT-X-TARGETDURATION:20\n#EXT-X-VERSION:7\n#EXT-X-MEDIA-SEQUENCE:0\n'
        printf '#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-IMAGES-ONLY\n'
        for ((i = 1; i <= ${#sheets[@]}; i++)); do
            local n=$((thumbs - (i - 1) * 10 > 10 ? 10 : thumbs - (i - 1) * 10))
            printf '#EXTINF:%d.000,\n#EXT-X-TILES:RESOLUTION=160x90,LAYOUT=5x2,DURATION=2.000\ntile%d.jpg\n' $((n * 2)) "$i"
        done
        printf '#EXT-X-ENDLIST\n'
    } >"$1/thumbs/index.m3u8"
}

gen_hostile() {
    mkdir -p "$1"
    cat >"$1/passwd.m3u8" <<'EOF'
#EXTM3U
#EXT-X-VERSION:3
#EXT-X-TARGETDURATION:2
#EXT-X-MEDIA-SEQUENCE:0
#EXT-X-PLAYLIST-TYPE:VOD
#EXTINF:2.000000,
file:///etc/passwd
#EXT-X-ENDLIST
EOF
    cat >"$1/passwd-master.m3u8" <<'EOF'
#EXTM3U
#EXT-X-VERSION:3
#EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=640x360
file:///etc/passwd
EOF
    cat >"$1/remote-list.m3u" <<'EOF'
#EXTM3U
#EXTINF:-1,passwd
file:///etc/passwd
#EXTINF:20,progressive
../progressive.mp4
EOF
}

# ---------------------------------------------------------------------------

build progressive.mp4 gen_progressive
build progressive.srt gen_progressive_srt
build hls-vod         gen_hls_vod
build hls-aes         gen_hls_aes "$outdir/progressive.mp4"
build hls-thumbs      gen_hls_thumbs
build dash-vod        gen_dash_vod
build dash-number     gen_dash_number
build dash-thumbs     gen_dash_thumbs
build hostile         gen_hostile
