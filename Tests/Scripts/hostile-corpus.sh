#!/usr/bin/env bash
# hostile-corpus.sh — generates the hostile-input corpus of issue 9 ("Real-world media: true
# timelines, every file ends, hostile input is harmless"): one or more files for every class of
# the issue, made with the ffmpeg CLI, dd and Tests/Scripts/hostile_corpus_tools.py (Python 3,
# standard library only). Play them with Tests/Scripts/hostile-run.sh.
#
# Usage: Tests/Scripts/hostile-corpus.sh OUTDIR [--large]
#   OUTDIR    where the files go (e.g. Tests/Fixtures/out/hostile, git-ignored); created if needed.
#   --large   also makes the big ones (200,000 cues, a 4 MiB cue, 60 s clips).
#
# The small set: every file < 1 MB, all made in under 60 s on 2 cores (45 s on a shared
# 2-core machine). Output is deterministic for a given ffmpeg build (-bitexact, fixed lavfi
# sources, seeded garbage).
# Prints one line per step ("ok" or "FAIL"); a failed step says why (its log is kept in
# OUTDIR/.logs, its file moved there as NAME.rejected) and the others still run; the exit
# status is 1 when any step failed.
# Each file is checked with ffprobe/ffmpeg after it is made (the `check` lines): what ffmpeg
# itself does with the file is said in the comment above each step.
#
# Unless said otherwise: video is testsrc2 320x240 24 fps H.264 (libx264 veryfast, CRF 30,
# yuv420p, a keyframe every second), audio a 440 Hz sine, stereo 48 kHz, AAC 64 kb/s (MP2 in
# MPEG-TS). MPEG-TS streams start at about 1.4 s (ffmpeg's mux delay).
#
# Made by hostile-run.sh at run time from control.mkv, decoy.mkv and garbage.mkv, not here
# (they are names, not contents): a FIFO sidecar (fifo-sidecar.mkv + fifo-sidecar.srt as a
# FIFO), "tab<TAB>name.mkv" next to "tab name.mkv", names with ESC ]0;PWNED BEL and U+202E
# (a playable one and a garbage one), a sidecar whose label part holds ESC and U+202E.
set -uo pipefail

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
OUT="" LARGE=0
for a in "$@"; do
    case "$a" in
        --large) LARGE=1 ;;
        -h|--help) usage ;;
        -*) echo "hostile-corpus: unknown option $a" >&2; exit 2 ;;
        *) [ -z "$OUT" ] || usage; OUT=$a ;;
    esac
done
[ -n "$OUT" ] || usage
# shellcheck source=needs.sh
source "$(dirname "${BASH_SOURCE[0]}")/needs.sh"
needs hostile-corpus ffmpeg=ffmpeg ffprobe=ffmpeg python3=python3 awk=mawk
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
TOOLS="$HERE/hostile_corpus_tools.py"
WORK=$(mktemp -d "$OUT/.work.XXXXXX") || exit 1
LOGS="$OUT/.logs"
mkdir -p "$LOGS"
trap 'rm -rf "$WORK"' EXIT

# ---------------------------------------------------------------------------------------------
# helpers

tools() { python3 "$TOOLS" "$@"; }
ff() { ffmpeg -nostdin -hide_banner -v error -y "$@"; }
fp() { ffprobe -v error "$@"; }
# Values from ffprobe: fpv FILE -show_entries … (the bare values, one per line, unless -of is given).
fpv() { local f=$1; shift; ffprobe -v error -of default=nw=1:nk=1 "$@" "$f"; }
fail() { echo "check: $*" >&2; return 1; }
# near A B TOL: |A − B| ≤ TOL (floats).
near() { python3 -c 'import sys; a,b,t=map(float,sys.argv[1:]); sys.exit(0 if abs(a-b)<=t else 1)' "$1" "$2" "$3" 2>/dev/null; }
# Arithmetic on decimals (awk's: bc is not in a minimal Debian).
calc() { awk "BEGIN { printf \"%.6f\\n\", $1 }"; }
ge() { python3 -c 'import sys; a,b=map(float,sys.argv[1:]); sys.exit(0 if a>=b else 1)' "$1" "$2" 2>/dev/null; }
# check_near WHAT ACTUAL EXPECTED TOL
check_near() { near "$2" "$3" "$4" || fail "$1 is '$2', expected $3 ± $4"; }
check_eq() { [ "$2" = "$3" ] || fail "$1 is '$2', expected '$3'"; }
# ff_errors FILE: ffmpeg's error lines when it decodes the audio and video of FILE (without the
# null muxer's "non monotonically increasing dts" complaints, which are about ffmpeg's own
# timestamp guesses, not the file); fails when ffmpeg fails.
ff_errors() {
    local err rc
    err=$(ffmpeg -nostdin -v error -i "$1" -map 0:v? -map 0:a? -f null - 2>&1)
    rc=$?
    grep -v -e 'non monotonically increasing dts' -e '^ *Last message repeated' <<<"$err" || true
    [ $rc = 0 ] || fail "ffmpeg failed on $1"
}
# decodes_clean FILE: ffmpeg decodes the audio and video with no error line and exit 0.
decodes_clean() {
    local err
    err=$(ff_errors "$1") || return 1
    [ -z "$err" ] || fail "ffmpeg reported errors on $1: ${err%%$'\n'*}"
}
# last_frame_time FILE STREAM: pts_time of the last decoded frame of that stream.
last_frame_time() { fpv "$1" -select_streams "$2" -show_entries frame=pts_time | grep -v N/A | tail -n 1; }

