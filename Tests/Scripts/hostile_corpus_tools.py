#!/usr/bin/env python3
"""Byte-level generators and patchers for hostile-corpus.sh (Python 3 standard library only).

Every subcommand writes one output file (or prints one string) and is deterministic: any
"random" garbage comes from random.Random seeded with a fixed number.

    srt-many N DURATION_MS OUT        N SubRip cues packed into DURATION_MS (sorted by start)
    srt-long BYTES OUT                one cue whose only line is BYTES long (space-separated words)
    srt-latin1 OUT                    CP1252-encoded cues ("Café déjà vu — naïve", "€ Œuvre …")
    srt-text OUT START END TEXT [START END TEXT …]   UTF-8 cues (times in seconds)
    srt-hostile OUT                   UTF-8 cues carrying terminal escapes and bidi/zero-width marks
    ffmeta-hostile OUT DURATION_S     ;FFMETADATA1 with hostile title/tags and 3 hostile chapters
    hostile-string KIND               prints a hostile string (video|audio|subtitle|title)
    sup-canvas OUT W H MODE           PGS (.sup): a W×H composition/object with two opaque pixels
                                      (MODE center: adjacent in the middle; corners: opposite corners)
    garble-packets IN OUT KEEP SEED   stdin: "pos,size" lines (ffprobe -show_packets of IN, a
                                      Matroska/WebM file); overwrites each packet's payload with
                                      garbage, keeping its first KEEP bytes
    mkv-payload FILE POS SIZE         prints where the payload of the packet at POS (ffprobe's pos:
                                      the Block data) of SIZE bytes starts
    h264-inject-nal IN OUT EVERY      Annex B H.264: inserts an invalid NAL unit before every
                                      EVERY-th picture (forbidden bit set, reserved/unspecified
                                      types, garbage SEI/slice/IDR payloads)
    mp4-huge-duration IN OUT SECONDS  fragmented MP4: mvhd, tkhd, the video mdhd and an mvex/mehd
                                      (inserted in place of udta/free: no offset moves) declare SECONDS
    mkv-huge-ts IN OUT NS TICKS       Matroska rewritten with TimestampScale := NS and every Cluster
                                      Timestamp raised by TICKS (no old byte position kept)
    wav-rate IN OUT RATE              WAV: fmt sample rate := RATE (byte rate wrapped to 32 bits)
    mp4-boxes FILE                    prints the four-character codes of every box (recursive)
    garbage OUT SIZE SEED             SIZE pseudo-random bytes
"""
import random
import struct
import sys
import zlib

# ---------------------------------------------------------------------------------------------
# SubRip


def srt_time(ms):
    h, ms = divmod(int(ms), 3600000)
    m, ms = divmod(ms, 60000)
    s, ms = divmod(ms, 1000)
    return "%02d:%02d:%02d,%03d" % (h, m, s, ms)


def write_srt(path, cues, encoding="utf-8"):
    with open(path, "wb") as f:
        for i, (start, end, text) in enumerate(cues, 1):
            f.write(("%d\n%s --> %s\n%s\n\n" % (i, srt_time(start), srt_time(end), text)).encode(encoding))


def srt_many(n, duration_ms, out):
    n, duration_ms = int(n), int(duration_ms)
    cues = []
    for k in range(n):
        start = k * duration_ms // n
        cues.append((start, min(duration_ms, start + 1000), "c%d" % k))
    write_srt(out, cues)


def srt_long(size, out):
    size = int(size)
    words = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "
             "incididunt ut labore et dolore magna aliqua ").split()
    parts, n, i = [], 0, 0
    while n < size:
        w = words[i % len(words)]
        parts.append(w)
        n += len(w) + 1
        i += 1
    line = " ".join(parts)[:size].rstrip()
    write_srt(out, [(200, 3800, line)])


def srt_latin1(out):
    write_srt(out, [(200, 1800, "Café déjà vu — naïve"),
                    (2000, 3800, "« Œuvre spéciale » coûte 5 € — ½ prix")], encoding="cp1252")


