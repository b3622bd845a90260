#!/usr/bin/env python3
"""wvtt_segments.py — writes WebVTT in fragmented MP4 (ISO/IEC 14496-30, sample entry `wvtt`)
as a DASH text representation segments it, for the tests (ffmpeg 5.1 cannot mux wvtt).

Usage: wvtt_segments.py CUES.json OUTDIR SEGMENT_SECONDS SEGMENTS [--hostile KIND]

CUES.json: [{"start": s, "end": s, "text": "...", "settings": "line:0" (optional),
"id": "..." (optional)}, ...]. OUTDIR gets init.mp4 (ftyp + moov: mvhd, trak with tkhd, mdhd of
timescale 1000, hdlr 'text', an stsd holding one wvtt entry with its vttC "WEBVTT", empty sample
tables, mvex/trex) and seg-1.m4s ... seg-N.m4s: each styp + moof (mfhd, traf: tfhd with
default-base-is-moof, tfdt version 1, trun with data offset, durations and sizes) + mdat. Each
segment covers [k*D, (k+1)*D) and is cut into samples at every cue boundary inside it: a
sample holds one vttc (payl, sttg when settings are given, iden when an id is) per active cue,
or one empty vtte; so a cue spanning samples or segments is repeated in each, as packagers do.

--hostile KIND breaks segment 1: `count` (its trun declares 2^31 samples), `pastend` (a sample
size past the mdat), `size` (the moof's size runs past the file), `time` (its first sample lasts 2^32-1 ticks: 49 days).
"""
import json
import os
import struct
import sys


def box(kind, payload=b""):
    return struct.pack(">I4s", 8 + len(payload), kind.encode()) + payload


def full(kind, version, flags, payload=b""):
    return box(kind, struct.pack(">I", (version << 24) | flags) + payload)


def init_section():
    ftyp = box("ftyp", b"iso6" + struct.pack(">I", 0) + b"iso6dash")
    mvhd = full("mvhd", 0, 0, struct.pack(">IIII", 0, 0, 1000, 0) + struct.pack(">IH", 0x00010000, 0x0100) + b"\0" * 10
                + struct.pack(">9I", 0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000) + b"\0" * 24 + struct.pack(">I", 2))
    tkhd = full("tkhd", 0, 3, struct.pack(">IIIII", 0, 0, 1, 0, 0) + b"\0" * 8 + struct.pack(">HHHH", 0, 0, 0, 0)
                + struct.pack(">9I", 0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000) + struct.pack(">II", 0, 0))
    mdhd = full("mdhd", 0, 0, struct.pack(">IIII", 0, 0, 1000, 0) + struct.pack(">HH", 0x55C4, 0))
    hdlr = full("hdlr", 0, 0, struct.pack(">I4s", 0, b"text") + b"\0" * 12 + b"wvtt\0")
    wvtt = box("wvtt", b"\0" * 6 + struct.pack(">H", 1) + box("vttC", b"WEBVTT"))
    stsd = full("stsd", 0, 0, struct.pack(">I", 1) + wvtt)
    stbl = box("stbl", stsd + full("stts", 0, 0, struct.pack(">I", 0)) + full("stsc", 0, 0, struct.pack(">I", 0))
               + full("stsz", 0, 0, struct.pack(">II", 0, 0)) + full("stco", 0, 0, struct.pack(">I", 0)))
    dinf = box("dinf", full("dref", 0, 0, struct.pack(">I", 1) + full("url ", 0, 1)))
    minf = box("minf", full("sthd", 0, 0) + dinf + stbl)
    trak = box("trak", tkhd + box("mdia", mdhd + hdlr + minf))
    mvex = box("mvex", full("trex", 0, 0, struct.pack(">IIIII", 1, 1, 0, 0, 0)))
    return ftyp + box("moov", mvhd + trak + mvex)


def sample(active):
    if not active:
        return box("vtte")
    out = b""
    for cue in active:
        parts = b""
        if cue.get("id"):
            parts += box("iden", cue["id"].encode())
        if cue.get("settings"):
            parts += box("sttg", cue["settings"].encode())
        parts += box("payl", cue["text"].encode())
        out += box("vttc", parts)
    return out


def segment(cues, k, seconds, hostile):
    begin, end = int(k * seconds * 1000), int((k + 1) * seconds * 1000)
    cuts = {begin, end}
    for c in cues:
        for t in (int(round(c["start"] * 1000)), int(round(c["end"] * 1000))):
            if begin < t < end:
                cuts.add(t)
    cuts = sorted(cuts)
    samples = []
    for a, b in zip(cuts, cuts[1:]):
        active = [c for c in cues if c["start"] * 1000 <= a and c["end"] * 1000 >= b]
        samples.append((b - a, sample(active)))
    data = b"".join(s for _, s in samples)
    count = len(samples)
    sizes = [len(s) for _, s in samples]
    if hostile == "count":
        count = 1 << 31
    if hostile == "pastend":
        sizes[-1] += 1 << 20
    decode = begin
    if hostile == "time":
        samples[0] = (0xFFFFFFFF, samples[0][1])

    def build(offset):
        trun = full("trun", 0, 0x1 | 0x100 | 0x200, struct.pack(">Ii", count, offset)
                    + b"".join(struct.pack(">II", d, s) for (d, _), s in zip(samples, sizes)))
        traf = box("traf", full("tfhd", 0, 0x20000, struct.pack(">I", 1)) + full("tfdt", 1, 0, struct.pack(">Q", decode)) + trun)
        return box("moof", full("mfhd", 0, 0, struct.pack(">I", k + 1)) + traf)

    moof = build(0)
    moof = build(len(moof) + 8)
    styp = box("styp", b"msdh" + struct.pack(">I", 0) + b"msdhmsix")
    out = styp + moof + box("mdat", data)
    if hostile == "size":
        at = len(styp)
        out = out[:at] + struct.pack(">I", len(out) * 4) + out[at + 4:]
    return out


def main():
    args = sys.argv[1:]
    hostile = None
    if "--hostile" in args:
        i = args.index("--hostile")
        hostile = args[i + 1]
        del args[i:i + 2]
    cues_path, outdir, seconds, count = args[0], args[1], float(args[2]), int(args[3])
    cues = json.load(open(cues_path, encoding="utf-8"))
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "init.mp4"), "wb") as f:
        f.write(init_section())
    for k in range(count):
        with open(os.path.join(outdir, f"seg-{k + 1}.m4s"), "wb") as f:
            f.write(segment(cues, k, seconds, hostile if k == 0 else None))


if __name__ == "__main__":
    main()