# av DURATION [WxH] [FPS]: sets SRC to a testsrc2 video input (0) and a sine audio input (1).
av() {
    SRC=(-f lavfi -i "testsrc2=s=${2:-320x240}:r=${3:-24}:d=$1" -f lavfi -i "sine=f=440:d=$1:sample_rate=48000")
}
H264=(-c:v libx264 -preset veryfast -crf 30 -g 24 -pix_fmt yuv420p -threads 2)
AAC=(-c:a aac -b:a 64k -ac 2)
MP2=(-c:a mp2 -b:a 128k -ac 2)
BE=(-bitexact)

FAILED=()
# step NAME DESCRIPTION FUNCTION [ARGS…]: runs FUNCTION in a subshell with errexit, logs to
# .logs/NAME.log, prints one line.
step() {
    local name=$1 desc=$2 t0 t1 size=""
    shift 2
    t0=$(date +%s.%N)
    # Not in an `if`: errexit is ignored in a condition, also inside the subshell.
    # No pipefail inside: `producer | head -n 1` would fail on SIGPIPE; the checks catch empty values.
    ( set -e +o pipefail; "$@" ) >"$LOGS/$name.log" 2>&1
    if [ $? = 0 ]; then
        t1=$(date +%s.%N)
        [ -e "$OUT/$name" ] && size=$(stat -c %s "$OUT/$name")
        if [ "$PHASE" = small ] && [ "${size:-0}" -ge 1048576 ]; then
            FAILED+=("$name")
            printf 'FAIL  %-30s %s B: the small set must stay under 1 MB\n' "$name" "$size"
            return
        fi
        printf 'ok    %-30s %9s B %5.1f s  %s\n' "$name" "$size" "$(calc "$t1 - $t0")" "$desc"
    else
        FAILED+=("$name")
        # Keep a file that failed its checks out of the corpus (the runner would play it).
        [ -e "$OUT/$name" ] && mv -f "$OUT/$name" "$LOGS/$name.rejected"
        printf 'FAIL  %-30s %s (log: %s)\n' "$name" "$(grep -v '^$' "$LOGS/$name.log" | tail -n 1)" "$LOGS/$name.log"
    fi
}

# ---------------------------------------------------------------------------------------------
# generators (each writes $OUT/<name> and checks it)

# A plain 4 s clip with a SubRip track: the control case (ffmpeg: clean). Also the base of the
# runner's file-name cases.
gen_control() {
    tools srt-text "$WORK/control.srt" 0.2 3.8 "REAL-SUBTITLE control"
    av 4
    ff -copyts "${SRC[@]}" -i "$WORK/control.srt" -map 0 -map 1 -map 2 "${H264[@]}" "${AAC[@]}" -c:s copy "${BE[@]}" "$OUT/control.mkv"
    decodes_clean "$OUT/control.mkv"
    check_eq "stream count" "$(fpv "$OUT/control.mkv" -show_entries stream=index | wc -l)" 3
}
# Same with a different cue: the runner names it "tab name.mkv" next to "tab<TAB>name.mkv" to
# catch a look-behind that reopens the sanitised name.
gen_decoy() {
    tools srt-text "$WORK/decoy.srt" 0.2 3.8 "DECOY-SUBTITLE wrong file"
    av 4
    ff -copyts "${SRC[@]}" -i "$WORK/decoy.srt" -map 0 -map 1 -map 2 "${H264[@]}" "${AAC[@]}" -c:s copy "${BE[@]}" "$OUT/decoy.mkv"
    decodes_clean "$OUT/decoy.mkv"
}

# Broadcast timeline: 10 s TS whose timestamps start at 3601.4 s (3600 + mux delay).
# ffmpeg: plays 10 s, start_time 3601.4.
gen_ts_offset() { # NAME DURATION
    av "$2"
    ff "${SRC[@]}" "${H264[@]}" "${MP2[@]}" -output_ts_offset 3600 "${BE[@]}" -f mpegts "$OUT/$1"
    check_near start_time "$(fpv "$OUT/$1" -show_entries format=start_time)" 3601.4 0.1
    check_near duration "$(fpv "$OUT/$1" -show_entries format=duration)" "$2" 0.2
    decodes_clean "$OUT/$1"
}

# 33-bit PTS wrap WRAP_AT seconds into the file: offset = 2^33/90000 − WRAP_AT − 1.4 (mux delay).
# ffmpeg: unwraps (its mpegts demuxer reports the timestamps as −WRAP_AT … +rest) and plays it all.
gen_ts_wrap() { # NAME DURATION WRAP_AT
    local offset
    offset=$(python3 -c "print(round(2**33/90000 - $3 - 1.4, 3))")
    av "$2"
    ff "${SRC[@]}" "${H264[@]}" "${MP2[@]}" -output_ts_offset "$offset" "${BE[@]}" -f mpegts "$OUT/$1"
    local first last
    first=$(fpv "$OUT/$1" -select_streams v -show_entries packet=pts_time | head -n 1)
    last=$(fpv "$OUT/$1" -select_streams v -show_entries packet=pts_time | sort -g | tail -n 1)
    check_near "first video pts (unwrapped)" "$first" "-$3" 0.1
    check_near "last video pts (unwrapped)" "$last" "$(calc "$2 - $3")" 0.2
    decodes_clean "$OUT/$1"
}

