#!/usr/bin/env python3
"""A misbehaving HTTP/1.1 server on 127.0.0.1 for the remote-door tests (the suite's
NetworkDoorTests and hostile_run.py's remote section). Python 3 standard library only.

   hostile_http.py [MEDIA_DIR]

Prints the port it listens on (first line of stdout, flushed); ends on SIGTERM or when stdin
closes. MEDIA_DIR, when given, is served as plain files under /media/ (Content-Length, no Range).
Every other path is one misbehaviour:

  /endless-media.m3u8     an HLS media playlist as an endless chunked body (segments forever)
  /endless-master.m3u8    a master whose one variant is /endless-media.m3u8
  /gzip-bomb.m3u8         Content-Encoding: gzip; 1 GiB of media playlist when inflated (~1 MB sent)
  /gzip-master.m3u8       a master whose one variant is /gzip-bomb.m3u8
  /endless.mpd            a DASH manifest as an endless chunked body
  /gzip-bomb.mpd          Content-Encoding: gzip; 1 GiB of MPD when inflated
  /entities.mpd           a DASH manifest whose DOCTYPE declares nested entities (billion laughs)
  /parse-error.mpd        a DASH manifest with a parse error on a line holding terminal escapes
                          (screen clear, ESC]0;PWNED title, ESC]52 clipboard write)
  /redirect-loop          302 to /redirect-loop-b, which 302s back (forever)
  /redirect-file          302 to file:///etc/passwd
  /stall                  200 with headers and 1 KiB of an MPEG-TS-like body, then silence
  /drip.m3u8              an HLS playlist one byte every 2 s
  /huge-headers           200 whose headers never end (Set-Cookie lines of 2 KB forever)
  /many-headers           200 whose headers never end (short Set-Cookie lines forever)
  /icy/CASE.mp3           an ICY radio station looping MEDIA_DIR/tone.mp3 at 8000 bytes/s with
                          hostile in-band metadata (CASE: huge, binary, escapes, metaint-0,
                          metaint-2g, lies-long, lies-short, flood, endless-headers); see icy()
"""
import os, signal, struct, sys, threading, time, zlib
import http.server

MEDIA = sys.argv[1] if len(sys.argv) > 1 else None
INFLATED = 1 << 30
_gzip_cache = {}
_gzip_lock = threading.Lock()

MEDIA_LINE = b"#EXTINF:2.000,\nhttp://127.0.0.1:1/segment-with-a-long-name-0000000000.ts\n"
PROFILE = b' profiles="urn:mpeg:dash:profile:isoff-live:2011"'
MPD_HEAD = (b'<?xml version="1.0"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011"' + PROFILE + b' type="static" '
            b'mediaPresentationDuration="PT10S" minBufferTime="PT2S"><Period>\n')
MPD_LINE = b'<AdaptationSet mimeType="video/mp4"><Representation id="v" bandwidth="1000"/></AdaptationSet>\n'


