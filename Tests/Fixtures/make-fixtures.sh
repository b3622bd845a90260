#!/usr/bin/env bash
# make-fixtures.sh — generates the aether-tui test-media corpus.
#
# Usage: Tests/Fixtures/make-fixtures.sh [--force] [--scale] [OUTDIR]
#   OUTDIR   defaults to Tests/Fixtures/out (next to this script; git-ignored).
#   --force  regenerates every file. Without it a file is skipped when it
#            exists and is newer than this script (and than its inputs).
#   --scale  also the 4K60 HEVC Main10 clip for aether-bench (a minute of
#            encoding on two cores; no test needs it).
# Prints one line per generated file and nothing when everything is current.
# Needs: ffmpeg and ffprobe (ffmpeg with libx264, libx265, libvpx, libsvtav1 or libaom, libopus,
# libvorbis, libtheora, libmp3lame), cc, pkg-config with libavformat,
# libavcodec and libavutil headers, python3.
#
# Output is deterministic for a given ffmpeg build: every ffmpeg run uses
# -bitexact (no version strings, no random container UIDs), video encoders run
# with a fixed thread count (one where x264 rate control would otherwise race),
# VP8 runs at a fixed speed, and every source is a fixed lavfi pattern.
#
# Unless noted: video is 320x240 testsrc2; H.264 is libx264 ultrafast
# yuv420p (Constrained Baseline, no B-frames) and H.264/HEVC/VP8/VP9/AV1/
# Theora have a keyframe every second (no scene-cut keyframes). Tones come
# from the `sine` source: peak 1/8 (-18 dBFS) per channel in mono and
# multichannel tracks, -21 dBFS per channel in stereo tracks (mono upmix).
# Matroska/FLV/MP4/AVI/Ogg streams start at 0 (see aac_track); WebM streams
# start within 0.007 s of 0 (Opus pre-skip, Vorbis) and MPEG-TS streams at
# about 1.4 s (mux delay).
#
# Files (tests assert these facts; keep this list and the code in step):
#
# Feature-rich container (track selection, metadata, chapters, sanitising)
#   h264-aac-2audio-srt-ass.mkv
#       H.264 320x240 24 fps 4 s. Audio 0: AAC stereo 48 kHz 440 Hz, language
#       eng, title "English Stereo", default. Audio 1: AAC stereo 48 kHz
#       660 Hz, language fra, title "Français" (UTF-8), not default.
#       Subtitle 0: SubRip, language eng. Subtitle 1: ASS, language fra.
#       Neither subtitle is default. Both carry the same cues:
#         0.5–1.5 s "Hello from aether", 2.0–3.0 s "Second line".
#       Chapters: 0–1 s "Opening", 1–2.5 s "Middle", 2.5–4 s "End".
#       AAC tracks are 4.032 s (encoder priming + padding), so the file is.
#       Container title "Demo<ESC>[31m Title" (a raw ESC byte) so that the
#       UI's sanitiser has something to strip.
#   h264-aac-2audio-srt-ass.srt / .ass / .vtt
#       Sidecar subtitles for the file above, same timings, texts
#       "Sidecar one" / "Sidecar two". The .ass has full [Script Info],
#       [V4+ Styles] and [Events] sections and an {\i1}…{\i0} override on cue 1.
#
# HDR and high bit depth (tone mapping, colour metadata)
#   hevc10-hdr10-ac3-51-movtext.mp4
#       HEVC Main 10 (libx265, yuv420p10le, tag hvc1) 24 fps 3 s, BT.2020
#       primaries/matrix + PQ (smpte2084), both in the container (colr, written
#       from the frames' tags: setparams, as FFmpeg 7 and later take them from
#       the frames, not the options) and in the bitstream VUI, plus HDR10 SEI (mastering display: Display P3
#       primaries, 1000 nits max / 0.0001 min; MaxCLL 1000, MaxFALL 400).
#       AC-3 5.1 48 kHz (440 Hz tone in the centre channel only, via the
#       mono→5.1 upmix). mov_text subtitle, language eng, one cue:
#       0.5–2.5 s "HDR subtitle".
#   hevc-hlg.mp4
#       HEVC Main 10 24 fps 3 s, BT.2020 + HLG (arib-std-b67) in container
#       and VUI, tag hvc1. AAC stereo 48 kHz.
#
# Codec / container coverage (decoder and demuxer matrix)
#   vp9-opus.webm              VP9 24 fps 3 s + Opus stereo 48 kHz.
#   av1-opus.webm              AV1 24 fps 2 s (libsvtav1 preset 12; libaom-av1
#                              cpu-used 8 if SVT is missing) + Opus stereo.
#   vp8-vorbis.webm            VP8 24 fps 3 s (realtime, fixed speed 8) +
#                              Vorbis stereo 48 kHz.
#   mpeg2-interlaced-mp2.ts    MPEG-TS: MPEG-2 video 720x576 25 fps,
#                              interlaced top field first (field_order tt),
#                              3 s + MP2 stereo 48 kHz (deinterlacer tests).
#   mpeg4-mp3.avi              AVI: MPEG-4 Part 2 25 fps 3 s + MP3 stereo
#                              44.1 kHz.
#   theora-vorbis.ogg          Ogg: Theora 24 fps 3 s + Vorbis stereo 48 kHz.
#   h264-aac.flv               FLV: H.264 24 fps 3 s + AAC stereo 48 kHz.
#
# Audio (track switching, downmix, levels, channel mapping)
#   multi-audio.mkv
#       H.264 24 fps 2 s + four audio tracks, all 48 kHz:
#         a:0 E-AC-3 5.1(side), eng, 440 Hz. The brief asked for 7.1, but
#             ffmpeg's eac3 encoder stops at 5.1 (no dependent substreams);
#             5.1(side) is the nearest layout (7.1 minus the back pair).
#         a:1 FLAC stereo, ger, 550 Hz.
#         a:2 TrueHD 5.1, jpn, 660 Hz (experimental encoder, -strict -2).
#             Encoded as "5.1" (back); the decoder reports 5.1(side).
#         a:3 DTS 5.1(side), spa, 770 Hz (experimental dca encoder; it has
#             no "5.1" back variant).
#       Multichannel tracks carry their tone in the centre channel only.
#       a:0 is the only default track. Each track starts at 0 (encoded
#       separately, then copied in).
#   sine-1k.mkv
#       H.264 24 fps 5 s + PCM s16le stereo 48 kHz, 1000 Hz sine with peak
#       0.5 (-6.02 dBFS) in both channels (aevalsrc 0.5*sin(2*PI*1000*t):
#       `sine` peaks at 1/8, so "volume 0.5" of it would be -24 dBFS).
#   video-only.mkv
#       H.264 24 fps 12 s, no audio stream (the picture for --audio-file tests).
#   tones-stepped.mka
#       FLAC mono 48 kHz 12 s whose tone steps up at every odd second:
#       300 Hz in [0,1), 400 Hz in [1,3), 500 Hz in [3,5), 600 Hz in [5,7), ...
#       (300 + 100*floor((t+1)/2)): where a seek landed is heard.
#   tones-51.mkv
#       H.264 24 fps 5 s + FLAC 5.1 48 kHz, one tone per channel (join filter,
#       channel_layout=5.1 = FL FR FC LFE BL BR, which FLAC keeps):
#       FL 300 Hz, FR 500 Hz, FC 700 Hz, LFE 90 Hz, BL 1100 Hz, BR 1300 Hz.
#
# Bitmap subtitles (compositor, palette handling)
#   dvdsub.mkv
#       H.264 720x480 25 fps 3 s + DVD subtitles (dvd_subtitle, eng) made by
#       gen-dvdsub.c: 0.5–1.5 s box with blocky "ONE", 2.0–2.8 s "TWO";
#       4-colour palette (transparent, black box, white glyphs, yellow border).
#       Packet durations are exact; the DVD stop command counts in 1024/90000 s
#       ticks, so decoded end_display_time is 989 and 796 ms.
#   dvbsub.ts
#       MPEG-TS: H.264 720x576 25 fps 3 s + DVB subtitles (dvb_subtitle, eng),
#       same cues as dvdsub.mkv, each followed by an empty clearing page.
#
# Picture and timing
#   h264-720p.mkv   H.264 1280x720 24 fps 12 s + AAC stereo; playback timing
#                   and frame-drop tests.
#   h264-longgop.mp4 H.264 320x180 25 fps 30 s, one keyframe every 10 s (x264's
#                   default GOP: 0, 10, 20 s) + AAC stereo: forward seeks land on
#                   the next keyframe, never behind.
#   h264-onekey.mkv H.264 320x180 25 fps 12 s, one keyframe (at 0) + AAC
#                   stereo: a forward seek with no keyframe after it is exact.
#   h264-1080p.mkv  H.264 1920x1080 24 fps 10 s + AAC stereo; decode/scale
#                   benchmarks.
#   hevc10-4k60.mkv (--scale only) HEVC Main10 3840x2160 60 fps 10 s, film
#                   grain, 20 Mbit/s, a keyframe every 2 s + AAC stereo: the
#                   scale proof (aether-bench engine --playback-file).
#   h264-bframes.mkv H.264 640x360 24 fps 8 s, 3 B-frames, a keyframe every
#                   second, no audio: the decoder holds frames back (reopen test).
#                   Both are CRF 28 capped by -maxrate (1.2 / 3 Mbit/s):
#                   testsrc2's noise patch makes plain ultrafast CRF 28 files
#                   7 MB (720p) and 10+ MB (1080p).
#   solid-red.mkv   H.264 320x240 24 fps 2 s of colour #FF0000 (color source),
#                   yuv420p, untagged (BT.601 limited), no audio; renderer
#                   colour checks.
#
# Numbered frames (FrameExtractor: thumbnails, snapshots, rotation, SAR)
#   frames-numbered.mkv
#       H.264 320x240 24 fps 10 s (240 frames), no audio, CRF 18, a keyframe
#       exactly every 24 frames (0, 1, 2 … 9 s; no scene cuts, no B-frames).
#       Each frame shows its own number N in binary: eight vertical stripes
#       40 px wide, stripe k (from the left) white (Y 235) when bit k of N is
#       set, else black (Y 16). Frame N starts at N/24 s.
#   frames-rotate90.mp4
#       The first 2 s of frames-numbered.mkv (stream copy) with a display
#       matrix rotation of 90 (-metadata:s:v rotate=90, or -display_rotation
#       -90 where FFmpeg 7 and later ignore the tag): ffmpeg shows it
#       240x320, the left stripe at the bottom.
#   frames-sar2.mkv
#       The same pattern at 160x240 (stripes 20 px wide) with a sample
#       aspect ratio of 2:1, 24 fps 2 s: displayed 320x240.
#
# Still images (an image item's stay, --image-display-duration)
#   still.png       The music cover's picture (120x80, red and blue halves), PNG.
#   still.jpg       64x48 blue, JPEG.
#
# Music (cover art, tags, the music view and its spectrum)
#   music-tagged.mp3
#       MP3 (libmp3lame 128 kb/s) stereo 44.1 kHz 6 s: a sine of peak 0.5 in
#       both channels, 1000 Hz for the first 3 s and 4000 Hz for the last 3 s
#       (the decoder starts at 0.025 s: LAME's delay). ID3v2.4 tags: title
#       "Test Title", artist "Test Artist", album "Album <ESC>[31mOne" (a raw
#       ESC byte: sanitised it is "Album One"), album_artist "Various", track
#       "3/12", date "2021-05-14", genre "Ambient". Attached picture (APIC,
#       "Cover (front)"): a 120x80 PNG, left half #D02020, right half #2040E0.
#   music-cover.flac
#       FLAC stereo 48 kHz 2 s, 440 Hz; Vorbis comments TITLE "Flac Title",
#       ARTIST "Flac Artist"; picture: a 64x64 JPEG of #20C040 (q 2: every
#       pixel within a few levels of it).
#   music-cover.m4a
#       AAC stereo 48 kHz 2 s, 440 Hz (ipod muxer), title "M4A Title"; covr:
#       the PNG of music-tagged.mp3.
#   music-plain.opus
#       Ogg Opus stereo 48 kHz 2 s, 440 Hz, no picture; title "Opus Title" and
#       artist "Opus Artist" (Ogg keeps them on the stream, not the container).
#
# Loudness tags (--replaygain); each a 440 Hz sine of peak 0.5, stereo 48 kHz, 4 s
#   replaygain.flac   Vorbis comments REPLAYGAIN_TRACK_GAIN "-6.00 dB", _PEAK 0.5,
#                     REPLAYGAIN_ALBUM_GAIN "-3.00 dB", _PEAK 0.5.
#   replaygain.mp3    the same as ID3v2.4 TXXX frames (track and album).
#   replaygain.opus   Ogg Opus, R128_TRACK_GAIN -2560 (-10 dB to -23 LUFS: -5 dB
#                     as a ReplayGain gain).
#   replaygain-loud.flac  REPLAYGAIN_TRACK_GAIN "+10.00 dB", _PEAK 0.6: held at
#                     1/0.6 (+4.44 dB) unless --replaygain-clip=yes.
#
# Equalizer response (--equalizer, as the null sink plays it)
#   eq-sweep.flac     FLAC stereo 48 kHz, a stepped sweep of steady sines of peak 0.25
#                     (-12 dBFS) in both channels, each starting at phase 0, at sample
#                     exact places: 0.1 s of silence, a 1 kHz marker of 50 ms, 0.1 s of
#                     silence, then the 31 third-octave tones f = 1000 x 2^(k/3), k = -17 ... 13
#                     (19.69 Hz to 20.16 kHz) back to back, each 220 ms below 100 Hz, 120 ms
#                     below 1 kHz and 80 ms from 1 kHz on; then 0.15 s of silence, a second
#                     1 kHz marker of 50 ms and 0.2 s of silence (4.61 s in all).
#   eq-chord.flac     FLAC stereo 48 kHz 6 s, a steady chord of 110, 247, 440, 1250 and 3100 Hz,
#                     each of peak 0.12 (sum at most 0.6): music-like sound for the equalizer's
#                     change while playing.
#   eq-chord-a.flac   the same chord's first 1.5 s (72 000 samples), and eq-chord-b.flac its
#   eq-chord-b.flac   next 1.5 s: played gapless, one sound cut at a sample (FLAC: no encoder
#                     delay or padding), for the equalizer's filters across the joint.
#
# Synced lyrics
#   lyrics-song.flac  FLAC stereo 48 kHz 30 s, 440 Hz, title "Lyrics Song".
#   lyrics-song.lrc   its sidecar: "line 00" … "line 19" at 0, 1.5, 3 … 28.5 s.
#   lyrics-sylt.mp3   MP3 stereo 48 kHz 16 s, 440 Hz, no ID3 of LAME's; an ID3v2.4 tag with one
#                     SYLT frame (UTF-8, milliseconds): line k of 10 is "sylt line NN", its
#                     words at k x 1.5 s, +0.5 s and +1 s (each line's first entry begins with
#                     a line break).
#   lyrics-tag.flac   FLAC stereo 48 kHz 4 s, 440 Hz, a Vorbis comment UNSYNCEDLYRICS of
#                     three lines ("first verse", "second verse", "third verse").
#
# Gapless playback (--gapless-audio): one continuous sweep, 0.5 sin(2 pi (100 t + 97.5 t^2)) (100 Hz
# rising to 4 kHz over 20 s), stereo 48 kHz, cut at exact samples into four 5 s tracks, each in
# another codec (encoder delay and padding to trim):
#   gapless-1.mp3    0-5 s, libmp3lame 192 kb/s (LAME/Xing header: delay and padding)
#   gapless-2.m4a    5-10 s, AAC 192 kb/s in MP4 (edit list: 1024 priming samples; the last
#                    frame's 640 samples of padding are past the edit list's end)
#   gapless-3.opus   10-15 s, Ogg Opus 160 kb/s (pre-skip 312, end trimmed by the granule)
#   gapless-4.flac   15-20 s, FLAC (exact)
#   gapless-itunes.mp3  0-5 s as gapless-1.mp3 but without the LAME/Xing header: its delay and
#                    padding only in an ID3v2.4 COMM "iTunSMPB" (priming 1105 = LAME's 576 + the
#                    decoder's 529, the padding to the last frame's end, 240000 samples)
#   gapless-44k.flac 5 s of the same sweep's second part at 44.1 kHz (another rate: --gapless-audio
#                    =weak switches to it the ordinary way, =yes converts it)
#
# Broken input (error paths; none of these should crash anything)
#   truncated.mkv          first 30% of h264-aac-2audio-srt-ass.mkv.
#   truncated-header.mkv   first 200 bytes of the same file.
#   truncated-subtitle.mkv 40 s with a subtitle event from 1 s to 30 s, cut to a fifth.
#   empty.mkv              0 bytes.
#   random.mkv             64 KiB from Python's Mersenne Twister, seed 1.
#   wrong-extension.mkv    a byte copy of h264-aac.flv (FLV data, .mkv name).
#
# Damaged data and hostile timestamps (probe --packets / --frames)
#   damaged-h264.mkv
#       H.264 320x240 24 fps 4 s (one keyframe a second, as above) + AAC
#       stereo 48 kHz 440 Hz, with two video packets overwritten in place
#       (bytes from Python's Mersenne Twister, seed 7), found with ffprobe:
#       the packet at 1.5 s from its 9th byte on, a quarter of its size (its
#       NAL length prefix becomes garbage: the decoder rejects the packet,
#       "Invalid data found when processing input"), and the middle quarter
#       of the packet at 2.5 s (decoded with concealment: decode_error_flags
#       set). Neither is a keyframe. The container is intact: every packet
#       still demuxes, and a player must play on to the end (3.958 s).
#   nopts.h264
#       Raw H.264 Annex B stream, 320x240 24 fps 2 s (48 frames): the raw
#       demuxer gives every packet and frame AV_NOPTS_VALUE pts and dts.
#   extreme-timestamps.mkv
#       Written by gen-extreme-timestamps.py: one 8 kHz mono PCM s16le track
#       with millisecond timestamps, clusters at 0, 1 s, 2^62, 2^63-16, 2^63
#       and 2^64-1 ms, two 50 ms blocks each (12 packets). libavformat makes
#       packet timestamps from 0 up to 4.6e18 and down to Int64.min + 50.
#
# EBML structure (the inspector's Matroska parser against mkvinfo)
#   ebml-attachments.mkv
#       h264-aac-2audio-srt-ass.mkv remuxed with an attachment (note.txt,
#       text/plain, 14 bytes "attached note\n") and a global COMMENT tag
#       "ebml fixture": chapters, attachments, tags, SubRip and ASS subtitles
#       (BlockGroups with BlockDuration) in one file.
#   ebml-live.webm
#       VP8 160x120 24 fps 3 s + Opus, muxed to a pipe with -live 1: the
#       Segment has an unknown size; every Cluster's size field is then
#       rewritten to "unknown" (all ones, same length), as a live muxer
#       that cannot seek back writes them.
#   ebml-mkvmerge-hdr.mkv (only when mkvmerge is installed)
#       hevc10-hdr10-ac3-51-movtext.mp4's HEVC and AC-3 muxed by mkvmerge
#       (--deterministic 7): Colour with MaxCLL 1000, MaxFALL 400 and
#       MasteringMetadata (BT.2020 primaries, 1000 / 0.0001 nits), track
#       name "HDR video", LanguageBCP47 en, laced AC-3 blocks, DateUTC and
#       SegmentUUID, mkvmerge's statistics tags.
# Structure inspector (the container tab's box and packet parsers)
#   inspect-frag.mp4
#       Fragmented MP4: H.264 + AAC stereo 48 kHz 440 Hz, 2 s (empty moov, one
#       moof+mdat a second, default-base-is-moof), a global sidx per track
#       before the first moof, and an mfra (tfra per track, mfro) at the end.
#   inspect-qt.mov
#       QuickTime: H.264 + PCM s16le mono 48 kHz 440 Hz ('sowt'), 2 s, title
#       "QT Title" (QuickTime udta, Mac language codes, hdlr in minf).
#   inspect-m2ts.m2ts
#       M2TS (192-byte packets: a 4-byte timestamp before each TS packet):
#       H.264 + AC-3 stereo, 2 s; one program, PMT PID 0x0100.
#   inspect-2programs.ts
#       MPEG-TS with two programs: 1 "One" (PMT 0x1000) = H.264 (0x0100) + AAC
#       (0x0101); 2 "Two" (PMT 0x1001) = MP2 (0x0102, language fra).
#   inspect-8s.mp4
#       H.264 320x240 24 fps 8 s (testsrc2 with moving grain, a keyframe each second)
#       + AAC stereo in MP4: the inspector's tmux walk (moov, packets, a frame at 00:05).
#   inspect-codecs.mp4
#       Stream copies into one MP4 (-strict experimental): AV1 of av1-opus.webm,
#       VP9 of vp9-opus.webm, Opus of av1-opus.webm, FLAC of music-cover.flac
#       (av1C, vpcC, dOps, dfLa boxes).
#
# Network sources
#   net/   progressive MP4, HLS (three variants, AES-128, thumbnails), DASH
#          (SegmentTimeline, $Number$, thumbnails) and hostile playlists, made
#          last by make-network-fixtures.sh (its header lists the files).
set -euo pipefail
shopt -s inherit_errexit

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
script="$script_dir/$(basename "${BASH_SOURCE[0]}")"