def srt_text(out, *args):
    cues = []
    for i in range(0, len(args), 3):
        cues.append((float(args[i]) * 1000, float(args[i + 1]) * 1000, args[i + 2]))
    write_srt(out, cues)


# Raw ESC/BEL/CSI sequences, bidi overrides, zero-width and tag characters. PWNED marks the
# window-title payload so that a runner can search the terminal output for it.
HOSTILE = {
    "title": "Title \x1b]0;PWNED\x07 \x1b[31mred\x1b[0m \u202eevil\u202c z\u200bw \u2028 \ufeffbom "
             "\U000E0041\U000E0042 \x1b[2J\x1b[H \u009b31m",
    "video": "\x1b]0;PWNED\x07video \x1b[?1049l",
    "audio": "\u202eoidua PWNED \u2060\u200b",
    "subtitle": "\x1b[31mPWNED sub\u2028title \x1b]2;PWNED\x07",
    "artist": "\x1b]0;PWNED\x07 artist",
    "comment": "\u2028\u2029\u2060 PWNED \x1bP+q544e\x1b\\ \x1b]52;c;UFdORUQ=\x07",
    "chapter1": "\x1b]0;PWNED\x07 one",
    "chapter2": "\u202e\u200b owt PWNED",
    "chapter3": "\U000E0041\ufeff three \x1b[?1049l\x1b[?25l",
}


def ffmeta_escape(s):
    out = []
    for c in s:
        if c in "=;#\\\n":
            out.append("\\")
        out.append(c)
    return "".join(out)


