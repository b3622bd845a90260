#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a film playing in this terminal: installs the
# packages, builds aether-tui (release), generates a 30 s demo clip with subtitles and chapters,
# and plays it. Extra arguments go to aether-tui (e.g. --vo=sixel, --theme=light).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
bash Tests/Scripts/install-deps.sh
swift build -c release --product aether-tui
out="$root/Tests/Fixtures/out"
mkdir -p "$out"
clip="$out/demo.mkv"
if [ ! -s "$clip" ]; then
    printf '1\n00:00:01,000 --> 00:00:05,000\nWelcome to aether-tui\n\n2\n00:00:06,000 --> 00:00:10,000\nspace pauses, ← → seek, i shows stats, ? lists every key\n\n3\n00:00:12,000 --> 00:00:16,000\nq quits\n' > "$out/demo.srt"
    printf ';FFMETADATA1\ntitle=aether-tui demo\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=10000\ntitle=Colour bars\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=10000\nEND=20000\ntitle=Middle\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=20000\nEND=30000\ntitle=Finale\n' > "$out/demo.ffmeta"
    ffmpeg -v error -y -f lavfi -i testsrc2=s=1280x720:r=24 -f lavfi -i "sine=f=440:b=2" \
        -i "$out/demo.srt" -i "$out/demo.ffmeta" -map 0:v -map 1:a -map 2:s -map_metadata 3 -map_chapters 3 \
        -t 30 -c:v libx264 -preset veryfast -crf 26 -g 24 -c:a aac -b:a 96k -c:s srt \
        -metadata:s:a:0 language=eng -metadata:s:s:0 language=eng -disposition:s:0 default "$clip"
fi
exec "$root/.build/release/aether-tui" "$clip" "$@"