usage() { sed -n '2,8p' "$script" | sed 's/^# \{0,1\}//'; }

force=0
scale=0
outdir=""
for arg in "$@"; do
    case $arg in
        --force) force=1 ;;
        --scale) scale=1 ;;
        -h|--help) usage; exit 0 ;;
        -*) printf 'make-fixtures: unknown option %s\n' "$arg" >&2; usage >&2; exit 2 ;;
        *)
            if [[ -n $outdir ]]; then
                printf 'make-fixtures: more than one OUTDIR given\n' >&2; exit 2
            fi
            outdir=$arg ;;
    esac
done
outdir=${outdir:-$script_dir/out}

# shellcheck source=../Scripts/needs.sh
source "$script_dir/../Scripts/needs.sh"
needs make-fixtures ffmpeg=ffmpeg ffprobe=ffmpeg cc=gcc pkg-config=pkg-config python3=python3 awk=mawk

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
work="$outdir/.work"      # per-run scratch, removed on exit
tools="$outdir/.tools"    # compiled generators, kept between runs
rm -rf "$work"
mkdir -p "$work" "$tools"
current=""   # the fixture being generated, for the failure message
on_exit() {
    local status=$?
    rm -rf "$work"
    if [[ $status -ne 0 && -n $current ]]; then
        printf 'make-fixtures: failed to generate %s\n' "$current" >&2
    fi
}
trap on_exit EXIT