# Video starts 1 s after the audio. ffmpeg: plays both, video from 2.4 s, audio from 1.4 s.
gen_ts_video_late() {
    ff -itsoffset 1 -f lavfi -i "testsrc2=s=320x240:r=24:d=9" -f lavfi -i "sine=f=440:d=10:sample_rate=48000" \
        "${H264[@]}" "${MP2[@]}" "${BE[@]}" -f mpegts "$OUT/ts-video-late.ts"
    local v a
    v=$(fpv "$OUT/ts-video-late.ts" -select_streams v -show_entries stream=start_time | head -n 1)
    a=$(fpv "$OUT/ts-video-late.ts" -select_streams a -show_entries stream=start_time | head -n 1)
    check_near "video start − audio start" "$(calc "$v - $a")" 1.0 0.05
    decodes_clean "$OUT/ts-video-late.ts"
}

# MKV whose timestamps start at 3600 s, with 3 chapters on the same timeline (3600, 3600+d/3,
# 3600+2d/3). ffmpeg: start_time 3600, chapters as written, plays d s.
gen_mkv_offset_chapters() { # NAME DURATION
    local d=$2 ms
    ms=$((d * 1000))
    printf ';FFMETADATA1\ntitle=Offset chapters\n' >"$WORK/$1.meta"
    for i in 0 1 2; do
        printf '[CHAPTER]\nTIMEBASE=1/1000\nSTART=%d\nEND=%d\ntitle=Part %d\n' \
            $((3600000 + i * ms / 3)) $((3600000 + (i + 1) * ms / 3)) $((i + 1)) >>"$WORK/$1.meta"
    done
    av "$d"
    ff "${SRC[@]}" -i "$WORK/$1.meta" -map 0 -map 1 -map_metadata 2 -map_chapters 2 "${H264[@]}" "${AAC[@]}" \
        -output_ts_offset 3600 "${BE[@]}" "$OUT/$1"
    check_near start_time "$(fpv "$OUT/$1" -show_entries format=start_time)" 3600 0.05
    check_eq chapters "$(fpv "$OUT/$1" -show_entries chapter=start_time | wc -l)" 3
    check_near "chapter 1 start" "$(fpv "$OUT/$1" -show_entries chapter=start_time | head -n 1)" 3600 0.01
    decodes_clean "$OUT/$1"
}

# One damaged video frame near 1.1 s: the largest non-key video packet with pts in [1.0, 1.25]
# (a P frame others refer to) gets its payload overwritten (dd) with garbage from byte KEEP on
# (KEEP 0: the whole AVCC payload, NAL length included; KEEP 5: length and NAL header kept, the
# slice data garbage). ffmpeg: logs errors for that frame (and concealment until the next
# keyframe at 2 s), decodes to the end, exit 0.
gen_damaged() { # NAME DURATION KEEP
    local src="$WORK/$1.clean.mkv" pkt pos size start junk
    av "$2"
    ff "${SRC[@]}" "${H264[@]}" -g 48 "${AAC[@]}" "${BE[@]}" "$src"
    pkt=$(fpv "$src" -select_streams v -show_entries packet=pts_time,pos,size,flags -of csv=p=0 |
        awk -F, '$1 >= 1.0 && $1 <= 1.25 && $4 !~ /K/ { print $2, $3, $1 }' | sort -n | tail -n 1)
    [ -n "$pkt" ] || fail "no non-key video packet near 1.1 s"
    read -r size pos _ <<<"$pkt"
    # ffprobe's pos is the Block data (track number, timecode, flags, frame).
    start=$(tools mkv-payload "$src" "$pos" "$size")
    cp "$src" "$OUT/$1"
    junk=$((size - $3))
    tools garbage "$WORK/$1.junk" "$junk" 1130
    dd if="$WORK/$1.junk" of="$OUT/$1" bs=1 seek=$((start + $3)) count="$junk" conv=notrunc status=none
    cmp -s "$src" "$OUT/$1" && fail "file unchanged"
    echo "damaged packet at byte $pos, $size bytes (pts ${pkt##* }), payload from $start, kept $3 bytes"
    local err
    err=$(ff_errors "$OUT/$1") || return 1
    [ -n "$err" ] || fail "ffmpeg reports no error: damage not seen"
    check_near "last video frame" "$(last_frame_time "$OUT/$1" v)" "$(calc "$2 - 1/24")" 0.1
}

# VP9 + Opus WebM whose every VP9 packet payload is garbage (audio intact). ffmpeg: "Invalid sync
# code"/"Not all references are available" on every packet, no video frame, audio decodes to the end.
gen_vp9_invalid() {
    local src="$WORK/vp9.webm"
    av 4
    ff "${SRC[@]}" -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -b:v 200k -g 24 -threads 2 \
        -c:a libopus -b:a 48k -ac 2 "${BE[@]}" "$src"
    # (ffprobe prints size before pos whatever the order asked)
    fpv "$src" -select_streams v -show_entries packet=size,pos -of csv=p=0 | awk -F, '{ print $2 "," $1 }' |
        tools garble-packets "$src" "$OUT/vp9-invalid.webm" 0 9
    local frames
    frames=$(fpv "$OUT/vp9-invalid.webm" -count_frames -select_streams v -show_entries stream=nb_read_frames 2>/dev/null || true)
    [ -z "$frames" ] || [ "$frames" = 0 ] || [ "$frames" = N/A ] || fail "$frames VP9 frames still decode"
    ffmpeg -nostdin -v error -i "$OUT/vp9-invalid.webm" -map 0:a -f null - || fail "audio does not decode"
    check_near "last audio frame" "$(last_frame_time "$OUT/vp9-invalid.webm" a)" 4 0.1
}

