#!/usr/bin/env python3
"""Writes ID3 tags byte by byte (no tagging library), so the fixtures have exactly the
version, text encoding and frame layout a test expects.

usage: write_id3.py KIND IN.mp3 OUT.mp3 TITLE ARTIST ALBUM TRACK
KIND: v1 (ID3v1.1, Latin-1, appended) | v22 (ID3v2.2, Latin-1) |
      v23 (ID3v2.3, UTF-16 with BOM) | v24 (ID3v2.4, UTF-8)
   or: write_id3.py frames VERSION ENCODING IN.mp3 OUT.mp3 FRAME=VALUE...
VERSION 2, 3 or 4; ENCODING 0 Latin-1, 1 UTF-16 with BOM, 2 UTF-16BE (no BOM), 3 UTF-8;
FRAME a frame id (TPE2, TCON, TT2, ...), COMM, TXXX:DESCRIPTION, UFID:OWNER or
APIC:MIME:DESCRIPTION=@IMAGEFILE (APIC~:... for a v2.4 frame unsynchronised on its own); a VALUE
with "|" holds several strings (NUL-separated, as ID3v2.4 allows).
The ID3v2 tags carry 64 bytes of zero padding after the frames (tag size is syncsafe;
v2.4 frame sizes are syncsafe, v2.3 frame sizes are plain 32-bit, v2.2 frames have
3-character ids and 24-bit sizes).
"""
import struct
import sys


def syncsafe(n: int) -> bytes:
    assert 0 <= n < (1 << 28)
    return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])


def encoded(encoding: int, text: str) -> bytes:
    if encoding == 0:
        return text.encode("latin-1")
    if encoding == 1:  # UTF-16 with BOM (little endian, as most taggers write it)
        return b"\xff\xfe" + text.encode("utf-16-le")
    if encoding == 2:
        return text.encode("utf-16-be")
    if encoding == 3:
        return text.encode("utf-8")
    raise ValueError(encoding)


def terminator(encoding: int) -> bytes:
    return b"\x00\x00" if encoding in (1, 2) else b"\x00"


def text_payload(encoding: int, text: str) -> bytes:
    return bytes([encoding]) + encoded(encoding, text)


def unsynchronised(data: bytes) -> bytes:
    """ID3 unsynchronisation: a 00 after every FF that precedes 00 or a byte >= E0 (or ends)."""
    out = bytearray()
    for i, b in enumerate(data):
        out.append(b)
        if b == 0xFF and (i + 1 == len(data) or data[i + 1] == 0 or data[i + 1] >= 0xE0):
            out.append(0)
    return bytes(out)


def frame_body(fid: str, encoding: int, value: str) -> (str, bytes):
    """The frame id and body of one FRAME=VALUE argument."""
    if fid.startswith(("APIC:", "APIC~:")):
        name, mime, description = fid.split(":", 2)
        image = open(value[1:], "rb").read()
        body = (bytes([encoding]) + mime.encode("latin-1") + b"\x00" + b"\x03"
                + encoded(encoding, description) + terminator(encoding) + image)
        return name, body
    strings = value.split("|")
    joined = terminator(encoding).join(encoded(encoding, s) for s in strings)
    if fid.startswith(("UFID:", "UFI:")):
        name, owner = fid.split(":", 1)
        return name, owner.encode("latin-1") + b"\x00" + value.encode("ascii")
    if fid.startswith(("TXXX:", "TXX:")):
        name, description = fid.split(":", 1)
        return name, bytes([encoding]) + encoded(encoding, description) + terminator(encoding) + joined
    if fid in ("COMM", "COM"):
        return fid, bytes([encoding]) + b"eng" + terminator(encoding) + joined
    return fid, bytes([encoding]) + joined


def id3v2(version: int, frames: list) -> bytes:
    """An ID3v2 tag of (frame id, body) pairs and 64 bytes of padding."""
    data = b""
    for fid, body in frames:
        flags = b"\x00\x00"
        if fid.endswith("~"):
            assert version == 4
            fid, body, flags = fid[:-1], unsynchronised(body), b"\x00\x02"
        if version == 2:
            data += fid.encode("ascii") + struct.pack(">I", len(body))[1:] + body
        elif version == 3:
            data += fid.encode("ascii") + struct.pack(">I", len(body)) + b"\x00\x00" + body
        else:
            data += fid.encode("ascii") + syncsafe(len(body)) + flags + body
    data += b"\x00" * 64
    return b"ID3" + bytes([version, 0, 0]) + syncsafe(len(data)) + data


def frames_tag(version: int, encoding: int, pairs: list) -> bytes:
    frames = []
    for pair in pairs:
        fid, value = pair.split("=", 1)
        frames.append(frame_body(fid, encoding, value))
    return id3v2(version, frames)


def v2_tag(kind: str, title: str, artist: str, album: str, track: str) -> bytes:
    if kind == "v22":
        ids, version, enc = ("TT2", "TP1", "TAL", "TRK"), 2, 0
    elif kind == "v23":
        ids, version, enc = ("TIT2", "TPE1", "TALB", "TRCK"), 3, 1
    elif kind == "v24":
        ids, version, enc = ("TIT2", "TPE1", "TALB", "TRCK"), 4, 3
    else:
        raise ValueError(kind)
    return id3v2(version, [(fid, text_payload(enc, value)) for fid, value in zip(ids, (title, artist, album, track))])


def v1_tag(title: str, artist: str, album: str, track: str) -> bytes:
    def field(s: str, n: int) -> bytes:
        b = s.encode("latin-1")
        assert len(b) <= n, s
        return b + b"\x00" * (n - len(b))

    tag = (b"TAG" + field(title, 30) + field(artist, 30) + field(album, 30)
           + b"2026" + field("", 28) + b"\x00" + bytes([int(track)]) + bytes([255]))
    assert len(tag) == 128
    return tag


def main() -> None:
    if sys.argv[1] == "frames":
        version, encoding, src, dst = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
        audio = open(src, "rb").read()
        with open(dst, "wb") as f:
            f.write(frames_tag(version, encoding, sys.argv[6:]) + audio)
        return
    kind, src, dst, title, artist, album, track = sys.argv[1:8]
    audio = open(src, "rb").read()
    if audio[:3] == b"ID3" or audio[-128:-125] == b"TAG":
        sys.exit(f"{src}: already tagged")
    if kind == "v1":
        data = audio + v1_tag(title, artist, album, track)
    else:
        data = v2_tag(kind, title, artist, album, track) + audio
    with open(dst, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