# Common ffmpeg prefix: quiet, never interactive, deterministic output.
ff=(ffmpeg -hide_banner -nostdin -loglevel error -y)
bitexact=(-bitexact)
# Video encoders use a fixed thread count so output does not depend on the
# machine's core count.
vthreads=(-threads:v 2)
# H.264 at 24 fps with a keyframe every second and no scene-cut keyframes.
x264_24=(-c:v libx264 -preset ultrafast -pix_fmt yuv420p -g 24 -keyint_min 24 -sc_threshold 0 "${vthreads[@]}")
x264_25=(-c:v libx264 -preset ultrafast -pix_fmt yuv420p -g 25 -keyint_min 25 -sc_threshold 0 "${vthreads[@]}")
aac=(-c:a aac -b:a 96k -ar 48000 -ac 2)

# aac_track PATH FREQ SECONDS: AAC-LC stereo 48 kHz sine tone as raw ADTS.
# Matroska and FLV have no field for the encoder's 1024-sample priming, so
# muxing straight from the aac encoder (first packet at -21 ms) makes ffmpeg
# shift every stream by +21 ms: video would start at 0.021 and subtitle cues
# would land at 0.521 s. Re-muxing ADTS packets (which carry no timestamps)
# starts every stream at 0; the priming simply plays as 21 ms of near-silence.
aac_track() {
    "${ff[@]}" -f lavfi -i "sine=f=$2:r=48000:d=$3" "${aac[@]}" "${bitexact[@]}" -f adts "$1"
}

# Silences SVT-AV1's banner on stderr (1 = errors only).
export SVT_LOG=1

encoders=$(ffmpeg -hide_banner -nostdin -encoders 2>/dev/null)
have_encoder() { grep -qE "^ [A-Z.]{6} $1 " <<<"$encoders"; }

# is_current OUT [INPUT...]: OUT exists, is newer than this script and than
# every INPUT, and --force was not given.
is_current() {
    local out=$1 dep
    shift
    [[ $force -eq 0 && -e $out && $out -nt $script ]] || return 1
    for dep in "$@"; do
        [[ $out -nt $dep ]] || return 1
    done
}

# build NAME FUNCTION [INPUT...]: unless OUTDIR/NAME is current, runs
# FUNCTION with a scratch path of the same name, then moves the result into
# place, so an interrupted run never leaves a half-written file that looks
# current.
build() {
    local name=$1 fn=$2
    shift 2
    local out="$outdir/$name" tmp="$work/$name"
    is_current "$out" "$@" && return 0
    rm -f "$tmp"
    current=$name
    # Called plainly (not under `if`) so that set -e stays in force inside.
    "$fn" "$tmp"
    mv -f "$tmp" "$out"
    current=""
    printf '%-36s %9d bytes\n' "$name" "$(stat -c %s "$out")"
}

# Structure inspector fixtures (Tests/AetherEngineTests/Inspect).
gen_inspect_frag() {
    local audio="$work/inspect-frag.aac"
    aac_track "$audio" 440 2
    "${ff[@]}" -f lavfi -i testsrc2=s=320x240:r=24:d=2 -i "$audio" "${x264_24[@]}" -crf 30 -c:a copy -bsf:a aac_adtstoasc \
        -movflags +frag_keyframe+empty_moov+default_base_moof+global_sidx "${bitexact[@]}" -f mp4 "$1"
}

