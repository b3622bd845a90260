#!/usr/bin/env python3
"""live_ladder.py — plays a VOD HLS ladder out as a live one, in real time, for network tests.

Usage: live_ladder.py SRC OUTDIR SECONDS [--window N] [--start N] [--offset V:K]
                      [--stall V:T] [--rewind V:T] [--no-dates]

SRC is a VOD master directory (master.m3u8 and, per variant, vN/index.m3u8 of MPEG-TS segments
whose segments line up across variants, e.g. the `hls-abr` fixture; audio renditions named by
EXT-X-MEDIA URI are played out the same way, e.g. `hls-renditions-abr`). OUTDIR (created) gets a
copy of master.m3u8 and, per variant and rendition, its playlist: a live media playlist (no ENDLIST, no
PLAYLIST-TYPE) listing the last N (--window, default 6) segments published, with
EXT-X-MEDIA-SEQUENCE and an EXT-X-PROGRAM-DATE-TIME per segment (unless --no-dates). A segment is
copied into OUTDIR (range_http.py refuses symlinks leaving its root) before it is listed; each
playlist is written to a temporary name and renamed, so a server never hands out half of one.
--start N segments (default 3) are listed at once; then one more every segment duration (as a
live encoder publishes them), until SECONDS have passed or the content ends; then every playlist
gets EXT-X-ENDLIST, as a live event that ends does.

Hostile variants (V is the variant's number in the master, 0-based; renditions after them):
  --offset V:K   V's media sequence numbers are K higher than the others' (dates still agree)
  --stall V:T    V's playlist stops updating T seconds after the start
  --rewind V:T   from T seconds on V's EXT-X-MEDIA-SEQUENCE is 100 lower than it was
Prints "ready" on stdout once the first playlists are written. Ends on SIGTERM or SIGINT.

--dash: SRC is a static DASH directory instead (manifest.mpd with SegmentTemplate and
SegmentTimeline per Representation, e.g. the `dash-abr` fixture): OUTDIR gets every init
section and live.mpd, a dynamic MPD (availabilityStartTime the first segment's wall clock,
minimumUpdatePeriod one segment, timeShiftBufferDepth the window) whose every Representation's
SegmentTimeline lists the last N segments published, with startNumber the first one's number
and each S with its t. Segment k of every Representation is published together, when video
segment k ends. --offset V:K makes Representation V's (0-based, in the MPD's order) numbers K
higher (its startNumber, and the names its segments are served under); --time names segments by $Time$ (startNumber still given, as servers do, but constant:
with --offset, K higher for V all along).
When the content ends or SECONDS pass, live.mpd is left as it was last written.
"""
import argparse
import os
import xml.etree.ElementTree as ET
import re
import shutil
import signal
import sys
import time


def variant_dirs(master):
    """The variants' media playlists in the master's order, then the renditions' (EXT-X-MEDIA URI)."""
    variants = [line.strip() for line in master.splitlines() if line.strip() and not line.startswith("#")]
    renditions = [m.group(1) for line in master.splitlines() if line.startswith("#EXT-X-MEDIA:")
                  for m in [re.search(r'URI="([^"]+)"', line)] if m]
    return variants + renditions


def read_vod(path):
    segments, duration = [], None
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if line.startswith("#EXTINF:"):
            duration = float(line[8:].split(",")[0])
        elif line and not line.startswith("#") and duration is not None:
            segments.append((line, duration))
            duration = None
    return segments


