#!/usr/bin/env python3
"""A feed and episode server on 127.0.0.1 for the podcast tests (PodcastDaemonTests).

Usage: podcast_fixture.py ROOT. Serves the files under ROOT and prints "port N" once it
listens. Each request is appended to ROOT/requests.log as "PATH RANGE" ("-" for none), so a
test can see that a download continued with a Range request. Query parameters (on any file):
  ?cut=N     the body stops, and the connection closes, once byte N of the file was sent
             (a request that starts at or after N gets the rest whole)
  ?rate=B    at most about B bytes per second
"Range: bytes=A-" is answered 206 with Content-Range, or 416 when A is past the end.
"""
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from range_response import send_range_headers

ROOT = sys.argv[1]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        url = urlparse(self.path)
        query = parse_qs(url.query)
        wanted = self.headers.get("Range", "")
        with open(os.path.join(ROOT, "requests.log"), "a") as log:
            log.write(f"{url.path} {wanted or '-'}\n")
        path = os.path.join(ROOT, url.path.lstrip("/"))
        if not os.path.isfile(path):
            self.send_error(404)
            return
        with open(path, "rb") as f:
            data = f.read()
        size = len(data)
        start = send_range_headers(self, size, "audio/mpeg" if path.endswith(".mp3") else "application/xml")
        if start is None:
            return
        end = size
        cut = int(query.get("cut", ["0"])[0])
        if cut and start < cut:
            end = cut
            self.close_connection = True
        rate = int(query.get("rate", ["0"])[0])
        step = 16384 if not rate else max(1024, rate // 20)
        position = start
        try:
            while position < end:
                chunk = data[position:min(end, position + step)]
                self.wfile.write(chunk)
                self.wfile.flush()
                position += len(chunk)
                if rate:
                    time.sleep(len(chunk) / rate)
        except (BrokenPipeError, ConnectionResetError):
            return


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(f"port {server.server_address[1]}", flush=True)
server.serve_forever()
