#!/usr/bin/python3
"""Adds to an MP4 file what ffmpeg's muxer cannot write: iTunes freeform atoms
(----:com.apple.iTunes:NAME, e.g. "MusicBrainz Track Id" or iTunSMPB) and a cover (covr).

    mp4-freeform.py FILE [--cover JPEG] [NAME=VALUE ...]

Uses Debian's python3-mutagen."""
import sys

from mutagen.mp4 import MP4, MP4Cover, MP4FreeForm

path, args = sys.argv[1], sys.argv[2:]
f = MP4(path)
if f.tags is None:
    f.add_tags()
while args:
    arg = args.pop(0)
    if arg == "--cover":
        with open(args.pop(0), "rb") as cover:
            f.tags["covr"] = [MP4Cover(cover.read(), imageformat=MP4Cover.FORMAT_JPEG)]
    else:
        name, value = arg.split("=", 1)
        f.tags["----:com.apple.iTunes:" + name] = [MP4FreeForm(value.encode())]
f.save()