def pairs(values):
    out = {}
    for v in values or []:
        m = re.fullmatch(r"(\d+):(-?\d+(?:\.\d+)?)", v)
        if not m:
            sys.exit(f"bad V:N '{v}'")
        out[int(m.group(1))] = float(m.group(2))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("outdir")
    ap.add_argument("seconds", type=float)
    ap.add_argument("--window", type=int, default=6)
    ap.add_argument("--start", type=int, default=3)
    ap.add_argument("--offset", action="append")
    ap.add_argument("--stall", action="append")
    ap.add_argument("--rewind", action="append")
    ap.add_argument("--no-dates", action="store_true")
    ap.add_argument("--dash", action="store_true")
    ap.add_argument("--time", action="store_true")
    a = ap.parse_args()
    if a.dash:
        return dash(a)
    offsets, stalls, rewinds = pairs(a.offset), pairs(a.stall), pairs(a.rewind)

    master = open(os.path.join(a.src, "master.m3u8"), encoding="utf-8").read()
    playlists = variant_dirs(master)
    variants = [read_vod(os.path.join(a.src, p)) for p in playlists]
    count = min(len(v) for v in variants)
    os.makedirs(a.outdir, exist_ok=True)
    for p in playlists:
        os.makedirs(os.path.join(a.outdir, os.path.dirname(p)), exist_ok=True)

    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    signal.signal(signal.SIGINT, lambda *_: stopping.append(1))

    begun = time.time()
    epoch = begun - sum(d for _, d in variants[0][:a.start])  # the first segment's wall clock

    def write(v, published, ended):
        name = playlists[v]
        first = max(0, published - a.window)
        shown = variants[v][first:published]
        now = time.time() - begun
        sequence = first + int(offsets.get(v, 0))
        if v in rewinds and now >= rewinds[v]:
            sequence = max(0, sequence - 100)
        target = max(1, round(max(d for _, d in variants[v])))
        lines = ["#EXTM3U", "#EXT-X-VERSION:3", f"#EXT-X-TARGETDURATION:{target}", f"#EXT-X-MEDIA-SEQUENCE:{sequence}"]
        start = epoch + sum(d for _, d in variants[v][:first])
        for uri, duration in shown:
            if not a.no_dates:
                stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(start)) + ".%03dZ" % int((start % 1) * 1000)
                lines.append("#EXT-X-PROGRAM-DATE-TIME:" + stamp)
            lines.append(f"#EXTINF:{duration:.6f},")
            lines.append(uri)
            start += duration
        if ended:
            lines.append("#EXT-X-ENDLIST")
        path = os.path.join(a.outdir, name)
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        os.replace(path + ".tmp", path)

    def publish(k):
        for v, p in enumerate(playlists):
            uri = variants[v][k][0]
            src = os.path.join(a.src, os.path.dirname(p), uri)
            dst = os.path.join(a.outdir, os.path.dirname(p), uri)
            if not os.path.exists(dst):
                shutil.copyfile(src, dst + ".tmp")
                os.replace(dst + ".tmp", dst)

    published = min(a.start, count)
    for k in range(published):
        publish(k)
    for v in range(len(playlists)):
        write(v, published, False)
    with open(os.path.join(a.outdir, "master.m3u8.tmp"), "w", encoding="utf-8") as f:
        f.write(master)
    os.replace(os.path.join(a.outdir, "master.m3u8.tmp"), os.path.join(a.outdir, "master.m3u8"))
    print("ready", flush=True)

    due = begun + variants[0][published - 1][1] if published else begun
    while not stopping and published < count and time.time() - begun < a.seconds:
        time.sleep(max(0, min(0.1, due - time.time())))
        if time.time() < due:
            continue
        publish(published)
        published += 1
        now = time.time() - begun
        for v in range(len(playlists)):
            if v in stalls and now >= stalls[v]:
                continue
            write(v, published, False)
        due += variants[0][published - 1][1]
    for v in range(len(playlists)):
        if not (v in stalls and time.time() - begun >= stalls[v]):
            write(v, published, True)


MPD_NS = "{urn:mpeg:dash:schema:mpd:2011}"


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % int((t % 1) * 1000)