gen_inspect_mov() {
    "${ff[@]}" -f lavfi -i testsrc2=s=320x240:r=24:d=2 -f lavfi -i sine=f=440:r=48000:d=2 "${x264_24[@]}" -crf 30 \
        -c:a pcm_s16le -metadata title="QT Title" "${bitexact[@]}" -f mov "$1"
}

gen_inspect_mp4() {
    "${ff[@]}" -f lavfi -i testsrc2=s=320x240:r=24:d=8 -f lavfi -i sine=f=440:r=48000:d=8 -vf noise=alls=18:allf=t \
        "${x264_24[@]}" -crf 30 "${aac[@]}" "${bitexact[@]}" -f mp4 "$1"
}

gen_inspect_m2ts() {
    "${ff[@]}" -f lavfi -i testsrc2=s=320x240:r=24:d=2 -f lavfi -i sine=f=440:r=48000:d=2 "${x264_24[@]}" -crf 30 \
        -c:a ac3 -ac 2 -mpegts_m2ts_mode 1 "${bitexact[@]}" -f mpegts "$1"
}

gen_inspect_2programs() {
    "${ff[@]}" -f lavfi -i testsrc2=s=320x240:r=24:d=2 -f lavfi -i sine=f=440:r=48000:d=2 -f lavfi -i sine=f=660:r=48000:d=2 \
        -map 0 -map 1 -map 2 "${x264_24[@]}" -crf 30 -c:a:0 aac -c:a:1 mp2 -metadata:s:a:1 language=fra \
        -program title=One:st=0:st=1 -program title=Two:st=2 "${bitexact[@]}" -f mpegts "$1"
}

gen_inspect_codecs() {
    "${ff[@]}" -i "$outdir/av1-opus.webm" -i "$outdir/vp9-opus.webm" -i "$outdir/music-cover.flac" \
        -map 0:v -map 1:v -map 0:a -map 2:a -c copy -strict experimental "${bitexact[@]}" -f mp4 "$1"
}

# ---------------------------------------------------------------------------
# Text inputs

write_srt() { # PATH TEXT1 TEXT2
    printf '1\n00:00:00,500 --> 00:00:01,500\n%s\n\n2\n00:00:02,000 --> 00:00:03,000\n%s\n' "$2" "$3" >"$1"
}

write_ass() { # PATH TEXT1 TEXT2 (TEXT may carry override tags)
    cat >"$1" <<EOF
[Script Info]
; aether-tui test fixture
Title: aether-tui fixture
ScriptType: v4.00+
WrapStyle: 0
ScaledBorderAndShadow: yes
YCbCr Matrix: None
PlayResX: 320
PlayResY: 240

[V4+ Styles]
Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
Style: Default,DejaVu Sans,18,&H00FFFFFF,&H000000FF,&H00000000,&H80000000,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,1

[Events]
Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
Dialogue: 0,0:00:00.50,0:00:01.50,Default,,0,0,0,,$2
Dialogue: 0,0:00:02.00,0:00:03.00,Default,,0,0,0,,$3
EOF
}

write_vtt() { # PATH TEXT1 TEXT2
    printf 'WEBVTT\n\n00:00:00.500 --> 00:00:01.500\n%s\n\n00:00:02.000 --> 00:00:03.000\n%s\n' "$2" "$3" >"$1"
}

# ---------------------------------------------------------------------------
# Generators: each writes the fixture to the path in $1.

gen_main_mkv() {
    local srt="$work/main.srt" ass="$work/main.ass" meta="$work/chapters.ffmeta"
    local eng="$work/main-eng.aac" fra="$work/main-fra.aac"
    aac_track "$eng" 440 4
    aac_track "$fra" 660 4
    write_srt "$srt" "Hello from aether" "Second line"
    write_ass "$ass" "Hello from aether" "Second line"
    cat >"$meta" <<'EOF'
;FFMETADATA1
[CHAPTER]
TIMEBASE=1/1000
START=0
END=1000
title=Opening
[CHAPTER]
TIMEBASE=1/1000
START=1000
END=2500
title=Middle
[CHAPTER]
TIMEBASE=1/1000
START=2500
END=4000
title=End
EOF
    local title
    title=$(printf 'Demo\033[31m Title')
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=320x240:r=24:d=4 \
        -i "$eng" -i "$fra" -i "$srt" -i "$ass" -i "$meta" \
        -map 0:v -map 1:a -map 2:a -map 3:s -map 4:s \
        -map_chapters 5 \
        "${x264_24[@]}" -crf 30 -c:a copy -c:s:0 srt -c:s:1 ass \
        -metadata title="$title" \
        -metadata:s:a:0 language=eng -metadata:s:a:0 title="English Stereo" \
        -metadata:s:a:1 language=fra -metadata:s:a:1 title="Français" \
        -metadata:s:s:0 language=eng -metadata:s:s:1 language=fra \
        -disposition:a:0 default -disposition:a:1 0 \
        -disposition:s:0 0 -disposition:s:1 0 \
        "${bitexact[@]}" "$1"
}

gen_sidecar_srt() { write_srt "$1" "Sidecar one" "Sidecar two"; }
gen_sidecar_ass() { write_ass "$1" '{\i1}Sidecar{\i0} one' "Sidecar two"; }
gen_sidecar_vtt() { write_vtt "$1" "Sidecar one" "Sidecar two"; }

# BT.2020 primaries/matrix (the transfer is the caller's) and, as for H.264,
# a closed GOP with an IDR frame every second.
x265_common=colorprim=bt2020:colormatrix=bt2020nc:keyint=24:min-keyint=24:scenecut=0:open-gop=0:log-level=error

gen_hdr10_mp4() {
    local srt="$work/hdr.srt"
    printf '1\n00:00:00,500 --> 00:00:02,500\nHDR subtitle\n' >"$srt"
    # Mastering display in x265 units (0.00002 for chromaticity, 0.0001 cd/m2
    # for luminance): Display P3 G/B/R, D65 white, 1000 / 0.0001 nits.
    local md='G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)'
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=320x240:r=24:d=3 \
        -f lavfi -i sine=f=440:r=48000:d=3 \
        -i "$srt" \
        -map 0:v -map 1:a -map 2:s \
        -vf setparams=color_primaries=bt2020:color_trc=smpte2084:colorspace=bt2020nc \
        -c:v libx265 -preset ultrafast -pix_fmt yuv420p10le -crf 30 "${vthreads[@]}" \
        -x265-params "$x265_common:transfer=smpte2084:hdr10=1:master-display=$md:max-cll=1000,400" \
        -color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc \
        -tag:v hvc1 -movflags +write_colr \
        -c:a ac3 -b:a 384k -af aformat=channel_layouts=5.1 \
        -c:s mov_text -metadata:s:s:0 language=eng \
        "${bitexact[@]}" "$1"
}

gen_hlg_mp4() {
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=320x240:r=24:d=3 \
        -f lavfi -i sine=f=440:r=48000:d=3 \
        -vf setparams=color_primaries=bt2020:color_trc=arib-std-b67:colorspace=bt2020nc \
        -c:v libx265 -preset ultrafast -pix_fmt yuv420p10le -crf 30 "${vthreads[@]}" \
        -x265-params "$x265_common:transfer=arib-std-b67" \
        -color_primaries bt2020 -color_trc arib-std-b67 -colorspace bt2020nc \
        -tag:v hvc1 -movflags +write_colr \
        "${aac[@]}" "${bitexact[@]}" "$1"
}

gen_vp9_webm() {
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=320x240:r=24:d=3 \
        -f lavfi -i sine=f=440:r=48000:d=3 \
        -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -b:v 300k -g 24 "${vthreads[@]}" \
        -c:a libopus -b:a 64k -ar 48000 -ac 2 \
        "${bitexact[@]}" "$1"
}

gen_av1_webm() {
    local video
    if have_encoder libsvtav1; then
        video=(-c:v libsvtav1 -preset 12 -crf 45 -g 24 "${vthreads[@]}")
    else
        video=(-c:v libaom-av1 -cpu-used 8 -row-mt 1 -crf 45 -b:v 0 -g 24 "${vthreads[@]}")
    fi
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=320x240:r=24:d=2 \
        -f lavfi -i sine=f=440:r=48000:d=2 \
        "${video[@]}" -pix_fmt yuv420p \
        -c:a libopus -b:a 64k -ar 48000 -ac 2 \
        "${bitexact[@]}" "$1"
}

