#!/usr/bin/python3
"""Measures jukebox-web for jukebox-bench's `web` section, against a running jukeboxd and
jukebox-web the section started; prints `key value` lines.

    bench-web.py --url http://127.0.0.1:PORT --mpd-port PORT --web-pid PID --daemon-pid PID
                 --setup-code CODE --folder DIR [--upload-mb 200] [--rounds 50]

first_page_bytes / first_page_gzip: `/`, app.css and app.js, as sent and gzip -9;
rss_idle_kib: the web process after a page load with one event stream open;
action_ms_p50/p95: a player action posted as the page's script posts it (204);
card_ms_p50/p95: `card ID` of an unknown card on the MPD socket -> the `cards` event on /events;
upload_mib_s, upload_peak_rss_kib: one file of --upload-mb MiB streamed to /upload/file, the
web process's peak resident memory meanwhile (VmHWM); daemon_rss_kib_before/after."""

import argparse
import gzip
import http.client
import re
import socket
import threading
import time
import urllib.parse


def rss(pid, field="VmRSS"):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


class MPD:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.file = self.sock.makefile("rb")
        self.file.readline()

    def command(self, line):
        self.sock.sendall((line + "\n").encode())
        while True:
            reply = self.file.readline().decode()
            if reply == "OK\n" or reply.startswith("ACK"):
                return reply


def request(host, port, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection(host, port, timeout=30)
    connection.request(method, path, body=body, headers=headers or {})
    reply = connection.getresponse()
    data = reply.read()
    connection.close()
    return reply, data


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p / 100))]


def main():
    parser = argparse.ArgumentParser()
    for name in ["--url", "--setup-code", "--folder"]:
        parser.add_argument(name, required=True)
    for name in ["--mpd-port", "--web-pid", "--daemon-pid"]:
        parser.add_argument(name, type=int, required=True)
    parser.add_argument("--upload-mb", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=50)
    arguments = parser.parse_args()
    host, port = arguments.url.split("//")[1].split(":")
    port = int(port)
    print("daemon_rss_kib_before", rss(arguments.daemon_pid))

    # First page, as a browser loads it.
    total = compressed = 0
    for path in ["/", "/app.css", "/app.js"]:
        _, data = request(host, port, "GET", path)
        total += len(data)
        compressed += len(gzip.compress(data, 9))
    print("first_page_bytes", total)
    print("first_page_gzip", compressed)
    _, page = request(host, port, "GET", "/")
    token = re.search(rb'name="csrf" content="([0-9a-f]+)"', page).group(1).decode()

    # One event stream open, as a phone showing the page keeps it.
    events = socket.create_connection((host, port), timeout=30)
    events.sendall(f"GET /events HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode())
    arrivals = []
    lock = threading.Condition()

    def read_events():
        pending = b""
        while True:
            try:
                chunk = events.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            pending += chunk
            while b"\n\n" in pending:
                message, pending = pending.split(b"\n\n", 1)
                if b"event: cards" in message:
                    with lock:
                        arrivals.append(time.monotonic())
                        lock.notify_all()

    threading.Thread(target=read_events, daemon=True).start()
    time.sleep(1)  # settle before the idle reading (a reading, not a wait for a condition)
    print("rss_idle_kib", rss(arguments.web_pid))

    # Action round trips, as the page's script posts them.
    times = []
    for index in range(arguments.rounds):
        op = "pause" if index % 2 == 0 else "play"
        start = time.monotonic()
        reply, _ = request(
            host, port, "POST", "/action", body=f"op={op}&csrf={token}",
            headers={"X-Jukebox": "fetch", "Content-Type": "application/x-www-form-urlencoded"})
        times.append((time.monotonic() - start) * 1000)
        assert reply.status == 204, reply.status
    print("action_ms_p50", f"{percentile(times, 50):.2f}")
    print("action_ms_p95", f"{percentile(times, 95):.2f}")

    # Card on the reader -> the page hears of it.
    mpd = MPD(arguments.mpd_port)
    times = []
    for index in range(max(10, arguments.rounds // 2)):
        with lock:
            seen = len(arrivals)
        start = time.monotonic()
        mpd.command(f"card BE{index:04d}")
        with lock:
            if not lock.wait_for(lambda: len(arrivals) > seen, timeout=10):
                raise SystemExit("no cards event within 10 s")
            times.append((arrivals[seen] - start) * 1000)
    print("card_ms_p50", f"{percentile(times, 50):.2f}")
    print("card_ms_p95", f"{percentile(times, 95):.2f}")

    # Upload: the password first, then one large file streamed.
    reply, _ = request(
        host, port, "POST", "/setup",
        body=urllib.parse.urlencode({"csrf": token, "code": arguments.setup_code, "password": "bench-password",
                                     "again": "bench-password", "next": "/upload"}),
        headers={"Content-Type": "application/x-www-form-urlencoded"})
    cookie = reply.getheader("Set-Cookie", "").split(";")[0]
    assert cookie.startswith("jukebox_session="), reply.status
    size = arguments.upload_mb << 20
    chunk = bytes(1 << 20)
    connection = http.client.HTTPConnection(host, port, timeout=120)
    name = urllib.parse.quote(f"{arguments.folder}/upload-{time.time_ns()}.mp3")
    connection.putrequest("POST", "/upload/file?path=" + name)
    for header, value in [("Content-Length", str(size)), ("Cookie", cookie), ("X-CSRF-Token", token)]:
        connection.putheader(header, value)
    connection.endheaders()
    start = time.monotonic()
    for _ in range(arguments.upload_mb):
        connection.send(chunk)
    reply = connection.getresponse()
    reply.read()
    seconds = time.monotonic() - start
    assert reply.status == 201, reply.status
    print("upload_mib_s", f"{arguments.upload_mb / seconds:.1f}")
    print("upload_peak_rss_kib", rss(arguments.web_pid, "VmHWM"))
    print("daemon_rss_kib_after", rss(arguments.daemon_pid))


if __name__ == "__main__":
    main()