def dash(a):
    offsets = pairs(a.offset)
    root = ET.parse(os.path.join(a.src, "manifest.mpd")).getroot()
    period = root.find(MPD_NS + "Period")
    sets = []  # (adaptation set attributes, [(rep attributes, template attributes, [(t, d)])])
    for aset in period.findall(MPD_NS + "AdaptationSet"):
        reps = []
        for rep in aset.findall(MPD_NS + "Representation"):
            tpl = rep.find(MPD_NS + "SegmentTemplate")
            entries, t = [], 0
            for s in tpl.find(MPD_NS + "SegmentTimeline").findall(MPD_NS + "S"):
                t = int(s.get("t", t))
                for _ in range(int(s.get("r", "0")) + 1):
                    entries.append((t, int(s.get("d"))))
                    t += int(s.get("d"))
            extra = [ET.tostring(c, encoding="unicode").replace("ns0:", "").replace(':ns0=', '=').strip()
                     for c in rep if c.tag != MPD_NS + "SegmentTemplate"]
            reps.append((dict(rep.attrib), dict(tpl.attrib), entries, extra))
        sets.append((dict(aset.attrib), reps))
    flat = [r for _, reps in sets for r in reps]
    count = min(len(r[2]) for r in flat)
    video = next(reps for attrs, reps in sets if attrs.get("contentType") == "video")
    vscale = int(video[0][1]["timescale"])
    vdur = [d / vscale for _, d in video[0][2]]
    os.makedirs(a.outdir, exist_ok=True)

    def files(rep, k, shift=0):
        attrs, tpl, entries, _ = rep
        number = int(tpl.get("startNumber", "1")) + k + shift
        name = tpl["media"].replace("$RepresentationID$", attrs["id"])
        name = re.sub(r"\$Number%0(\d+)d\$", lambda m: str(number).zfill(int(m.group(1))), name).replace("$Number$", str(number))
        return name

    def copy(name, as_name=None):
        dst = os.path.join(a.outdir, as_name or name)
        if not os.path.exists(dst):
            shutil.copyfile(os.path.join(a.src, name), dst + ".tmp")
            os.replace(dst + ".tmp", dst)

    for rep in flat:
        copy(rep[1]["initialization"].replace("$RepresentationID$", rep[0]["id"]))

    def served(rep, k):
        # Under --time the file is named by its t; under --offset by its shifted number.
        if not a.time:
            return files(rep, k, int(offsets.get(flat.index(rep), 0)))
        base = rep[1]["media"].replace("$RepresentationID$", rep[0]["id"])
        return re.sub(r"\$Number(%0\d+d)?\$", "t" + str(rep[2][k][0]), base)

    def publish(k):
        for rep in flat:
            copy(files(rep, k), served(rep, k))

    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    signal.signal(signal.SIGINT, lambda *_: stopping.append(1))
    begun = time.time()
    epoch = begun - sum(vdur[:a.start])
    step = vdur[0]

    def write(published):
        first = max(0, published - a.window)
        out = ['<?xml version="1.0" encoding="utf-8"?>',
               '<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-live:2011" type="dynamic"'
               f' availabilityStartTime="{iso(epoch)}" publishTime="{iso(time.time())}" minimumUpdatePeriod="PT{step:.1f}S"'
               f' timeShiftBufferDepth="PT{a.window * step:.1f}S" suggestedPresentationDelay="PT{3 * step:.1f}S"'
               f' maxSegmentDuration="PT{step:.1f}S" minBufferTime="PT{2 * step:.1f}S">',
               '<Period id="0" start="PT0.0S">']
        index = 0
        for attrs, reps in sets:
            out.append("<AdaptationSet " + " ".join(f'{k}="{v}"' for k, v in attrs.items()) + ">")
            for rattrs, tpl, entries, extra in reps:
                start = int(tpl.get("startNumber", "1")) + first + int(offsets.get(index, 0))
                media = tpl["media"].replace("$RepresentationID$", rattrs["id"])
                if a.time:
                    media = re.sub(r"\$Number(%0\d+d)?\$", "t$Time$", media)
                    start = int(tpl.get("startNumber", "1")) + int(offsets.get(index, 0))
                out.append("<Representation " + " ".join(f'{k}="{v}"' for k, v in rattrs.items()) + ">")
                out.extend(extra)
                out.append(f'<SegmentTemplate timescale="{tpl["timescale"]}" initialization="{tpl["initialization"]}"'
                           f' media="{media}" startNumber="{start}"><SegmentTimeline>')
                out.extend(f'<S t="{t}" d="{d}" />' for t, d in entries[first:published])
                out.append("</SegmentTimeline></SegmentTemplate></Representation>")
                index += 1
            out.append("</AdaptationSet>")
        out.append("</Period></MPD>")
        path = os.path.join(a.outdir, "live.mpd")
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write("\n".join(out) + "\n")
        os.replace(path + ".tmp", path)

    published = min(a.start, count)
    for k in range(published):
        publish(k)
    write(published)
    print("ready", flush=True)
    due = begun + vdur[published - 1]
    while not stopping and published < count and time.time() - begun < a.seconds:
        time.sleep(max(0, min(0.1, due - time.time())))
        if time.time() < due:
            continue
        publish(published)
        published += 1
        write(published)
        due += vdur[published - 1]


if __name__ == "__main__":
    main()
