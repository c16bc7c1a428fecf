#!/usr/bin/python3
"""Adds to an MP4 file what ffmpeg's muxer cannot write: iTunes freeform atoms
(----:com.apple.iTunes:NAME, e.g. "MusicBrainz Track Id" or iTunSMPB) and covers (covr, in
the order given, typed JPEG or PNG by the picture's extension).

    mp4-freeform.py FILE [--cover JPEG|PNG ...] [NAME=VALUE ...]

Uses Debian's python3-mutagen."""
import sys

from mutagen.mp4 import MP4, MP4Cover, MP4FreeForm

path, args = sys.argv[1], sys.argv[2:]
f = MP4(path)
if f.tags is None:
    f.add_tags()
covers = []
while args:
    arg = args.pop(0)
    if arg == "--cover":
        picture = args.pop(0)
        kind = MP4Cover.FORMAT_PNG if picture.endswith(".png") else MP4Cover.FORMAT_JPEG
        with open(picture, "rb") as cover:
            covers.append(MP4Cover(cover.read(), imageformat=kind))
        f.tags["covr"] = covers
    else:
        name, value = arg.split("=", 1)
        f.tags["----:com.apple.iTunes:" + name] = [MP4FreeForm(value.encode())]
f.save()
