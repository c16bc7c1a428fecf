"""Sends the stored-playlist command sequence to an MPD server on 127.0.0.1:PORT over a raw
socket and prints every response line, so that two servers' transcripts can be compared
(jukeboxd against MPD 0.23). Last-Modified values are replaced by a placeholder. The tag sets
of the two differ: song blocks keep their file and Title lines only in listplaylistinfo, their
file, directory and playlist lines in lsinfo (which lists the stored playlists at the root).
Stored playlists are sorted by name (MPD lists them in directory order).
Usage: playlist_transcript.py PORT"""
import socket
import sys

COMMANDS = [
    "clear",
    'add "01 Morning Light.mp3"',
    'add "02 Cafe au Lait.mp3"',
    'add "03 Night Drive.mp3"',
    "listplaylists",
    "save mix",
    "save mix",
    'save ""',
    'save "a/b"',
    "listplaylists",
    "lsinfo",
    "listplaylist mix",
    "listplaylistinfo mix",
    "listplaylist nosuch",
    "listplaylistinfo nosuch",
    "load nosuch",
    'load "a/b"',
    "listplaylist desk",
    "listplaylistinfo desk",
    "clear",
    "load desk",
    "playlist",
    "clear",
    "load mix 1:3",
    "playlist",
    "load mix 0 0",
    "playlist",
    "load mix 5:",
    "load mix 2:1",
    "load mix x",
    "playlist",
    'playlistadd mix "01 Morning Light.mp3"',
    'playlistadd mix "03 Night Drive.mp3" 0',
    'playlistadd mix "nosuch.mp3"',
    'playlistadd mix "01 Morning Light.mp3" 99',
    'playlistadd "a/b" "01 Morning Light.mp3"',
    'playlistadd new ""',
    "listplaylist mix",
    "listplaylist new",
    "playlistmove mix 0 4",
    "playlistmove mix 0 9",
    "playlistmove nosuch 1 1",
    "playlistmove nosuch 0 1",
    "listplaylist mix",
    "playlistdelete mix 1",
    "playlistdelete mix 1:3",
    "playlistdelete mix 9",
    "playlistdelete mix 3:",
    "playlistdelete mix 2:",
    "playlistdelete nosuch 0",
    "listplaylist mix",
    "rename mix mix2",
    "rename nosuch x",
    "rename mix2 new",
    'rename mix2 "a/b"',
    "rm nosuch",
    'rm ""',
    "playlistclear mix2",
    "listplaylist mix2",
    "playlistclear nosuch",
    "listplaylists",
    "rm mix2",
    "rm new",
    "listplaylists",
]


def main():
    sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
    reader = sock.makefile("rb")
    greeting = reader.readline()
    assert greeting.startswith(b"OK MPD"), greeting
    command = None
    for command in COMMANDS:
        sock.sendall(command.encode() + b"\n")
        print(">", command)
        lines = []
        while True:
            line = reader.readline().decode().rstrip("\n")
            if line == "OK" or line.startswith("ACK "):
                break
            if line.startswith("Last-Modified: "):
                line = "Last-Modified: (time)"
            key = line.split(":")[0]
            if command.startswith("listplaylistinfo") and key not in ("file", "Title"):
                continue
            if command == "lsinfo" and key not in ("file", "directory", "playlist"):
                continue
            lines.append(line)
        if command == "listplaylists":
            # MPD lists in directory order; compare as sorted pairs.
            pairs = sorted(zip(lines[0::2], lines[1::2]))
            lines = [line for pair in pairs for line in pair]
        if command == "lsinfo":
            lines = [l for l in lines if not l.startswith("playlist:")] + sorted(
                l for l in lines if l.startswith("playlist:"))
        print("\n".join(lines + [line]))


main()
