#!/usr/bin/env bash
# make-network-fixtures.sh — generates the network-source corpus (progressive HTTP, HLS, DASH).
#
# Usage: Tests/Fixtures/make-network-fixtures.sh [--force] [--only NAME] [OUTDIR]
#   OUTDIR   defaults to Tests/Fixtures/out/net (git-ignored).
#   --force  regenerates everything. Without it a file or directory is skipped when it
#            exists and is newer than this script (and than its inputs).
#   --only NAME  considers just the fixture NAME (e.g. hls-abr).
# Prints one line per generated file and nothing when everything is current.
# Needs: ffmpeg and ffprobe (libx264, aac, mjpeg; drawtext for the counter), python3, openssl.
# make-fixtures.sh runs it last, into its OUTDIR/net. 9-11 s on 2 idle cores (one ffmpeg at
# a time), 15 s niced beside a build.
#
# Serve OUTDIR with Tests/Scripts/range_http.py (optionally behind Tests/Scripts/fault_proxy.py)
# and open http://127.0.0.1:PORT/<file>. Every URI inside the playlists and manifests is
# relative (except the hostile ones).
#
# Output is deterministic for a given ffmpeg build: -bitexact everywhere, one thread per
# video encoder (x264 with VBV and several threads is not deterministic), fixed lavfi sources.
#
# Unless noted: video is lavfi testsrc2 at 24 fps with its frame number and time drawn at the
# top left (e.g. "480 00:00:20.000", white on a dark box, DejaVu Sans Mono Bold; without that
# font or fontconfig's monospace, or without drawtext, it is plain testsrc2), H.264 libx264
# ultrafast yuv420p Constrained Baseline, no B-frames, a keyframe exactly every 48 frames (2 s:
# frames 0, 48, 96 ...; no scene cuts), rate-capped (-b:v = -maxrate, bufsize 2 s; the real
# rate lands about 5% above the cap). Audio is AAC-LC stereo 48 kHz, a 440 Hz sine (peak 1/8).
# Clips are 20 s unless noted. HLS segments are MPEG-TS, 2 s each, timestamps from 1.4 s
# (audio 1.400, video 1.421333: mux delay): segment N's first video packet is the keyframe
# of frame 48 N at pts 1.421333 + 2 N. DASH segments are fMP4 (.m4s), 2 s each, video from
# 0 and audio from -0.021333 (AAC priming).
#
# Files (tests may assert these facts; keep this list and the code in step). Bitrates
# "measured" are file bytes x 8 / duration, container overhead included.
#
# Progressive download
#   progressive.mp4
#       640x360 video (cap 500 kb/s, measured 522) + AAC 96 kb/s, 20.000 s (both streams),
#       1556461 bytes, boxes ftyp, moov, free, mdat (+faststart: the index comes first, so
#       a player can seek with one Range request). Keyframes at 0, 2 ... 18 s.
#   progressive.srt
#       Sidecar SubRip for it (UTF-8), four cues: 1–3 s "Network one", 5–7 s "Network two",
#       10–12 s "Network three", 17–19 s "Réseau quatre".
#
# HLS
#   hls-vod/master.m3u8
#       Master playlist (EXT-X-VERSION 3, no EXT-X-MEDIA) of three variants in this order,
#       each EXT-X-STREAM-INF with BANDWIDTH (ffmpeg's: 1.1 x the nominal video + audio rate,
#       so below the measured peak), RESOLUTION and CODECS:
#         v0/index.m3u8  320x180  video 180k + AAC 48k   BANDWIDTH=250800
#                        CODECS="avc1.42c00c,mp4a.40.2"  measured 272 kb/s, peak segment 302
#         v1/index.m3u8  640x360  video 540k + AAC 96k   BANDWIDTH=699600
#                        CODECS="avc1.42c01e,mp4a.40.2"  measured 705 kb/s, peak segment 758
#         v2/index.m3u8  960x540  video 1235k + AAC 128k BANDWIDTH=1499300
#                        CODECS="avc1.42c01f,mp4a.40.2"  measured 1482 kb/s, peak 1635
#       Each variant has its own AAC encode, muxed into its segments.
#   hls-vod/v{0,1,2}/index.m3u8, hls-vod/v{0,1,2}/seg000.ts ... seg009.ts
#       VOD media playlists: EXT-X-VERSION 3, TARGETDURATION 2, MEDIA-SEQUENCE 0,
#       PLAYLIST-TYPE VOD, ten "#EXTINF:2.000000," segments, EXT-X-ENDLIST; 20.000 s each.
#       Segment N holds frames 48 N ... 48 N + 47 in every variant (same content, aligned
#       keyframes: a switch at a segment boundary is seamless). The directory names the
#       variant.
#   hls-abr/master.m3u8
#       Bit-rate switching: a master (EXT-X-VERSION 3, no EXT-X-MEDIA) of three variants of
#       the same 100 s (source_video, 24 fps, keyframes every 2 s), constant bit rate (x264
#       nal-hrd=cbr: filler keeps every segment near its rate), each with the same AAC 64k
#       encode of the tone muxed in (the audio packets are identical in every variant: a
#       switch cannot change the sound). BANDWIDTH is rewritten to round figures above the
#       measured peak (AVERAGE-BANDWIDTH removed):
#         v0/index.m3u8  320x180  video 420k  BANDWIDTH=600000
#         v1/index.m3u8  480x270  video 1200k BANDWIDTH=1500000
#         v2/index.m3u8  640x360  video 3000k BANDWIDTH=3600000
#       fifty 2 s MPEG-TS segments seg000.ts ... seg049.ts each, aligned (segment N starts
#       with frame 48 N in every variant), VOD playlists as in hls-vod.
#   hls-ranges-abr/master.m3u8, v{0,1,2}/index.m3u8, v{0,1,2}/index.ts
#       The first 60 s of hls-abr (its segments 0-29 remuxed, -c copy) as byte ranges: each
#       variant ONE MPEG-TS file (ffmpeg -hls_flags single_file), thirty 2 s segments, each an
#       #EXT-X-BYTERANGE:<length>@<offset> of index.ts, no init section; the ranges differ in
#       length across variants (a switch must not be cut at the playing variant's length). The
#       master is hls-abr's (BANDWIDTH 600000/1500000/3600000).
#   hls-renditions/master.m3u8
#       Master playlist with separate audio renditions: two EXT-X-MEDIA TYPE=AUDIO in group
#       "group_aud", English (LANGUAGE="eng", DEFAULT=YES, URI English/index.m3u8, a 440 Hz
#       tone) and French (LANGUAGE="fra", URI Francais/index.m3u8, 660 Hz), and two video-only
#       variants with AUDIO="group_aud": 2/index.m3u8 320x180 (180k) and 3/index.m3u8 640x360
#       (540k). 10 s, 2 s segments, AAC 64k. A player has to read the master through
#       libavformat (the variant playlists carry no sound).
#   hls-renditions-abr/master.m3u8
#       Bit-rate switching with separate audio renditions: the hls-abr video ladder (80 s of
#       source_video, 24 fps, keyframes every 2 s, x264 nal-hrd=cbr) as three video-only
#       variants v0, v1, v2 (320x180 420k, 480x270 1200k, 640x360 3000k; BANDWIDTH
#       rewritten to 600000, 1500000, 3600000, AVERAGE-BANDWIDTH removed), all with
#       AUDIO="group_aud": English (LANGUAGE="eng", DEFAULT=YES, English/index.m3u8, 440 Hz)
#       and French (LANGUAGE="fra", Francais/index.m3u8, 660 Hz), AAC 64k. 2 s MPEG-TS
#       segments, VOD playlists, segment N of every video variant starts with frame 48 N.
#       master-live-audio.m3u8 is the same master with the French rendition's URI
#       Francais/live.m3u8: its playlist without EXT-X-ENDLIST and EXT-X-PLAYLIST-TYPE (a live
#       rendition beside VOD variants: switching is refused).
#   dash-ranges-abr/sb.mpd, dash-ranges-abr/sl.mpd
#       Bit-rate switching between DASH representations addressed by byte ranges: the
#       hls-renditions-abr variants v0, v1, v2 and the French rendition, stream-copied (no
#       encode) into one fragmented MP4 each (v0.mp4, v1.mp4, v2.mp4, Francais.mp4; a fragment
#       per 2 s keyframe, or per 2 s of audio, a global sidx). sb.mpd addresses them by
#       SegmentBase (the sidx's indexRange and an Initialization range), sl.mpd by SegmentList
#       (an Initialization range and one SegmentURL mediaRange per fragment, read from the sidx
#       here): a video adaptation set of three representations (600000, 1500000, 3600000)
#       and a French audio one. 80 s.
#   hls-aes/index.m3u8, hls-aes/seg000.ts ... seg009.ts, hls-aes/enc.key
#       progressive.mp4's streams (stream copy, so its frames, bit for bit) as one VOD media
#       playlist (no master; ten 2 s segments, 20.000 s), AES-128 encrypted:
#         #EXT-X-KEY:METHOD=AES-128,URI="enc.key",IV=0x101112131415161718191a1b1c1d1e1f
#       once, before the first segment: a relative key URI (fetched over HTTP, Content-Type
#       application/octet-stream) and one explicit IV for every segment (not the media
#       sequence number). enc.key is the 16 bytes 00 01 02 ... 0f. Without the key a segment
#       is not MPEG-TS (ffprobe: "Invalid data found when processing input").
#   hls-thumbs/master.m3u8
#       Master playlist of one variant, v0/index.m3u8 (640x360, video 540k + AAC 96k,
#       BANDWIDTH=699600, CODECS="avc1.42c01e,mp4a.40.2", 30 s: fifteen 2 s segments
#       seg000.ts ... seg014.ts), then a blank line and, as the last line, a Roku-style image
#       stream (appended after ffmpeg wrote the master):
#         #EXT-X-IMAGE-STREAM-INF:BANDWIDTH=15412,RESOLUTION=160x90,CODECS="jpeg",URI="thumbs/index.m3u8"
#       (BANDWIDTH: the bigger sheet's bytes x 8 / 20 s, rounded up). RESOLUTION is one
#       thumbnail's size. lavf's hls demuxer skips the line ("Skip ('#EXT-X-IMAGE-STREAM-INF
#       ...')" at -v verbose) and never fetches the image playlist: ffprobe sees one video and
#       one audio stream, 30.000 s.
#   hls-thumbs/thumbs/index.m3u8, hls-thumbs/thumbs/tile1.jpg, tile2.jpg
#       The image media playlist:
#         #EXTM3U / #EXT-X-TARGETDURATION:20 / #EXT-X-VERSION:7 / #EXT-X-MEDIA-SEQUENCE:0 /
#         #EXT-X-PLAYLIST-TYPE:VOD / #EXT-X-IMAGES-ONLY, then per sheet
#         #EXTINF:<d>, / #EXT-X-TILES:RESOLUTION=160x90,LAYOUT=5x2,DURATION=2.000 / tileN.jpg,
#         then #EXT-X-ENDLIST.
#       Each sheet is an 800x180 baseline JPEG (yuvj420p) of 5 columns x 2 rows of 160x90
#       thumbnails, row-major; thumbnail k (from 0, over all sheets) is video frame 48 k, the
#       picture at k x 2 s (its counter reads 48 k). Two sheets: tile1.jpg (38530 bytes,
#       EXTINF 20.000) covers 0–20 s with ten thumbnails; tile2.jpg (22397 bytes, EXTINF
#       10.000) covers 20–30 s: its top row holds five thumbnails (frames 480 ... 672), its
#       bottom row is black. The clip is 30 s so that there are two sheets and the last is
#       partial.
#
#   hls-download/master.m3u8
#       Offline download (aether-tui download): a master (EXT-X-VERSION 3) of two video-only
#       variants of the same 10 s (source_video, 24 fps, keyframes every 2 s), each with
#       AUDIO="group_aud" and SUBTITLES="subs":
#         2/index.m3u8  160x90   video 100k  BANDWIDTH=162800
#         3/index.m3u8  320x180  video 300k  BANDWIDTH=382800
#       two audio renditions (EXT-X-MEDIA TYPE=AUDIO, GROUP-ID "group_aud", AAC 48k, separate
#       playlists): NAME="English" LANGUAGE="eng" DEFAULT=YES URI English/index.m3u8 (440 Hz)
#       and NAME="Français" LANGUAGE="fra" DEFAULT=NO URI Francais/index.m3u8 (660 Hz), and
#       one WebVTT rendition (TYPE=SUBTITLES, GROUP-ID "subs", NAME="English subtitles",
#       LANGUAGE="eng", DEFAULT=YES, URI 2/index_vtt.m3u8, segments index0.vtt ...), three
#       cues: 1.0–2.5 s "First cue", 3.0–5.0 s "Second cue spans", 6.5–7.5 s "Third cue"
#       (ffmpeg writes them 0.022 s late; each segment gets
#       X-TIMESTAMP-MAP=MPEGTS:126000,LOCAL:00:00:00.000, so on the MPEG-TS timeline they
#       land 1.4 s later, with the media). 2 s MPEG-TS segments seg000.ts ... per variant and
#       rendition.
#   hls-download-aes/master.m3u8
#       The same, every MPEG-TS segment (video and audio; not the WebVTT) AES-128-CBC
#       encrypted (openssl enc, PKCS#7 padding) with the key hls-download-aes/enc.key (00 01
#       ... 0f), each media playlist saying once, before its first segment,
#         #EXT-X-KEY:METHOD=AES-128,URI="../enc.key"
#       with NO IV attribute: the IV is each segment's media sequence number (0, 1 ...).
#
#   hls-download-fmp4/index.m3u8, init.mp4, seg0.m4s ... seg2.m4s
#       A VOD media playlist (EXT-X-VERSION 7) of fragmented-MP4 segments with an init
#       section (#EXT-X-MAP:URI="init.mp4"): source_video 160x90 (video 100k) + the tone (AAC
#       48k) muxed, 6 s, three 2 s segments. What a DASH representation translated into a
#       segment list looks like to the downloader.
#   hls-download-ranges/index.m3u8, index.m4s
#       The same as hls-download-fmp4 in ONE file (ffmpeg -hls_flags single_file): the init
#       section is #EXT-X-MAP:URI="index.m4s",BYTERANGE="<n>@0" and each segment an
#       #EXT-X-BYTERANGE:<length>@<offset> of index.m4s: the shape of a DASH SegmentBase
#       representation (an Initialization range, then the sidx's references).
#
# DASH
#   dash-vod/manifest.mpd
#       Static MPD (profile isoff-live, mediaPresentationDuration PT20.0S, maxSegmentDuration
#       PT2.0S, minBufferTime PT4.0S), one Period, AdaptationSet 0 (video, segmentAlignment,
#       maxWidth 640) with Representation id 0 (320x180, bandwidth 180000, avc1.42c00c;
#       measured 190 kb/s) and id 1 (640x360, bandwidth 540000, avc1.42c01e; measured 565);
#       AdaptationSet 1 (audio) with Representation id 2 (mp4a.40.2, bandwidth 96000, 48 kHz,
#       2 channels). Each Representation has its own SegmentTemplate (initialization
#       "init-stream$RepresentationID$.m4s", media "chunk-stream$RepresentationID$-$Number%05d$.m4s",
#       startNumber 1) with a SegmentTimeline: video timescale 12288, <S t="0" d="24576"
#       r="9"/> (ten 2 s segments); audio timescale 48000, ten segments of 95232 to 96256
#       samples (960000 in all).
#   dash-vod/init-stream{0,1,2}.m4s, dash-vod/chunk-stream{0,1,2}-00001.m4s ... -00010.m4s
#   dash-number/manifest.mpd, init-stream{0,1,2}.m4s, chunk-stream{0,1,2}-00001.m4s ...
#       The same streams and names made with -use_timeline 0: each SegmentTemplate has
#       timescale="1000000" duration="2000000" and no SegmentTimeline ($Number$ addressing:
#       segment n starts at (n-1) x 2 s). Video has ten chunks, 00001 ... 00010; audio has an
#       eleventh, chunk-stream2-00011.m4s (423 bytes: the AAC tail past 20 s), which the MPD
#       (20 s / 2 s = 10 segments) does not address. lavf's dash demuxer asks for chunk 00011
#       of every representation (404 for video, logging "Error when loading first fragment
#       of playlist") and plays to the end anyway.
#   dash-webm/manifest.mpd, init-stream{0,1,2}.webm, chunk-stream{0,1,2}-00001.webm ... -00010.webm
#       The codecs MPEG-TS cannot carry, as WebM (-dash_segment_type webm): the 20 s source
#       as VP9 (libvpx-vp9 realtime, keyframes every 2 s) in AdaptationSet 0, Representation 0
#       (320x180, 150k) and 1 (640x360, 500k), and Opus (64k, 48 kHz) in AdaptationSet 1
#       (Representation 2); SegmentTemplate with a SegmentTimeline, 2 s segments. Our reader
#       serves these as Matroska clusters after a header of its own.
#   dash-av1/manifest.mpd, init-stream{0,1}.m4s, chunk-stream{0,1}-00001.m4s ... -00010.m4s
#       AV1 in fMP4 (libaom-av1 realtime, 320x180, 200k, keyframes every 2 s) and AAC (96k),
#       20 s, 2 s segments, SegmentTimeline.
#   dash-hevc/manifest.mpd, init-stream0.m4s, chunk-stream0-00001.m4s ... -00010.m4s
#       The 20 s source as HEVC (libx265 ultrafast, no B-frames, keyframes every 2 s, hvc1,
#       640x360, 500k) in fMP4, video only, 2 s segments: the later period of a DASH
#       presentation that changes codec (its H.264 first period is dash-vod's).
#   dash-abr/manifest.mpd, init-stream{0,1,2,3}.m4s, chunk-stream{0,1,2,3}-00001.m4s ... -00050.m4s
#       Bit-rate switching for DASH: the hls-abr encodes as DASH (the same 100 s source, 24 fps,
#       keyframes every 2 s, x264 nal-hrd=cbr at 420k/1200k/3000k, 320x180/480x270/640x360),
#       static MPD, SegmentTimeline, $Number%05d$, AdaptationSet 0 video with Representations
#       0, 1, 2 and AdaptationSet 1 audio (Representation 3, AAC 64k, 48 kHz stereo, its own
#       segments). As ffmpeg writes DASH by default: avc1, the parameter sets only in each
#       representation's init section (a player switching representation needs the new one).
#       bandwidth is rewritten to round figures above the measured peak: 600000, 1500000,
#       3600000 (the audio's stays as written).
#   dash-thumbs/manifest.mpd, init-stream{0,1}.m4s, chunk-stream{0,1}-00001 ... -00020.m4s
#       40 s (PT40.0S; twenty 2 s segments, <S t="0" d="24576" r="19"/>), Representation 0
#       video 640x360 bandwidth 540000 (measured 553 kb/s), Representation 1 audio AAC 96000.
#       Then, as the Period's last AdaptationSet (added after ffmpeg wrote the MPD), a DASH-IF
#       IOP 4.3 thumbnail set:
#         <AdaptationSet id="2" contentType="image" mimeType="image/jpeg">
#           <SegmentTemplate media="thumbs/tile$Number$.jpg" duration="20" startNumber="1" timescale="1" />
#           <Representation id="thumbs" bandwidth="15416" width="800" height="180">
#             <EssentialProperty schemeIdUri="http://dashif.org/thumbnail_tile" value="5x2" />
#           </Representation>
#         </AdaptationSet>
#       Width/height are the whole sheet: one thumbnail is 800/5 x 180/2 = 160x90 and lasts
#       20 s / 10 = 2 s; sheet n covers (n-1) x 20 s to n x 20 s. lavf's dash demuxer skips
#       the set ("skipp not supported representation type" at -v verbose) and fetches no
#       tile: ffprobe sees one video and one audio stream, 40.000 s.
#   dash-thumbs/thumbs/tile1.jpg, tile2.jpg
#       Two full 800x180 sheets (5x2, 38530 and 38540 bytes): tile1 holds frames 0, 48 ...
#       432 (0–18 s), tile2 frames 480 ... 912 (20–38 s); thumbnail k = frame 48 k as in
#       hls-thumbs (tile1.jpg is the same file as hls-thumbs/thumbs/tile1.jpg).
#
# Shapes third-party servers write (issue 49), each its own manifest or playlist:
#   dash-shapes/opus.mp4
#       Opus in fragmented MP4 (libopus 48 kb/s mono, 48 kHz, a 440 Hz sine, 0.9065 s): ftyp,
#       moov (an edit list of media time 312, Opus's pre-skip, written in here), a global sidx
#       (timescale 48000, four references: 0.24 s, 0.24 s, 0.24 s, 0.1865 s), then four
#       moof/mdat fragments and no mfra. Its media times start at 10 s (every tfdt and the
#       sidx's earliest presentation time moved by 480000 here): a packager's timeline.
#   dash-shapes/opus-past-end.mp4
#       opus.mp4 with its sidx's last reference one byte longer than the file has (a packager
#       whose last range is off by one): a request for that range is answered one byte short.
#   dash-shapes/init-holds-index.mpd
#       On-demand, one audio set of opus.mp4 by SegmentBase: @indexRange the sidx, an
#       Initialization range from 0 to the sidx's end (it contains the index), timescale
#       48000, presentationTimeOffset 480000; one period of PT0.9S (shorter than a second).
#   dash-shapes/init-past-index.mpd
#       The same with the Initialization range running past the index into the middle of the
#       first fragment's moof (a packager's fixed-length guess).
#   dash-shapes/past-end.mpd
#       The same of opus-past-end.mp4 (Initialization: ftyp and moov; presentationTimeOffset
#       480000): its last reference runs one byte past the file.
#   dash-shapes/periods.mpd
#       dash-vod's top video (1) and its audio (2) as two periods of 10 s (Period@start PT0S and
#       PT10S, each set's presentationTimeOffset its period's start: the media timeline runs
#       on), the audio segment that straddles 10 s (chunk 5, 8.000-10.005 s) listed in both
#       periods as DASH has it (the second period's SegmentTimeline starts at its t=384000).
#       Segments from ../dash-vod/.
#   dash-shapes/long.m3u8
#       HLS VOD media playlist of hls-vod/v0's first five segments (../hls-vod/v0/seg000.ts ...,
#       10 s of media) whose first segment says #EXTINF:1000000, (far past an hour).
#
# Hostile playlists (a player must never read a local file on a remote playlist's say-so)
#   hostile/passwd.m3u8
#       HLS VOD media playlist whose only segment (#EXTINF:2.000000,) is file:///etc/passwd.
#       lavf (5.1.9 here) refuses it even with file whitelisted: "URL file:///etc/passwd is
#       not in allowed_segment_extensions".
#   hostile/passwd-master.m3u8
#       HLS master playlist whose only variant (BANDWIDTH=500000,RESOLUTION=640x360) is
#       file:///etc/passwd. Opened over HTTP with lavf's default protocol whitelist it fails
#       ("Protocol 'file' not on whitelist"); with file in -protocol_whitelist lavf DOES open
#       /etc/passwd (as a variant playlist; it then fails to parse it).
#   hostile/remote-list.m3u
#       Extended M3U of two entries: file:///etc/passwd (#EXTINF:-1,passwd), then
#       ../progressive.mp4 (#EXTINF:20,progressive; against the playlist's URL
#       http://HOST/hostile/remote-list.m3u it resolves to http://HOST/progressive.mp4, which
#       exists). lavf has no demuxer for it.
#   hostile/download-dotdot.m3u8
#       HLS VOD media playlist (for aether-tui download) of hls-download/3's five segments
#       named through `..`: ../hls-download/3/seg000.ts, ../../../../hls-download/3/seg001.ts
#       (dot segments past the root resolve to it: http://HOST/hls-download/3/seg001.ts),
#       ./../hls-download/3/seg002.ts, ../hls-download/./3/seg003.ts,
#       ../hls-download/3/../3/seg004.ts; EXTINF as in hls-download/3/index.m3u8.
#   hostile/download-local-audio.m3u8
#       Master playlist: one variant ../hls-download/3/index.m3u8 (BANDWIDTH=382800,
#       AUDIO="a") whose only audio rendition (EXT-X-MEDIA TYPE=AUDIO, GROUP-ID "a",
#       LANGUAGE="eng", DEFAULT=YES) is URI="file:///etc/passwd".
#   hostile/download-local-key.m3u8
#       VOD media playlist: #EXT-X-KEY:METHOD=AES-128,URI="file:///etc/passwd", then
#       ../hls-download-aes/3/seg000.ts (#EXTINF:2.000000,).
#   hostile/download-absolute.m3u8
#       VOD media playlist whose only segment is the absolute path /etc/passwd (against the
#       playlist's URL: http://HOST/etc/passwd, which the server does not have: 404).
#   hostile/download-escapes.m3u8
#       Master playlist: one variant ../hls-download/2/index.m3u8 (BANDWIDTH=162800,
#       AUDIO="a") whose audio rendition (URI ../hls-download/Francais/index.m3u8, DEFAULT=YES)
#       has NAME = ESC "]0;owned" BEL "Evil" U+202E "vaw.exe" and LANGUAGE = ESC "[2Jfra":
#       terminal controls and a bidi override for the progress line and the output's tags.
#
# HLS spliced with discontinuities (an inserted ad of another size, rate, layout and PIDs):
#   spliced/hls/index.m3u8 and its segments, by make-spliced-fixtures.sh (its header has them).
#
# Live HLS is not a fixture: Tests/Scripts/live_hls.sh OUTDIR SECONDS writes one in real time.

