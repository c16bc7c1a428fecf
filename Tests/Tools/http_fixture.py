#!/usr/bin/env python3
"""A small HTTP server on 127.0.0.1 for the HTTP wrapper's tests (Tests/HTTPTests).

Prints "port N" once it listens on a free port. With `--tls CERT KEY` it speaks HTTPS. Paths:
  /bytes/N            N bytes, byte i = i % 251, with Content-Length; honours "Range: bytes=A-"
                      (206 and Content-Range)
  /norange/N          the same without Range support (always 200 and the whole body)
  /unsized/N          N bytes without Content-Length (the connection closes at the end)
  /redirect/K         K redirects, then /bytes/1000
  /headers            the request's header lines as the body
  /stall              headers and 10 bytes, then nothing (until the client goes)
  /endless            bytes forever, 4 KiB at a time
  /status/CODE        that status with a short body
"""
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from range_response import send_range_headers


def pattern(start, end):
    return bytes(i % 251 for i in range(start, end))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        parts = self.path.strip("/").split("/")
        kind, arg = parts[0], parts[1] if len(parts) > 1 else ""
        try:
            if kind in ("bytes", "norange"):
                size = int(arg)
                start = send_range_headers(self, size, "application/octet-stream", honour_range=kind == "bytes")
                if start is None:
                    return
                self.wfile.write(pattern(start, size))
            elif kind == "unsized":
                self.send_response(200)
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(pattern(0, int(arg)))
                self.close_connection = True
            elif kind == "redirect":
                left = int(arg)
                self.send_response(302)
                self.send_header("Location", f"/redirect/{left - 1}" if left > 1 else "/bytes/1000")
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif kind == "headers":
                body = str(self.headers).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("X-Fixture", "headers")
                self.end_headers()
                self.wfile.write(body)
            elif kind == "stall":
                self.send_response(200)
                self.send_header("Content-Length", "1000000")
                self.end_headers()
                self.wfile.write(pattern(0, 10))
                self.wfile.flush()
                while self.rfile.read(1):
                    pass
            elif kind == "endless":
                self.send_response(200)
                self.send_header("Connection", "close")
                self.end_headers()
                chunk = pattern(0, 4096)
                while True:
                    self.wfile.write(chunk)
                    time.sleep(0.001)
            elif kind == "status":
                body = b"no\n"
                self.send_response(int(arg))
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            else:
                self.send_error(404)
        except (BrokenPipeError, ConnectionResetError):
            pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
if sys.argv[1:2] == ["--tls"]:
    import ssl
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[2], sys.argv[3])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print(f"port {server.server_address[1]}", flush=True)
server.serve_forever()
