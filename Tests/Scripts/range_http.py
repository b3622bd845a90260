#!/usr/bin/env python3
"""A small HTTP/1.1 file server with Range support for the tests, on 127.0.0.1.

   range_http.py [--tls CERT KEY] DIR LOG

Serves the files under DIR, subdirectories included (as HLS and DASH packagers write them):
GET /v0/seg001.ts is DIR/v0/seg001.ts. A path that is not a regular file under DIR (a
directory, a missing file, a `..` component, a symlink or percent-encoded path leading
outside DIR) answers 404. The query string is ignored.

Prints the port it listens on (first line of stdout, flushed), then logs each request as one
JSON line to LOG:
   {"method": "GET", "path": "/v0/index.m3u8", "range": "bytes=0-" or null,
    "headers": {request headers}, "status": 206, "bytes": 1234}
"path" is the request target as sent (query string included); "bytes" counts the body bytes
written to the socket (0 for HEAD, 404, 416; fewer than Content-Length when the client went
away). A line is written when its response ends (sent in full, or the client went away), so a
request whose response is still being sent is not in LOG yet.

HTTP/1.1 with keep-alive (every response has a Content-Length), one thread per connection,
GET and HEAD. Range: a single byte range (`bytes=A-B`, `bytes=A-`, `bytes=-N`) answers 206
with Content-Range; a range that starts at or after the end answers 416 (Content-Range:
bytes */SIZE); a malformed or multi-range header is ignored (200, whole file). Content-Type
from the extension: .m3u8 application/vnd.apple.mpegurl, .mpd application/dash+xml,
.ts video/mp2t, .m4s video/iso.segment, .mp4 video/mp4, .jpg image/jpeg, .png image/png,
.vtt text/vtt, .srt application/x-subrip, .key application/octet-stream (see TYPES);
anything else application/octet-stream.

With --tls it speaks HTTPS (HTTP/1.1 by ALPN) with the certificate chain CERT and its key KEY;
the handshake is made on the connection's own thread, so a client that refuses the certificate
or stalls in the handshake stops nothing else. Every LOG line also names the client connection
("client": "127.0.0.1:PORT"), so the connections a client opened can be counted.

Ends on SIGTERM or when stdin closes (EOF). From a shell, keep stdin open with a FIFO:
   mkfifo ctl; python3 range_http.py DIR LOG <ctl >port.txt & exec 3>ctl   # ... exec 3>&- ends it
"""
import http.server, json, os, signal, ssl, sys, threading, urllib.parse

TYPES = {
    ".m3u8": "application/vnd.apple.mpegurl",
    ".m3u": "audio/x-mpegurl",
    ".mpd": "application/dash+xml",
    ".ts": "video/mp2t",
    ".m4s": "video/iso.segment",
    ".mp4": "video/mp4",
    ".m4a": "audio/mp4",
    ".m4v": "video/mp4",
    ".mkv": "video/x-matroska",
    ".webm": "video/webm",
    ".aac": "audio/aac",
    ".mp3": "audio/mpeg",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".png": "image/png",
    ".vtt": "text/vtt",
    ".srt": "application/x-subrip",
    ".key": "application/octet-stream",
    ".json": "application/json",
    ".txt": "text/plain",
}

args = sys.argv[1:]
tls = None
if args[:1] == ["--tls"]:
    tls, args = (args[1], args[2]), args[3:]
root, log_path = os.path.realpath(args[0]), args[1]
log = open(log_path, "a", buffering=1)
log_lock = threading.Lock()


def resolve(target):
    """The file under root that a request target names, or None."""
    path = urllib.parse.urlsplit(target).path  # also takes absolute-form targets (http://host/x)
    path = urllib.parse.unquote(path)
    if "\0" in path:
        return None
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    full = os.path.realpath(os.path.join(root, *parts))
    if not full.startswith(root + os.sep) or not os.path.isfile(full):
        return None
    return full


def parse_range(value, size):
    """(start, end) inclusive for a single satisfiable range, "416" when unsatisfiable, None
    when there is no usable Range header (malformed or several ranges: serve the whole file)."""
    if not value or not value.startswith("bytes=") or "," in value:
        return None
    a, sep, b = value[6:].strip().partition("-")
    if not sep:
        return None
    try:
        if not a:  # suffix: the last N bytes
            n = int(b)
            if n < 0:
                return None
            if n == 0:
                return "416"
            return (max(0, size - n), size - 1) if size > 0 else "416"
        start = int(a)
        end = int(b) if b else size - 1
    except ValueError:
        return None
    if start >= size:
        return "416"
    if end < start:
        return None
    return start, min(end, size - 1)


class Handler(http.server.BaseHTTPRequestHandler):
    # Each write goes out at once, as a real server's (TCP_NODELAY): with Nagle, a response's
    # second write waits for the client's delayed ACK on a kept-alive connection (40 ms a request).
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.serve(body=True)

    def do_HEAD(self):
        self.serve(body=False)

    def empty(self, status, *headers):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def serve(self, body):
        status, sent = 0, 0
        try:
            path = resolve(self.path)
            if path is None:
                status = 404
                self.empty(404)
                return
            size = os.path.getsize(path)
            rng = parse_range(self.headers.get("Range"), size)
            if rng == "416":
                status = 416
                self.empty(416, ("Content-Range", f"bytes */{size}"), ("Accept-Ranges", "bytes"))
                return
            if rng is None:
                status, (start, end) = 200, (0, size - 1)
                self.send_response(200)
            else:
                status, (start, end) = 206, rng
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
            ext = os.path.splitext(path)[1].lower()
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Content-Length", str(end - start + 1))
            self.send_header("Content-Type", TYPES.get(ext, "application/octet-stream"))
            self.end_headers()
            if not body:
                return
            with open(path, "rb") as f:
                f.seek(start)
                left = end - start + 1
                while left > 0:
                    chunk = f.read(min(65536, left))
                    if not chunk:
                        break
                    self.wfile.write(chunk)
                    sent += len(chunk)
                    left -= len(chunk)
        except (BrokenPipeError, ConnectionResetError, TimeoutError, OSError):
            self.close_connection = True
        finally:
            entry = {"method": self.command, "path": self.path, "range": self.headers.get("Range"),
                     "headers": dict(self.headers.items()), "status": status, "bytes": sent,
                     "client": "%s:%d" % self.client_address[:2]}
            with log_lock:
                log.write(json.dumps(entry) + "\n")


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # many parallel connects (the default, 5, makes some wait a second)

    def handle_error(self, request, client_address):
        pass  # a client that went away must not print a traceback, nor stop anything


server = Server(("127.0.0.1", 0), Handler)
if tls:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tls[0], tls[1])
    context.set_alpn_protocols(["http/1.1"])
    server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
print(server.server_address[1], flush=True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
threading.Thread(target=lambda: (sys.stdin.read(), server.shutdown()), daemon=True).start()
try:
    server.serve_forever(poll_interval=0.1)
except SystemExit:
    pass