set -euo pipefail
shopt -s inherit_errexit

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
script="$script_dir/$(basename "${BASH_SOURCE[0]}")"

usage() { sed -n '2,10p' "$script" | sed 's/^# \{0,1\}//'; }

force=0
outdir=""
only=""
expect_only=0
for arg in "$@"; do
    if [[ $expect_only -eq 1 ]]; then only=$arg; expect_only=0; continue; fi
    case $arg in
        --force) force=1 ;;
        --only) expect_only=1 ;;
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

# shellcheck source=../Scripts/needs.sh
source "$(dirname "${BASH_SOURCE[0]}")/../Scripts/needs.sh"
needs make-network-fixtures ffmpeg=ffmpeg ffprobe=ffmpeg python3=python3 openssl=openssl

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

# vrate SPEC KBPS: a capped video rate for output stream SPEC (e.g. v:0), bufsize 2 s, as
# separate words: callers leave $(vrate ...) unquoted (shellcheck SC2046) so that it splits.
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
    [[ -z $only || $only == "$name" ]] || return 0
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

# round_bandwidths MASTER: the three variants' BANDWIDTH rewritten to round figures above their
# measured peaks (600000, 1500000, 3600000), AVERAGE-BANDWIDTH removed.
round_bandwidths() {
    python3 - "$1" <<'EOF'
import re, sys
path = sys.argv[1]
rates = iter(["600000", "1500000", "3600000"])
lines = []
for line in open(path, encoding="utf-8").read().splitlines():
    if line.startswith("#EXT-X-STREAM-INF:"):
        line = re.sub(r"(?<=[:,])BANDWIDTH=\d+", "BANDWIDTH=" + next(rates), line)
        line = re.sub(r",AVERAGE-BANDWIDTH=\d+", "", line)
    lines.append(line)
open(path, "w", encoding="utf-8").write("\n".join(lines) + "\n")
EOF
}

