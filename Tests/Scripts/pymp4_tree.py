#!/usr/bin/env python3
"""Prints pymp4's box tree of an MP4 file, one box a line, for the inspector's comparison test
(ISOBMFFStructureTests): DEPTH TYPE OFFSET SIZE EXPANDED, tab-separated, in file order.

pymp4 (PyPI, construct 2.8) is an independent ISO BMFF parser. It expands only the containers it
knows (moov, trak, mdia, minf, stbl, dinf, mvex, moof, traf, schi, sinf, stsd's entries; not
udta, edts or meta), so EXPANDED says whether its children follow: the test expands exactly those
of ours. SIZE is what the file declares at OFFSET (pymp4 keeps where it stopped reading). Sample entries and the first box inside avc1/encv (avc_data) carry no offset or size in
pymp4's result: they print '-' there and are compared by type only.

Each top-level box is parsed on its own; one pymp4 cannot parse prints
  FAIL OFFSET TYPE REASON
and is skipped by its 32-bit size (the test does not compare that box). EXPANDED is 0 (no
children shown), 1 (all of them) or 2 (the first ones: see walk).
"""
import io
import struct
import sys

from pymp4.parser import Box


def fourcc(t):
    if isinstance(t, bytes):
        return "".join(chr(b) if 0x20 <= b < 0x7F and b not in (0x5C, 0x2F) else ("©" if b == 0xA9 else "\\x%02X" % b) for b in t)
    return str(t)


def emit(out, depth, typ, offset, size, expanded):
    out.append("\t".join([str(depth), fourcc(typ), "-" if offset is None else str(offset),
                          "-" if size is None else str(size), str(expanded)]))


def declared(data, offset):
    """The size the file gives the box at offset (its 32-bit size, or the 64-bit one)."""
    size = struct.unpack(">I", data[offset:offset + 4])[0]
    if size == 1:
        size = struct.unpack(">Q", data[offset + 8:offset + 16])[0]
    elif size == 0:
        size = None
    return size


def walk(data, box, depth, out):
    """Appends box's line and its children's. pymp4 reads some boxes only in part (an mp4a or
    encv entry's trailing boxes): the rest of that level is then read from the wrong place, so a
    level stops after a child whose consumed size differs from its declared one, and is marked
    partial (2): the test compares our first children with those. Returns whether the box's
    consumed size matched its declared size."""
    offset = box.offset
    size = declared(data, offset)
    consistent = (box.end - box.offset) == size
    children = box.get("children") if hasattr(box, "get") else None
    entries = box.get("entries") if box.type == b"stsd" else None
    lines = []
    expanded = 0
    if children is not None:
        expanded = 1
        for child in children:
            if not walk(data, child, depth + 1, lines):
                expanded = 2
                break
    if entries is not None:
        expanded = 1
        for entry in entries:
            sub = []
            if entry.get("avc_data") is not None:
                sub.append(("avc", entry.avc_data))
            for b in entry.get("sample_info") or []:
                sub.append(("box", b))
            for b in entry.get("children") or []:
                sub.append(("box", b))
            # An entry's consumed size is not kept: whether pymp4 read all of it is unknown, so
            # its boxes are compared as a prefix and the entries after it are not compared.
            emit(lines, depth + 1, entry.format, None, None, 2 if sub else 0)
            for kind, b in sub:
                if kind == "avc":
                    emit(lines, depth + 2, b.type, None, None, 0)
                elif not walk(data, b, depth + 2, lines):
                    break
            if entry.format not in (b"avc1", b"encv", b"wvtt"):
                expanded = 2
                break
    # pymp4 stops a container's children silently at the first it cannot parse (GreedyRange):
    # a container that did not consume its declared size shows only the first of them.
    if expanded == 1 and not consistent:
        expanded = 2
    emit(out, depth, box.type, offset, size, expanded)
    out.extend(lines)
    return consistent


def main(path):
    data = open(path, "rb").read()
    pos = 0
    while pos + 8 <= len(data):
        size, typ = struct.unpack(">I4s", data[pos:pos + 8])
        try:
            if size < 8:
                raise ValueError("size %d" % size)
            # Parsed from the whole file (seeked to the box) so its offsets are the file's.
            stream = io.BytesIO(data)
            stream.seek(pos)
            box = Box.parse_stream(stream)
            out = []
            walk(data, box, 0, out)
            print("\n".join(out))
        except Exception as e:  # noqa: BLE001 - any failure of pymp4's is reported, not fatal
            print("FAIL\t%d\t%s\t%s" % (pos, fourcc(typ), str(e).replace("\n", " ")[:200]))
            if size < 8:
                break
        pos += size


if __name__ == "__main__":
    main(sys.argv[1])