def ffmeta_hostile(out, duration_s):
    d = int(float(duration_s) * 1000)
    lines = [";FFMETADATA1",
             "title=" + ffmeta_escape(HOSTILE["title"]),
             "artist=" + ffmeta_escape(HOSTILE["artist"]),
             "comment=" + ffmeta_escape(HOSTILE["comment"])]
    for i, name in enumerate(("chapter1", "chapter2", "chapter3")):
        lines += ["[CHAPTER]", "TIMEBASE=1/1000", "START=%d" % (i * d // 3),
                  "END=%d" % ((i + 1) * d // 3), "title=" + ffmeta_escape(HOSTILE[name])]
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def srt_hostile(out):
    write_srt(out, [(100, 1500, "\x1b]0;PWNED\x07 cue one \x1b[2J"),
                    (1500, 2900, "\u202eowt euc PWNED\u200b\ufeff\u2028second line"),
                    (2900, 3900, "\U000E0041\U000E0042 tags \x9b31m \x1bP+q\x1b\\ \x1b]8;;http://x/\x07link\x1b]8;;\x07")])


# ---------------------------------------------------------------------------------------------
# PGS (.sup)


def pgs_segment(pts, kind, payload):
    return b"PG" + struct.pack(">IIBH", pts, 0, kind, len(payload)) + payload


def pgs_run0(n):
    """RLE run of n (1..16383) transparent pixels (colour 0)."""
    if n < 64:
        return bytes([0, n])
    return bytes([0, 0x40 | (n >> 8), n & 0xFF])


def pgs_line(w, opaque):
    """One RLE line of width w with colour-1 pixels at the sorted x positions in opaque."""
    out, x = bytearray(), 0
    for px in opaque:
        gap = px - x
        while gap > 0:
            step = min(gap, 16383)
            out += pgs_run0(step)
            gap -= step
        out.append(1)
        x = px + 1
    gap = w - x
    while gap > 0:
        step = min(gap, 16383)
        out += pgs_run0(step)
        gap -= step
    return bytes(out + b"\x00\x00")


def sup_canvas(out, w, h, mode):
    w, h = int(w), int(h)
    if mode == "center":
        pixels = {h // 2: [w // 2 - 1, w // 2]}
    elif mode == "corners":
        pixels = {0: [0], h - 1: [w - 1]}
    else:
        raise SystemExit("sup-canvas: mode must be center or corners")
    rle = bytearray()
    for y in range(h):
        rle += pgs_line(w, pixels.get(y, []))
    show, hide = 45000, 270000  # 0.5 s and 3.0 s at 90 kHz
    data = bytearray()
    # Display set 1: epoch start, one object covering the whole canvas.
    pcs = struct.pack(">HHBHBBBB", w, h, 0x10, 0, 0x80, 0, 0, 1) + struct.pack(">HBBHH", 0, 0, 0, 0, 0)
    data += pgs_segment(show, 0x16, pcs)
    data += pgs_segment(show, 0x17, struct.pack(">BBHHHH", 1, 0, 0, 0, w, h))
    data += pgs_segment(show, 0x14, bytes([0, 0]) + bytes([0, 16, 128, 128, 0]) + bytes([1, 235, 128, 128, 255]))
    first_max = 65535 - 11
    chunk, rest = bytes(rle[:first_max]), bytes(rle[first_max:])
    flag = 0x80 | (0x40 if not rest else 0)
    ods = struct.pack(">HBB", 0, 0, flag) + struct.pack(">I", len(rle) + 4)[1:] + struct.pack(">HH", w, h) + chunk
    data += pgs_segment(show, 0x15, ods)
    while rest:
        chunk, rest = rest[:65535 - 4], rest[65535 - 4:]
        data += pgs_segment(show, 0x15, struct.pack(">HBB", 0, 0, 0x40 if not rest else 0) + chunk)
    data += pgs_segment(show, 0x80, b"")
    # Display set 2: no objects (clears the picture).
    data += pgs_segment(hide, 0x16, struct.pack(">HHBHBBBB", w, h, 0x10, 1, 0x00, 0, 0, 0))
    data += pgs_segment(hide, 0x17, struct.pack(">BBHHHH", 1, 0, 0, 0, w, h))
    data += pgs_segment(hide, 0x80, b"")
    with open(out, "wb") as f:
        f.write(data)


# ---------------------------------------------------------------------------------------------
# Matroska


def ebml_vint(d, p):
    """(value with the length marker removed, length) of the EBML variable-size integer at p."""
    b = d[p]
    n, mask = 1, 0x80
    while n <= 8 and not b & mask:
        n, mask = n + 1, mask >> 1
    if n > 8:
        raise ValueError("bad EBML vint at %d" % p)
    v = b & (mask - 1)
    for i in range(1, n):
        v = (v << 8) | d[p + i]
    return v, n


def ebml_id(d, p):
    b = d[p]
    n, mask = 1, 0x80
    while n <= 4 and not b & mask:
        n, mask = n + 1, mask >> 1
    return int.from_bytes(d[p:p + n], "big"), n


def garbage_bytes(rng, n, nonzero=False):
    if nonzero:
        return bytes(rng.randrange(1, 256) for _ in range(n))
    return rng.getrandbits(8 * n).to_bytes(n, "little") if n else b""


def mkv_payload(d, pos, size):
    """Start of the payload of the Matroska packet that ffprobe reports at pos (its Block's data:
    track number, 16-bit timecode, flags, then the frame), checked against the enclosing
    SimpleBlock/Block element header just before pos."""
    pos, size = int(pos), int(size)
    track, n = ebml_vint(d, pos)
    flags = d[pos + n + 2]
    if flags & 0x06:
        raise SystemExit("laced block at %d" % pos)
    start = pos + n + 3
    for k in range(1, 9):                      # the element's size field is k bytes long
        if pos - k - 1 >= 0 and d[pos - k - 1] in (0xA3, 0xA1):
            try:
                esize, m = ebml_vint(d, pos - k)
            except ValueError:
                continue
            if m == k and esize == n + 3 + size:
                return start
    raise SystemExit("no (Simple)Block of %d bytes at %d" % (size, pos))


def mkv_payload_cmd(path, pos, size):
    print(mkv_payload(open(path, "rb").read(), pos, size))


def garble_packets(src, dst, keep, seed):
    keep, rng = int(keep), random.Random(int(seed))
    d = bytearray(open(src, "rb").read())
    count = 0
    for line in sys.stdin:
        fields = line.strip().split(",")
        if len(fields) < 2 or not fields[0].isdigit():
            continue
        pos, size = int(fields[0]), int(fields[1])
        start = mkv_payload(d, pos, size)
        d[start + keep:start + size] = garbage_bytes(rng, size - keep)
        count += 1
    if not count:
        raise SystemExit("garble-packets: no packets given on stdin")
    with open(dst, "wb") as f:
        f.write(d)
    print("garbled %d packets" % count, file=sys.stderr)


def ebml_encode_id(eid):
    n = (eid.bit_length() + 7) // 8
    return eid.to_bytes(n, "big")


def ebml_encode_size(v, n):
    return ((1 << (7 * n)) | v).to_bytes(n, "big")


def ebml_children(d, start, end):
    """[(id, header bytes, data start, data end)] of the elements in d[start:end]."""
    out, p = [], start
    while p < end:
        eid, n = ebml_id(d, p)
        size, m = ebml_vint(d, p + n)
        if size == (1 << (7 * m)) - 1:          # unknown size: runs to the end
            size = end - p - n - m
        out.append((eid, p, p + n + m, min(end, p + n + m + size)))
        p = p + n + m + size
    return out


def ebml_element(eid, data, size_len=None):
    if size_len is None:
        size_len = 1
        while len(data) >= (1 << (7 * size_len)) - 1:
            size_len += 1
    return ebml_encode_id(eid) + ebml_encode_size(len(data), size_len) + data


def mkv_huge_ts(src, dst, scale_ns, base_ticks):
    """Rewrites a Matroska file with TimestampScale := scale_ns and every Cluster Timestamp
    raised by base_ticks (8-byte values). The Segment gets an unknown size, SeekHead becomes a
    Void, Cues and CRC-32/Position/PrevSize elements go, Tags/Chapters move before the
    first Cluster: nothing in the new file refers to an old byte position."""
    scale_ns, base = int(scale_ns), int(base_ticks)
    d = open(src, "rb").read()
    top = ebml_children(d, 0, len(d))
    if len(top) < 2 or top[0][0] != 0x1A45DFA3 or top[1][0] != 0x18538067:
        raise SystemExit("mkv-huge-ts: not a Matroska file")
    header = d[top[0][1]:top[0][3]]
    seg = top[1]
    head, clusters, tail = bytearray(), bytearray(), bytearray()
    for eid, p, ds, de in ebml_children(d, seg[2], seg[3]):
        if eid == 0x114D9B74:                   # SeekHead → Void of the same length
            head += ebml_element(0xEC, b"\0" * (de - p - 9), 8)
        elif eid == 0x1C53BB6B:                 # Cues
            continue
        elif eid == 0x1549A966:                 # Info
            body = bytearray()
            for cid, cp, cds, cde in ebml_children(d, ds, de):
                if cid == 0xBF:
                    continue
                if cid == 0x2AD7B1:
                    body += ebml_element(cid, scale_ns.to_bytes(8, "big"))
                else:
                    body += d[cp:cde]
            head += ebml_element(eid, bytes(body))
        elif eid == 0x1F43B675:                 # Cluster
            body = bytearray()
            for cid, cp, cds, cde in ebml_children(d, ds, de):
                if cid in (0xBF, 0xA7, 0xAB):
                    continue
                if cid == 0xE7:
                    old = int.from_bytes(d[cds:cde], "big")
                    body += ebml_element(cid, (base + old).to_bytes(8, "big"))
                else:
                    body += d[cp:cde]
            clusters += ebml_element(eid, bytes(body), 8)
        elif clusters:                          # Tags, Chapters … after the clusters
            tail += d[p:de]
        else:
            head += d[p:de]
    with open(dst, "wb") as f:
        f.write(header)
        f.write(ebml_encode_id(0x18538067) + b"\x01\xff\xff\xff\xff\xff\xff\xff")
        f.write(head + tail + clusters)


# ---------------------------------------------------------------------------------------------
# H.264 Annex B


def annexb_split(d):
    """[(start code, nal bytes)] of an Annex B stream."""
    out, i, n = [], 0, len(d)
    starts = []
    while True:
        j = d.find(b"\x00\x00\x01", i)
        if j < 0:
            break
        sc = 4 if j > 0 and d[j - 1] == 0 else 3
        starts.append((j - (sc - 3), j + 3))
        i = j + 3
    for k, (s, p) in enumerate(starts):
        e = starts[k + 1][0] if k + 1 < len(starts) else n
        out.append(d[p:e])
    return out


def h264_inject_nal(src, dst, every):
    every = int(every)
    rng = random.Random(4096)
    nals = annexb_split(open(src, "rb").read())
    bogus_headers = [0x81, 0x17, 0x06, 0x01, 0x25, 0x1F, 0xE5]
    out, pictures, injected = bytearray(), 0, 0
    for nal in nals:
        t = nal[0] & 0x1F
        if t in (1, 5):
            first_slice = len(nal) > 1 and nal[1] & 0x80  # first_mb_in_slice == 0
            if first_slice:
                pictures += 1
                if pictures > 1 and pictures % every == 0:
                    hdr = bogus_headers[injected % len(bogus_headers)]
                    out += b"\x00\x00\x00\x01" + bytes([hdr]) + garbage_bytes(rng, 24 + 40 * (injected % 4), nonzero=True)
                    injected += 1
        out += b"\x00\x00\x00\x01" + nal
    with open(dst, "wb") as f:
        f.write(out)
    print("injected %d invalid NAL units into %d pictures" % (injected, pictures), file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# ISO BMFF


def boxes(d, start, end, depth=0, parents=(b"moov", b"trak", b"mdia", b"minf", b"stbl", b"mvex",
                                               b"moof", b"traf", b"sinf", b"schi", b"stsd", b"encv",
                                               b"enca", b"avc1", b"mp4a")):
    p = start
    while p + 8 <= end:
        size, typ = struct.unpack(">I4s", d[p:p + 8])
        hdr = 8
        if size == 1:
            size, hdr = struct.unpack(">Q", d[p + 8:p + 16])[0], 16
        elif size == 0:
            size = end - p
        if size < hdr or p + size > end:
            return
        yield depth, typ, p, size, hdr
        if typ in parents:
            inner = p + hdr
            if typ == b"stsd":
                inner += 8
            elif typ in (b"encv", b"avc1"):
                inner += 78
            elif typ in (b"enca", b"mp4a"):
                inner += 28
            yield from boxes(d, inner, p + size, depth + 1, parents)
        p += size


def mp4_boxes(path):
    d = open(path, "rb").read()
    print(" ".join(sorted({t.decode("latin-1") for _, t, _, _, _ in boxes(d, 0, len(d))})))


def mp4_huge_duration(src, dst, seconds):
    """Declares SECONDS in mvhd, every tkhd (movie timescale), the video tracks' mdhd (media
    timescale, capped at 0xFFFFFFFF: the spec's "unknown") and mvex/mehd. Patches in place."""
    seconds = float(seconds)
    d = bytearray(open(src, "rb").read())
    moov = next((b for b in boxes(d, 0, len(d), 0, parents=()) if b[1] == b"moov"), None)
    if not moov:
        raise SystemExit("mp4-huge-duration: no moov")
    kids = list(boxes(d, moov[2] + moov[4], moov[2] + moov[3], 0, parents=()))

    def patch_duration(box, at_v0, at_v1, timescale):
        p = box[2] + 8
        if d[p] == 0:
            v = min(0xFFFFFFFF, round(seconds * timescale))
            struct.pack_into(">I", d, p + at_v0, v)
        else:
            v = round(seconds * timescale)
            struct.pack_into(">Q", d, p + at_v1, v)
        return v

    mvhd = next(b for b in kids if b[1] == b"mvhd")
    p = mvhd[2] + 8
    movie_ts = struct.unpack(">I", d[p + 12:p + 16] if d[p] == 0 else d[p + 20:p + 24])[0]
    dur = patch_duration(mvhd, 16, 24, movie_ts)
    report = ["mvhd %d/%d" % (dur, movie_ts)]
    for trak in (b for b in kids if b[1] == b"trak"):
        inner = list(boxes(d, trak[2] + 8, trak[2] + trak[3]))
        tkhd = next(b for b in inner if b[1] == b"tkhd")
        patch_duration(tkhd, 20, 28, movie_ts)
        hdlr = next(b for b in inner if b[1] == b"hdlr")
        if d[hdlr[2] + 16:hdlr[2] + 20] == b"vide":
            mdhd = next(b for b in inner if b[1] == b"mdhd")
            q = mdhd[2] + 8
            ts = struct.unpack(">I", d[q + 12:q + 16] if d[q] == 0 else d[q + 20:q + 24])[0]
            report.append("video mdhd %d/%d" % (patch_duration(mdhd, 16, 24, ts), ts))
    mvex = next((b for b in kids if b[1] == b"mvex"), None)
    if not mvex:
        raise SystemExit("mp4-huge-duration: not fragmented (no mvex)")
    mehd = struct.pack(">I4sI", 16, b"mehd", 0) + struct.pack(">I", min(0xFFFFFFFF, dur))
    existing = [b for b in boxes(d, mvex[2] + 8, mvex[2] + mvex[3], 0, parents=()) if b[1] == b"mehd"]
    if existing:
        patch_duration(existing[0], 4, 4, movie_ts)
    else:
        # Insert mehd at the end of mvex; take the room from the udta/free box right after it
        # (replaced by a smaller free box), so that the moov size and every offset stay put.
        idx = kids.index(mvex)
        donor = kids[idx + 1] if idx + 1 < len(kids) else None
        if not donor or donor[1] not in (b"udta", b"free") or donor[3] < len(mehd) + 8:
            raise SystemExit("mp4-huge-duration: need a udta/free box right after mvex to make room")
        mvex_end = mvex[2] + mvex[3]
        free = struct.pack(">I4s", donor[3] - len(mehd), b"free") + b"\0" * (donor[3] - len(mehd) - 8)
        d[mvex_end:mvex_end + donor[3]] = mehd + free
        struct.pack_into(">I", d, mvex[2], mvex[3] + len(mehd))
    report.append("mehd %d" % min(0xFFFFFFFF, dur))
    with open(dst, "wb") as f:
        f.write(d)
    print(", ".join(report), file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# WAV


def wav_rate(src, dst, rate):
    rate = int(rate)
    d = bytearray(open(src, "rb").read())
    if d[0:4] != b"RIFF" or d[8:12] != b"WAVE" or d[12:16] != b"fmt ":
        raise SystemExit("wav-rate: not a canonical WAV")
    channels, = struct.unpack("<H", d[22:24])
    bits, = struct.unpack("<H", d[34:36])
    struct.pack_into("<I", d, 24, rate)
    struct.pack_into("<I", d, 28, (rate * channels * bits // 8) & 0xFFFFFFFF)
    with open(dst, "wb") as f:
        f.write(d)


def garbage(out, size, seed):
    with open(out, "wb") as f:
        f.write(garbage_bytes(random.Random(int(seed)), int(size)))


COMMANDS = {
    "srt-many": srt_many, "srt-long": srt_long, "srt-latin1": srt_latin1, "srt-text": srt_text,
    "srt-hostile": srt_hostile, "ffmeta-hostile": ffmeta_hostile,
    "hostile-string": lambda kind: sys.stdout.write(HOSTILE[kind]),
    "sup-canvas": sup_canvas, "mkv-payload": mkv_payload_cmd, "garble-packets": garble_packets, "h264-inject-nal": h264_inject_nal,
    "mp4-huge-duration": mp4_huge_duration, "mkv-huge-ts": mkv_huge_ts,
    "wav-rate": wav_rate, "mp4-boxes": mp4_boxes, "garbage": garbage,
}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    COMMANDS[sys.argv[1]](*sys.argv[2:])