gen_hls_abr() {
    mkdir -p "$1"
    local -a out
    mapfile -t out < <(hls_out "$1" "v:0,a:0 v:1,a:1 v:2,a:2")
    "${ff[@]}" -f lavfi -i "$(source_video 640 360 100)" -f lavfi -i "$(tone 100)" \
        -filter_complex "[0:v]split=3[a][b][v2];[a]scale=320:180[v0];[b]scale=480:270[v1];[1:a]asplit=3[a0][a1][a2]" \
        -map '[v0]' -map '[v1]' -map '[v2]' -map '[a0]' -map '[a1]' -map '[a2]' \
        "${x264[@]}" -x264-params nal-hrd=cbr \
        -b:v:0 420k -minrate:v:0 420k -maxrate:v:0 420k -bufsize:v:0 840k \
        -b:v:1 1200k -minrate:v:1 1200k -maxrate:v:1 1200k -bufsize:v:1 2400k \
        -b:v:2 3000k -minrate:v:2 3000k -maxrate:v:2 3000k -bufsize:v:2 6000k \
        "${aac[@]}" -b:a 64k "${bitexact[@]}" "${out[@]}"
    round_bandwidths "$1/master.m3u8"
    grep -q 'BANDWIDTH=3600000' "$1/master.m3u8"
}