def gzip_body(kind):
    """The compressed body: 1 GiB of playlist or manifest in about 2 MB of gzip. The deflate
    stream is the head, then one 1 MiB block compressed after a full flush (its history reset),
    repeated: the same bytes each time, so the bomb costs one block's compression and a CRC over
    the whole (in C, under a second), not minutes of compressing 1 GiB. Kept in memory."""
    with _gzip_lock:
        if kind not in _gzip_cache:
            head, line = ((b"#EXTM3U\n#EXT-X-TARGETDURATION:2\n", MEDIA_LINE) if kind == "m3u8"
                          else (MPD_HEAD, MPD_LINE))
            block = line * ((1 << 20) // len(line))
            count = (INFLATED - len(head)) // len(block) + 1
            z = zlib.compressobj(9, zlib.DEFLATED, -15)  # raw deflate, wrapped by hand below
            first = z.compress(head) + z.flush(zlib.Z_FULL_FLUSH)
            one = z.compress(block) + z.flush(zlib.Z_FULL_FLUSH)
            assert z.compress(block) + z.flush(zlib.Z_FULL_FLUSH) == one, "a block compressed twice differs"
            crc = zlib.crc32(head)
            for _ in range(count):
                crc = zlib.crc32(block, crc)
            size = len(head) + count * len(block)
            _gzip_cache[kind] = (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + first + one * count + z.flush()
                                 + struct.pack("<II", crc & 0xFFFFFFFF, size & 0xFFFFFFFF))
        return _gzip_cache[kind]


# Five levels of ten over a 20 KB string (2 GB when expanded), with a comment that makes the
# document large enough (80 KB) for libxml2's amplification check to let the references through.
ENTITIES = (b'<?xml version="1.0"?>\n<!DOCTYPE MPD [\n <!ENTITY a "' + b"a" * 20000 + b'">\n'
            + b"".join(b' <!ENTITY %c "&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;">\n' % ((c,) + (c - 1,) * 10)
                       for c in range(ord("b"), ord("g")))
            + b']>\n<!-- ' + b"x" * 60000 + b' -->\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011"' + PROFILE
            + b' type="static" mediaPresentationDuration="PT10S">'
              b'<Period><AdaptationSet contentType="&f;" mimeType="&f;" lang="&f;"><Representation id="&f;" bandwidth="1000">'
              b'</Representation></AdaptationSet></Period></MPD>\n')

PARSE_ERROR = (b'<?xml version="1.0"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011"' + PROFILE + b' type="static">\n'
               b'<Period>\x1b[2J\x1b]0;PWNED\x07\x1b]52;c;UFdORUQ=\x07 <AdaptationSet <<< broken="\n</MPD>\n')


class Handler(http.server.BaseHTTPRequestHandler):
    # Each write goes out at once, as a real server's (TCP_NODELAY): with Nagle, a response's
    # second write waits for the client's delayed ACK on a kept-alive connection (40 ms a request).
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def handle(self):
        try:
            super().handle()
        except (OSError, ValueError):
            pass  # the client went away

    def head(self, status=200, headers=(), length=None, chunked=False):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if length is not None:
            self.send_header("Content-Length", str(length))
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        if length is None and not chunked:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def endless(self, content_type, head, line):
        self.head(headers=[("Content-Type", content_type)], chunked=True)
        self.chunk(head)
        block = line * ((64 << 10) // len(line))
        while True:
            self.chunk(block)

    def body(self, content_type, data, extra=()):
        self.head(headers=[("Content-Type", content_type)] + list(extra), length=len(data))
        self.wfile.write(data)

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if MEDIA and path.startswith("/media/"):
            name = os.path.basename(path)
            try:
                with open(os.path.join(MEDIA, name), "rb") as f:
                    data = f.read()
            except OSError:
                return self.send_error(404)
            return self.body("application/octet-stream", data)
        if path == "/endless-media.m3u8":
            return self.endless("application/vnd.apple.mpegurl", b"#EXTM3U\n#EXT-X-TARGETDURATION:2\n", MEDIA_LINE)
        if path == "/endless-master.m3u8":
            return self.body("application/vnd.apple.mpegurl",
                             b"#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000000\nendless-media.m3u8\n")
        if path == "/gzip-bomb.m3u8":
            return self.body("application/vnd.apple.mpegurl", gzip_body("m3u8"), [("Content-Encoding", "gzip")])
        if path == "/gzip-master.m3u8":
            return self.body("application/vnd.apple.mpegurl",
                             b"#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000000\ngzip-bomb.m3u8\n")
        if path == "/endless.mpd":
            return self.endless("application/dash+xml", MPD_HEAD, MPD_LINE)
        if path == "/gzip-bomb.mpd":
            return self.body("application/dash+xml", gzip_body("mpd"), [("Content-Encoding", "gzip")])
        if path == "/entities.mpd":
            return self.body("application/dash+xml", ENTITIES)
        if path == "/parse-error.mpd":
            return self.body("application/dash+xml", PARSE_ERROR)
        if path == "/redirect-loop":
            return self.head(302, [("Location", "/redirect-loop-b")], length=0)
        if path == "/redirect-loop-b":
            return self.head(302, [("Location", "/redirect-loop")], length=0)
        if path == "/redirect-file":
            return self.head(302, [("Location", "file:///etc/passwd")], length=0)
        if path == "/stall":
            self.head(headers=[("Content-Type", "video/mp2t")], length=10 << 20)
            self.wfile.write(b"\x47" + b"\x00" * 1023)
            self.wfile.flush()
            return self.wait_gone()
        if path == "/drip.m3u8":
            self.head(headers=[("Content-Type", "application/vnd.apple.mpegurl")], chunked=True)
            text = b"#EXTM3U\n#EXT-X-TARGETDURATION:2\n" + MEDIA_LINE * 1000
            for byte in text:
                self.chunk(bytes([byte]))
                self.wfile.flush()
                time.sleep(2)
            return
        if path.startswith("/icy/") and path.endswith(".mp3"):
            return self.icy(path[5:-4])
        if path in ("/huge-headers", "/many-headers"):
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: video/mp2t\r\n")
            line = b"Set-Cookie: c%d=" + (b"x" * 2000 if path == "/huge-headers" else b"x") + b"; Path=/\r\n"
            n = 0
            while True:
                self.wfile.write(line % n)
                n += 1
        self.send_error(404)

    def icy(self, case):
        """An ICY station (HTTP/1.0 style: no length, closed at the end) sending MEDIA/tone.mp3 in
        a loop, paced at 8000 bytes/s, with a metadata block every `metaint` bytes:
          huge        each block the largest there is (255 x 16 bytes), its title never closed
          binary      blocks of random bytes (NULs, 0xFF, bytes that are not UTF-8)
          escapes     titles holding terminal escapes (title set, screen clear), C0/C1 and bidi controls
          metaint-0   icy-metaint: 0 (no blocks; plain MP3)
          metaint-2g  icy-metaint: 2147483648 (no block comes in time)
          lies-long   the length byte says 160 bytes; 20 come, then the MP3 goes on (eaten as metadata)
          lies-short  the length byte says 16 bytes; a 200-byte title follows (the rest lands in the MP3)
          flood       a new title in every block, a block every 32 bytes
          endless-headers  icy-* headers forever (every line a new icy-name) before any body
        """
        try:
            with open(os.path.join(MEDIA or ".", "tone.mp3"), "rb") as f:
                mp3 = f.read()
        except OSError:
            return self.send_error(404)
        metaint = {"metaint-0": 0, "metaint-2g": 2147483648, "flood": 32}.get(case, 8000)
        self.wfile.write(b"HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\nicy-name: Hostile FM\r\n")
        if case == "endless-headers":
            n = 0
            while True:
                self.wfile.write(b"icy-name: station %d %s\r\n" % (n, b"x" * 200))
                n += 1
        self.wfile.write(b"icy-metaint: %d\r\n\r\n" % metaint)
        sent, position, count, total = 0, 0, 0, 0
        start = time.monotonic()
        rng = __import__("random").Random(7)
        while True:
            step = min(2000, metaint - sent) if metaint > 0 else 2000
            data = bytearray()
            while len(data) < step:
                take = mp3[position:position + step - len(data)]
                data += take
                position = (position + len(take)) % len(mp3)
            self.wfile.write(data)
            sent += step
            if metaint > 0 and sent == metaint:
                sent = 0
                count += 1
                if case == "huge":
                    block = (b"StreamTitle='" + b"A" * 5000)[:255 * 16]
                elif case == "binary":
                    block = bytes(rng.randrange(256) for _ in range(16 * rng.randrange(1, 16)))
                elif case == "escapes":
                    block = (b"StreamTitle='\x1b]0;PWNED\x07\x1b[2J\x1b[31mred\x9b1m \xe2\x80\xaeevil\xe2\x81\xa6 song %d\x07';" % count)
                elif case == "lies-long":
                    self.wfile.write(bytes([10]) + b"StreamTitle='x';    ")
                    block = None
                elif case == "lies-short":
                    self.wfile.write(bytes([1]) + b"StreamTitle='" + b"y" * 200 + b"';")
                    block = None
                elif case == "flood":
                    block = b"StreamTitle='flood %d';" % count
                else:
                    block = b"StreamTitle='Hostile %d';" % count
                if block is not None:
                    block += b"\0" * (-len(block) % 16)
                    self.wfile.write(bytes([len(block) // 16]) + block[:255 * 16])
            self.wfile.flush()
            total += step
            time.sleep(max(0.0, start + total / 8000.0 - time.monotonic()))

    def wait_gone(self):
        while True:
            try:
                if not self.connection.recv(1024):
                    return
            except OSError:
                return


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    def handle_error(self, request, client_address):
        pass


server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
threading.Thread(target=lambda: (sys.stdin.read(), server.shutdown()), daemon=True).start()
try:
    server.serve_forever(poll_interval=0.1)
except SystemExit:
    pass
