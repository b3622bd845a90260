#!/usr/bin/env python3
"""Serves a directory the ways web pages come (issue 32, item 10), to test that each goes to
yt-dlp: /<way>/<file> where <way> is
  plain     python's http.server: HTTP/1.0, Content-Type from the name, Content-Length
  nolength  HTTP/1.0 with no Content-Length: the body ends when the connection closes
  notype    HTTP/1.1 with a length and no Content-Type
  chunked   HTTP/1.1, Transfer-Encoding: chunked, text/html
Prints the port on its first line; runs until killed. Usage: page_server.py DIR"""
import http.server, os, socketserver, sys

root = os.path.abspath(sys.argv[1])


class Handler(http.server.SimpleHTTPRequestHandler):
    # Each write goes out at once, as a real server's (TCP_NODELAY): with Nagle, a response's
    # second write waits for the client's delayed ACK on a kept-alive connection (40 ms a request).
    disable_nagle_algorithm = True
    def __init__(self, *a, **k):
        super().__init__(*a, directory=root, **k)

    def log_message(self, *a):
        pass

    def do_GET(self):
        parts = self.path.lstrip("/").split("/", 1)
        way, name = (parts[0], parts[1]) if len(parts) == 2 else ("plain", parts[0])
        path = os.path.join(root, os.path.normpath("/" + name.split("?")[0]).lstrip("/"))
        if way == "plain" or not os.path.isfile(path):
            self.path = "/" + name
            return super().do_GET()
        body = open(path, "rb").read()
        html = path.endswith(".html")
        if way == "nolength":
            self.protocol_version = "HTTP/1.0"
            self.send_response(200)
            self.send_header("Content-Type", "text/html" if html else "application/octet-stream")
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True
        elif way == "notype":
            self.protocol_version = "HTTP/1.1"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif way == "chunked":
            self.protocol_version = "HTTP/1.1"
            self.send_response(200)
            self.send_header("Content-Type", "text/html" if html else "application/octet-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(0, len(body), 4096):
                chunk = body[i:i + 4096]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.write(b"0\r\n\r\n")
            self.close_connection = True
        else:
            self.send_error(404)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