gen_hls_ranges_abr() {
    mkdir -p "$1"
    local from=$outdir/hls-abr v k list
    for v in 0 1 2; do
        mkdir -p "$1/v$v"
        list="concat:"
        for k in $(seq -f %03g 0 29); do list+="$from/v$v/seg$k.ts|"; done
        "${ff[@]}" -i "${list%|}" -map 0 -c copy -f hls -hls_time 2 -hls_playlist_type vod -hls_flags single_file \
            "${bitexact[@]}" "$1/v$v/index.m3u8"
        grep -q '#EXT-X-BYTERANGE' "$1/v$v/index.m3u8"
    done
    sed -e "/^$/d" "$from/master.m3u8" > "$1/master.m3u8"
}

gen_hls_renditions() {
    mkdir -p "$1"
    "${ff[@]}" -f lavfi -i "$(source_video 640 360 10)" -f lavfi -i "$(tone 10)" -f lavfi -i "sine=f=660:r=48000:d=10" \
        -filter_complex "[0:v]split=2[a][b];[a]scale=320:180[v0];[b]copy[v1]" \
        -map '[v0]' -map '[v1]' -map 1:a -map 2:a \
        "${x264[@]}" $(vrate v:0 180) $(vrate v:1 540) "${aac[@]}" -b:a 64k \
        -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_filename "$1/%v/seg%03d.ts" -master_pl_name master.m3u8 \
        -var_stream_map "a:0,agroup:aud,language:eng,name:English,default:yes a:1,agroup:aud,language:fra,name:Francais v:0,agroup:aud v:1,agroup:aud" \
        "${bitexact[@]}" "$1/%v/index.m3u8"
    grep -q 'LANGUAGE="fra"' "$1/master.m3u8"
}

