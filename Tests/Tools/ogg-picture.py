#!/usr/bin/python3
"""Embeds pictures in an Ogg Vorbis or Opus file as METADATA_BLOCK_PICTURE comments (base64
of a FLAC PICTURE block, as taggers write covers there), in the order given.

    ogg-picture.py FILE IMAGE:MIME[:TYPE] ...

Uses Debian's python3-mutagen."""
import base64
import sys

import mutagen
from mutagen.flac import Picture

f = mutagen.File(sys.argv[1])
blocks = []
for spec in sys.argv[2:]:
    image, mime, *kind = spec.split(":")
    picture = Picture()
    picture.type = int(kind[0]) if kind else 3
    picture.mime = mime
    picture.desc = "Cover"
    with open(image, "rb") as data:
        picture.data = data.read()
    blocks.append(base64.b64encode(picture.write()).decode("ascii"))
f["metadata_block_picture"] = blocks
f.save()
