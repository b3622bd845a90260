#!/usr/bin/env bash
# make-disc-fixtures.sh OUTDIR — the disc fixtures (make-fixtures.sh runs it into OUTDIR/disc):
#   dvd/VIDEO_TS/   a DVD-Video folder written by dvdauthor (NTSC, 720x480, AC-3 mono):
#                   a menu (VIDEO_TS.VOB, 2 s, jumping to title 2), title 1 in title set 1
#                   (3 s, audio 'en': two cells of 1.5 s from separate recordings, the second's
#                   clock starting again as on discs authored from several files), title 2 in
#                   title set 2 (8 s, chapters at 0 and 4 s,
#                   audio 'fr'); title 2 is the main title by playback time although its VOB
#                   is the smaller (testsrc compresses better than testsrc2).
#   dvd.iso         the same folder as an ISO 9660 image (genisoimage -dvd-video), volume AETHER_DVD.
#   bluray/BDMV/    a Blu-ray folder and bluray.iso, its UDF 2.50 image (make-bluray.py says what
#                   they hold): clips 00001 (4 s, 640x360 H.264 at 24 fps, AC-3 stereo) and 00002
#                   (6 s, another picture and tone), each with its clock from ~1.5 s as ffmpeg
#                   writes it and a PGS subtitle (a white box, 1-2 s into 00001, 2-3 s into
#                   00002), and 00003 (1 s); the main title plays 00001 then 00002 (10 s).
# Regenerated when this script or make-bluray.py is newer than OUTDIR/.stamp. Needs ffmpeg,
# dvdauthor, genisoimage, python3.
set -euo pipefail
out=${1:?usage: make-disc-fixtures.sh OUTDIR}
script="${BASH_SOURCE[0]}"
bluray_script="$(dirname "$script")/make-bluray.py"
if [ -f "$out/.stamp" ] && [ "$out/.stamp" -nt "$script" ] && [ "$out/.stamp" -nt "$bluray_script" ]; then exit 0; fi
for tool in ffmpeg dvdauthor genisoimage python3; do
    # Without it (a release that has no such package) the disc tests say they are skipped;
    # under CI (AETHER_REQUIRE_FIXTURES=1, .ci/run) it is a failure, not a green run without them.
    command -v "$tool" >/dev/null || {
        echo "make-disc-fixtures: $tool not found (package $tool): no disc fixtures (install-deps.sh installs it)" >&2
        [ "${AETHER_REQUIRE_FIXTURES:-0}" = 1 ] && exit 1
        exit 0
    }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ff=(ffmpeg -hide_banner -nostdin -loglevel error -y -bitexact)
dvd=(-target ntsc-dvd -aspect 16:9 -threads 2)
"${ff[@]}" -f lavfi -i "testsrc2=s=720x480:r=30000/1001" -f lavfi -i "sine=f=300:r=48000" -t 2 "${dvd[@]}" "$work/menu.mpg"
"${ff[@]}" -f lavfi -i "testsrc2=s=720x480:r=30000/1001" -f lavfi -i "sine=f=440:r=48000" -t 1.5 "${dvd[@]}" "$work/a.mpg"
"${ff[@]}" -f lavfi -i "testsrc2=s=720x480:r=30000/1001" -f lavfi -i "sine=f=550:r=48000" -t 1.5 "${dvd[@]}" "$work/a2.mpg"
"${ff[@]}" -f lavfi -i "testsrc=s=720x480:r=30000/1001" -f lavfi -i "sine=f=660:r=48000" -t 8 "${dvd[@]}" "$work/b.mpg"
cat > "$work/dvd.xml" <<XML
<dvdauthor dest="$work/dvd">
  <vmgm><menus><pgc><vob file="$work/menu.mpg"/><post>jump title 2;</post></pgc></menus></vmgm>
  <titleset><titles><audio lang="en"/><pgc><vob file="$work/a.mpg"/><vob file="$work/a2.mpg"/></pgc></titles></titleset>
  <titleset><titles><audio lang="fr"/><pgc><vob file="$work/b.mpg" chapters="0,4"/></pgc></titles></titleset>
</dvdauthor>
XML
VIDEO_FORMAT=NTSC dvdauthor -x "$work/dvd.xml" >"$work/dvdauthor.log" 2>&1 || { cat "$work/dvdauthor.log" >&2; exit 1; }
genisoimage -quiet -dvd-video -V AETHER_DVD -o "$work/dvd.iso" "$work/dvd"
# Blu-ray clips: ffmpeg's m2ts mode (192-byte source packets, the disc's PIDs), a key frame a second.
bd=(-c:v libx264 -preset veryfast -g 24 -pix_fmt yuv420p -c:a ac3 -ac 2 -b:a 192k -f mpegts -mpegts_m2ts_mode 1)
# PGS (ffmpeg has no encoder): make-bluray.py writes it, ffmpeg muxes it (-copyts: at its own time).
python3 "$bluray_script" --sup "$work/1.sup" 90000 180000
python3 "$bluray_script" --sup "$work/2.sup" 180000 270000
pgs=(-map 0:v -map 1:a -map 2:s -copyts -c:s copy)
"${ff[@]}" -f lavfi -i "testsrc2=s=640x360:r=24" -f lavfi -i "sine=f=440:r=48000" -i "$work/1.sup" -t 4 "${pgs[@]}" "${bd[@]}" "$work/00001.m2ts"
"${ff[@]}" -f lavfi -i "smptebars=s=640x360:r=24" -f lavfi -i "sine=f=550:r=48000" -i "$work/2.sup" -t 6 "${pgs[@]}" "${bd[@]}" "$work/00002.m2ts"
"${ff[@]}" -f lavfi -i "color=c=blue:s=640x360:r=24" -f lavfi -i "sine=f=660:r=48000" -t 1 "${bd[@]}" "$work/00003.m2ts"
mkdir -p "$out"
python3 "$bluray_script" "$work" "$out"
rm -rf "$out/dvd" "$out/dvd.iso"
mv "$work/dvd" "$out/dvd"
mv "$work/dvd.iso" "$out/dvd.iso"
touch "$out/.stamp"
echo "dvd/ and dvd.iso                     $(stat -c %s "$out/dvd.iso") bytes"
echo "bluray/ and bluray.iso               $(stat -c %s "$out/bluray.iso") bytes"
