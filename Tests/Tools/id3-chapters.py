#!/usr/bin/python3
"""Writes ID3v2.4 chapters into an MP3 file: a top-level CTOC listing one CHAP frame per
chapter, each with a TIT2 title (the ID3v2 Chapter Frame Addendum, as podcast tools write it).

    id3-chapters.py FILE START_MS:TITLE ... END_MS

Uses Debian's python3-mutagen."""
import sys

from mutagen.id3 import CHAP, CTOC, ID3, TIT2, CTOCFlags, ID3NoHeaderError

path, args = sys.argv[1], sys.argv[2:]
end = int(args.pop())
starts = [(int(a.split(":", 1)[0]), a.split(":", 1)[1]) for a in args]
try:
    tag = ID3(path)
except ID3NoHeaderError:
    tag = ID3()
ids = ["chp%d" % i for i in range(len(starts))]
tag.add(CTOC(element_id="toc", flags=CTOCFlags.TOP_LEVEL | CTOCFlags.ORDERED, child_element_ids=ids,
             sub_frames=[TIT2(text=["Contents"])]))
for i, (start, title) in enumerate(starts):
    stop = starts[i + 1][0] if i + 1 < len(starts) else end
    tag.add(CHAP(element_id=ids[i], start_time=start, end_time=stop, sub_frames=[TIT2(text=[title])]))
tag.save(path, v2_version=4)