# Annex B H.264 with an invalid NAL unit before every 12th picture (forbidden bit set, reserved
# and unspecified types, garbage SEI/slice/IDR payloads), muxed with MP2 into MPEG-TS.
# ffmpeg: logs "Invalid NAL unit", "decode_slice_header error" … and decodes to the end.
gen_h264_bad_nal() {
    ff -f lavfi -i "testsrc2=s=320x240:r=24:d=10" "${H264[@]}" -bf 0 -bsf:v h264_mp4toannexb "${BE[@]}" -f h264 "$WORK/clean.h264"
    tools h264-inject-nal "$WORK/clean.h264" "$WORK/bad.h264" 12
    ff -f lavfi -i "sine=f=440:d=10:sample_rate=48000" "${MP2[@]}" "${BE[@]}" "$WORK/bad-nal-audio.mka"
    # Raw H.264 has no timestamps: number the packets (the parser makes a few extra packets of
    # the garbage slices, so the video runs ~0.2 s longer than the audio). setts' expression is
    # counted in the output's time base up to FFmpeg 7 and in the input's (the raw demuxer's
    # 1/1200000) from FFmpeg 9: the one this ffmpeg counts in is tried on one packet first.
    local frame=3750
    ff -framerate 24 -f h264 -i "$WORK/clean.h264" -frames:v 2 -map 0:v -c copy -bsf:v "setts=ts=N*3750:time_base=1/90000" \
        -f mpegts "$WORK/setts-probe.ts"
    [ "$(fpv "$WORK/setts-probe.ts" -select_streams v -show_entries packet=pts -of csv=p=0 | grep -c .)" -ge 2 ] || return 1
    local step
    step=$(fpv "$WORK/setts-probe.ts" -select_streams v -show_entries packet=pts -of csv=p=0 | grep . | head -n 2 |
        awk -F, 'NR == 1 { a = $1 } NR == 2 { print $1 - a }')
    [ "$step" = 3750 ] || frame=50000
    ff -framerate 24 -f h264 -i "$WORK/bad.h264" -i "$WORK/bad-nal-audio.mka" -map 0:v -map 1:a -c copy \
        -bsf:v "setts=ts=N*$frame:time_base=1/90000" "${BE[@]}" -f mpegts "$OUT/h264-bad-nal.ts"
    local err
    err=$(ff_errors "$OUT/h264-bad-nal.ts") || return 1
    [ -n "$err" ] || fail "ffmpeg reports no error: NAL units not seen"
    ge "$(last_frame_time "$OUT/h264-bad-nal.ts" v)" 11 || fail "video does not decode to the end"
}

# A 10 s TS (keyframe every 2 s) cut with dd at the TS packet of a non-key video packet 3 s in
# (1 s into a GOP): it starts without a keyframe (and mid-PES for audio). ffmpeg: skips/conceals
# until the keyframe 1 s later ("co located POCs unavailable", "no frame!"), then plays to the end.
gen_no_keyframe_start() {
    local src="$WORK/gop.ts" pos first
    av 10
    ff "${SRC[@]}" "${H264[@]}" -g 48 -bf 0 "${MP2[@]}" "${BE[@]}" -f mpegts "$src"
    pos=$(fpv "$src" -select_streams v -show_entries packet=pts_time,pos,flags -of csv=p=0 |
        awk -F, '$1 >= 4.4 && $3 !~ /K/ { print $2; exit }')
    [ -n "$pos" ] && [ $((pos % 188)) -eq 0 ] || fail "no 188-aligned non-key packet ($pos)"
    dd if="$src" of="$OUT/no-keyframe-start.ts" bs=188 skip=$((pos / 188)) status=none
    first=$(fpv "$OUT/no-keyframe-start.ts" -select_streams v -show_entries packet=flags | head -n 1)
    [[ "$first" != *K* ]] || fail "first video packet is a keyframe"
    ffmpeg -nostdin -v error -i "$OUT/no-keyframe-start.ts" -f null - 2>/dev/null || fail "ffmpeg fails on it"
}

# Fragmented MP4 (6 s, 29.97 fps: video timescale 30000) whose mvhd, tkhd, video mdhd and
# mvex/mehd declare 143165.5765 s = 0xFFFFFFFF/30000 (the video mdhd holds all ones, the
# spec's "unknown"). ffmpeg: up to FFmpeg 7 reports duration 39:46:05.58 (format and video
# stream), FFmpeg 9 the fragments' 6.07 s; each plays the real 6 s.
gen_fmp4_huge() {
    local src="$WORK/frag.mp4"
    av 6 320x240 30000/1001
    ff "${SRC[@]}" "${H264[@]}" -g 30 "${AAC[@]}" -movflags frag_keyframe+empty_moov+default_base_moof "${BE[@]}" "$src"
    tools mp4-huge-duration "$src" "$OUT/fmp4-huge-duration.mp4" 143165.5765
    local d
    d=$(fpv "$OUT/fmp4-huge-duration.mp4" -show_entries format=duration)
    near "$d" 143165.5765 0.1 || near "$d" 6.07 0.1 || fail "duration is '$d', expected 143165.5765 (the headers) or 6.07 (the fragments)"
    tools mp4-boxes "$OUT/fmp4-huge-duration.mp4" | grep -qw mehd || fail "no mehd box"
    decodes_clean "$OUT/fmp4-huge-duration.mp4"
    check_near "last video frame" "$(last_frame_time "$OUT/fmp4-huge-duration.mp4" v)" 6.0 0.1
}

