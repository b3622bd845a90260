#!/usr/bin/env python3
"""live_ladder.py — plays a VOD HLS ladder out as a live one, in real time, for network tests.

Usage: live_ladder.py SRC OUTDIR SECONDS [--window N] [--start N] [--offset V:K]
                      [--stall V:T] [--rewind V:T] [--no-dates]

SRC is a VOD master directory (master.m3u8 and, per variant, vN/index.m3u8 of MPEG-TS segments
whose segments line up across variants, e.g. the `hls-abr` fixture). OUTDIR (created) gets a
copy of master.m3u8 and, per variant, vN/index.m3u8: a live media playlist (no ENDLIST, no
PLAYLIST-TYPE) listing the last N (--window, default 6) segments published, with
EXT-X-MEDIA-SEQUENCE and an EXT-X-PROGRAM-DATE-TIME per segment (unless --no-dates). A segment is
copied into OUTDIR (range_http.py refuses symlinks leaving its root) before it is listed; each
playlist is written to a temporary name and renamed, so a server never hands out half of one.
--start N segments (default 3) are listed at once; then one more every segment duration (as a
live encoder publishes them), until SECONDS have passed or the content ends; then every playlist
gets EXT-X-ENDLIST, as a live event that ends does.

Hostile variants (V is the variant's number in the master, 0-based):
  --offset V:K   V's media sequence numbers are K higher than the others' (dates still agree)
  --stall V:T    V's playlist stops updating T seconds after the start
  --rewind V:T   from T seconds on V's EXT-X-MEDIA-SEQUENCE is 100 lower than it was
Prints "ready" on stdout once the first playlists are written. Ends on SIGTERM or SIGINT.
"""
import argparse
import os
import re
import shutil
import signal
import sys
import time


def variant_dirs(master):
    return [line.strip() for line in master.splitlines() if line.strip() and not line.startswith("#")]


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
    a = ap.parse_args()
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


if __name__ == "__main__":
    main()
