#!/usr/bin/env python3
"""An HTTP/1.1 reverse proxy on 127.0.0.1 that injects network faults, for the tests.

   fault_proxy.py UPSTREAM_PORT LOG [RULES.json]

Sits in front of an HTTP server on 127.0.0.1:UPSTREAM_PORT (normally range_http.py). Prints
the port it listens on (first line of stdout, flushed). Ends on SIGTERM or when stdin closes
(EOF); from a shell keep stdin open with a FIFO, as for range_http.py:
   mkfifo ctl; python3 fault_proxy.py 8080 proxy.jsonl rules.json <ctl >port.txt & exec 3>ctl
   ... exec 3>&-          # closes stdin: the proxy exits

Forwarding. Each request (any method) is sent upstream on a new connection with the same
method, request target (path and query) and headers (Range included; hop-by-hop headers such as
Connection, Keep-Alive, TE, Transfer-Encoding, Upgrade are not forwarded) and its body
(Content-Length bodies only). The upstream status line and headers come back unchanged (its
Date and Server included) and the body is streamed back as it arrives. The client connection is
kept alive whenever the response has a Content-Length. Upstream unreachable: 502, empty body.
One thread per client connection: many connections are served at once, and a client that
drops, stalls or disappears only ends its own thread.

Rules: a JSON list, read from RULES.json at start and replaceable at run time. For each
request the first rule that matches and still has uses left applies (at most one rule):
   {"path": REGEX,          re.search against the request target as sent ("/v1/seg003.ts",
                            query string included); optional, default: every request
    "method": "GET",        optional: only requests with this method (case-insensitive)
    "range": REGEX,         optional: re.search against the Range header; a request without
                            one does not match ("^bytes=1586855-": one byte range of a file)
    "times": N,             optional: applies to the first N matching requests, then is skipped
                            (counts restart when the rules are replaced); default unlimited
    "latency_ms": L,        wait L ms before contacting upstream / answering
    "status": 503,          answer this status (400-599) with an empty body (Content-Length: 0)
                            without contacting upstream
    "drop_after": N,        send the status line, headers (the full Content-Length) and the
                            first N body bytes, then reset the connection (SO_LINGER 0: the
                            client sees ECONNRESET). A body of N bytes or less is sent whole and
                            the connection stays usable.
    "stall_after": N,       after N body bytes send nothing for S seconds, then go on; a huge
    "stall_seconds": S,     S (1e9) stalls until the client goes away. A stall is skipped when
                            the body is not longer than N.
    "throttle_bps": B,      pace the body at B bytes/s (about 20 writes a second)
    "ignore_range": true,   forward the request without its Range header: the whole resource
                            comes back with 200 (a server that does not do ranges)
    "hide_total": true,     a Content-Range's total becomes "*" (a server that does not say
                            the resource's length)
    "set_cookies": [TEXT]}  add one `Set-Cookie: TEXT` field per string to the upstream answer
latency_ms combines with everything; throttle_bps with drop_after and stall_after. "status"
excludes the body actions. A rule with no action passes the request through unchanged (it still
counts its uses and shows in the log). Unknown keys are an error. Examples:
   [{"path": "seg00[3]\\.ts$", "times": 1, "drop_after": 1000},
    {"path": "\\.m3u8$", "latency_ms": 300},
    {"path": "v2/", "status": 404}]

Control endpoints (answered by the proxy itself, never forwarded, never logged):
   POST /__rules     body: a JSON rule list; replaces the rules. 204, or 400 with the reason.
   GET  /__rules     {"rules": [...], "used": [uses per rule]}
   GET  /__log       the log entries of the requests whose responses have ended, a JSON list
                     (the same objects as the LOG lines, in the order they ended; "seq" gives
                     the order they started)
   DELETE /__log     empties that in-memory list (LOG is not touched). 204.

Log: one JSON line per proxied request, written to LOG (and kept for GET /__log) when its
response ends (sent in full, cut by a rule, or the client went away):
   {"method", "path", "range" (Range header or null), "headers" (request headers, a dict),
    "rule" (index of the rule applied, or null), "status" (status sent to the client; null if
    none was sent), "bytes" (body bytes sent to the client), "length" (the Content-Length
    announced, or null), "cut" (true when the client got fewer body bytes than announced:
    drop_after, a client that went away, an upstream failure), "upstream" (whether upstream
    was contacted), "time" (start, Unix seconds), "duration" (seconds), "seq" (the request's
    place in the order requests started, from 0: a response that ends late is logged after a
    later request's)}
"""
import fcntl, http.client, http.server, json, re, select, signal, socket, struct, sys, termios, threading, time

HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "proxy-authenticate",
              "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade"}
KEYS = {"path", "method", "range", "times", "latency_ms", "status", "drop_after", "stall_after",
        "stall_seconds", "throttle_bps", "ignore_range", "hide_total", "set_cookies", "comment"}


def number(rule, key, integer=False, positive=False):
    value = rule.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (integer and not isinstance(value, int)):
        raise ValueError(f"{key} must be a{'n integer' if integer else ' number'}: {value!r}")
    if value < 0 or (positive and value == 0):
        raise ValueError(f"{key} must be {'positive' if positive else 'non-negative'}: {value!r}")
    return value


def validate(rules):
    """Checks a rule list; returns [(rule, compiled path regex)]. Raises ValueError."""
    if not isinstance(rules, list):
        raise ValueError("rules must be a JSON list")
    checked = []
    for i, rule in enumerate(rules):
        try:
            if not isinstance(rule, dict):
                raise ValueError("a rule must be a JSON object")
            unknown = set(rule) - KEYS
            if unknown:
                raise ValueError(f"unknown keys {sorted(unknown)}")
            path = rule.get("path", "")
            if not isinstance(path, str):
                raise ValueError("path must be a string")
            try:
                regex = re.compile(path)
            except re.error as e:
                raise ValueError(f"path is not a regex: {e}") from None
            if "method" in rule and not isinstance(rule["method"], str):
                raise ValueError("method must be a string")
            if "range" in rule:
                if not isinstance(rule["range"], str):
                    raise ValueError("range must be a string")
                try:
                    re.compile(rule["range"])
                except re.error as e:
                    raise ValueError(f"range is not a regex: {e}") from None
            number(rule, "times", integer=True)
            number(rule, "latency_ms")
            number(rule, "drop_after", integer=True)
            number(rule, "stall_after", integer=True)
            number(rule, "stall_seconds")
            number(rule, "throttle_bps", positive=True)
            if "status" in rule:
                status = number(rule, "status", integer=True)
                if not 400 <= status <= 599:
                    raise ValueError(f"status must be 400-599: {status}")
                body = {"drop_after", "stall_after", "throttle_bps"} & set(rule)
                if body:
                    raise ValueError(f"status excludes {sorted(body)}")
            for flag in ("ignore_range", "hide_total"):
                if flag in rule and not isinstance(rule[flag], bool):
                    raise ValueError(f"{flag} must be true or false")
            cookies = rule.get("set_cookies", [])
            if not isinstance(cookies, list) or not all(isinstance(c, str) and "\r" not in c and "\n" not in c for c in cookies):
                raise ValueError("set_cookies must be a list of one-line strings")
            if ("stall_after" in rule) != ("stall_seconds" in rule):
                raise ValueError("stall_after and stall_seconds go together")
        except ValueError as e:
            raise ValueError(f"rule {i}: {e}") from None
        checked.append((rule, regex))
    return checked


class Rules:
    def __init__(self):
        self.lock = threading.Lock()
        self.rules, self.used = [], []

    def replace(self, rules):
        checked = validate(rules)
        with self.lock:
            self.rules, self.used = checked, [0] * len(checked)

    def pick(self, method, path, byte_range=None):
        with self.lock:
            for i, (rule, regex) in enumerate(self.rules):
                if "method" in rule and rule["method"].upper() != method.upper():
                    continue
                if "range" in rule and (byte_range is None or not re.search(rule["range"], byte_range)):
                    continue
                if not regex.search(path):
                    continue
                if rule.get("times") is not None and self.used[i] >= rule["times"]:
                    continue
                self.used[i] += 1
                return i, rule
        return None, {}

    def state(self):
        with self.lock:
            return {"rules": [rule for rule, _ in self.rules], "used": list(self.used)}


class Dropped(Exception):
    """The connection to the client is finished (reset or gone): stop serving it."""