gen_vp8_webm() {
    # A negative cpu-used fixes VP8's realtime speed at 8; a positive one lets
    # libvpx adapt speed to wall-clock time, so output varies run to run.
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=320x240:r=24:d=3 \
        -f lavfi -i sine=f=440:r=48000:d=3 \
        -c:v libvpx -deadline realtime -cpu-used -8 -b:v 300k -g 24 "${vthreads[@]}" \
        -c:a libvorbis -q:a 3 -ar 48000 -ac 2 \
        "${bitexact[@]}" "$1"
}

gen_mpeg2_ts() {
    # +ilme+ildct codes interlaced pictures, setfield=tff marks the frames top field first (the
    # command line's -top did, until FFmpeg 9 refused it), -field_order tt labels the stream.
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=720x576:r=25:d=3 \
        -f lavfi -i sine=f=440:r=48000:d=3 \
        -vf setfield=tff -c:v mpeg2video -b:v 2M -maxrate 2M -bufsize 1835k -g 12 -bf 2 \
        -flags:v +ilme+ildct -field_order tt -pix_fmt yuv420p "${vthreads[@]}" \
        -c:a mp2 -b:a 192k -ar 48000 -ac 2 \
        "${bitexact[@]}" "$1"
}

gen_mpeg4_avi() {
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=320x240:r=25:d=3 \
        -f lavfi -i sine=f=440:r=44100:d=3 \
        -c:v mpeg4 -q:v 5 -g 25 "${vthreads[@]}" \
        -c:a libmp3lame -b:a 128k -ar 44100 -ac 2 \
        "${bitexact[@]}" "$1"
}

gen_theora_ogg() {
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=320x240:r=24:d=3 \
        -f lavfi -i sine=f=440:r=48000:d=3 \
        -c:v libtheora -q:v 5 -g 24 "${vthreads[@]}" \
        -c:a libvorbis -q:a 3 -ar 48000 -ac 2 \
        "${bitexact[@]}" "$1"
}

gen_flv() {
    local audio="$work/gen_flv.aac"
    aac_track "$audio" 440 3
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=320x240:r=24:d=3 \
        -i "$audio" \
        "${x264_24[@]}" -crf 30 -c:a copy \
        "${bitexact[@]}" "$1"
}

gen_multi_audio() {
    # Each track is encoded on its own and then copied in: E-AC-3 and DTS
    # have encoder delay, and muxing them straight from the encoders would
    # shift every stream (video would start at 0.005 s).
    local a0="$work/ma-eac3.mka" a1="$work/ma-flac.mka" a2="$work/ma-truehd.mka" a3="$work/ma-dts.mka"
    "${ff[@]}" -f lavfi -i 'sine=f=440:r=48000:d=2,aformat=channel_layouts=5.1(side)' \
        -c:a eac3 -b:a 384k "${bitexact[@]}" "$a0"
    "${ff[@]}" -f lavfi -i 'sine=f=550:r=48000:d=2,aformat=channel_layouts=stereo' \
        -c:a flac "${bitexact[@]}" "$a1"
    "${ff[@]}" -f lavfi -i 'sine=f=660:r=48000:d=2,aformat=channel_layouts=5.1' \
        -c:a truehd -strict -2 "${bitexact[@]}" "$a2"
    "${ff[@]}" -f lavfi -i 'sine=f=770:r=48000:d=2,aformat=channel_layouts=5.1(side)' \
        -c:a dca -b:a 768k -strict -2 "${bitexact[@]}" "$a3"
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=320x240:r=24:d=2 \
        -i "$a0" -i "$a1" -i "$a2" -i "$a3" \
        -map 0:v -map 1:a -map 2:a -map 3:a -map 4:a \
        "${x264_24[@]}" -crf 30 -c:a copy \
        -metadata:s:a:0 language=eng -metadata:s:a:1 language=ger \
        -metadata:s:a:2 language=jpn -metadata:s:a:3 language=spa \
        -disposition:a:0 default -disposition:a:1 0 \
        -disposition:a:2 0 -disposition:a:3 0 \
        "${bitexact[@]}" "$1"
}

gen_sine_1k() {
    local tone='0.5*sin(2*PI*1000*t)'
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=320x240:r=24:d=5 \
        -f lavfi -i "aevalsrc=$tone|$tone:c=stereo:s=48000:d=5" \
        "${x264_24[@]}" -crf 30 \
        -c:a pcm_s16le \
        "${bitexact[@]}" "$1"
}

gen_video_only() {
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=320x240:r=24:d=12 \
        "${x264_24[@]}" -crf 30 \
        "${bitexact[@]}" "$1"
}

gen_tones_stepped() {
    "${ff[@]}" \
        -f lavfi -i 'aevalsrc=0.5*sin(2*PI*(300+100*floor((t+1)/2))*t):s=48000:d=12' \
        -c:a flac "${bitexact[@]}" -f matroska "$1"
}

gen_tones_51() {
    local graph
    graph='sine=f=300:r=48000:d=5[fl];sine=f=500:r=48000:d=5[fr];'
    graph+='sine=f=700:r=48000:d=5[fc];sine=f=90:r=48000:d=5[lfe];'
    graph+='sine=f=1100:r=48000:d=5[bl];sine=f=1300:r=48000:d=5[br];'
    graph+='[fl][fr][fc][lfe][bl][br]join=inputs=6:channel_layout=5.1'
    graph+=':map=0.0-FL|1.0-FR|2.0-FC|3.0-LFE|4.0-BL|5.0-BR[a]'
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=320x240:r=24:d=5 \
        -filter_complex "$graph" \
        -map 0:v -map '[a]' \
        "${x264_24[@]}" -crf 30 \
        -c:a flac \
        "${bitexact[@]}" "$1"
}

# Compiles gen-dvdsub.c into OUTDIR/.tools (never into the source tree).
gen_dvdsub_tool() {
    local src="$script_dir/gen-dvdsub.c" bin="$tools/gen-dvdsub"
    if [[ ! -x $bin || ! $bin -nt $src ]]; then
        # shellcheck disable=SC2046  # pkg-config output must word-split
        cc -std=c11 -O2 -Wall -Wextra -o "$bin.tmp" "$src" \
            $(pkg-config --cflags --libs libavformat libavcodec libavutil)
        mv -f "$bin.tmp" "$bin"
    fi
    printf '%s\n' "$bin"
}

gen_dvdsub_mkv() {
    local gen subs="$work/dvdsub-subs.mkv"
    gen=$(gen_dvdsub_tool)
    "$gen" dvdsub 720x480 "$subs"
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=720x480:r=25:d=3 \
        -i "$subs" \
        -map 0:v -map 1:s \
        "${x264_25[@]}" -crf 30 -c:s copy \
        -metadata:s:s:0 language=eng \
        "${bitexact[@]}" "$1"
}

gen_dvbsub_ts() {
    local gen subs="$work/dvbsub-subs.mkv"
    gen=$(gen_dvdsub_tool)
    "$gen" dvbsub 720x576 "$subs"
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=720x576:r=25:d=3 \
        -i "$subs" \
        -map 0:v -map 1:s \
        "${x264_25[@]}" -crf 30 -c:s copy \
        -metadata:s:s:0 language=eng \
        "${bitexact[@]}" "$1"
}

# x264 with VBV (-maxrate) and more than one thread is not deterministic, so
# the two capped files are encoded single-threaded (about 3 s for 1080p).
x264_capped=(-c:v libx264 -preset ultrafast -pix_fmt yuv420p -g 24 -keyint_min 24 -sc_threshold 0 -threads:v 1)

gen_bframes() {
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=640x360:r=24:d=8 \
        -c:v libx264 -preset veryfast -bf 3 -g 24 -keyint_min 24 -sc_threshold 0 -pix_fmt yuv420p -threads:v 1 \
        "${bitexact[@]}" "$1"
}

gen_720p() {
    local audio="$work/gen_720p.aac"
    aac_track "$audio" 440 12
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=1280x720:r=24:d=12 \
        -i "$audio" \
        "${x264_capped[@]}" -crf 28 -maxrate 1200k -bufsize 2400k -c:a copy \
        "${bitexact[@]}" "$1"
}

# gen_gop OUT SECONDS GOP: testsrc2 320x180 25 fps with a keyframe every GOP frames + AAC.
gen_gop() {
    local audio="$work/gen_gop.aac"
    aac_track "$audio" 440 "$2"
    "${ff[@]}" \
        -f lavfi -i "testsrc2=s=320x180:r=25:d=$2" \
        -i "$audio" \
        -c:v libx264 -preset ultrafast -pix_fmt yuv420p -g "$3" -keyint_min "$3" -sc_threshold 0 -threads:v 1 \
        -c:a copy "${bitexact[@]}" "$1"
}
gen_longgop() { gen_gop "$1" 30 250; }
gen_onekey() { gen_gop "$1" 12 1000; }