gen_hls_renditions_abr() {
    mkdir -p "$1"
    "${ff[@]}" -f lavfi -i "$(source_video 640 360 80)" -f lavfi -i "$(tone 80)" -f lavfi -i "sine=f=660:r=48000:d=80" \
        -filter_complex "[0:v]split=3[a][b][v2];[a]scale=320:180[v0];[b]scale=480:270[v1]" \
        -map '[v0]' -map '[v1]' -map '[v2]' -map 1:a -map 2:a \
        "${x264[@]}" -x264-params nal-hrd=cbr \
        -b:v:0 420k -minrate:v:0 420k -maxrate:v:0 420k -bufsize:v:0 840k \
        -b:v:1 1200k -minrate:v:1 1200k -maxrate:v:1 1200k -bufsize:v:1 2400k \
        -b:v:2 3000k -minrate:v:2 3000k -maxrate:v:2 3000k -bufsize:v:2 6000k \
        "${aac[@]}" -b:a 64k \
        -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_filename "$1/%v/seg%03d.ts" -master_pl_name master.m3u8 \
        -var_stream_map "a:0,agroup:aud,language:eng,name:English,default:yes a:1,agroup:aud,language:fra,name:Francais v:0,agroup:aud,name:v0 v:1,agroup:aud,name:v1 v:2,agroup:aud,name:v2" \
        "${bitexact[@]}" "$1/%v/index.m3u8"
    round_bandwidths "$1/master.m3u8"
    grep -q 'BANDWIDTH=3600000' "$1/master.m3u8"
    grep -q 'LANGUAGE="fra"' "$1/master.m3u8"
    # Hostile: the French rendition live (no ENDLIST, no PLAYLIST-TYPE) beside VOD variants.
    grep -v -e '^#EXT-X-ENDLIST' -e '^#EXT-X-PLAYLIST-TYPE' "$1/Francais/index.m3u8" >"$1/Francais/live.m3u8"
    sed 's#URI="Francais/index.m3u8"#URI="Francais/live.m3u8"#' "$1/master.m3u8" >"$1/master-live-audio.m3u8"
    grep -q 'Francais/live.m3u8' "$1/master-live-audio.m3u8"
}

gen_dash_ranges_abr() {
    mkdir -p "$1"
    local from=$outdir/hls-renditions-abr v segments
    local -a fragments
    for v in v0 v1 v2 Francais; do
        segments=$(cd "$from/$v" && ls seg*.ts | LC_ALL=C sort | sed "s#^#$from/$v/#" | paste -sd'|')
        # Through a plain MP4 first: with empty_moov the AAC config would be missing from the moov.
        "${ff[@]}" -i "concat:$segments" -c copy -bsf:a aac_adtstoasc "$work/$v.mp4"
        # Video: a fragment per keyframe (2 s); audio: a fragment per 2 s (else it is one).
        fragments=(-movflags +frag_keyframe+empty_moov+default_base_moof+global_sidx)
        [[ $v == Francais ]] && fragments=(-frag_duration 2000000 -movflags +empty_moov+default_base_moof+global_sidx)
        "${ff[@]}" -i "$work/$v.mp4" -c copy "${fragments[@]}" "${bitexact[@]}" "$1/$v.mp4"
        rm -f "$work/$v.mp4"
    done
    python3 - "$1" <<'EOF'
import struct, sys
out = sys.argv[1]
def boxes(path):
    b = open(path, 'rb').read()
    at, found = 0, {}
    while at + 8 <= len(b):
        size = struct.unpack('>I', b[at:at + 4])[0]
        found.setdefault(b[at + 4:at + 8].decode('latin1'), (at, size))
        if size < 8:
            break
        at += size
    return b, found
def fragments(path):
    # The sidx's references: (offset, length, seconds) of each fragment.
    b, found = boxes(path)
    at, size = found['sidx']
    version = b[at + 8]
    timescale = struct.unpack('>I', b[at + 16:at + 20])[0]
    p = at + 20
    if version == 0:
        first = struct.unpack('>I', b[p + 4:p + 8])[0]; p += 8
    else:
        first = struct.unpack('>Q', b[p + 8:p + 16])[0]; p += 16
    count = struct.unpack('>H', b[p + 2:p + 4])[0]; p += 4
    offset, refs = at + size + first, []
    for _ in range(count):
        length = struct.unpack('>I', b[p:p + 4])[0] & 0x7fffffff
        duration = struct.unpack('>I', b[p + 4:p + 8])[0]
        refs.append((offset, length, duration / timescale))
        offset += length; p += 12
    return found, refs
def rep(name, bandwidth, attrs, segment_list):
    found, refs = fragments(f'{out}/{name}.mp4')
    moov, sidx = found['moov'], found['sidx']
    init = f'0-{moov[0] + moov[1] - 1}'
    if not segment_list:
        body = (f'<BaseURL>{name}.mp4</BaseURL><SegmentBase indexRange="{sidx[0]}-{sidx[0] + sidx[1] - 1}">'
                f'<Initialization range="{init}"/></SegmentBase>')
    else:
        # Fragments of 2 s (frag_keyframe, a keyframe every 2 s): duration 2, timescale 1.
        urls = ''.join(f'<SegmentURL mediaRange="{o}-{o + n - 1}"/>' for o, n, _ in refs)
        body = (f'<BaseURL>{name}.mp4</BaseURL><SegmentList timescale="1000" duration="{round(refs[0][2] * 1000)}">'
                f'<Initialization range="{init}"/>{urls}</SegmentList>')
    return f'<Representation id="{name}" bandwidth="{bandwidth}" {attrs}>{body}</Representation>'
for kind, segment_list in (('sb', False), ('sl', True)):
    video = ''.join(rep(n, b, f'width="{w}" height="{h}" codecs="avc1.42c01e"', segment_list)
                    for n, b, w, h in (('v0', 600000, 320, 180), ('v1', 1500000, 480, 270), ('v2', 3600000, 640, 360)))
    audio = rep('Francais', 70000, 'codecs="mp4a.40.2" audioSamplingRate="48000"', segment_list)
    open(f'{out}/{kind}.mpd', 'w').write(
        '<?xml version="1.0"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT80S" '
        'minBufferTime="PT2S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011">\n<Period>'
        f'<AdaptationSet mimeType="video/mp4" segmentAlignment="true">{video}</AdaptationSet>'
        f'<AdaptationSet mimeType="audio/mp4" lang="fra">{audio}</AdaptationSet></Period></MPD>\n')
EOF
    grep -q 'SegmentBase indexRange' "$1/sb.mpd"
    grep -q 'SegmentURL mediaRange' "$1/sl.mpd"
}

