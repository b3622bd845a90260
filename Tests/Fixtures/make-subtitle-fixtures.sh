#!/usr/bin/env bash
# make-subtitle-fixtures.sh — the ASS typesetting fixtures (issue #23), apart from
# make-fixtures.sh so that adding them does not make every other fixture out of date.
#
# Usage: Tests/Fixtures/make-subtitle-fixtures.sh [OUTDIR]
#   OUTDIR defaults to Tests/Fixtures/out-subtitles (git-ignored). A file is regenerated when it
#   is missing or older than this script. Prints one line per generated file.
# Needs: ffmpeg (libx264).
#
# Files (tests assert these facts; keep this list and the code in step):
#   ass-signs.mkv
#       H.264 320x240 24 fps 6 s testsrc2, no audio, one ASS track (PlayRes 320x240, WrapStyle 0,
#       styles Default (bottom centre, white) and Sign (\an8 top centre, yellow &H0000FFFF)),
#       all events 0.5–5.5 s:
#         "{\an8}Top sign here"                          (Default style with \an8: the top rows)
#         "Bottom {\b1}bold{\b0} {\c&H0000FF&}red"        (bottom centre)
#         "{\pos(16,120)\an4}Left{\fscx150} edge"          (positioned, middle left)
#         "{\p1}m 0 0 l 100 0 100 100 0 100{\p0}"          (a drawing alone: nothing in cells)
#         "{\k25}Ka{\k25}ra{\k50}oke{\t(0,500,\frz30)}"     (karaoke and animation tags)
#   ass-font.mkv
#       solid grey (0x808080) 320x240 10 fps 3 s, one ASS track (PlayRes 320x240) whose style asks
#       for the family "Aether Serif", and that font attached (application/x-truetype-font,
#       AetherSerif.ttf): DejaVu Serif (fonts-dejavu-core) with its family renamed, so the system
#       does not have it. Event 0–3 s: "Glyph Rag" (size 48, bottom centre, white, outline 1).
#   ass-sign-e2e.mkv
#       solid green (0x00C000) 320x240 10 fps 20 s, one ASS track (PlayRes 320x240): a red filled
#       square drawn by a positioned drawing, {\an7\pos(240,160)} 60x60 px (x 240–300,
#       y 160–220), 0–20 s. Pixel outputs show it at that place; text cells drop drawings.
set -euo pipefail
script=$(readlink -f "$0")
outdir=${1:-$(dirname "$script")/out-subtitles}
mkdir -p "$outdir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ff=(ffmpeg -hide_banner -nostdin -loglevel error -y)

current() { [[ -e $1 && $1 -nt $script ]]; }

write_signs_ass() {
    cat >"$1" <<'ASS'
[Script Info]
ScriptType: v4.00+
WrapStyle: 0
ScaledBorderAndShadow: yes
PlayResX: 320
PlayResY: 240

[V4+ Styles]
Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
Style: Default,DejaVu Sans,18,&H00FFFFFF,&H000000FF,&H00000000,&H80000000,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,1
Style: Sign,DejaVu Sans,16,&H0000FFFF,&H000000FF,&H00000000,&H80000000,-1,0,0,0,100,100,0,0,1,1,0,8,10,10,10,1

[Events]
Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
Dialogue: 0,0:00:00.50,0:00:05.50,Default,,0,0,0,,{\an8}Top sign here
Dialogue: 0,0:00:00.50,0:00:05.50,Default,,0,0,0,,Bottom {\b1}bold{\b0} {\c&H0000FF&}red
Dialogue: 0,0:00:00.50,0:00:05.50,Sign,,0,0,0,,{\pos(16,120)\an4}Left{\fscx150} edge
Dialogue: 1,0:00:00.50,0:00:05.50,Default,,0,0,0,,{\p1}m 0 0 l 100 0 100 100 0 100{\p0}
Dialogue: 0,0:00:00.50,0:00:05.50,Default,,0,0,0,,{\k25}Ka{\k25}ra{\k50}oke{\t(0,500,\frz30)}
ASS
}

out="$outdir/ass-signs.mkv"
if ! current "$out"; then
    write_signs_ass "$work/signs.ass"
    "${ff[@]}" -f lavfi -i testsrc2=s=320x240:r=24:d=6 -i "$work/signs.ass" -map 0:v -map 1:s \
        -c:v libx264 -preset ultrafast -pix_fmt yuv420p -g 24 -threads 1 -crf 30 -c:s ass \
        -bitexact "$work/ass-signs.mkv"
    mv -f "$work/ass-signs.mkv" "$out"
    printf '%-36s %9d bytes\n' ass-signs.mkv "$(stat -c %s "$out")"
fi

out="$outdir/ass-font.mkv"
if ! current "$out"; then
    # The family renamed in the name table (same length, ASCII and UTF-16BE records): FreeType
    # does not check table checksums, fontconfig does not know the name.
    perl -0777 -pe 's/DejaVu Serif/Aether Serif/g; s/\0D\0e\0j\0a\0V\0u\0 \0S\0e\0r\0i\0f/\0A\0e\0t\0h\0e\0r\0 \0S\0e\0r\0i\0f/g' \
        /usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf >"$work/AetherSerif.ttf"
    cat >"$work/font.ass" <<'ASS'
[Script Info]
ScriptType: v4.00+
PlayResX: 320
PlayResY: 240

[V4+ Styles]
Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
Style: Default,Aether Serif,48,&H00FFFFFF,&H000000FF,&H00000000,&H80000000,0,0,0,0,100,100,0,0,1,1,0,2,10,10,20,1

[Events]
Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
Dialogue: 0,0:00:00.00,0:00:03.00,Default,,0,0,0,,Glyph Rag
ASS
    "${ff[@]}" -f lavfi -i color=c=0x808080:s=320x240:r=10:d=3 -i "$work/font.ass" -map 0:v -map 1:s \
        -c:v libx264 -preset ultrafast -pix_fmt yuv420p -threads 1 -crf 30 -c:s ass \
        -attach "$work/AetherSerif.ttf" -metadata:s:t:0 mimetype=application/x-truetype-font \
        -bitexact "$work/ass-font.mkv"
    mv -f "$work/ass-font.mkv" "$out"
    printf '%-36s %9d bytes\n' ass-font.mkv "$(stat -c %s "$out")"
fi

out="$outdir/ass-sign-e2e.mkv"
if ! current "$out"; then
    cat >"$work/sign.ass" <<'ASS'
[Script Info]
ScriptType: v4.00+
PlayResX: 320
PlayResY: 240

[V4+ Styles]
Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
Style: Default,DejaVu Sans,18,&H000000FF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,0,0,7,0,0,0,1

[Events]
Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
Dialogue: 0,0:00:00.00,0:00:20.00,Default,,0,0,0,,{\an7\pos(240,160)\p1}m 0 0 l 60 0 60 60 0 60{\p0}
ASS
    "${ff[@]}" -f lavfi -i color=c=0x00C000:s=320x240:r=10:d=20 -i "$work/sign.ass" -map 0:v -map 1:s \
        -c:v libx264 -preset ultrafast -pix_fmt yuv420p -threads 1 -crf 20 -c:s ass \
        -bitexact "$work/ass-sign-e2e.mkv"
    mv -f "$work/ass-sign-e2e.mkv" "$out"
    printf '%-36s %9d bytes\n' ass-sign-e2e.mkv "$(stat -c %s "$out")"
fi
