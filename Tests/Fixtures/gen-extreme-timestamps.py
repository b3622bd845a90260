#!/usr/bin/env python3
"""gen-extreme-timestamps.py OUT: a small Matroska file whose timestamps sit at Int64's limits.

One track of 8 kHz mono PCM s16le silence (A_PCM/INT/LIT), millisecond timestamps
(TimestampScale 1000000), and one cluster per timestamp in CLUSTERS, each with two 50 ms
SimpleBlocks (relative times 0 and 50). Cluster timestamps are unsigned 64-bit in Matroska;
libavformat turns the ones at and past 2^62 into packet timestamps near 4.6e18 and, wrapping,
near Int64.min (-9223372036854775758), which is what a player must survive. Every element is
written with an 8-byte size so that the layout is simple and fixed.
"""
import struct
import sys

CLUSTERS = [0, 1000, 1 << 62, (1 << 63) - 16, 1 << 63, (1 << 64) - 1]


def element(id_hex, payload):
    return bytes.fromhex(id_hex) + b"\x01" + len(payload).to_bytes(7, "big") + payload


def uint(id_hex, value):
    return element(id_hex, value.to_bytes(8, "big"))


def text(id_hex, value):
    return element(id_hex, value.encode())


def main(out):
    header = element("1A45DFA3", uint("4286", 1) + uint("42F7", 1) + uint("42F2", 4) + uint("42F3", 8)
                     + text("4282", "matroska") + uint("4287", 4) + uint("4285", 2))
    info = element("1549A966", uint("2AD7B1", 1_000_000) + text("4D80", "gen") + text("5741", "gen"))
    audio = element("E1", element("B5", struct.pack(">d", 8000.0)) + uint("9F", 1) + uint("6264", 16))
    track = element("AE", uint("D7", 1) + uint("73C5", 1) + uint("83", 2) + text("86", "A_PCM/INT/LIT") + audio)
    body = info + element("1654AE6B", track)
    for timestamp in CLUSTERS:
        blocks = b"".join(
            element("A3", b"\x81" + struct.pack(">h", 50 * k) + b"\x80" + bytes(800))  # 400 samples
            for k in range(2))
        body += element("1F43B675", uint("E7", timestamp) + blocks)
    with open(out, "wb") as f:
        f.write(header + element("18538067", body))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: gen-extreme-timestamps.py OUT")
    main(sys.argv[1])