gen_hls_aes() {
    mkdir -p "$1"
    printf '\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f' >"$1/enc.key"
    printf 'enc.key\n%s\n101112131415161718191a1b1c1d1e1f\n' "$1/enc.key" >"$work/hls-aes.keyinfo"
    "${ff[@]}" -i "$outdir/progressive.mp4" -map 0 -c copy \
        -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_filename "$1/seg%03d.ts" \
        -hls_key_info_file "$work/hls-aes.keyinfo" "${bitexact[@]}" "$1/index.m3u8"
}

# hls_download DIR [KEYINFO]: the download fixture (see hls-download above), encrypted with
# KEYINFO when given.
hls_download() {
    mkdir -p "$1"
    local -a key=()
    if [[ -n ${2:-} ]]; then key=(-hls_key_info_file "$2"); fi
    printf 'WEBVTT\n\n00:00:01.000 --> 00:00:02.500\nFirst cue\n\n00:00:03.000 --> 00:00:05.000\nSecond cue spans\n\n00:00:06.500 --> 00:00:07.500\nThird cue\n' >"$work/download.vtt"
    "${ff[@]}" -f lavfi -i "$(source_video 320 180 10)" -f lavfi -i "$(tone 10)" -f lavfi -i "sine=f=660:r=48000:d=10" \
        -i "$work/download.vtt" \
        -filter_complex "[0:v]split=2[a][b];[a]scale=160:90[v0];[b]copy[v1]" \
        -map '[v0]' -map '[v1]' -map 1:a -map 2:a -map 3:s \
        "${x264[@]}" $(vrate v:0 100) $(vrate v:1 300) "${aac[@]}" -b:a 48k -c:s webvtt \
        -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_filename "$1/%v/seg%03d.ts" -master_pl_name master.m3u8 \
        -var_stream_map "a:0,agroup:aud,language:eng,name:English,default:yes a:1,agroup:aud,language:fra,name:Francais v:0,agroup:aud,s:0,sgroup:subs v:1,agroup:aud" \
        "${key[@]}" "${bitexact[@]}" "$1/%v/index.m3u8"
    python3 - "$1" <<'EOF'
import glob, os, sys
root = sys.argv[1]
path = os.path.join(root, "master.m3u8")
text = open(path, encoding="utf-8").read()
text = text.replace('NAME="audio_0"', 'NAME="English"').replace('NAME="audio_1"', 'NAME="Français"')
text = text.replace('NAME="subtitle_2",DEFAULT=NO,', 'NAME="English subtitles",DEFAULT=YES,LANGUAGE="eng",')
assert text.count('SUBTITLES="subs"') == 2 and 'LANGUAGE="fra"' in text and 'English subtitles' in text, text
open(path, "w", encoding="utf-8").write(text)
for vtt in glob.glob(os.path.join(root, "2", "index*.vtt")):
    body = open(vtt, encoding="utf-8").read()
    assert body.startswith("WEBVTT\n")
    open(vtt, "w", encoding="utf-8").write("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:126000,LOCAL:00:00:00.000" + body[len("WEBVTT"):])
EOF
}
gen_hls_download() { hls_download "$1"; }
gen_hls_download_aes() {
    hls_download "$1"
    printf '\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f' >"$1/enc.key"
    # ffmpeg 5.1's hls muxer writes (and uses) IV=0x0 when the key info has no IV, so the
    # segments are encrypted here instead, each with its media sequence number as the IV.
    local playlist segment seq
    for playlist in "$1"/*/index.m3u8; do
        seq=$(sed -n 's/^#EXT-X-MEDIA-SEQUENCE://p' "$playlist")
        while read -r segment; do
            openssl enc -aes-128-cbc -K 000102030405060708090a0b0c0d0e0f -iv "$(printf '%032x' "$seq")" \
                -in "$(dirname "$playlist")/$segment" -out "$work/segment.enc"
            mv -f "$work/segment.enc" "$(dirname "$playlist")/$segment"
            seq=$((seq + 1))
        done < <(grep -v '^#' "$playlist" | grep .)
        sed -i '0,/^#EXTINF/s//#EXT-X-KEY:METHOD=AES-128,URI="..\/enc.key"\n#EXTINF/' "$playlist"
        grep -q 'METHOD=AES-128' "$playlist"
    done
}

gen_hls_download_fmp4() {
    mkdir -p "$1"
    "${ff[@]}" -f lavfi -i "$(source_video 160 90 6)" -f lavfi -i "$(tone 6)" \
        "${x264[@]}" $(vrate v 100) "${aac[@]}" -b:a 48k \
        -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_type fmp4 -hls_fmp4_init_filename init.mp4 \
        -hls_segment_filename "$1/seg%d.m4s" "${bitexact[@]}" "$1/index.m3u8"
    grep -q '#EXT-X-MAP:URI="init.mp4"' "$1/index.m3u8"
}

gen_hls_download_ranges() {
    mkdir -p "$1"
    "${ff[@]}" -f lavfi -i "$(source_video 160 90 6)" -f lavfi -i "$(tone 6)" \
        "${x264[@]}" $(vrate v 100) "${aac[@]}" -b:a 48k \
        -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_type fmp4 -hls_flags single_file \
        "${bitexact[@]}" "$1/index.m3u8"
    grep -q '#EXT-X-MAP:URI="index.m4s",BYTERANGE=' "$1/index.m3u8"
    [[ $(grep -c '^#EXT-X-BYTERANGE:' "$1/index.m3u8") -eq 3 ]]
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
gen_dash_abr() {
    mkdir -p "$1"
    local -a out
    mapfile -t out < <(dash_out "$1" 1)
    "${ff[@]}" -f lavfi -i "$(source_video 640 360 100)" -f lavfi -i "$(tone 100)" \
        -filter_complex "[0:v]split=3[a][b][v2];[a]scale=320:180[v0];[b]scale=480:270[v1]" \
        -map '[v0]' -map '[v1]' -map '[v2]' -map 1:a \
        "${x264[@]}" -x264-params nal-hrd=cbr \
        -b:v:0 420k -minrate:v:0 420k -maxrate:v:0 420k -bufsize:v:0 840k \
        -b:v:1 1200k -minrate:v:1 1200k -maxrate:v:1 1200k -bufsize:v:1 2400k \
        -b:v:2 3000k -minrate:v:2 3000k -maxrate:v:2 3000k -bufsize:v:2 6000k \
        "${aac[@]}" -b:a 64k "${bitexact[@]}" "${out[@]}"
    python3 - "$1/manifest.mpd" <<'EOF'
import re, sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
rates = iter(["600000", "1500000", "3600000"])
text = re.sub(r'(<Representation id="[012]"[^>]*?bandwidth=")\d+"', lambda m: m.group(1) + next(rates) + '"', text)
open(path, "w", encoding="utf-8").write(text)
EOF
    grep -q 'bandwidth="3600000"' "$1/manifest.mpd"
}
gen_dash_number() { dash_two_videos "$1" 0; }
gen_dash_webm() {
    mkdir -p "$1"
    local -a out
    mapfile -t out < <(dash_out "$1" 1)
    "${ff[@]}" -f lavfi -i "$(source_video 640 360 20)" -f lavfi -i "$(tone 20)" \
        -filter_complex "[0:v]split=2[a][v1];[a]scale=320:180[v0]" \
        -map '[v0]' -map '[v1]' -map 1:a \
        -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -row-mt 0 -threads:v 1 -pix_fmt yuv420p -g 48 -keyint_min 48 \
        -b:v:0 150k -b:v:1 500k -c:a libopus -b:a 64k -ar 48000 -ac 2 \
        -dash_segment_type webm "${bitexact[@]}" "${out[@]}"
    grep -q 'mimeType="video/webm"' "$1/manifest.mpd"
}
gen_dash_hevc() {
    mkdir -p "$1"
    "${ff[@]}" -f lavfi -i "$(source_video 640 360 20)" -map 0:v \
        -c:v libx265 -preset ultrafast -pix_fmt yuv420p -tag:v hvc1 -b:v 500k \
        -x265-params log-level=error:keyint=48:min-keyint=48:scenecut=0:bframes=0:pools=1:frame-threads=1 \
        -f dash -seg_duration 2 -use_template 1 -use_timeline 1 -adaptation_sets 'id=0,streams=v' \
        "${bitexact[@]}" "$1/manifest.mpd"
    grep -q '<S t="0" d="24576" r="9" />' "$1/manifest.mpd"
}
gen_dash_av1() {
    mkdir -p "$1"
    local -a out
    mapfile -t out < <(dash_out "$1" 1)
    "${ff[@]}" -f lavfi -i "$(source_video 320 180 20)" -f lavfi -i "$(tone 20)" \
        -map 0:v -map 1:a -c:v libaom-av1 -usage realtime -cpu-used 8 -threads:v 1 -row-mt 0 -g 48 -keyint_min 48 -b:v 200k \
        "${aac[@]}" -b:a 96k "${bitexact[@]}" "${out[@]}"
    grep -q 'codecs="av01' "$1/manifest.mpd"
}

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
    cat >"$1/download-dotdot.m3u8" <<'EOF'
#EXTM3U
#EXT-X-VERSION:3
#EXT-X-TARGETDURATION:2
#EXT-X-MEDIA-SEQUENCE:0
#EXT-X-PLAYLIST-TYPE:VOD
#EXTINF:2.000000,
../hls-download/3/seg000.ts
#EXTINF:2.000000,
../../../../hls-download/3/seg001.ts
#EXTINF:2.000000,
./../hls-download/3/seg002.ts
#EXTINF:2.000000,
../hls-download/./3/seg003.ts
#EXTINF:2.000000,
../hls-download/3/../3/seg004.ts
#EXT-X-ENDLIST
EOF
    cat >"$1/download-local-audio.m3u8" <<'EOF'
#EXTM3U
#EXT-X-VERSION:3
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="passwd",DEFAULT=YES,LANGUAGE="eng",URI="file:///etc/passwd"
#EXT-X-STREAM-INF:BANDWIDTH=382800,RESOLUTION=320x180,AUDIO="a"
../hls-download/3/index.m3u8
EOF
    cat >"$1/download-local-key.m3u8" <<'EOF'
#EXTM3U
#EXT-X-VERSION:3
#EXT-X-TARGETDURATION:2
#EXT-X-PLAYLIST-TYPE:VOD
#EXT-X-KEY:METHOD=AES-128,URI="file:///etc/passwd"
#EXTINF:2.000000,
../hls-download-aes/3/seg000.ts
#EXT-X-ENDLIST
EOF
    cat >"$1/download-absolute.m3u8" <<'EOF'
#EXTM3U
#EXT-X-VERSION:3
#EXT-X-TARGETDURATION:2
#EXT-X-PLAYLIST-TYPE:VOD
#EXTINF:2.000000,
/etc/passwd
#EXT-X-ENDLIST
EOF
    printf '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="\033]0;owned\007Evil\342\200\256vaw.exe",DEFAULT=YES,LANGUAGE="\033[2Jfra",URI="../hls-download/Francais/index.m3u8"\n#EXT-X-STREAM-INF:BANDWIDTH=162800,AUDIO="a"\n../hls-download/2/index.m3u8\n' \
        >"$1/download-escapes.m3u8"
}

# Issue 49's shapes (see dash-shapes above).
gen_dash_shapes() {
    mkdir -p "$1"
    "${ff[@]}" -f lavfi -i "sine=f=440:r=48000:d=0.9" -c:a libopus -b:a 48k -ac 1 -frag_duration 240000 \
        -movflags +empty_moov+default_base_moof+global_sidx "${bitexact[@]}" "$work/opus.mp4"
    python3 - "$work/opus.mp4" "$1" <<'EOF'
import struct, sys
source, out = sys.argv[1], sys.argv[2]
b = bytearray(open(source, 'rb').read())
def top(data):
    at, found = 0, {}
    while at + 8 <= len(data):
        size = struct.unpack('>I', data[at:at + 4])[0]
        found.setdefault(bytes(data[at + 4:at + 8]), (at, size))
        at += size
    return found
def child(data, name, at, end):
    while at + 8 <= end:
        size = struct.unpack('>I', data[at:at + 4])[0]
        if data[at + 4:at + 8] == name:
            return at, size
        at += size
b = b[:top(b)[b'mfra'][0]]
# An edit list of media time 312 after the track header.
moov, moov_size = top(b)[b'moov']
trak, trak_size = child(b, b'trak', moov + 8, moov + moov_size)
tkhd, tkhd_size = child(b, b'tkhd', trak + 8, trak + trak_size)
elst = struct.pack('>I4sII', 28, b'elst', 0, 1) + struct.pack('>IiHH', 0, 312, 1, 0)
b[tkhd + tkhd_size:tkhd + tkhd_size] = struct.pack('>I4s', 36, b'edts') + elst
b[trak:trak + 4] = struct.pack('>I', trak_size + 36)
b[moov:moov + 4] = struct.pack('>I', moov_size + 36)
# Media times from 10 s: every tfdt and the sidx's earliest presentation time.
shift = 480000
sidx, sidx_size = top(b)[b'sidx']
wide = b[sidx + 8] == 1   # version 1: 64-bit times and offsets
time_format = '>Q' if wide else '>I'
struct.pack_into(time_format, b, sidx + 20, struct.unpack_from(time_format, b, sidx + 20)[0] + shift)
at = sidx + sidx_size
while at + 8 <= len(b):
    size = struct.unpack('>I', b[at:at + 4])[0]
    if b[at + 4:at + 8] == b'moof':
        traf, traf_size = child(b, b'traf', at + 8, at + size)
        tfdt, _ = child(b, b'tfdt', traf + 8, traf + traf_size)
        assert b[tfdt + 8] == 1
        struct.pack_into('>Q', b, tfdt + 12, struct.unpack_from('>Q', b, tfdt + 12)[0] + shift)
    at += size
open(f'{out}/opus.mp4', 'wb').write(b)
# The last reference one byte longer than the file has.
refs = sidx + (36 if wide else 28)
count = struct.unpack_from('>H', b, refs + 2)[0]
last = refs + 4 + 12 * (count - 1)
struct.pack_into('>I', b, last, struct.unpack_from('>I', b, last)[0] + 1)
open(f'{out}/opus-past-end.mp4', 'wb').write(b)
def mpd(name, media, init_end):
    open(f'{out}/{name}', 'w').write(
        '<?xml version="1.0"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT0.9S" '
        'minBufferTime="PT1S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011">\n<Period duration="PT0.9S">'
        '<AdaptationSet mimeType="audio/mp4" lang="en"><Representation id="opus" bandwidth="48000" codecs="opus" audioSamplingRate="48000">'
        f'<BaseURL>{media}</BaseURL><SegmentBase timescale="48000" presentationTimeOffset="{shift}" indexRange="{sidx}-{sidx + sidx_size - 1}">'
        f'<Initialization range="0-{init_end}"/></SegmentBase></Representation></AdaptationSet></Period></MPD>\n')
mpd('init-holds-index.mpd', 'opus.mp4', sidx + sidx_size - 1)
# Past the index, into the middle of the first fragment's moof (issue 59, item 6: init 0-1048
# over an index at 693-744 in a packager's stream).
first_moof = struct.unpack('>I', b[sidx + sidx_size:sidx + sidx_size + 4])[0]
mpd('init-past-index.mpd', 'opus.mp4', sidx + sidx_size - 1 + first_moof // 2)
mpd('past-end.mpd', 'opus-past-end.mp4', sidx - 1)
EOF
    local period
    period() { # ID START VIDEO-FIRST VIDEO-S AUDIO-FIRST AUDIO-S
        local v='init-stream$RepresentationID$.m4s' m='chunk-stream$RepresentationID$-$Number%05d$.m4s'
        printf '<Period id="%s" start="PT%sS" duration="PT10S"><BaseURL>../dash-vod/</BaseURL>\n' "$1" "$2"
        printf '<AdaptationSet id="0" contentType="video" segmentAlignment="true"><Representation id="1" mimeType="video/mp4" codecs="avc1.42c01e" bandwidth="540000" width="640" height="360">\n'
        printf '<SegmentTemplate timescale="12288" presentationTimeOffset="%s" initialization="%s" media="%s" startNumber="%s"><SegmentTimeline>%s</SegmentTimeline></SegmentTemplate></Representation></AdaptationSet>\n' \
            $(($2 * 12288)) "$v" "$m" "$3" "$4"
        printf '<AdaptationSet id="1" contentType="audio" lang="eng"><Representation id="2" mimeType="audio/mp4" codecs="mp4a.40.2" bandwidth="96000" audioSamplingRate="48000">\n'
        printf '<SegmentTemplate timescale="48000" presentationTimeOffset="%s" initialization="%s" media="%s" startNumber="%s"><SegmentTimeline>%s</SegmentTimeline></SegmentTemplate></Representation></AdaptationSet></Period>\n' \
            $(($2 * 48000)) "$v" "$m" "$5" "$6"
    }
    {
        printf '<?xml version="1.0" encoding="utf-8"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-live:2011" type="static" mediaPresentationDuration="PT20.0S" minBufferTime="PT4.0S">\n'
        period 0 0 1 '<S t="0" d="24576" r="4"/>' 1 '<S t="0" d="95232"/><S d="96256" r="3"/>'
        period 1 10 6 '<S t="122880" d="24576" r="4"/>' 5 '<S t="384000" d="96256" r="2"/><S d="95232"/><S d="96256"/><S d="95744"/>'
        printf '</MPD>\n'
    } >"$1/periods.mpd"
    {
        printf '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n'
        printf '#EXTINF:1000000,\n../hls-vod/v0/seg000.ts\n'
        for k in 1 2 3 4; do printf '#EXTINF:2.000000,\n../hls-vod/v0/seg%03d.ts\n' "$k"; done
        printf '#EXT-X-ENDLIST\n'
    } >"$1/long.m3u8"
}

# ---------------------------------------------------------------------------

build progressive.mp4 gen_progressive
build progressive.srt gen_progressive_srt
build hls-vod         gen_hls_vod
build hls-abr         gen_hls_abr
build hls-ranges-abr  gen_hls_ranges_abr "$outdir/hls-abr"
build hls-renditions  gen_hls_renditions
build hls-renditions-abr gen_hls_renditions_abr
build dash-ranges-abr  gen_dash_ranges_abr "$outdir/hls-renditions-abr"
build hls-aes         gen_hls_aes "$outdir/progressive.mp4"
build hls-thumbs      gen_hls_thumbs
build hls-download    gen_hls_download
build hls-download-aes gen_hls_download_aes
build hls-download-fmp4 gen_hls_download_fmp4
build hls-download-ranges gen_hls_download_ranges
build dash-vod        gen_dash_vod
build dash-number     gen_dash_number
build dash-abr        gen_dash_abr
build dash-webm       gen_dash_webm
build dash-av1        gen_dash_av1
build dash-hevc       gen_dash_hevc
build dash-thumbs     gen_dash_thumbs
build dash-shapes     gen_dash_shapes "$outdir/dash-vod" "$outdir/hls-vod"
build hostile         gen_hostile
# HLS spliced with discontinuities (an inserted ad): make-spliced-fixtures.sh (its header lists them).
if [[ -z $only || $only == spliced ]]; then bash "$script_dir/make-spliced-fixtures.sh" "$outdir/spliced"; fi