gen_1080p() {
    local audio="$work/gen_1080p.aac"
    aac_track "$audio" 440 10
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=1920x1080:r=24:d=10 \
        -i "$audio" \
        "${x264_capped[@]}" -crf 28 -maxrate 3M -bufsize 6M -c:a copy \
        "${bitexact[@]}" "$1"
}

gen_4k60() {
    local audio="$work/gen_4k60.aac"
    aac_track "$audio" 440 10
    "${ff[@]}" \
        -f lavfi -i "testsrc2=s=3840x2160:r=60:d=10,noise=alls=4:allf=t" \
        -i "$audio" \
        -c:v libx265 -preset ultrafast -x265-params log-level=error -pix_fmt yuv420p10le \
        -profile:v main10 -b:v 20M -g 120 -c:a copy \
        "${bitexact[@]}" "$1"
}

gen_solid_red() {
    "${ff[@]}" \
        -f lavfi -i color=c=red:s=320x240:r=24:d=2 \
        "${x264_24[@]}" -crf 18 \
        "${bitexact[@]}" "$1"
}

# numbered_pattern WIDTH: the lavfi graph for the frame-number stripes.
numbered_pattern() {
    local stripe=$(($1 / 8))
    printf "color=c=black:s=%dx240:r=24:d=10,format=gray,geq=lum='if(mod(floor(N/pow(2\\,floor(X/%d)))\\,2)\\,235\\,16)',format=yuv420p" "$1" "$stripe"
}

gen_frames_numbered() {
    "${ff[@]}" -f lavfi -i "$(numbered_pattern 320)" "${x264_24[@]}" -crf 18 "${bitexact[@]}" "$1"
}

gen_frames_rotate90() {
    # The `rotate` tag up to FFmpeg 6 (7 ignores it), else the display matrix itself
    # (-display_rotation counts counter-clockwise: -90 is the tag's 90).
    "${ff[@]}" -i "$outdir/frames-numbered.mkv" -t 2 -c copy -metadata:s:v rotate=90 "${bitexact[@]}" -f mp4 "$1"
    if ! ffprobe -v error -select_streams v -show_entries stream_side_data=rotation -of csv=p=0 "$1" | grep -q 90; then
        "${ff[@]}" -display_rotation:v -90 -i "$outdir/frames-numbered.mkv" -t 2 -c copy "${bitexact[@]}" -f mp4 "$1"
    fi
}

gen_frames_sar2() {
    "${ff[@]}" -f lavfi -i "$(numbered_pattern 160),setsar=2" -t 2 "${x264_24[@]}" -crf 18 "${bitexact[@]}" "$1"
}

# music_cover_png PATH: 120x80, left half #D02020, right half #2040E0.
music_cover_png() {
    "${ff[@]}" -filter_complex "color=c=0xD02020:s=60x80[a];color=c=0x2040E0:s=60x80[b];[a][b]hstack" \
        -frames:v 1 -pix_fmt rgb24 "${bitexact[@]}" "$1"
}

gen_still_png() { music_cover_png "$1"; }

gen_still_jpg() {
    "${ff[@]}" -f lavfi -i color=c=blue:s=64x48 -frames:v 1 -c:v mjpeg "${bitexact[@]}" -f image2 "$1"
}

gen_music_mp3() {
    local cover="$work/music-cover.png" tone
    music_cover_png "$cover"
    tone="0.5*sin(2*PI*if(lt(t\,3)\,1000\,4000)*t)"
    "${ff[@]}" -f lavfi -i "aevalsrc=$tone|$tone:s=44100:d=6" -i "$cover" -map 0:a -map 1:v \
        -c:a libmp3lame -b:a 128k -c:v copy -disposition:v:0 attached_pic -metadata:s:v comment="Cover (front)" \
        -metadata title="Test Title" -metadata artist="Test Artist" -metadata album=$'Album \e[31mOne' \
        -metadata album_artist="Various" -metadata track="3/12" -metadata date="2021-05-14" -metadata genre="Ambient" \
        -id3v2_version 4 "${bitexact[@]}" -f mp3 "$1"
}

gen_music_flac() {
    local cover="$work/music-cover.jpg"
    "${ff[@]}" -f lavfi -i "color=c=0x20C040:s=64x64" -frames:v 1 -q:v 2 "${bitexact[@]}" "$cover"
    "${ff[@]}" -f lavfi -i "sine=f=440:r=48000:d=2" -i "$cover" -map 0:a -map 1:v -ac 2 -c:a flac \
        -c:v copy -disposition:v:0 attached_pic -metadata:s:v comment="Cover (front)" \
        -metadata title="Flac Title" -metadata artist="Flac Artist" "${bitexact[@]}" -f flac "$1"
}

gen_music_m4a() {
    local cover="$work/music-cover-m4a.png"
    music_cover_png "$cover"
    "${ff[@]}" -f lavfi -i "sine=f=440:r=48000:d=2" -i "$cover" -map 0:a -map 1:v -ac 2 "${aac[@]}" \
        -c:v copy -disposition:v:0 attached_pic -metadata title="M4A Title" "${bitexact[@]}" -f ipod "$1"
}

gen_music_opus() {
    "${ff[@]}" -f lavfi -i "sine=f=440:r=48000:d=2" -ac 2 -c:a libopus -b:a 64k \
        -metadata title="Opus Title" -metadata artist="Opus Artist" "${bitexact[@]}" -f ogg "$1"
}

# The --replaygain fixtures: 4 s of a tagged sine of peak 0.5 each.
replaygain_tone="0.5*sin(2*PI*440*t)"
gen_replaygain_flac() {
    "${ff[@]}" -f lavfi -i "aevalsrc=$replaygain_tone|$replaygain_tone:s=48000:d=4" -c:a flac \
        -metadata REPLAYGAIN_TRACK_GAIN="-6.00 dB" -metadata REPLAYGAIN_TRACK_PEAK="0.500000" \
        -metadata REPLAYGAIN_ALBUM_GAIN="-3.00 dB" -metadata REPLAYGAIN_ALBUM_PEAK="0.500000" "${bitexact[@]}" -f flac "$1"
}
gen_replaygain_mp3() {
    "${ff[@]}" -f lavfi -i "aevalsrc=$replaygain_tone|$replaygain_tone:s=48000:d=4" -c:a libmp3lame -b:a 192k \
        -metadata REPLAYGAIN_TRACK_GAIN="-6.00 dB" -metadata REPLAYGAIN_TRACK_PEAK="0.500000" \
        -metadata REPLAYGAIN_ALBUM_GAIN="-3.00 dB" -metadata REPLAYGAIN_ALBUM_PEAK="0.500000" \
        -id3v2_version 4 "${bitexact[@]}" -f mp3 "$1"
}
gen_replaygain_opus() {
    "${ff[@]}" -f lavfi -i "aevalsrc=$replaygain_tone|$replaygain_tone:s=48000:d=4" -c:a libopus -b:a 128k \
        -metadata:s:a:0 R128_TRACK_GAIN="-2560" "${bitexact[@]}" -f ogg "$1"
}
gen_replaygain_loud() {
    "${ff[@]}" -f lavfi -i "aevalsrc=$replaygain_tone|$replaygain_tone:s=48000:d=4" -c:a flac \
        -metadata REPLAYGAIN_TRACK_GAIN="+10.00 dB" -metadata REPLAYGAIN_TRACK_PEAK="0.600000" "${bitexact[@]}" -f flac "$1"
}

