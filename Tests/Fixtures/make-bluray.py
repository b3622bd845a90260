#!/usr/bin/env python3
"""make-bluray.py WORK OUT — the Blu-ray fixtures from the clips make-disc-fixtures.sh made
(WORK/0000N.m2ts, ffmpeg's m2ts mode), written from the BD-ROM format's published layout:

  OUT/bluray/BDMV/   index.bdmv (titles 1 and 2: movie objects 0 and 1), MovieObject.bdmv
                     (object n: PLAY PL n + 1), PLAYLIST/*.mpls, CLIPINF/*.clpi, STREAM/*.m2ts
      00000.mpls  clip 00003 (1 s, a menu's loop: not a title)
      00001.mpls  clips 00001 then 00002 (the main title; entry marks at 0, at the second clip
                  and 2 s into it; audio 'eng', graphics 'fra')
      00002.mpls  clip 00002 alone (title 2)
      00003.mpls  00001's items again (a duplicate: not a title)
  OUT/bluray.iso     the same folder as a UDF 2.50 image (volume AETHER_BD): a metadata
                     partition (its file and mirror) holds the file set, the directories and
                     the file entries; clip 00002's stream is written in two extents with
                     00001's between them, cut inside a source packet (fragmented allocation).

Each clip's information carries its entry-point map (ffprobe's key frames: PTS and source
packet). Needs ffprobe.

make-bluray.py --sup FILE START END writes a PGS subtitle stream (.sup) of one display set: a
200x40 white box, bottom centre of 640x360, shown from START to END (90 kHz), for ffmpeg to mux
into a clip (it has no PGS encoder).
"""
import json
import os
import shutil
import struct
import subprocess
import sys

SECTOR = 2048