# A 10 s MKV cut (head -c) at 40 % of its bytes. ffmpeg: decodes ~4 s, then ends (a truncated
# cluster may log an error), exit 0.
gen_truncated() {
    local src="$WORK/whole.mkv" size
    av 10
    ff "${SRC[@]}" "${H264[@]}" "${AAC[@]}" "${BE[@]}" "$src"
    size=$(stat -c %s "$src")
    head -c $((size * 40 / 100)) "$src" >"$OUT/truncated.mkv"
    local t
    t=$(last_frame_time "$OUT/truncated.mkv" v)
    ge "$t" 2 && ! ge "$t" 8 || fail "last video frame at $t s"
}

# ffmpeg: "Invalid data found when processing input" for both.
gen_zero() {
    : >"$OUT/zero-bytes.mkv"
    ! ffprobe -v quiet "$OUT/zero-bytes.mkv" || fail "ffprobe accepts it"
}
gen_garbage() {
    tools garbage "$OUT/garbage.mkv" 65536 666
    ! ffprobe -v quiet "$OUT/garbage.mkv" || fail "ffprobe accepts it"
}

# CENC (AES-CTR) encrypted H.264 + AAC (encv/enca sample entries, sinf/schm/tenc), plain and
# fragmented. ffmpeg without the key: demuxes the encrypted samples as if clear and the decoders
# spew errors ("non-existing PPS", garbage AAC). With -decryption_key the plain one decodes
# cleanly; the fragmented one ffmpeg 5.1 cannot read back even with the key (its muxer writes
# the saio/saiz/senc aux info only in the empty moov, none per fragment: "saio atom found
# without saiz", "Invalid data found"); it is still a fragmented file of encrypted samples.
KEY=76a6c65c5ea762046bd749a2e632ccbb
KID=a7e61c373e219033c21091fa607bf3b8
gen_cenc() { # NAME [movflags]
    av 4
    ff "${SRC[@]}" "${H264[@]}" "${AAC[@]}" ${2:+-movflags "$2"} -encryption_scheme cenc-aes-ctr \
        -encryption_key $KEY -encryption_kid $KID "${BE[@]}" "$OUT/$1"
    local b
    b=$(tools mp4-boxes "$OUT/$1")
    for box in encv enca sinf schm tenc; do [[ " $b " == *" $box "* ]] || fail "no $box box ($b)"; done
    if [ -z "${2:-}" ]; then
        [ -z "$(ffmpeg -nostdin -v error -decryption_key $KEY -i "$OUT/$1" -f null - 2>&1)" ] || fail "does not decode with the key"
    else
        [[ " $b " == *" moof "* ]] || fail "not fragmented"
    fi
    [ -n "$(ffmpeg -nostdin -v error -i "$OUT/$1" -f null - 2>&1)" ] || fail "decodes cleanly without the key"
}

# Interlaced video that changes size and pixel format mid-stream: three TS segments joined with
# cat, timestamps continued with -output_ts_offset: 3 s 720x576i (tff) 4:2:0, 3 s 176x144
# progressive 4:2:0, 3 s 720x576i 4:2:2. ENC is h264 (libx264, High / High 4:2:2) or mpeg2.
# ffmpeg: reconfigures its filters at each change and decodes all 9 s (the MP2 audio restarts
# a few ms early at each join: harmless "non monotonically increasing dts" warnings).
gen_interlaced_switch() { # NAME ENC SEGMENT_SECONDS
    local n=0 name=$1 enc=$2 d=$3 vcodec
    : >"$OUT/$name"
    for spec in "720x576 yuv420p il" "176x144 yuv420p p" "720x576 yuv422p il"; do
        read -r size pix mode <<<"$spec"
        if [ "$enc" = h264 ]; then
            vcodec=(-c:v libx264 -preset veryfast -crf 32 -g 25 -threads 2)
            [ "$mode" = il ] && vcodec+=(-flags +ildct+ilme -x264opts tff=1)
        else
            vcodec=(-c:v mpeg2video -q:v 20 -g 12 -threads 2)
            [ "$mode" = il ] && vcodec+=(-flags +ildct+ilme)
        fi
        local vf=null
        [ "$mode" = il ] && vf=setfield=tff
        av "$d" "$size" 25
        ff "${SRC[@]}" -vf "$vf" "${vcodec[@]}" -pix_fmt "$pix" "${MP2[@]}" \
            -output_ts_offset "$(calc "$n * ($d + 0.05)")" "${BE[@]}" -f mpegts "$WORK/$name.$n.ts"
        cat "$WORK/$name.$n.ts" >>"$OUT/$name"
        n=$((n + 1))
    done
    local kinds
    kinds=$(fpv "$OUT/$name" -select_streams v -show_entries frame=width,height,pix_fmt,interlaced_frame -of csv=p=0 |
        grep -v '^$' | cut -d, -f1-4 | uniq | tr '\n' ' ')
    check_eq "frame kinds" "$kinds" "720,576,yuv420p,1 176,144,yuv420p,0 720,576,yuv422p,1 "
    ffmpeg -nostdin -v error -i "$OUT/$name" -f null - 2>/dev/null || fail "ffmpeg fails on it"
}

# NUT with a chapter at 9e18 s: ffmetadata TIMEBASE=1000000000/1 START=9000000000 (NUT keeps
# the chapter's own time base; 1/1 START=9e18 would overflow the muxer's start×time-base-count).
# ffmpeg: lists the chapter (start_time 9000000000000000000), plays the 4 s.
gen_nut_chapter() {
    printf ';FFMETADATA1\ntitle=Far chapter\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=2000\ntitle=Start\n[CHAPTER]\nTIMEBASE=1000000000/1\nSTART=9000000000\nEND=9000000001\ntitle=Far away\n' >"$WORK/nut.meta"
    av 4
    ff "${SRC[@]}" -i "$WORK/nut.meta" -map 0 -map 1 -map_metadata 2 -map_chapters 2 -c:v mpeg4 -q:v 6 -c:a mp2 -ac 2 \
        "${BE[@]}" "$OUT/nut-chapter-9e18.nut"
    ge "$(fpv "$OUT/nut-chapter-9e18.nut" -show_entries chapter=start_time | tail -n 1)" 9e18 || fail "no chapter at 9e18 s"
    decodes_clean "$OUT/nut-chapter-9e18.nut"
}