# The equalizer's stepped sweep (see the header: eq-sweep.flac), one aevalsrc term per
# tone or marker, each a sine from phase 0 over its own samples [start, end).
gen_eq_sweep() {
    local expr
    expr=$(awk 'BEGIN {
        n = 4800; terms = ""
        add = "0.25*sin(2*PI*%.9f*(n-%d)/48000)*gte(n,%d)*lt(n,%d)"
        terms = sprintf(add, 1000, n, n, n + 2400); n += 2400 + 4800
        for (k = -17; k <= 13; k++) {
            f = 1000 * 2 ^ (k / 3)
            len = f < 100 ? 10560 : f < 1000 ? 5760 : 3840
            terms = terms "+" sprintf(add, f, n, n, n + len); n += len
        }
        n += 7200
        terms = terms "+" sprintf(add, 1000, n, n, n + 2400); n += 2400 + 9600
        printf "%s\t%d\n", terms, n
    }')
    local samples=${expr##*$'\t'}
    expr=${expr%$'\t'*}
    # Quoted: the terms' commas are the expression's, not the graph's.
    "${ff[@]}" -f lavfi -i "aevalsrc='$expr|$expr':s=48000,atrim=end_sample=$samples" -c:a flac \
        "${bitexact[@]}" -f flac "$1"
}

gen_eq_chord() {
    "${ff[@]}" -f lavfi -i "aevalsrc=0.12*(sin(2*PI*110*t)+sin(2*PI*247*t)+sin(2*PI*440*t)+sin(2*PI*1250*t)+sin(2*PI*3100*t)):s=48000:d=6" \
        -ac 2 -c:a flac "${bitexact[@]}" -f flac "$1"
}
# The chord from `from` seconds on, for `seconds`.
chord_part() {
    "${ff[@]}" -f lavfi -i "aevalsrc=0.12*(sin(2*PI*110*(t+$2))+sin(2*PI*247*(t+$2))+sin(2*PI*440*(t+$2))+sin(2*PI*1250*(t+$2))+sin(2*PI*3100*(t+$2))):s=48000:d=$3" \
        -ac 2 -c:a flac "${bitexact[@]}" -f flac "$1"
}
gen_eq_chord_a() { chord_part "$1" 0 1.5; }
gen_eq_chord_b() { chord_part "$1" 1.5 1.5; }
gen_lyrics_song() {
    "${ff[@]}" -f lavfi -i "sine=f=440:r=48000:d=30" -ac 2 -c:a flac -metadata title="Lyrics Song" "${bitexact[@]}" -f flac "$1"
}
gen_lyrics_lrc() {
    { echo "[ti:Lyrics Song]"; awk 'BEGIN { for (k = 0; k < 20; k++) { t = k * 1.5; printf "[%02d:%05.2f]line %02d\n", int(t / 60), t - 60 * int(t / 60), k } }'; } >"$1"
}
gen_lyrics_sylt() {
    local mp3="$work/lyrics-sylt-bare.mp3"
    "${ff[@]}" -f lavfi -i "sine=f=440:r=48000:d=16" -ac 2 -c:a libmp3lame -b:a 128k -write_id3v2 0 "${bitexact[@]}" -f mp3 "$mp3"
    python3 - "$mp3" >"$1" <<'PY'
import struct, sys
def syncsafe(n): return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])
body = bytes([3]) + b"eng" + bytes([2, 1]) + b"aether\x00"
for k in range(10):
    for i, (word, dt) in enumerate([("\nsylt ", 0), ("line ", 500), ("%02d" % k, 1000)]):
        if k == 0 and i == 0: word = "sylt "
        body += word.encode() + b"\x00" + struct.pack(">I", k * 1500 + dt)
frame = b"SYLT" + syncsafe(len(body)) + b"\x00\x00" + body
sys.stdout.buffer.write(b"ID3\x04\x00\x00" + syncsafe(len(frame)) + frame + open(sys.argv[1], "rb").read())
PY
}
gen_lyrics_tag() {
    "${ff[@]}" -f lavfi -i "sine=f=440:r=48000:d=4" -ac 2 -c:a flac -metadata UNSYNCEDLYRICS=$'first verse\nsecond verse\nthird verse' \
        "${bitexact[@]}" -f flac "$1"
}

# gapless_part K OUT: samples [K x 240000, (K+1) x 240000) of the sweep, as 48 kHz s16 stereo WAV.
gapless_part() {
    "${ff[@]}" -f lavfi -i "aevalsrc=0.5*sin(2*PI*(100*t+97.5*t*t)):s=48000:d=20" -ac 2 \
        -af "atrim=start_sample=$(($1 * 240000)):end_sample=$((($1 + 1) * 240000)),asetpts=N/SR/TB" -c:a pcm_s16le "$2"
}
gen_gapless_1() { gapless_part 0 "$work/gapless-1.wav"; "${ff[@]}" -i "$work/gapless-1.wav" -c:a libmp3lame -b:a 192k "${bitexact[@]}" -f mp3 "$1"; }
gen_gapless_2() { gapless_part 1 "$work/gapless-2.wav"; "${ff[@]}" -i "$work/gapless-2.wav" -c:a aac -b:a 192k "${bitexact[@]}" -f mp4 "$1"; }
gen_gapless_3() { gapless_part 2 "$work/gapless-3.wav"; "${ff[@]}" -i "$work/gapless-3.wav" -c:a libopus -b:a 160k "${bitexact[@]}" -f ogg "$1"; }
gen_gapless_4() { gapless_part 3 "$work/gapless-4.wav"; "${ff[@]}" -i "$work/gapless-4.wav" -c:a flac "${bitexact[@]}" -f flac "$1"; }
gen_gapless_itunes() {
    local mp3="$work/gapless-itunes-bare.mp3"
    gapless_part 0 "$work/gapless-itunes.wav"
    "${ff[@]}" -i "$work/gapless-itunes.wav" -c:a libmp3lame -b:a 192k -write_xing 0 -write_id3v2 0 "${bitexact[@]}" -f mp3 "$mp3"
    local frames
    frames=$(ffprobe -v error -select_streams a:0 -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$mp3")
    python3 - "$mp3" "$frames" >"$1" <<'PY'
import sys
def syncsafe(n): return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])
frames = int(sys.argv[2]); priming, samples = 1105, 240000
value = " 00000000 %08X %08X %016X 00000000 00000000" % (priming, frames * 1152 - priming - samples, samples)
body = bytes([3]) + b"eng" + b"iTunSMPB\x00" + value.encode()
frame = b"COMM" + syncsafe(len(body)) + b"\x00\x00" + body
sys.stdout.buffer.write(b"ID3\x04\x00\x00" + syncsafe(len(frame)) + frame + open(sys.argv[1], "rb").read())
PY
}
gen_gapless_44k() { gapless_part 1 "$work/gapless-44k.wav"; "${ff[@]}" -i "$work/gapless-44k.wav" -ar 44100 -c:a flac "${bitexact[@]}" -f flac "$1"; }

main_mkv="$outdir/h264-aac-2audio-srt-ass.mkv"

gen_truncated() {
    local size
    size=$(stat -c %s "$main_mkv")
    head -c $((size * 30 / 100)) "$main_mkv" >"$1"
}
gen_truncated_header() { head -c 200 "$main_mkv" >"$1"; }
# 40 s of tiny picture and sound with one subtitle event from 1 s to 30 s, cut to a fifth: the
# event reaches past where the picture and sound stop.
gen_truncated_subtitle() {
    printf '1\n00:00:01,000 --> 00:00:30,000\nOne long line\n\n' >"$work/long-event.srt"
    "${ff[@]}" -f lavfi -i "testsrc2=size=96x54:rate=10:duration=40" -f lavfi -i "sine=frequency=440:sample_rate=8000:duration=40" \
        -i "$work/long-event.srt" -map 0 -map 1 -map 2 -c:v libx264 -preset ultrafast -g 10 -c:a aac -b:a 16k -c:s srt \
        "${bitexact[@]}" "$work/long-event.mkv"
    local size
    size=$(stat -c %s "$work/long-event.mkv")
    head -c $((size / 5)) "$work/long-event.mkv" >"$1"
}
gen_empty() { : >"$1"; }
gen_random() {
    python3 -c '
import random, sys
rng = random.Random(1)
sys.stdout.buffer.write(bytes(rng.getrandbits(8) for _ in range(65536)))
' >"$1"
}
gen_wrong_extension() { cp "$outdir/h264-aac.flv" "$1"; }

