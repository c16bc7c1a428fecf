#!/usr/bin/env python3
"""An Icecast source client that streams Ogg Vorbis files as one chained stream (RadioDaemonTests).

Usage: ogg_chain_source.py HOST PORT MOUNT FILE... Sends the files one after another, again and
again, each a new link of the chain (as ices2 does for each song), to MOUNT with the SOURCE
method and the password "hackme", paced by the pages' granule positions: real time, with at
most a second sent ahead. Each file's Vorbis comments (TITLE, ARTIST) are the song's title.
"""
import base64
import socket
import struct
import sys
import time

HOST, PORT, MOUNT, FILES = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]


def pages(path):
    """The file's Ogg pages, each with its granule position and the rate of its stream."""
    data = open(path, "rb").read()
    rate = 0
    offset = 0
    while offset + 27 <= len(data):
        if data[offset:offset + 4] != b"OggS":
            raise SystemExit(f"{path}: no Ogg page at byte {offset}")
        granule = struct.unpack_from("<q", data, offset + 6)[0]
        segments = data[offset + 26]
        lacing = data[offset + 27:offset + 27 + segments]
        end = offset + 27 + segments + sum(lacing)
        page = data[offset:end]
        body = page[27 + segments:]
        if body[:7] == b"\x01vorbis":
            rate = struct.unpack_from("<I", body, 12)[0]
        yield page, granule, rate
        offset = end


def main():
    sock = socket.create_connection((HOST, PORT))
    auth = base64.b64encode(b"source:hackme").decode()
    sock.sendall(
        (f"SOURCE {MOUNT} HTTP/1.0\r\nAuthorization: Basic {auth}\r\n"
         "Content-Type: application/ogg\r\nIce-Name: Jukebox Ogg FM\r\n\r\n").encode())
    answer = sock.recv(1024)
    if b" 200 " not in answer.split(b"\r\n")[0]:
        raise SystemExit(f"icecast answered {answer!r}")
    start = time.monotonic()
    played = 0.0  # seconds of the links sent before this one
    while True:
        for path in FILES:
            last = 0.0
            for page, granule, rate in pages(path):
                if granule > 0 and rate:
                    last = granule / rate
                    ahead = start + played + last - 1.0 - time.monotonic()
                    if ahead > 0:
                        time.sleep(ahead)
                sock.sendall(page)
            played += last


main()
