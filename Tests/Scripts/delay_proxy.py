#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 that holds each new connection DELAY_MS before its first byte
moves (a round trip of a far server, as a new connection pays it: TCP's and TLS's handshakes),
then passes bytes both ways untouched (TLS too). For aether-bench's connection figures.

   delay_proxy.py UPSTREAM_PORT DELAY_MS COUNT_FILE

Prints the port it listens on (first line of stdout, flushed); writes the number of connections
accepted so far to COUNT_FILE after each accept. Ends when stdin closes or on SIGTERM.
"""
import os, signal, socket, sys, threading, time

from tcp_relay import pump

upstream, delay, count_file = int(sys.argv[1]), int(sys.argv[2]) / 1000.0, sys.argv[3]
listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(128)
accepted = 0
lock = threading.Lock()


def serve(client):
    time.sleep(delay)
    try:
        server = socket.create_connection(("127.0.0.1", upstream))
    except OSError:
        client.close()
        return
    for s in (client, server):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    threading.Thread(target=pump, args=(server, client), daemon=True).start()
    pump(client, server)


def accept_loop():
    global accepted
    while True:
        client, _ = listener.accept()
        with lock:
            accepted += 1
            with open(count_file, "w") as f:
                f.write("%d\n" % accepted)
        threading.Thread(target=serve, args=(client,), daemon=True).start()


print(listener.getsockname()[1], flush=True)
signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
threading.Thread(target=accept_loop, daemon=True).start()
sys.stdin.read()