# MKV whose timestamps are ~1.8e19 s: a 4 s clip rewritten (Python) with TimestampScale 2e9 ns
# (time base 2/1: ffmpeg takes no scale above 2^32-1 ns) and 9e18 added to every Cluster
# Timestamp, so the first pts is 9e18 ticks = 1.8e19 s (the frames are 2 s × the old ms apart).
# ffmpeg: demuxes and decodes all 96 frames; its own AV_TIME_BASE arithmetic overflows (format
# start_time N/A, "non monotonically increasing dts" in the null muxer).
gen_mkv_huge_ts() {
    av 4
    ff "${SRC[@]}" "${H264[@]}" "${AAC[@]}" "${BE[@]}" "$WORK/hts.mkv"
    tools mkv-huge-ts "$WORK/hts.mkv" "$OUT/mkv-huge-ts.mkv" 2000000000 9000000000000000000
    check_eq "video time base" "$(fpv "$OUT/mkv-huge-ts.mkv" -select_streams v -show_entries stream=time_base)" 2/1
    check_near "video start_time" "$(fpv "$OUT/mkv-huge-ts.mkv" -select_streams v -show_entries stream=start_time)" 1.8e19 1e15
    check_eq "frames" "$(fpv "$OUT/mkv-huge-ts.mkv" -count_frames -select_streams v -show_entries stream=nb_read_frames)" 96
}

# WAV (2 s of stereo s16 at 48 kHz) whose header claims 2147483647 Hz. ffmpeg: takes the rate,
# so the 2 s of samples last 45 µs; decodes without error.
gen_wav_rate() {
    ff -f lavfi -i "sine=f=440:d=2:sample_rate=48000" -ac 2 -c:a pcm_s16le "${BE[@]}" "$WORK/w.wav"
    tools wav-rate "$WORK/w.wav" "$OUT/wav-huge-rate.wav" 2147483647
    check_eq sample_rate "$(fpv "$OUT/wav-huge-rate.wav" -show_entries stream=sample_rate)" 2147483647
}

# A 4 s clip with N SubRip cues packed into its 4 s (cue k at k·4/N s, 1 s long).
# ffmpeg: muxes and decodes all N. (Multi-input muxes use -copyts: ffmpeg would otherwise shift each input to start at 0.)
gen_many_cues() { # NAME N
    tools srt-many "$2" 4000 "$WORK/$1.srt"
    av 4
    ff -copyts "${SRC[@]}" -i "$WORK/$1.srt" -map 0 -map 1 -map 2 "${H264[@]}" "${AAC[@]}" -c:s copy "${BE[@]}" "$OUT/$1"
    check_eq "subtitle packets" "$(fpv "$OUT/$1" -count_packets -select_streams s -show_entries stream=nb_read_packets)" "$2"
}

# PGS track whose presentation declares a W×H canvas and one W×H object holding two opaque
# pixels (center: side by side in the middle; corners: top-left and bottom-right), shown
# 0.5–3 s, muxed with -c:s copy next to a 4 s clip. ffmpeg's pgssub decoder accepts it and
# allocates a full 12800×12800 bitmap (160 MB in PAL8).
gen_pgs() { # NAME MODE
    tools sup-canvas "$WORK/$1.sup" 12800 12800 "$2"
    av 4
    ff "${SRC[@]}" "${H264[@]}" "${AAC[@]}" "${BE[@]}" "$WORK/$1.av.mkv"
    ff -copyts -i "$WORK/$1.av.mkv" -f sup -i "$WORK/$1.sup" -map 0 -map 1 -c copy "${BE[@]}" "$OUT/$1"
    check_eq codec "$(fpv "$OUT/$1" -select_streams s -show_entries stream=codec_name)" hdmv_pgs_subtitle
    check_eq "canvas" "$(fpv "$OUT/$1" -select_streams s -show_entries stream=width,height | tr '\n' x)" 12800x12800x
    check_eq "subtitle frames" "$(fpv "$OUT/$1" -select_streams s -show_entries subtitle=pts_time | wc -l)" 2
    check_near "cue shown at" "$(fpv "$OUT/$1" -select_streams s -show_entries subtitle=pts_time | head -n 1)" 0.5 0.01
}

# One cue whose single line is BYTES long, as an embedded SubRip track and as the sidecar
# NAME.srt next to NAME.mkv (the player loads both). ffmpeg: muxes and decodes it (slowly:
# its SubRip decoder→encoder path is quadratic in the line, so the track is muxed with copy).
gen_long_cue() { # BASENAME BYTES
    tools srt-long "$2" "$OUT/$1.srt"
    av 4
    ff -copyts "${SRC[@]}" -i "$OUT/$1.srt" -map 0 -map 1 -map 2 "${H264[@]}" "${AAC[@]}" -c:s copy "${BE[@]}" "$OUT/$1.mkv"
    ge "$(fpv "$OUT/$1.mkv" -select_streams s -show_entries packet=size | head -n 1)" "$(($2 - 16))" || fail "cue shorter than $2 bytes"
}