RULES = Rules()
LOG_LOCK = threading.Lock()
LOG_ENTRIES = []
STARTED = [0]  # requests started so far (under LOG_LOCK)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    # Each write goes out at once, as a real server's (TCP_NODELAY): a cut's first N bytes are on
    # the wire before the reset, and a response's second write does not wait for the client's
    # delayed ACK on a kept-alive connection (with Nagle: 40 ms a request, or the cut bytes lost).
    disable_nagle_algorithm = True

    def handle(self):
        try:
            super().handle()
        except (Dropped, OSError, ValueError, http.client.HTTPException):
            pass  # the client went away or was cut off on purpose

    def do_any(self):
        if urlpath(self.path) in ("/__rules", "/__log"):
            self.control()
        else:
            self.proxy()

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_OPTIONS = do_PATCH = do_any

    # -- control endpoints

    def reply(self, status, body=b"", content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        if body:
            self.send_header("Content-Type", content_type)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def control(self):
        body = self.read_body()
        path, method = urlpath(self.path), self.command
        if path == "/__rules" and method == "POST":
            try:
                RULES.replace(json.loads(body or b"null"))
            except (ValueError, UnicodeDecodeError) as e:
                return self.reply(400, (str(e) + "\n").encode(), "text/plain")
            return self.reply(204)
        if path == "/__rules" and method in ("GET", "HEAD"):
            return self.reply(200, json.dumps(RULES.state()).encode())
        if path == "/__log" and method in ("GET", "HEAD"):
            with LOG_LOCK:
                data = json.dumps(LOG_ENTRIES).encode()
            return self.reply(200, data)
        if path == "/__log" and method == "DELETE":
            with LOG_LOCK:
                LOG_ENTRIES.clear()
            return self.reply(204)
        return self.reply(405)

    # -- proxying

    def read_body(self):
        length = self.headers.get("Content-Length")
        if not length:
            return None
        return self.rfile.read(int(length))

    def wait_client(self, seconds):
        """Sleeps up to `seconds`; False as soon as the client has closed its connection."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return True
            ready, _, broken = select.select([self.connection], [], [self.connection], min(left, 0.2))
            if ready or broken:
                try:
                    data = self.connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
                except BlockingIOError:
                    continue
                except OSError:
                    return False
                if not data:
                    return False
                time.sleep(min(max(deadline - time.monotonic(), 0), 0.2))  # a pipelined request: keep waiting

    def reset(self):
        """Closes the client connection abruptly: RST rather than FIN, once what was written has
        left (at most 0.5 s): a zero linger discards what is still queued."""
        deadline = time.monotonic() + 0.5
        try:
            while time.monotonic() < deadline:
                queued = struct.unpack("i", fcntl.ioctl(self.connection.fileno(), termios.TIOCOUTQ, b"\0\0\0\0"))[0]
                if queued == 0:
                    break
                time.sleep(0.005)
        except OSError:
            pass
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        self.close_quietly()

    def close_quietly(self):
        for f in (self.wfile, self.rfile, self.connection):
            try:
                f.close()  # the socket's descriptor closes with the last of them
            except (OSError, ValueError):
                pass
        self.close_connection = True

    def proxy(self):
        started = time.time()
        with LOG_LOCK:
            seq, STARTED[0] = STARTED[0], STARTED[0] + 1
        index, rule = RULES.pick(self.command, self.path, self.headers.get("Range"))
        entry = {"method": self.command, "path": self.path, "range": self.headers.get("Range"),
                 "headers": dict(self.headers.items()), "rule": index, "status": None, "bytes": 0,
                 "length": None, "cut": False, "upstream": False, "time": round(started, 3), "seq": seq}
        conn = None
        try:
            body = self.read_body()
            if rule.get("latency_ms") and not self.wait_client(rule["latency_ms"] / 1000):
                entry["cut"] = True
                self.close_quietly()
                raise Dropped()
            if "status" in rule:
                entry["status"], entry["length"] = rule["status"], 0
                self.send_response(rule["status"])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            entry["upstream"] = True
            conn = http.client.HTTPConnection("127.0.0.1", UPSTREAM, timeout=60)
            try:
                conn.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
                for name, value in self.headers.items():
                    if name.lower() in HOP_BY_HOP or (rule.get("ignore_range") and name.lower() == "range"):
                        continue
                    conn.putheader(name, value)
                conn.endheaders(body)
                resp = conn.getresponse()
            except (OSError, http.client.HTTPException):
                entry["status"], entry["length"] = 502, 0
                self.send_response(502)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            has_body = self.command != "HEAD" and resp.status not in (204, 304) and resp.status >= 200
            length = resp.getheader("Content-Length")
            length = int(length) if length and length.isdigit() else None
            entry["status"] = resp.status
            entry["length"] = length if has_body else 0
            self.send_response_only(resp.status, resp.reason)
            for name, value in resp.getheaders():
                if name.lower() not in HOP_BY_HOP:
                    if rule.get("hide_total") and name.lower() == "content-range":
                        value = re.sub(r"/\d+$", "/*", value)
                    self.send_header(name, value)
            for cookie in rule.get("set_cookies", []):
                self.send_header("Set-Cookie", cookie)
            if has_body and length is None:
                self.send_header("Connection", "close")  # the body ends when the connection does
            self.end_headers()
            if has_body:
                self.stream(resp, rule, length, entry)
        except (OSError, ValueError):
            entry["cut"] = entry["length"] is None or entry["bytes"] < entry["length"]
            self.close_connection = True
            raise
        finally:
            if conn is not None:
                conn.close()
            entry["duration"] = round(time.time() - started, 3)
            line = json.dumps(entry)
            with LOG_LOCK:
                LOG_ENTRIES.append(entry)
                LOG.write(line + "\n")

    def stream(self, resp, rule, length, entry):
        drop, stall = rule.get("drop_after"), rule.get("stall_after")
        bps = rule.get("throttle_bps")
        stalled = False
        sent = 0
        pace_t, pace_bytes = time.monotonic(), 0  # pacing restarts after a stall
        while True:
            limit = 65536
            if bps:
                limit = max(1, min(limit, int(bps / 20)))
            if drop is not None:
                limit = min(limit, drop - sent)
            if stall is not None and not stalled:
                limit = min(limit, stall - sent)
            if limit <= 0:
                if length is not None and sent >= length:
                    break  # the whole body is out: nothing to drop or stall
                if drop is not None and sent >= drop:
                    entry["cut"] = True
                    self.reset()
                    raise Dropped()
                stalled = True
                if not self.wait_client(rule["stall_seconds"]):
                    entry["cut"] = True
                    self.close_quietly()
                    raise Dropped()
                pace_t, pace_bytes = time.monotonic(), sent
                continue
            try:
                chunk = resp.read1(limit) if hasattr(resp, "read1") else resp.read(limit)
            except (OSError, http.client.HTTPException):
                chunk = None
            if not chunk:
                if length is not None and sent < length or chunk is None:
                    entry["cut"] = True  # upstream failed mid-body: the client cannot get the rest
                    self.close_quietly()
                    raise Dropped()
                break
            if bps:
                delay = pace_t + (sent + len(chunk) - pace_bytes) / bps - time.monotonic()  # never ahead of B
                if delay > 0:
                    time.sleep(delay)
            self.wfile.write(chunk)
            sent += len(chunk)
            entry["bytes"] = sent
        if length is None:
            self.close_connection = True


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # many parallel connects (the default, 5, makes some wait a second)

    def handle_error(self, request, client_address):
        pass  # one connection's trouble is never the proxy's


def urlpath(target):
    return target.split("?", 1)[0]


if len(sys.argv) not in (3, 4):
    sys.exit("usage: fault_proxy.py UPSTREAM_PORT LOG [RULES.json]")
UPSTREAM = int(sys.argv[1])
LOG = open(sys.argv[2], "a", buffering=1)
if len(sys.argv) == 4:
    try:
        with open(sys.argv[3]) as f:
            RULES.replace(json.load(f))
    except (OSError, ValueError) as e:
        sys.exit(f"fault_proxy.py: {sys.argv[3]}: {e}")

server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
threading.Thread(target=lambda: (sys.stdin.read(), server.shutdown()), daemon=True).start()
try:
    server.serve_forever(poll_interval=0.1)
except SystemExit:
    pass