gen_damaged_h264() {
    local audio="$work/damaged.aac" base="$work/damaged-base.mkv"
    aac_track "$audio" 440 4
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=320x240:r=24:d=4 \
        -i "$audio" \
        "${x264_24[@]}" -crf 30 -c:a copy \
        "${bitexact[@]}" "$base"
    # One "pts_time,size,pos" line per video packet.
    ffprobe -v error -select_streams v:0 -show_entries packet=pts_time,size,pos -of csv=p=0 "$base" |
        python3 -c '
import random, sys
packets = [[float(v) for v in line.split(",")] for line in sys.stdin if line.strip()]
def at(t):
    return min(packets, key=lambda p: abs(p[0] - t))
rng = random.Random(7)
with open(sys.argv[1], "r+b") as f:
    _, size, pos = at(1.5)
    f.seek(int(pos) + 8)
    f.write(bytes(rng.getrandbits(8) for _ in range(int(size) // 4)))
    _, size, pos = at(2.5)
    f.seek(int(pos) + int(size) // 2)
    f.write(bytes(rng.getrandbits(8) for _ in range(int(size) // 4)))
' "$base"
    mv -f "$base" "$1"
}

gen_nopts_h264() {
    "${ff[@]}" \
        -f lavfi -i testsrc2=s=320x240:r=24:d=2 \
        "${x264_24[@]}" -crf 30 \
        "${bitexact[@]}" -f h264 "$1"
}

gen_extreme_timestamps() { python3 "$script_dir/gen-extreme-timestamps.py" "$1"; }

# --- EBML structure fixtures (the inspector's Matroska parser) -------------

gen_ebml_attachments() {
    local note="$work/note.txt"
    printf 'attached note\n' >"$note"
    "${ff[@]}" -i "$outdir/h264-aac-2audio-srt-ass.mkv" -map 0 -c copy \
        -attach "$note" -metadata:s:t:0 mimetype=text/plain -metadata:s:t:0 filename=note.txt \
        -metadata comment="ebml fixture" "${bitexact[@]}" -f matroska "$1"
}

gen_ebml_live() {
    local piped="$work/ebml-live-piped.webm"
    "${ff[@]}" -f lavfi -i testsrc2=s=160x120:r=24:d=3 -f lavfi -i sine=f=440:r=48000:d=3 \
        -c:v libvpx -deadline realtime -cpu-used 8 -g 24 "${vthreads[@]}" -c:a libopus \
        "${bitexact[@]}" -f webm -live 1 pipe:1 >"$piped"
    # Every Cluster (a child of the unknown-size Segment) gets an unknown size of the same length.
    python3 -c '
import sys
data = bytearray(open(sys.argv[1], "rb").read())
def vint(pos, is_id):
    first = data[pos]
    length = 8 - first.bit_length() + 1
    value = first if is_id else first & (0xFF >> length)
    for b in data[pos + 1:pos + length]:
        value = value << 8 | b
    return value, length
def header(pos):
    ident, n = vint(pos, True)
    size, m = vint(pos + n, False)
    return ident, n, size, m
ident, n, size, m = header(0)
pos = n + m + size                                   # past the EBML header
ident, n, size, m = header(pos)
assert ident == 0x18538067, "no Segment"
pos += n + m
clusters = 0
while pos < len(data):
    ident, n, size, m = header(pos)
    if ident == 0x1F43B675:
        data[pos + n] = 0xFF >> (m - 1)
        for i in range(1, m):
            data[pos + n + i] = 0xFF
        clusters += 1
    pos += n + m + size
assert clusters > 1, "no Clusters"
open(sys.argv[2], "wb").write(data)
' "$piped" "$1"
}

gen_ebml_mkvmerge_hdr() {
    mkvmerge --deterministic 7 -q -o "$1" \
        --max-content-light 0:1000 --max-frame-light 0:400 --max-luminance 0:1000 --min-luminance 0:0.0001 \
        --chromaticity-coordinates 0:0.68,0.32,0.265,0.69,0.15,0.06 --white-colour-coordinates 0:0.3127,0.329 \
        --language 0:en --track-name '0:HDR video' --no-subtitles "$outdir/hevc10-hdr10-ac3-51-movtext.mp4"
}
# --- end of the EBML structure fixtures -------------------------------------

# ---------------------------------------------------------------------------

build h264-aac-2audio-srt-ass.mkv     gen_main_mkv
build h264-aac-2audio-srt-ass.srt     gen_sidecar_srt
build h264-aac-2audio-srt-ass.ass     gen_sidecar_ass
build h264-aac-2audio-srt-ass.vtt     gen_sidecar_vtt
build hevc10-hdr10-ac3-51-movtext.mp4 gen_hdr10_mp4
build hevc-hlg.mp4                    gen_hlg_mp4
build vp9-opus.webm                   gen_vp9_webm
build av1-opus.webm                   gen_av1_webm
build vp8-vorbis.webm                 gen_vp8_webm
build mpeg2-interlaced-mp2.ts         gen_mpeg2_ts
build mpeg4-mp3.avi                   gen_mpeg4_avi
build theora-vorbis.ogg               gen_theora_ogg
build h264-aac.flv                    gen_flv
build multi-audio.mkv                 gen_multi_audio
build dvdsub.mkv                      gen_dvdsub_mkv "$script_dir/gen-dvdsub.c"
build dvbsub.ts                       gen_dvbsub_ts "$script_dir/gen-dvdsub.c"
build sine-1k.mkv                     gen_sine_1k
build tones-51.mkv                    gen_tones_51
build video-only.mkv                  gen_video_only
build tones-stepped.mka               gen_tones_stepped
build h264-720p.mkv                   gen_720p
build h264-1080p.mkv                  gen_1080p
build h264-longgop.mp4                gen_longgop
build h264-onekey.mkv                 gen_onekey
if [[ $scale -eq 1 ]]; then build hevc10-4k60.mkv gen_4k60; fi
build h264-bframes.mkv                gen_bframes
build solid-red.mkv                   gen_solid_red
build frames-numbered.mkv             gen_frames_numbered
build frames-rotate90.mp4             gen_frames_rotate90 "$outdir/frames-numbered.mkv"
build still.png                       gen_still_png
build still.jpg                       gen_still_jpg
build frames-sar2.mkv                 gen_frames_sar2
build music-tagged.mp3                gen_music_mp3
build music-cover.flac                gen_music_flac
build music-cover.m4a                 gen_music_m4a
build music-plain.opus                gen_music_opus
build replaygain.flac                  gen_replaygain_flac
build replaygain.mp3                   gen_replaygain_mp3
build replaygain.opus                  gen_replaygain_opus
build replaygain-loud.flac             gen_replaygain_loud
build eq-sweep.flac                   gen_eq_sweep
build eq-chord.flac                   gen_eq_chord
build eq-chord-a.flac                 gen_eq_chord_a
build eq-chord-b.flac                 gen_eq_chord_b
build lyrics-song.flac                 gen_lyrics_song
build lyrics-song.lrc                  gen_lyrics_lrc
build lyrics-sylt.mp3                  gen_lyrics_sylt
build lyrics-tag.flac                  gen_lyrics_tag
build gapless-1.mp3                    gen_gapless_1
build gapless-2.m4a                    gen_gapless_2
build gapless-3.opus                   gen_gapless_3
build gapless-4.flac                   gen_gapless_4
build gapless-itunes.mp3               gen_gapless_itunes
build gapless-44k.flac                 gen_gapless_44k
build truncated.mkv                   gen_truncated "$main_mkv"
build truncated-header.mkv            gen_truncated_header "$main_mkv"
build truncated-subtitle.mkv          gen_truncated_subtitle
build empty.mkv                       gen_empty
build random.mkv                      gen_random
build wrong-extension.mkv             gen_wrong_extension "$outdir/h264-aac.flv"
build damaged-h264.mkv                gen_damaged_h264
build nopts.h264                      gen_nopts_h264
build extreme-timestamps.mkv          gen_extreme_timestamps "$script_dir/gen-extreme-timestamps.py"
# EBML structure fixtures
build ebml-attachments.mkv            gen_ebml_attachments "$outdir/h264-aac-2audio-srt-ass.mkv"
build ebml-live.webm                  gen_ebml_live
if command -v mkvmerge >/dev/null 2>&1; then
    build ebml-mkvmerge-hdr.mkv       gen_ebml_mkvmerge_hdr "$outdir/hevc10-hdr10-ac3-51-movtext.mp4"
fi
build inspect-frag.mp4                gen_inspect_frag
build inspect-qt.mov                  gen_inspect_mov
build inspect-m2ts.m2ts               gen_inspect_m2ts
build inspect-2programs.ts            gen_inspect_2programs
build inspect-8s.mp4                  gen_inspect_mp4
build inspect-codecs.mp4              gen_inspect_codecs "$outdir/av1-opus.webm" "$outdir/vp9-opus.webm" "$outdir/music-cover.flac"

# Files not made for the happy path (broadcast timelines, damage, encryption, number traps,
# unbounded input): Tests/Scripts/hostile-corpus.sh's small set, regenerated when its scripts change.
hostile_dir="$outdir/hostile"
hostile_gen="$script_dir/../Scripts/hostile-corpus.sh"
if [ ! -f "$hostile_dir/.stamp" ] || [ "$hostile_gen" -nt "$hostile_dir/.stamp" ] \
    || [ "$script_dir/../Scripts/hostile_corpus_tools.py" -nt "$hostile_dir/.stamp" ]; then
    bash "$hostile_gen" "$hostile_dir" >/dev/null
    touch "$hostile_dir/.stamp"
    echo "hostile/ corpus                      $(ls "$hostile_dir" | wc -l) files"
fi

# Disc images and folders (DVD-Video): make-disc-fixtures.sh into OUTDIR/disc (its header lists them).
bash "$script_dir/make-disc-fixtures.sh" "$outdir/disc" | sed 's|^|disc/|'

# Network sources (progressive HTTP, HLS, DASH, thumbnail manifests, hostile playlists):
# make-network-fixtures.sh into OUTDIR/net, with its own skip-if-current checks.
net_args=("$outdir/net")
if [[ $force -eq 1 ]]; then net_args=(--force "${net_args[@]}"); fi
bash "$script_dir/make-network-fixtures.sh" "${net_args[@]}" | sed 's|^|net/|'
