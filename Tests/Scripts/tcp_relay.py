"""The suite's proxies' one way to pass bytes between two sockets (delay_proxy.py,
tunnel_proxy.py): imported, not run."""
import socket


def pump(src, dst):
    """Copies what `src` sends to `dst` until either side closes, then shuts both down (so the
    pump the other way ends too)."""
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