# CP1252 SubRip sidecar (latin1.srt: "Café déjà vu — naïve", "« Œuvre spéciale » coûte 5 € — ½
# prix"; not valid UTF-8) next to a plain 4 s clip latin1.mkv; and latin1-embedded.mkv with
# the same CP1252 bytes copied into its S_TEXT/UTF8 track (what careless muxers make).
# ffmpeg: reads the sidecar as UTF-8 and warns (it needs -sub_charenc CP1252).
gen_latin1() {
    tools srt-latin1 "$OUT/latin1.srt"
    ! python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$OUT/latin1.srt" 2>/dev/null || fail "latin1.srt is valid UTF-8"
    grep -q $'\xe9' "$OUT/latin1.srt" || fail "no CP1252 é"
    av 4
    ff "${SRC[@]}" -map 0 -map 1 "${H264[@]}" "${AAC[@]}" "${BE[@]}" "$OUT/latin1.mkv"
    ff -copyts "${SRC[@]}" -i "$OUT/latin1.srt" -map 0 -map 1 -map 2 "${H264[@]}" "${AAC[@]}" -c:s copy "${BE[@]}" "$OUT/latin1-embedded.mkv"
    check_eq "subtitle codec" "$(fpv "$OUT/latin1-embedded.mkv" -select_streams s -show_entries stream=codec_name)" subrip
}

# 5 s of audio and video and a SubRip track whose last cue ends at 10 s. An intact file.
# ffmpeg: duration 10 s, decodes cleanly.
gen_sub_outlasts() {
    tools srt-text "$WORK/outlasts.srt" 1 2 "first cue" 8 10 "cue after the picture ended"
    av 5
    ff -copyts "${SRC[@]}" -i "$WORK/outlasts.srt" -map 0 -map 1 -map 2 "${H264[@]}" "${AAC[@]}" -c:s copy "${BE[@]}" "$OUT/sub-outlasts.mkv"
    check_near duration "$(fpv "$OUT/sub-outlasts.mkv" -show_entries format=duration)" 10 0.1
    check_near "last video frame" "$(last_frame_time "$OUT/sub-outlasts.mkv" v)" 4.96 0.05
    decodes_clean "$OUT/sub-outlasts.mkv"
}