def probe(path):
    """(first PTS at 45 kHz, last end at 45 kHz, [(pts 90 kHz, source packet)] of key frames)."""
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "packet=pts,duration,pos,flags,stream_index",
                          "-of", "json", path], check=True, capture_output=True, text=True).stdout
    packets = json.loads(out)["packets"]
    video = [p for p in packets if p["stream_index"] == 0]
    start = min(int(p["pts"]) for p in video)
    end = max(int(p["pts"]) + int(p.get("duration", 3750)) for p in video)
    keys = [(int(p["pts"]), int(p["pos"]) // 192) for p in video if "K" in p["flags"]]
    return start // 2, end // 2, keys


def clpi(path):
    """A clip information file: ClipInfo, SequenceInfo, ProgramInfo, then CPI with the map."""
    start, end, keys = probe(path)
    packets = os.path.getsize(path) // 192
    clip_info = struct.pack(">IHBBIII", 0, 0, 1, 1, 0, 48_000_000 // 8, packets) + bytes(128)
    clip_info = struct.pack(">I", len(clip_info) - 4) + clip_info[4:]
    seq = struct.pack(">BBIBB", 0, 1, 0, 1, 0) + struct.pack(">HIII", 0x1001, 0, start, end)
    seq = struct.pack(">I", len(seq)) + seq
    streams = struct.pack(">HBB", 0x1011, 5, 0x1B) + bytes([0x31, 0, 0, 0]) \
        + struct.pack(">HBB", 0x1100, 5, 0x81) + bytes([0x31]) + b"eng"
    prog = struct.pack(">BBIHBB", 0, 1, 0, 0x100, 2, 0) + streams
    prog = struct.pack(">I", len(prog)) + prog
    # EP map: one stream (the video PID), coarse entries every key frame (each its own fine).
    coarse, fine = b"", b""
    for k, (pts, spn) in enumerate(keys):
        coarse += struct.pack(">II", k << 14 | (pts >> 19) & 0x3FFF, spn & ~0x1FFFF & 0xFFFFFFFF)
        fine += struct.pack(">I", 1 << 28 | ((pts >> 9) & 0x7FF) << 17 | spn & 0x1FFFF)
    table = struct.pack(">I", 4 + len(coarse)) + coarse + fine
    ep_map = struct.pack(">BB", 0, 1)
    counts = (1 << 34) | (len(keys) << 18) | len(keys)
    ep_map += struct.pack(">H", 0x1011) + struct.pack(">IH", counts >> 16, counts & 0xFFFF)
    ep_map += struct.pack(">I", 2 + 12)
    ep_map += table
    cpi = struct.pack(">H", 1) + ep_map
    cpi = struct.pack(">I", len(cpi)) + cpi
    head = 40
    sections = [clip_info, seq, prog, cpi]
    addresses, at = [], head
    for s in sections:
        addresses.append(at)
        at += len(s)
    header = b"HDMV0200" + struct.pack(">IIIII", addresses[1], addresses[2], addresses[3], 0, 0) + bytes(12)
    return header + b"".join(sections), start, end


def mpls(items, marks, languages=("eng", "fra")):
    """A playlist: items (clip, in, out at 45 kHz) and entry marks (item, time)."""
    body = b""
    for clip, t_in, t_out in items:
        stn = struct.pack(">HH7B", 0, 0, 1, 1, 1, 0, 0, 0, 0) + bytes(5)
        stn += bytes([9, 1]) + struct.pack(">H", 0x1011) + bytes(6) + bytes([5, 0x1B, 0x31]) + bytes(3)
        stn += bytes([9, 1]) + struct.pack(">H", 0x1100) + bytes(6) + bytes([5, 0x81, 0x31]) + languages[0].encode()
        stn += bytes([9, 1]) + struct.pack(">H", 0x1200) + bytes(6) + bytes([5, 0x90]) + languages[1].encode() + bytes(1)
        stn = struct.pack(">H", len(stn) - 2) + stn[2:]
        item = clip.encode() + b"M2TS" + struct.pack(">HBII", 1, 0, t_in, t_out) + bytes(8) + bytes([0, 0]) + bytes(2) + stn
        body += struct.pack(">H", len(item)) + item
    playlist = struct.pack(">HHH", 0, len(items), 0) + body
    playlist = struct.pack(">I", len(playlist)) + playlist
    mark_bytes = struct.pack(">H", len(marks)) + b"".join(struct.pack(">BBHIHI", 0, 1, i, t, 0xFFFF, 0) for i, t in marks)
    mark_bytes = struct.pack(">I", len(mark_bytes)) + mark_bytes
    app = struct.pack(">I", 14) + bytes(14)
    at_list = 40 + len(app)
    header = b"MPLS0200" + struct.pack(">III", at_list, at_list + len(playlist), 0) + bytes(20)
    return header + app + playlist + mark_bytes


def pgs_segment(pts, kind, data):
    return b"PG" + struct.pack(">IIBH", pts, 0, kind, len(data)) + data


def sup(start, end, width=640, height=360, box_w=200, box_h=40):
    """One PGS display set (composition, window, palette, object, end), then its clearing set."""
    x, y = (width - box_w) // 2, height - box_h - 20
    out = pgs_segment(start, 0x16, struct.pack(">HHBHBBBB", width, height, 0x10, 0, 0x80, 0, 0, 1) + struct.pack(">HBBHH", 0, 0, 0, x, y))
    out += pgs_segment(start, 0x17, struct.pack(">BBHHHH", 1, 0, x, y, box_w, box_h))
    out += pgs_segment(start, 0x14, struct.pack(">BB", 0, 0) + bytes([1, 235, 128, 128, 255]))
    # Run-length lines: box_w pixels of colour 1, then the end of the line.
    rle = bytes([0, 0xC0 | box_w >> 8, box_w & 0xFF, 1, 0, 0]) * box_h
    out += pgs_segment(start, 0x15, struct.pack(">HBB", 0, 0, 0xC0) + struct.pack(">I", len(rle) + 4)[1:] + struct.pack(">HH", box_w, box_h) + rle)
    out += pgs_segment(start, 0x80, b"")
    out += pgs_segment(end, 0x16, struct.pack(">HHBHBBBB", width, height, 0x10, 1, 0, 0, 0, 0))
    out += pgs_segment(end, 0x17, struct.pack(">BBHHHH", 1, 0, x, y, box_w, box_h))
    out += pgs_segment(end, 0x80, b"")
    return out


def index_bdmv():
    """index.bdmv: first play and top menu run movie object 0; title 1 object 0, title 2 object 1."""
    def hdmv(obj):
        return struct.pack(">IHHI", 0x40000000, 0, obj, 0)
    app = struct.pack(">I", 34) + bytes(34)
    titles = [struct.pack(">I", 0x40000000) + struct.pack(">HHI", 0, obj, 0) for obj in (0, 1)]
    indexes = hdmv(0) + hdmv(0) + struct.pack(">H", len(titles)) + b"".join(titles)
    indexes = struct.pack(">I", len(indexes)) + indexes
    return b"INDX0200" + struct.pack(">II", 40 + len(app), 0) + bytes(24) + app + indexes


def movie_objects():
    """MovieObject.bdmv: object n plays playlist n + 1 (PLAY PL, an immediate operand)."""
    objects = b""
    for playlist in (1, 2):
        command = bytes([0x22, 0x80, 0, 0]) + struct.pack(">II", playlist, 0)
        objects += struct.pack(">HH", 0, 1) + command
    body = struct.pack(">IH", 0, 2) + objects
    return b"MOBJ0200" + struct.pack(">I", 0) + bytes(28) + struct.pack(">I", len(body)) + body


# ----- UDF 2.50 -----

def crc16(data):
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = (crc << 1 ^ 0x1021 if crc & 0x8000 else crc << 1) & 0xFFFF
    return crc


def tag(ident, body, location):
    """A descriptor: its 16-byte tag (version 3, checksum, CRC of the body) then `body`."""
    head = struct.pack("<HHBBHHHI", ident, 3, 0, 0, 1, crc16(body), len(body), location)
    checksum = sum(head[:4] + head[5:]) & 0xFF
    return head[:4] + bytes([checksum]) + head[5:] + body


def regid(ident, suffix=b""):
    return bytes([0]) + ident.encode().ljust(23, b"\0") + suffix.ljust(8, b"\0")


def dstring(text, size):
    raw = bytes([8]) + text.encode()
    return raw.ljust(size - 1, b"\0") + bytes([len(raw)])


def charspec():
    return bytes([0]) + b"OSTA Compressed Unicode".ljust(63, b"\0")


def long_ad(length, block, part):
    return struct.pack("<IIH", length, block, part) + bytes(6)


UDF250 = struct.pack("<HB", 0x0250, 0)
TIME = struct.pack("<HhBBBBBBBB", 0x1000 | 0, 2026, 11, 27, 12, 0, 0, 0, 0, 0)


def efe(location, file_type, size, ads, kind, unique):
    """An extended file entry; `ads` its allocation descriptors (kind 0 short, 1 long)."""
    icb = struct.pack("<IHHHBB", 0, 4, 0, 1, 0, file_type) + bytes(6) + struct.pack("<H", kind)
    blocks = (size + SECTOR - 1) // SECTOR
    body = icb + struct.pack("<IIIHBBI", 0, 0, 0x14A5, 1, 0, 0, 0) + struct.pack("<QQQ", size, size, blocks)
    body += TIME * 4 + struct.pack("<II", 1, 0) + bytes(16) + bytes(16) + regid("*aether-tui")
    body += struct.pack("<QII", unique, 0, len(ads)) + ads
    return tag(266, body, location)


def fid(name, icb_block, part, directory=False, parent=False):
    ident = b"" if parent else bytes([8]) + name.encode()
    body = struct.pack("<HBB", 1, (0x02 if directory else 0) | (0x08 if parent else 0), len(ident))
    body += long_ad(SECTOR, icb_block, part) + struct.pack("<H", 0) + ident
    raw = tag(257, body, 0)
    return raw + bytes((-len(raw)) % 4)


def udf_image(folder, out, label):
    """Writes `folder` (BDMV/... below it) as a UDF 2.50 image with a metadata partition."""
    tree = {}
    for root, _, names in os.walk(folder):
        rel = os.path.relpath(root, folder)
        tree[rel] = sorted(names)
    dirs = sorted(tree, key=lambda d: (d.count("/"), d))
    files = [(d, n) for d in dirs for n in tree[d]]
    part_start = 272
    # Metadata partition blocks: 0 FSD, 1 terminator; then each directory's entry and its
    # identifiers' block; then each file's entry.
    meta, next_block = {}, 2
    for d in dirs:
        meta[("dir", d)] = next_block
        meta[("fids", d)] = next_block + 1
        next_block += 2
    for d, n in files:
        meta[("file", d, n)] = next_block
        next_block += 1
    meta_blocks = next_block
    # Physical partition: 0 metadata file, 1 mirror file, then the metadata content and its
    # mirror copy, then the files' data; the first stream split around the second.
    meta_at, mirror_at = 2, 2 + meta_blocks
    data_at = mirror_at + meta_blocks
    extents, block = {}, data_at
    streams = [(d, n) for d, n in files if n.endswith(".m2ts")]
    order = [f for f in files if f not in streams]
    if len(streams) >= 2:
        # The second stream (a clip whose clock the player moves) is the one cut in two, inside
        # a source packet: a sector is not a whole number of them.
        first, second = streams[1], streams[0]
        size = os.path.getsize(os.path.join(folder, *first))
        half = (size // 2 // SECTOR) * SECTOR
        if half % 192 == 0:
            half += SECTOR
        extents[first] = [(block, half, 0)]
        block += half // SECTOR
        size2 = os.path.getsize(os.path.join(folder, *second))
        extents[second] = [(block, size2, 0)]
        block += (size2 + SECTOR - 1) // SECTOR
        extents[first].append((block, size - half, half))
        block += (size - half + SECTOR - 1) // SECTOR
        order += streams[2:]
    else:
        order += streams
    for f in order:
        size = os.path.getsize(os.path.join(folder, *f))
        extents[f] = [(block, size, 0)]
        block += max(1, (size + SECTOR - 1) // SECTOR)
    part_length = block + 16
    total = part_start + part_length + 257
    image = bytearray(total * SECTOR)

    def put(sector, data):
        image[sector * SECTOR:sector * SECTOR + len(data)] = data

    for n, ident in enumerate([b"BEA01", b"NSR03", b"TEA01"]):
        put(16 + n, bytes([0]) + ident + bytes([1]))
    # Volume descriptor sequence (main at 32, reserve at 48), integrity at 64.
    for base in (32, 48):
        pvd = struct.pack("<II", 1, 0) + dstring(label, 32) + struct.pack("<HHHHII", 1, 1, 2, 3, 1, 1)
        pvd += dstring(label, 128) + charspec() + charspec() + bytes(16) + regid("*aether-tui") + TIME
        pvd += regid("*aether-tui") + bytes(64) + struct.pack("<IH", 0, 0) + bytes(22)
        put(base, tag(1, pvd, base))
        pd = struct.pack("<IHH", 2, 1, 0) + regid("+NSR03") + bytes(128) + struct.pack("<III", 1, part_start, part_length)
        pd += regid("*aether-tui") + bytes(128) + bytes(156)
        put(base + 1, tag(5, pd, base + 1))
        maps = struct.pack("<BBHH", 1, 6, 1, 0)
        maps += struct.pack("<BBH", 2, 64, 0) + regid("*UDF Metadata Partition", UDF250)
        maps += struct.pack("<HHIIIIHB", 1, 0, 0, 1, 0xFFFFFFFF, 32, 1, 0) + bytes(5)
        lvd = struct.pack("<I", 3) + charspec() + dstring(label, 128) + struct.pack("<I", SECTOR)
        lvd += regid("*OSTA UDF Compliant", UDF250) + long_ad(SECTOR, 0, 1)
        lvd += struct.pack("<II", len(maps), 2) + regid("*aether-tui") + bytes(128) + struct.pack("<II", SECTOR, 64) + maps
        put(base + 2, tag(6, lvd, base + 2))
        put(base + 3, tag(7, struct.pack("<II", 4, 0), base + 3))
        put(base + 4, tag(8, bytes(496), base + 4))
    lvid = TIME + struct.pack("<I", 1) + bytes(8) + struct.pack("<Q", 16) + bytes(24) + struct.pack("<II", 2, 46)
    lvid += struct.pack("<II", 0, 0) + struct.pack("<II", part_length, part_length)
    lvid += regid("*aether-tui") + struct.pack("<IIHHH", len(files), len(dirs), 0x0250, 0x0250, 0x0250)
    put(64, tag(9, lvid, 64))
    anchor = struct.pack("<IIII", 5 * SECTOR, 32, 5 * SECTOR, 48)
    put(256, tag(2, anchor + bytes(480), 256))
    put(total - 1, tag(2, anchor + bytes(480), total - 1))

    # The metadata partition's content, block by block.
    content = bytearray(meta_blocks * SECTOR)

    def meta_put(b, data):
        assert len(data) <= SECTOR
        content[b * SECTOR:b * SECTOR + len(data)] = data

    fsd = TIME + struct.pack("<HHIIII", 3, 3, 1, 1, 0, 0) + charspec() + dstring(label, 128) + charspec()
    fsd += dstring(label, 32) + bytes(32) + bytes(32) + long_ad(SECTOR, meta[("dir", ".")], 1)
    fsd += regid("*OSTA UDF Compliant", UDF250) + bytes(16) + bytes(16) + bytes(32)
    meta_put(0, tag(256, fsd, 0))
    meta_put(1, tag(8, bytes(496), 1))
    unique = 16
    for d in dirs:
        parent = os.path.dirname(d) if d != "." else "."
        parent = parent or "."
        ids = fid("", meta[("dir", parent)], 1, directory=True, parent=True)
        for sub in dirs:
            if sub != "." and (os.path.dirname(sub) or ".") == d:
                ids += fid(os.path.basename(sub), meta[("dir", sub)], 1, directory=True)
        for n in tree[d]:
            ids += fid(n, meta[("file", d, n)], 1)
        # Short allocation descriptor: the identifiers' block, in the metadata partition.
        meta_put(meta[("fids", d)], ids)
        ad = struct.pack("<II", len(ids), meta[("fids", d)])
        meta_put(meta[("dir", d)], efe(meta[("dir", d)], 4, len(ids), ad, 0, unique))
        unique += 1
    for d, n in files:
        size = os.path.getsize(os.path.join(folder, d, n))
        # Long allocation descriptors: the data, in the physical partition (reference 0).
        ads = b"".join(long_ad(length, b, 0) for b, length, _ in extents[(d, n)])
        meta_put(meta[("file", d, n)], efe(meta[("file", d, n)], 5, size, ads, 1, unique))
        unique += 1
        with open(os.path.join(folder, d, n), "rb") as f:
            data = f.read()
        for b, length, offset in extents[(d, n)]:
            put(part_start + b, data[offset:offset + length])
    put(part_start + meta_at, content)
    put(part_start + mirror_at, content)
    for b, kind in ((0, 250), (1, 251)):
        ad = struct.pack("<II", meta_blocks * SECTOR, meta_at if kind == 250 else mirror_at)
        put(part_start + b, efe(b, kind, meta_blocks * SECTOR, ad, 0, 0))
    with open(out, "wb") as f:
        f.write(image)


def main():
    if sys.argv[1] == "--sup":
        with open(sys.argv[2], "wb") as f:
            f.write(sup(int(sys.argv[3]), int(sys.argv[4])))
        return
    work, out = sys.argv[1], sys.argv[2]
    folder = os.path.join(out, "bluray")
    shutil.rmtree(folder, ignore_errors=True)
    for sub in ("PLAYLIST", "CLIPINF", "STREAM"):
        os.makedirs(os.path.join(folder, "BDMV", sub))
    bdmv = os.path.join(folder, "BDMV")
    with open(os.path.join(bdmv, "index.bdmv"), "wb") as f:
        f.write(index_bdmv())
    with open(os.path.join(bdmv, "MovieObject.bdmv"), "wb") as f:
        f.write(movie_objects())
    times = {}
    for clip in ("00001", "00002", "00003"):
        shutil.copy(os.path.join(work, clip + ".m2ts"), os.path.join(bdmv, "STREAM", clip + ".m2ts"))
        info, start, end = clpi(os.path.join(bdmv, "STREAM", clip + ".m2ts"))
        with open(os.path.join(bdmv, "CLIPINF", clip + ".clpi"), "wb") as f:
            f.write(info)
        times[clip] = (start, end)
    main_items = [("00001",) + times["00001"], ("00002",) + times["00002"]]
    second_in = times["00002"][0]
    playlists = {
        "00000": mpls([("00003",) + times["00003"]], [(0, times["00003"][0])]),
        "00001": mpls(main_items, [(0, times["00001"][0]), (1, second_in), (1, second_in + 2 * 45_000)]),
        "00002": mpls([("00002",) + times["00002"]], [(0, second_in)], languages=("deu", "spa")),
        "00003": mpls(main_items, [(0, times["00001"][0])]),
    }
    for name, data in playlists.items():
        with open(os.path.join(bdmv, "PLAYLIST", name + ".mpls"), "wb") as f:
            f.write(data)
    udf_image(folder, os.path.join(out, "bluray.iso"), "AETHER_BD")


if __name__ == "__main__":
    main()
