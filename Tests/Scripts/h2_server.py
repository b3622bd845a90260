#!/usr/bin/env python3
"""A real HTTP/2 server for the tests: nghttpd (Debian's nghttp2-server) on 127.0.0.1 over TLS.

   h2_server.py CERT KEY DIR LOG

Serves the files under DIR (whole: nghttpd answers no Range) with the certificate chain CERT and
its key KEY, offering h2 by ALPN. nghttpd's verbose frame log goes to LOG: each request's
`recv (stream_id=N) :path: /x` line is prefixed `[id=C]`, C the client connection, so a test can
count the connections and streams a client used. Prints the port it listens on (first line of
stdout, flushed) once nghttpd accepts connections, and ends nghttpd when stdin closes (EOF) or on
SIGTERM (nghttpd is killed: it blocks SIGTERM); nghttpd also dies with this wrapper however it
ends (PR_SET_PDEATHSIG).
"""
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time

cert, key, root, log = sys.argv[1:5]
# A free port: bound and released here, then given to nghttpd (which takes a number only).
probe = socket.socket()
probe.bind(("127.0.0.1", 0))
port = probe.getsockname()[1]
probe.close()
libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


def die_with_parent():
    """nghttpd ends when this wrapper does, however it ends (the suite kills a helper that
    outlives its stdin with SIGKILL, which runs no handler here). SIGKILL: nghttpd blocks
    SIGTERM and most other signals in all its threads."""
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


with open(log, "w") as out:
    child = subprocess.Popen(["nghttpd", "-v", "-d", root, "-a", "127.0.0.1", str(port), key, cert],
                             stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)


def end(*_):
    if child.poll() is None:
        child.kill()   # it blocks SIGTERM
        child.wait()
    sys.exit(0)


signal.signal(signal.SIGTERM, end)
deadline = time.monotonic() + 10
while True:
    if child.poll() is not None:
        sys.exit("nghttpd ended before it listened (exit %d)" % child.returncode)
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        break
    except OSError:
        if time.monotonic() > deadline:
            end()
        time.sleep(0.02)
print(port, flush=True)
sys.stdin.read()
end()