# Odd picture sizes (libx264 4:4:4: 4:2:0 needs even sizes). ffmpeg: decodes cleanly.
gen_odd_size() { # NAME WxH
    local w=${2%x*} h=${2#*x}
    av 4
    ff "${SRC[@]}" -vf "scale=$w:$h" -c:v libx264 -preset veryfast -crf 30 -g 24 -pix_fmt yuv444p -threads 2 "${AAC[@]}" "${BE[@]}" "$OUT/$1"
    check_eq size "$(fpv "$OUT/$1" -select_streams v -show_entries stream=width,height | tr '\n' x)" "${w}x${h}x"
    decodes_clean "$OUT/$1"
}

# Title, artist/comment tags, video/audio/subtitle track titles, 3 chapter names and the cues of
# an embedded SubRip track carry raw terminal escapes (OSC 0 title "PWNED", CSI colours, clear
# screen, ?1049l, DCS, OSC 52, OSC 8, 8-bit CSI U+009B), U+202E, U+200B, U+2060, U+2028/2029,
# U+FEFF and tag characters U+E0041/U+E0042. ffmpeg: stores and prints them verbatim.
gen_hostile_tags() {
    tools ffmeta-hostile "$WORK/hostile.meta" 4
    tools srt-hostile "$WORK/hostile.srt"
    av 4
    ff -copyts "${SRC[@]}" -i "$WORK/hostile.srt" -i "$WORK/hostile.meta" -map 0 -map 1 -map 2 -map_metadata 3 -map_chapters 3 \
        "${H264[@]}" "${AAC[@]}" -c:s copy \
        -metadata:s:v:0 "title=$(tools hostile-string video)" \
        -metadata:s:a:0 "title=$(tools hostile-string audio)" \
        -metadata:s:s:0 "title=$(tools hostile-string subtitle)" "${BE[@]}" "$OUT/hostile-tags.mkv"
    fpv "$OUT/hostile-tags.mkv" -show_entries format_tags=title | grep -q $'\e]0;PWNED\a' || fail "title lost its escape"
    check_eq chapters "$(fpv "$OUT/hostile-tags.mkv" -show_entries chapter=id | wc -l)" 3
    fpv "$OUT/hostile-tags.mkv" -show_entries stream_tags=title | grep -q $'\u202e' || fail "track titles lost U+202E"
}

# A Matroska file written to a pipe: no Duration, no Cues (unknown duration, unseekable
# index). ffmpeg: duration N/A, plays the 4 s.
gen_no_duration() {
    av 4
    ff "${SRC[@]}" "${H264[@]}" "${AAC[@]}" "${BE[@]}" -f matroska - >"$OUT/mkv-no-duration.mkv"
    check_eq duration "$(fpv "$OUT/mkv-no-duration.mkv" -show_entries format=duration)" N/A
    decodes_clean "$OUT/mkv-no-duration.mkv"
}

# ---------------------------------------------------------------------------------------------
# the small set

export HERE
T0=$(date +%s.%N)
PHASE=small
step control.mkv "4 s H.264+AAC+SRT, clean (control; base of the runner's name cases)" gen_control
step decoy.mkv "like control.mkv, cue DECOY-SUBTITLE (runner: 'tab name.mkv')" gen_decoy
step ts-offset-3600.ts "10 s TS, timestamps from 3601.4 s" gen_ts_offset ts-offset-3600.ts 10
step ts-pts-wrap.ts "10 s TS, 33-bit PTS wraps 5 s in" gen_ts_wrap ts-pts-wrap.ts 10 5
step ts-video-late.ts "10 s TS, video starts 1 s after audio" gen_ts_video_late
step mkv-offset-chapters.mkv "10 s MKV from 3600 s, 3 chapters at 3600/3603.3/3606.7 s" gen_mkv_offset_chapters mkv-offset-chapters.mkv 10
step damaged-frame.mkv "24 s, one P frame at ~1.2 s all garbage (NAL length too)" gen_damaged damaged-frame.mkv 24 0
step damaged-slice.mkv "24 s, one P frame at ~1.2 s: slice data garbage" gen_damaged damaged-slice.mkv 24 5
step vp9-invalid.webm "4 s WebM, every VP9 packet garbage, Opus intact" gen_vp9_invalid
step h264-bad-nal.ts "10 s TS, invalid NAL unit before every 12th picture" gen_h264_bad_nal
step no-keyframe-start.ts "TS cut mid-GOP: starts 1 s before a keyframe" gen_no_keyframe_start
step fmp4-huge-duration.mp4 "6 s fragmented MP4, mvhd/tkhd/mdhd/mehd say 143165.58 s" gen_fmp4_huge
step truncated.mkv "10 s MKV cut at 40 % of its bytes" gen_truncated
step zero-bytes.mkv "empty file" gen_zero
step garbage.mkv "64 KiB of pseudo-random bytes" gen_garbage
step cenc.mp4 "4 s MP4, CENC AES-CTR video+audio" gen_cenc cenc.mp4
step cenc-frag.mp4 "4 s fragmented MP4, CENC AES-CTR video+audio" gen_cenc cenc-frag.mp4 frag_keyframe+empty_moov
step interlaced-switch.ts "9 s H.264 TS: 720x576i 4:2:0 → 176x144p → 720x576i 4:2:2" gen_interlaced_switch interlaced-switch.ts h264 3
step interlaced-switch-mpeg2.ts "9 s MPEG-2 TS: same switches" gen_interlaced_switch interlaced-switch-mpeg2.ts mpeg2 3
step nut-chapter-9e18.nut "4 s NUT, chapter 2 at 9e18 s" gen_nut_chapter
step mkv-huge-ts.mkv "4 s MKV, timestamps ~1.8e19 s (time base 2 s, pts 9e18)" gen_mkv_huge_ts
step wav-huge-rate.wav "2 s WAV, header says 2147483647 Hz" gen_wav_rate
step many-cues.mkv "4 s clip + 20,000 SubRip cues" gen_many_cues many-cues.mkv 20000
step pgs-huge-canvas.mkv "4 s clip + PGS 12800x12800 object, 2 opaque pixels in the middle" gen_pgs pgs-huge-canvas.mkv center
step pgs-huge-corners.mkv "4 s clip + PGS 12800x12800 object, opaque pixels in opposite corners" gen_pgs pgs-huge-corners.mkv corners
step long-cue.mkv "4 s clip + one 512 KiB single-line cue (embedded + long-cue.srt sidecar)" gen_long_cue long-cue 524288
step latin1.mkv "4 s clip + CP1252 sidecar latin1.srt; latin1-embedded.mkv" gen_latin1
step sub-outlasts.mkv "5 s A/V, subtitle cue until 10 s" gen_sub_outlasts
step odd-size-1x1.mkv "4 s 1x1 H.264 4:4:4" gen_odd_size odd-size-1x1.mkv 1x1
step odd-size-4097x3.mkv "4 s 4097x3 H.264 4:4:4" gen_odd_size odd-size-4097x3.mkv 4097x3
step hostile-tags.mkv "4 s, escapes/bidi/zero-width in title, tags, tracks, chapters, cues" gen_hostile_tags
step mkv-no-duration.mkv "4 s MKV written to a pipe: no duration, no cues" gen_no_duration

if [ "$LARGE" = 1 ]; then
    PHASE=large
    step many-cues-200k.mkv "4 s clip + 200,000 SubRip cues" gen_many_cues many-cues-200k.mkv 200000
    step long-cue-4m.mkv "4 s clip + one 4 MiB single-line cue (embedded + long-cue-4m.srt)" gen_long_cue long-cue-4m 4194304
    step ts-offset-3600-60s.ts "60 s TS, timestamps from 3601.4 s" gen_ts_offset ts-offset-3600-60s.ts 60
    step ts-pts-wrap-60s.ts "60 s TS, 33-bit PTS wraps 30 s in" gen_ts_wrap ts-pts-wrap-60s.ts 60 30
    step mkv-offset-chapters-60s.mkv "60 s MKV from 3600 s, 3 chapters" gen_mkv_offset_chapters mkv-offset-chapters-60s.mkv 60
    step damaged-frame-60s.mkv "60 s, one P frame at ~1.2 s all garbage" gen_damaged damaged-frame-60s.mkv 60 0
    step interlaced-switch-36s.ts "36 s H.264 TS: 12 s per kind" gen_interlaced_switch interlaced-switch-36s.ts h264 12
fi

printf 'corpus: %d files in %s, %.0f s' "$(find "$OUT" -maxdepth 1 -type f | wc -l)" "$OUT" "$(calc "$(date +%s.%N) - $T0")"
if ((${#FAILED[@]})); then
    printf ', %d step(s) FAILED: %s\n' "${#FAILED[@]}" "${FAILED[*]}"
    exit 1
fi
printf ', all steps ok\n'
