#!/usr/bin/env bash
# libFuzzer over the code that reads untrusted bytes (not part of CI):
#   bash Tests/Scripts/fuzz.sh media|subtitle|ass|theme|equalizer|hls|dash|mpd|download|inputconf|config|playlist|watchlater|ipc|replies|ytdl|ebml|bmff|mpegts|wvtt|lrc|terminals|exif|icy|httphead|iso9660|ifo|udf|mpls|clpi [seconds=600]
# Builds Sources/aether-fuzz with -sanitize=fuzzer,address in $FUZZ_SCRATCH (default .build-fuzz), seeds a working corpus
# (Tests/Fixtures/out/fuzz/TARGET) from the generated fixtures, themes and the kept regressions,
# runs for the given time, and copies any crash, leak-free timeout or OOM input into
# Tests/Fuzz/Regressions/TARGET/ (commit those: the suite replays them on every run).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
target="${1:?usage: fuzz.sh media|subtitle|ass|theme|equalizer|hls|dash|mpd|download|inputconf|config|playlist|watchlater|ipc|replies|ytdl|ebml|bmff|mpegts|wvtt|lrc|terminals|exif|icy|httphead|iso9660|ifo|udf|mpls|clpi [seconds]}"
seconds="${2:-600}"
scratch="${FUZZ_SCRATCH:-.build-fuzz}"
case "$target" in media|subtitle|ass|theme|equalizer|hls|dash|mpd|download|inputconf|config|playlist|watchlater|ipc|replies|ytdl|ebml|bmff|mpegts|wvtt|lrc|terminals|exif|icy|httphead|iso9660|ifo|udf|mpls|clpi) ;; *) echo "unknown target $target" >&2; exit 2 ;; esac
swift build --product aether-fuzz --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING >/dev/null
corpus="Tests/Fixtures/out/fuzz/$target"
artifacts="Tests/Fixtures/out/fuzz/$target-artifacts"
regressions="Tests/Fuzz/Regressions/$target"
mkdir -p "$corpus" "$artifacts" "$regressions"
seed() {  # seed NAME FILE: the first 64 KiB of FILE
    head -c 65536 "$2" > "$corpus/seed-$1" 2>/dev/null || true
}
case "$target" in
    media)
        bash Tests/Fixtures/make-fixtures.sh >/dev/null
        for f in Tests/Fixtures/out/*.{mkv,mp4,webm,ts,avi,ogg,flv,nut,wav} Tests/Fixtures/out/hostile/*.{mkv,mp4,webm,ts,nut,wav}; do
            [ -f "$f" ] && seed "$(basename "$f")" "$f"
        done
        max_len=65536 ;;
    subtitle)
        # First byte picks the codec (DecodeCheck.subtitleCodecs): 0 subrip, 1 ass, 2 webvtt, 3 mov_text,
        # 4 PGS, 5 DVD, 6 DVB.
        printf '\x00Hello <i>world</i>\n<font color="red">x</font>' > "$corpus/seed-subrip"
        printf '\x010,0,Default,,0,0,0,,{\\an8\\c&H00FF00&}Top {\\b1}bold{\\b0}\\Nline' > "$corpus/seed-ass"
        printf '\x02<v Bob>Hi</v> <c.red>there</c>' > "$corpus/seed-webvtt"
        printf '\x03\x00\x05hello' > "$corpus/seed-movtext"
        for f in Tests/Fixtures/out/*.sup; do [ -f "$f" ] && { printf '\x04'; head -c 4096 "$f"; } > "$corpus/seed-pgs-$(basename "$f")"; done
        max_len=16384 ;;
    ass)
        # An ASS header, a NUL, then one event per line (ASSCellCheck); seeds in Tests/Fuzz/Regressions/ass.
        max_len=16384 ;;
    theme)
        for f in themes/*.theme; do cp "$f" "$corpus/seed-$(basename "$f")"; done
        max_len=8192 ;;
    equalizer)
        # AutoEq's form (the seeds in Tests/Fuzz/Regressions/equalizer).
        max_len=16384 ;;
    hls)
        bash Tests/Fixtures/make-fixtures.sh >/dev/null
        for f in Tests/Fixtures/out/net/hls-*/*.m3u8 Tests/Fixtures/out/net/hls-*/*/*.m3u8; do
            [ -f "$f" ] && seed "$(echo "${f#Tests/Fixtures/out/net/}" | tr / -)" "$f"
        done
        max_len=65536 ;;
    download)
        # First byte picks the reader (DownloadCheck): 0 the state journal, 1 WebVTT segments
        # (split at NUL), 2 the HLS planner, 3 the DASH planner.
        cp Tests/Fuzz/Regressions/download/* "$corpus/" 2>/dev/null || true
        bash Tests/Fixtures/make-fixtures.sh >/dev/null
        for f in Tests/Fixtures/out/net/hls-download/master.m3u8 Tests/Fixtures/out/net/hls-download*/*/index*.m3u8 Tests/Fixtures/out/net/hostile/download-*.m3u8; do
            [ -f "$f" ] && { printf '\x02'; head -c 65536 "$f"; } > "$corpus/seed-$(echo "${f#Tests/Fixtures/out/net/}" | tr / -)"
        done
        for f in Tests/Fixtures/out/net/dash-*/*.mpd; do
            [ -f "$f" ] && { printf '\x03'; head -c 65536 "$f"; } > "$corpus/seed-$(echo "${f#Tests/Fixtures/out/net/}" | tr / -)"
        done
        for f in Tests/Fixtures/out/net/hls-download/2/index*.vtt; do
            [ -f "$f" ] && { printf '\x01'; cat "$f"; } > "$corpus/seed-$(basename "$f")"
        done
        max_len=65536 ;;
    wvtt)
        # A 2-byte length, the init section, one segment (WVTTCheck): written by wvtt_segments.py.
        cp Tests/Fuzz/Regressions/wvtt/* "$corpus/" 2>/dev/null || true
        tmp=$(mktemp -d)
        printf '[{"start": 1, "end": 5, "text": "a", "settings": "line:0", "id": "x"}, {"start": 3, "end": 4.5, "text": "b"}]' > "$tmp/cues.json"
        python3 Tests/Scripts/wvtt_segments.py "$tmp/cues.json" "$tmp/out" 2 3
        for k in 1 2 3; do
            python3 -c 'import sys; h=open(sys.argv[1],"rb").read(); sys.stdout.buffer.write(len(h).to_bytes(2,"big")+h+open(sys.argv[2],"rb").read())' \
                "$tmp/out/init.mp4" "$tmp/out/seg-$k.m4s" > "$corpus/seed-wvtt-$k"
        done
        rm -rf "$tmp"
        max_len=16384 ;;
    exif)
        # JPEG headers with an EXIF APP1 segment (EXIFOrientation): seeds in Tests/Fuzz/Regressions/exif.
        cp Tests/Fuzz/Regressions/exif/* "$corpus/" 2>/dev/null || true
        max_len=4096 ;;
    httphead)
        # An HTTP response (HTTPResponseHead, then HTTPBody): a few answers servers give, with bodies
        # plain, gzip-coded and with a station's title blocks (libcurl frames lengths and chunks).
        printf 'HTTP/1.1 200 OK\r\nContent-Type: video/mp2t\r\nContent-Length: 12\r\n\r\nbody' > "$corpus/seed-200"
        printf 'HTTP/1.0 302 Found\nLocation: /next\nSet-Cookie: a=b; Path=/\n\n' > "$corpus/seed-302-lf"
        printf 'ICY 200 OK\r\nicy-name: Station\r\nicy-metaint: 16000\r\n\r\n' > "$corpus/seed-icy"
        printf 'HTTP/1.0 200 OK\r\nicy-metaint: 4\r\n\r\nabcd\001StreamTitle=x;\000\000\000\000efgh\000ijkl' > "$corpus/seed-icy-blocks"
        { printf 'HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n'; printf '#EXTM3U\n#EXTINF:2,\nseg.ts\n%.0s' {1..50} | gzip -c; } > "$corpus/seed-gzip"
        max_len=70000 ;;
    iso9660)
        # A disc image (ISO9660Image): a small image with VIDEO_TS (the DVD fixture's IFOs).
        if command -v genisoimage >/dev/null && [ -d Tests/Fixtures/out/disc/dvd/VIDEO_TS ]; then
            seed_dir=$(mktemp -d)
            mkdir -p "$seed_dir/VIDEO_TS" && cp Tests/Fixtures/out/disc/dvd/VIDEO_TS/*.IFO "$seed_dir/VIDEO_TS/"
            genisoimage -quiet -V SEED -o "$corpus/seed-video-ts.iso" "$seed_dir" && rm -rf "$seed_dir"
        fi
        cp Tests/Fuzz/Regressions/iso9660/* "$corpus/" 2>/dev/null || true
        max_len=1048576 ;;
    ifo)
        # A DVD's IFOs (DVDInfo): two bytes (the manager's length in 16-byte units), VIDEO_TS.IFO, a title set's IFO.
        for n in 01 02; do
            vmg=Tests/Fixtures/out/disc/dvd/VIDEO_TS/VIDEO_TS.IFO vts=Tests/Fixtures/out/disc/dvd/VIDEO_TS/VTS_${n}_0.IFO
            [ -f "$vmg" ] && { python3 -c "import sys; n=$(stat -c %s "$vmg")//16; sys.stdout.buffer.write(bytes([n>>8, n&255]))"; cat "$vmg" "$vts"; } > "$corpus/seed-vts-$n"
        done
        cp Tests/Fuzz/Regressions/ifo/* "$corpus/" 2>/dev/null || true
        max_len=65536 ;;
    udf)
        # A UDF 2.50 image (UDFImage): the Blu-ray fixture's small files and two short streams,
        # written as make-bluray.py writes bluray.iso (metadata partition, a stream in two extents).
        if [ -d Tests/Fixtures/out/disc/bluray/BDMV ]; then
            seed_dir=$(mktemp -d)
            cp -r Tests/Fixtures/out/disc/bluray/BDMV "$seed_dir/" && rm -f "$seed_dir"/BDMV/STREAM/*
            head -c 20000 Tests/Fixtures/out/disc/bluray/BDMV/STREAM/00001.m2ts > "$seed_dir/BDMV/STREAM/00001.m2ts"
            head -c 9000 Tests/Fixtures/out/disc/bluray/BDMV/STREAM/00002.m2ts > "$seed_dir/BDMV/STREAM/00002.m2ts"
            python3 -c "import importlib.util as u, sys; s=u.spec_from_file_location('b', 'Tests/Fixtures/make-bluray.py'); m=u.module_from_spec(s); s.loader.exec_module(m); m.udf_image(sys.argv[1], sys.argv[2], 'SEED')" "$seed_dir" "$corpus/seed-bdmv.udf"
            rm -rf "$seed_dir"
        fi
        cp Tests/Fuzz/Regressions/udf/* "$corpus/" 2>/dev/null || true
        max_len=1048576 ;;
    mpls)
        # A Blu-ray playlist (BlurayInfo): the fixture's playlists.
        cp Tests/Fixtures/out/disc/bluray/BDMV/PLAYLIST/*.mpls "$corpus/" 2>/dev/null || true
        cp Tests/Fuzz/Regressions/mpls/* "$corpus/" 2>/dev/null || true
        max_len=65536 ;;
    clpi)
        # Clip information (BlurayClip), then the bytes as source packets: the fixture's clip
        # information and the head of a clip.
        cp Tests/Fixtures/out/disc/bluray/BDMV/CLIPINF/*.clpi "$corpus/" 2>/dev/null || true
        [ -f Tests/Fixtures/out/disc/bluray/BDMV/STREAM/00001.m2ts ] && head -c 9600 Tests/Fixtures/out/disc/bluray/BDMV/STREAM/00001.m2ts > "$corpus/seed-m2ts"
        cp Tests/Fuzz/Regressions/clpi/* "$corpus/" 2>/dev/null || true
        max_len=65536 ;;
    icy)
        # A station's icy-* headers and in-band blocks (StationMetadata): seeds in Tests/Fuzz/Regressions/icy.
        cp Tests/Fuzz/Regressions/icy/* "$corpus/" 2>/dev/null || true
        max_len=16384 ;;
    lrc)
        # LRC text (Lyrics): seeds in Tests/Fuzz/Regressions/lrc.
        cp Tests/Fuzz/Regressions/lrc/* "$corpus/" 2>/dev/null || true
        max_len=16384 ;;
    terminals)
        # terminals.json (TerminalMemory): seeds in Tests/Fuzz/Regressions/terminals.
        cp Tests/Fuzz/Regressions/terminals/* "$corpus/" 2>/dev/null || true
        max_len=16384 ;;
    dash|mpd)
        bash Tests/Fixtures/make-fixtures.sh >/dev/null
        for f in Tests/Fixtures/out/net/dash-*/*.mpd; do
            [ -f "$f" ] && seed "$(echo "${f#Tests/Fixtures/out/net/}" | tr / -)" "$f"
        done
        max_len=65536 ;;
    inputconf)
        printf 'RIGHT seek 10\nCtrl+x cycle sub\nk ignore\n# comment\nShift+LEFT seek -1 exact\nAlt+1 set volume 50\nq quit 4\nSPACE cycle pause\nCtrl++ add audio-delay 0.1\n' > "$corpus/seed-input.conf"
        printf 'F8 script-binding x\nBADKEY seek 1\nx\n\tz   add sub-delay -0.1\n' > "$corpus/seed-bad.conf"
        max_len=8192 ;;
    config)
        printf 'volume=70\nalang=jpn,eng\nvo-sixel-dither=fs\n--mute\nsub-file="/a b/c.srt"\nprofile=night\n[night]\nvolume=30\nprofile=loud,night\n[loud]\nvolume=100\nprofile=night\n[broken\nbad line=\n' > "$corpus/seed-aether-tui.conf"
        printf '[a]\nprofile=b,b,b\n[b]\nprofile=c,c,c\n[c]\nvolume=1\n' > "$corpus/seed-fanout.conf"
        max_len=8192 ;;
    playlist)
        printf '#EXTM3U\n#EXTINF:12,First one\na.mkv\n\n# comment\n/abs/b.mkv\nhttp://example.com/c.mp4\nfile:///x/d%%20e.mkv\n' > "$corpus/seed-list.m3u"
        printf '[playlist]\nFile2=two.ogg\nFile1=one.ogg\nTitle1=Uno\nNumberOfEntries=2\n' > "$corpus/seed-list.pls"
        printf '#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nseg0.ts\n' > "$corpus/seed-hls.m3u8"
        max_len=16384 ;;
    watchlater)
        printf '# /home/u/film.mkv\nstart=83.250000\naid=2\nsid=no\nvolume=37.000000\nmute=no\nspeed=1.250000\nsub-delay=0.100000\naudio-delay=-0.050000\n' > "$corpus/seed-entry"
        printf 'start=1e300\nvolume=nan\naid=99999999999999999999\n' > "$corpus/seed-hostile"
        max_len=4096 ;;
    ipc)
        printf '{"command":["get_property","volume"],"request_id":1}\n{"command":["set_property","pause",true]}\n{"command":["observe_property",1,"time-pos"]}\ncycle pause\n{"command":["seek","10","relative"],"request_id":"a"}\n' > "$corpus/seed-requests"
        printf '{"command":["loadfile","/x.mkv","append"],"async":true}\n{"command":["seek",1e308,"absolute"]}\n{"a":[[[[{"b":"\\ud83d\\ude00"}]]]]}\n# comment\nset volume 50\n' > "$corpus/seed-more"
        max_len=16384 ;;
    ytdl)
        # The page reader. Seeds: yt-dlp answers (one video's, a page's playlist) and a web page's
        # head, kept in Tests/Fuzz/Regressions/ytdl (copied in below).
        max_len=65536 ;;
    ebml)
        # The inspector's Matroska structure parser: the Matroska and WebM fixtures' heads (EBML
        # header, SeekHead, Info, Tracks, the first Cluster's blocks), the live one with unknown sizes.
        bash Tests/Fixtures/make-fixtures.sh >/dev/null
        for f in Tests/Fixtures/out/*.{mkv,mka,webm} Tests/Fixtures/out/hostile/*.{mkv,webm}; do
            [ -f "$f" ] && seed "$(basename "$f")" "$f"
        done
        max_len=32768 ;;
    bmff)
        # The first and last 64 KiB of each MP4 (a moov written at the end is in the last).
        [ -d Tests/Fixtures/out ] || bash Tests/Fixtures/make-fixtures.sh >/dev/null
        for f in Tests/Fixtures/out/*.{mp4,m4a,mov} Tests/Fixtures/out/hostile/*.mp4 Tests/Fixtures/out/net/progressive.mp4 \
                 Tests/Fixtures/out/net/dash-vod/init-stream0.m4s Tests/Fixtures/out/net/dash-vod/chunk-stream0-00001.m4s; do
            [ -f "$f" ] || continue
            seed "$(echo "${f#Tests/Fixtures/out/}" | tr / -)" "$f"
            tail -c 65536 "$f" > "$corpus/seed-tail-$(echo "${f#Tests/Fixtures/out/}" | tr / -)"
        done
        max_len=65536 ;;
    mpegts)
        # 16 KiB (87 packets) holds the tables and every kind of packet; larger inputs only
        # repeat them, at a quarter of the speed.
        [ -d Tests/Fixtures/out ] || bash Tests/Fixtures/make-fixtures.sh >/dev/null
        for f in Tests/Fixtures/out/*.{ts,m2ts} Tests/Fixtures/out/hostile/*.ts; do
            [ -f "$f" ] && head -c 16384 "$f" > "$corpus/seed-$(echo "${f#Tests/Fixtures/out/}" | tr / -)"
        done
        max_len=16384 ;;
    replies)
        # Seeds: the answers of real terminals kept in Tests/Fuzz/Regressions/replies (copied in below).
        # First byte: bits 0-3 the read size (0: all at once), bit 4 inside tmux, bit 5 passthrough.
        max_len=4096 ;;
esac
cp "$regressions"/* "$corpus"/ 2>/dev/null || true
log="Tests/Fixtures/out/fuzz/$target.log"
set +e
AETHER_FUZZ_TARGET="$target" ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1" \
    "$scratch"/debug/aether-fuzz "$corpus" -max_total_time="$seconds" -max_len="$max_len" -timeout=20 \
    -rss_limit_mb=3072 -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1
status=$?
set -e
found=0
for f in "$artifacts"/crash-* "$artifacts"/timeout-* "$artifacts"/oom-*; do
    [ -f "$f" ] || continue
    cp "$f" "$regressions/"; found=$((found + 1))
done
grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|cov: [0-9]+" "$log" | tail -4
echo "fuzz $target: ${seconds}s, exit $status, $found new regression input(s) in $regressions (log: $log)"
exit $status
