#!/usr/bin/env python3
"""A tunnelling proxy for the tests on 127.0.0.1: HTTP CONNECT (what https_proxy names) and
SOCKS5 (socks5:// and socks5h://, no authentication) on one port.

   tunnel_proxy.py LOG

Prints the port it listens on (first line of stdout, flushed). Each tunnel it opens is logged to
LOG as one JSON line: {"kind": "connect" or "socks5", "target": "HOST:PORT"}, written when the
tunnel is up. A request it does not understand (a plain-HTTP proxy request, garbage, a header
over 8 KiB) is answered 400 or closed, and logged as {"kind": "refused", "first": "..."}. Bytes
are relayed both ways until either side closes. Ends on SIGTERM or when stdin closes (EOF).
"""
import json
import signal
import socket
import struct
import sys
import threading

from tcp_relay import pump

log_path = sys.argv[1]
log_lock = threading.Lock()


def log(entry):
    with log_lock, open(log_path, "a") as f:
        f.write(json.dumps(entry) + "\n")


def recv_exact(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise OSError("closed")
        data += chunk
    return data


def tunnel(client, kind, host, port, ok):
    try:
        upstream = socket.create_connection((host, port), timeout=10)
    except OSError:
        log({"kind": "refused", "first": "%s %s:%d unreachable" % (kind, host, port)})
        client.close()
        return
    upstream.settimeout(None)
    client.sendall(ok)
    log({"kind": kind, "target": "%s:%d" % (host, port)})
    threading.Thread(target=pump, args=(upstream, client), daemon=True).start()
    pump(client, upstream)


def serve(client):
    client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        first = recv_exact(client, 1)
        if first == b"\x05":   # SOCKS5: greeting, then one CONNECT request
            methods = recv_exact(client, recv_exact(client, 1)[0])
            if 0 not in methods:
                client.sendall(b"\x05\xff")
                return
            client.sendall(b"\x05\x00")
            version, command, _, atyp = recv_exact(client, 4)
            if atyp == 1:
                host = socket.inet_ntoa(recv_exact(client, 4))
            elif atyp == 3:
                host = recv_exact(client, recv_exact(client, 1)[0]).decode("ascii", "replace")
            else:
                client.sendall(b"\x05\x08\x00\x01" + b"\x00" * 6)
                return
            port = struct.unpack(">H", recv_exact(client, 2))[0]
            if version != 5 or command != 1:
                client.sendall(b"\x05\x07\x00\x01" + b"\x00" * 6)
                return
            tunnel(client, "socks5", host, port, b"\x05\x00\x00\x01" + b"\x00" * 6)
            return
        head = first
        while b"\r\n\r\n" not in head and len(head) < 8192:
            chunk = client.recv(4096)
            if not chunk:
                return
            head += chunk
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        if len(parts) == 3 and parts[0] == "CONNECT" and ":" in parts[1]:
            host, _, port = parts[1].rpartition(":")
            if port.isdigit():
                tunnel(client, "connect", host.strip("[]"), int(port), b"HTTP/1.1 200 Connection established\r\n\r\n")
                return
        log({"kind": "refused", "first": line[:200]})
        client.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    except OSError:
        pass
    finally:
        client.close()


listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(64)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))


def accept():
    while True:
        client, _ = listener.accept()
        threading.Thread(target=serve, args=(client,), daemon=True).start()


threading.Thread(target=accept, daemon=True).start()
print(listener.getsockname()[1], flush=True)
sys.stdin.read()
