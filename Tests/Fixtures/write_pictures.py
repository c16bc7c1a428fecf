#!/usr/bin/env python3
"""Writes test pictures: deterministic bytes behind a JPEG or PNG signature (nothing decodes
them), sized to take several albumart/readpicture chunks.
usage: write_pictures.py DIR NAME:SIZE:SEED ...  (the signature follows NAME's extension)"""
import random
import sys

SIGNATURES = {"jpg": b"\xff\xd8\xff\xe0", "png": b"\x89PNG\r\n\x1a\n"}

for spec in sys.argv[2:]:
    name, size, seed = spec.split(":")
    signature = SIGNATURES[name.rsplit(".", 1)[1]]
    data = signature + random.Random(int(seed)).randbytes(int(size) - len(signature))
    with open(sys.argv[1] + "/" + name, "wb") as f:
        f.write(data)
