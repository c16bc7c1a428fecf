#!/usr/bin/env python3
"""Writes Tests/Fixtures/schemas/vN.sql: a box's database at every schema version that was
shipped before the current one, as that version's code left it (tracks, a queue, a paused
place, a long track's remembered position, stickers and settings from v4, Recently played
from v5, cards with their places from v7, queue ids from v8, a station in the queue from
v12). The schema is the shipped migrations' (Sources/JukeboxStore/Schema.swift: migration n
takes version n to n + 1 and is never edited), so `SchemaUpgradeTests` also catches an
edited migration: the committed dump would no longer be what the migrations make.

Run it only when a new migration is appended (it adds the fixture of the version before):
    Tests/Fixtures/make-schema-fixtures.py
"""
import os
import re
import sqlite3

root = os.path.dirname(os.path.abspath(__file__))
schema = open(os.path.join(root, "../../Sources/JukeboxStore/Schema.swift")).read()
body = schema[schema.index("static let migrations"):schema.index("/// The version this code writes.")]
migrations = re.findall(r'"""\n(.*?)\n\s*"""', body, re.S)


def fill(db, version):
    x = db.execute
    tracks = [
        (1, "Album/01 One.mp3", "One", 181000, None),
        (2, "Album/02 Two.mp3", "Two", 203000, None),
        (3, "Book/book.mp3", "The Book", 3600000, 754000),
    ]
    for id, path, title, ms, place in tracks:
        x("INSERT INTO tracks(id, path, size, mtime_ns, title, artist, album, track_no, duration_ms, "
          "last_position_ms) VALUES (?, ?, 1000, 1700000000000000000, ?, 'Artist', ?, ?, ?, ?)",
          (id, path, title, "The Book" if id == 3 else "Album", id, ms, place))
    x("INSERT INTO playback(id, queue_index, track_id, position_ms, state, mode, volume, queue_version, "
      "journal_seq) VALUES (1, 1, 2, 61500, 'paused', 'in-order', 35, 7, 0)")
    for pos, track in enumerate([1, 2, 3]):
        x("INSERT INTO queue(pos, track_id) VALUES (?, ?)", (pos, track))
    if version >= 4:
        x("INSERT INTO stickers VALUES ('song', 'Album/01 One.mp3', 'rating', '5')")
        x("INSERT INTO settings VALUES ('replay_gain_mode', 'album')")
    if version >= 5:
        x("INSERT INTO recently_played VALUES (1, 'folder', '', 'Album', 'Album/02 Two.mp3', 61500, 1)")
    if version >= 7:
        x("INSERT INTO tag_cards VALUES ('04A1B2C3', 'folder', '', 'Book', 'continue', 'Book/book.mp3', 754000)")
        x("INSERT INTO tag_cards VALUES ('DEADBEEF', 'album', 'Artist', 'Album', NULL, NULL, NULL)")
    if version >= 8:
        x("UPDATE queue SET entry_id = pos + 1, version = 7")
        x("UPDATE playback SET next_entry_id = 4")
    if version >= 12:
        x("INSERT INTO streams VALUES (1, 'http://radio.example/jazz.mp3')")
        x("INSERT INTO queue(pos, track_id, entry_id, version) VALUES (3, -1, 4, 7)")
        x("UPDATE playback SET next_entry_id = 5")


for version in range(1, len(migrations)):
    db = sqlite3.connect(":memory:")
    for step in range(version):
        db.executescript(migrations[step])
    db.execute(f"PRAGMA user_version={version}")
    fill(db, version)
    db.commit()
    with open(os.path.join(root, "schemas", f"v{version}.sql"), "w") as out:
        out.write(f"PRAGMA user_version={version};\n")
        for line in db.iterdump():
            out.write(line + "\n")
    print(f"schemas/v{version}.sql")
