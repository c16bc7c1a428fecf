#!/usr/bin/python3
"""Writes the fuzz targets' seed corpora (Fuzz/<target>/corpus/): small valid inputs of each
format made from the test fixtures or written here (mutagen for the tags; ffmpeg, sox, flac,
oggenc and opusenc for the audio), so that libFuzzer starts inside each parser.

usage: Fuzz/make-corpus.py   (from anywhere; rewrites every corpus folder)
"""
import base64
import os
import shutil
import struct
import subprocess
import tempfile

from mutagen import id3
from mutagen.flac import FLAC, Picture
from mutagen.mp4 import MP4, MP4Cover
from mutagen.oggopus import OggOpus
from mutagen.oggvorbis import OggVorbis

FUZZ = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(FUZZ)
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")
SCRATCH = tempfile.mkdtemp()
# A 1x1 PNG: the pictures' bytes.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def seed(target, name, data):
    folder = os.path.join(FUZZ, target, "corpus")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def fixture(*parts):
    with open(os.path.join(FIXTURES, *parts), "rb") as f:
        return f.read()


def run(*command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def scratch(name):
    return os.path.join(SCRATCH, name)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def id3_seeds():
    for version in (3, 4):
        tag = id3.ID3()
        tag.add(id3.TIT2(encoding=3 if version == 4 else 1, text="Title"))
        tag.add(id3.TPE1(encoding=0, text="Artist"))
        tag.add(id3.TXXX(encoding=1, desc="REPLAYGAIN_TRACK_GAIN", text="-6.5 dB"))
        tag.add(id3.APIC(encoding=0, mime="image/png", type=3, desc="", data=PNG))
        tag.add(id3.USLT(encoding=1, lang="eng", desc="", text="line one\nline two"))
        tag.add(id3.SYLT(encoding=0, lang="eng", format=2, type=1, text=[("one", 1000), ("two", 2500)]))
        tag.add(id3.CHAP(element_id="ch0", start_time=0, end_time=5000, sub_frames=[id3.TIT2(text="Intro")]))
        tag.add(id3.CHAP(element_id="ch1", start_time=5000, end_time=9000, sub_frames=[id3.TIT2(text="Song")]))
        tag.add(id3.CTOC(element_id="toc", flags=id3.CTOCFlags.TOP_LEVEL | id3.CTOCFlags.ORDERED,
                         child_element_ids=["ch0", "ch1"], sub_frames=[]))
        path = scratch(f"v2{version}.mp3")
        open(path, "wb").close()
        tag.save(path, v2_version=version, padding=lambda info: 16)
        data = read(path)
        seed("id3", f"v2{version}-frames", data)
        if version == 3:
            # The same tag unsynchronised as a whole (flag 0x80; 0x00 after every 0xFF).
            body = data[10:].replace(b"\xff", b"\xff\x00")
            size = len(body)
            syncsafe = bytes([(size >> 21) & 0x7F, (size >> 14) & 0x7F, (size >> 7) & 0x7F, size & 0x7F])
            seed("id3", "v23-unsynchronised", data[:5] + b"\x80" + syncsafe + body)
    for name in ("id3v22.mp3", "id3v23_utf16.mp3", "id3v24_utf8_cjk.mp3"):
        seed("id3", name, fixture("media", "tags", name)[:4096])


def mp4_seeds():
    for codec in ("aac", "alac"):
        path = scratch(f"x.{codec}.m4a")
        run("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=d=0.05:r=8000", "-c:a", codec, "-y", path)
        tags = MP4(path)
        tags["\xa9nam"] = "Title"
        tags["\xa9lyr"] = "[00:01.00]one\n[00:02.00]two"
        tags["covr"] = [MP4Cover(PNG, imageformat=MP4Cover.FORMAT_PNG)]
        tags["----:com.apple.iTunes:iTunSMPB"] = [b" 00000000 00000840 000001CA 00000000003F31F6"]
        tags.save()
        for target in ("mp4-atoms", "mp4-audio"):
            seed(target, f"{codec}.m4a", read(path))


def flac_seeds():
    path = scratch("x.flac")
    run("sox", "-n", "-r", "8000", "-c", "1", "-b", "16", path, "synth", "0.02", "sine", "440")
    tags = FLAC(path)
    tags["TITLE"] = "Title"
    tags["REPLAYGAIN_TRACK_GAIN"] = "-3.2 dB"
    picture = Picture()
    picture.type, picture.mime, picture.data = 3, "image/png", PNG
    tags.add_picture(picture)
    tags.save()
    seed("flac-blocks", "tagged.flac", read(path))
    tag = id3.ID3()
    tag.add(id3.TIT2(text="Lead"))
    lead = scratch("lead.id3")
    open(lead, "wb").close()
    tag.save(lead, v2_version=4, padding=lambda info: 0)
    seed("flac-blocks", "id3-lead.flac", read(lead) + read(path))


def ogg_seeds():
    wav = scratch("x.wav")
    run("sox", "-n", "-r", "8000", "-c", "1", "-b", "16", wav, "synth", "0.05", "sine", "440")
    long_entry = "x" * 3000  # longer than the entries the harness keeps (the first byte's 256)
    vorbis, opus = scratch("x.ogg"), scratch("x.opus")
    run("oggenc", "-Q", "-q", "-1", "-o", vorbis, wav)
    run("opusenc", "--quiet", "--bitrate", "6", wav, opus)
    for path, kind, first in ((vorbis, OggVorbis, 0x20), (opus, OggOpus, 0x21)):
        tags = kind(path)
        tags["TITLE"] = "Title"
        tags["METADATA_BLOCK_PICTURE"] = long_entry
        tags.save()
        seed("ogg-headers", os.path.basename(path), bytes([first]) + read(path))
        # A real cover entry (a PICTURE block in base64) beside the text ones.
        picture = Picture()
        picture.type, picture.mime, picture.data = 3, "image/png", PNG
        tags["METADATA_BLOCK_PICTURE"] = [base64.b64encode(picture.write()).decode("ascii")]
        tags["ARTIST"] = "Artist"
        tags.save()
        seed("ogg-comments", os.path.basename(path), read(path))


def text_seeds():
    for name in os.listdir(os.path.join(FIXTURES, "lyrics")):
        data = fixture("lyrics", name)
        seed("lyrics-text", name, data)
        seed("ksc" if name.endswith(".ksc") else "lrc", name, data)
    seed("lrc", "words.lrc", "[ti:T]\n[ar:A]\n[offset:+250]\n[00:01.00]<00:01.00>one <00:01.50>two\n"
         "[00:03.00][00:05.00]twice\n[01:02.345]end\n")
    seed("cue", "album.cue", fixture("cue", "album.cue"))
    seed("cue", "two-files.cue", 'REM GENRE Rock\nPERFORMER "A"\nTITLE "Album"\nFILE "a.flac" WAVE\n'
         '  TRACK 01 AUDIO\n    TITLE "One"\n    INDEX 00 00:00:00\n    INDEX 01 00:02:10\n'
         'FILE "b.flac" WAVE\n  TRACK 02 AUDIO\n    INDEX 01 00:00:00\n')
    seed("lyrics-text", "gb18030-4byte.txt", "歌词 € ḿ 𠀀".encode("gb18030"))
    seed("m3u", "extm3u.m3u", "#EXTM3U\n#EXTINF:123,Artist - Title\nA/01.mp3\n/srv/music/B/02.flac\n"
         "../outside.mp3\nhttp://radio.example/stream\r\n")
    seed("m3u", "utf16.m3u", "\ufeffA/ü.mp3\n".encode("utf-16-le"))
    for folder in (os.path.join(FIXTURES, "config"), os.path.join(ROOT, "config")):
        for name in os.listdir(folder):
            if name.endswith(".toml"):
                data = read(os.path.join(folder, name))
                seed("config", name, data)
                seed("toml", name, data)
    seed("toml", "types.toml", 'a = 1\nb = -0x1F\nc = 1e3\nd = "s\\u00e9"\ne = \'lit\'\nf = """multi\nline"""\n'
         "g = [1, [2, 3], { x = 1 }]\nh = true\n[t.\"q k\"]\ni = 2024-01-01T10:00:00Z\n[[arr]]\nj = inf\n")
    seed("card-file", "cards.csv", "card,kind,value,artist,policy\n# comment\nA1,folder,Kids,,\n"
         'A2,album,"Zog, again",Julia Donaldson,resume\nA3,url,http://radio/x,,\n')
    seed("card-file", "cards.toml", '[card.04A2]\nalbum = "Zog"\nartist = "Julia Donaldson"\n'
         '[card."04.A6"]\nurl = "http://radio/x"\npolicy = "restart"\n')


def protocol_seeds():
    seed("mpd-session", "commands", "\x00status\ncurrentsong\nplaylistinfo\nadd \"A/01.mp3\"\nplay 0\n"
         "setvol 50\nfind \"(Artist == 'Ann')\" sort Title window 0:2\nlist Album group Artist\n"
         "command_list_ok_begin\nnext\nseek 0 1.5\ncommand_list_end\nidle player\nnoidle\n"
         "lsinfo A\nsticker set song A/01.mp3 rating 5\nsubscribe c\nsendmessage c hi\nreadmessages\n"
         "save p\nlistplaylistinfo p\nreadpicture A/01.mp3 0\nbinarylimit 64\nclose\n")
    seed("mpd-session", "password", "\x02password secret\nstatus\nconsume 1\nrandom 1\nshuffle\n")
    seed("mpd-session", "human", "\x01status\n  \nidle\nstop\n")
    for name, line in (("expression", "find \"((Artist == 'Ann') AND (Date >= '2000'))\""),
                       ("negated", "search \"(!(Genre contains 'rock'))\" sort -Date"),
                       ("regex", "find \"(Title =~ '^O.e$')\""),
                       ("pairs", "find artist Ann album First"),
                       ("any", "search any ann modified-since 2024-01-01T00:00:00Z"),
                       ("base", "find \"(base 'A')\" \"(file == 'A/01.mp3')\"")):
        seed("mpd-filter", name, line)
    body = b"".join(b"\xaa" * 16 + bytes([2]) + b"StreamTitle='A - B';".ljust(32, b"\0") for _ in range(3))
    seed("icy", "metaint16", b"\x00\x10\x07" + body)
    seed("icy", "no-metaint", b"\x00\x00\x40" + b"\x55" * 100)
    seed("station-playlist", "station.pls", "[playlist]\nNumberOfEntries=2\nFile1=http://a.example:8000/s\n"
         "Title1=A\nFile2=https://b.example/live.mp3\nVersion=2\n")
    seed("station-playlist", "station.m3u", "#EXTM3U\n#EXTINF:-1,Radio\nhttp://c.example/stream\n")


def card_seeds():
    def frame(payload):
        length = len(payload)
        checksum = (-sum(payload)) & 0xFF
        return bytes([0, 0, 0xFF, length, (-length) & 0xFF]) + payload + bytes([checksum, 0])
    ack = bytes([0, 0, 0xFF, 0, 0xFF, 0])
    steps = b""
    # SAMConfiguration answered, RFConfiguration answered, then a card in the field.
    for answer in (b"\xd5\x15", b"\xd5\x33", b"\xd5\x4b\x01\x01\x00\x04\x08\x04\x12\x34\x56\x78"):
        steps += bytes([0, len(ack)]) + ack + bytes([0, len(frame(answer))]) + frame(answer) + bytes([2, 20])
    seed("pn532", "card", b"\x00" + steps)
    seed("pn532", "wrapped", b"\x01" + bytes([1, 2]) + b"\xd5\x15" + bytes([2, 50]) + bytes([1, 3]) + b"\xd5\x33\x00")
    seed("mfrc522", "answers", bytes(range(256)) * 4)
    seed("mfrc522", "version", b"\x00\x92" + b"\x00" * 64 + b"\x30" * 64)


def console_seeds():
    seed("console", "commands", "play\nvolume +5\nseek 1:30\nspeed 1.25\nmode shuffled\nrepeat one\nstatus\n")
    seed("console", "keys", b"\x1b[A\x1b[B\x1b[C\x1b[D \x1b[1;5C\x1b[3~\x7fq\r\n")


def feed_seeds():
    seed("feed", "rss", "<rss\n@version=2.0\n<channel\n<title\nKitchen\n>\n<item\n<title\nEpisode 1\n>\n"
         "<guid\nep1\n>\n<pubDate\nMon, 01 Jan 2024 10:00:00 +0000\n>\n<enclosure\n"
         "@url=http://127.0.0.1/ep1.mp3\n@length=1000\n@type=audio/mpeg\n>\n>\n>\n>\n")
    seed("feed", "atom", "<feed http://www.w3.org/2005/Atom\n<title http://www.w3.org/2005/Atom\nAtom\n>\n"
         "<entry http://www.w3.org/2005/Atom\n<id http://www.w3.org/2005/Atom\nurn:x\n>\n"
         "<updated http://www.w3.org/2005/Atom\n2024-03-01T12:00:00+01:00\n>\n"
         "<link http://www.w3.org/2005/Atom\n@rel=enclosure\n@href=http://127.0.0.1/x.ogg\n@type=audio/ogg\n>\n>\n>\n")


def web_seeds():
    # The web page's forms, queries and cookies; the settings page's edits (the file, a NUL,
    # the form's body, optionally a NUL, a key, a NUL, its value); upload paths.
    seed("web-form", "player", "csrf=0123abcd&op=volume&value=40")
    seed("web-form", "seek", "op=seek&value=12.5&csrf=x")
    seed("web-form", "assign", "csrf=x&card=04+a2+1b&folder=Kids%2FZog+%26+Co")
    seed("web-form", "forget", "csrf=x&card=04A2%0A")
    seed("web-form", "login", "next=%2Fsettings%3Ftab%3D1&password=correct+horse&csrf=ab")
    seed("web-form", "cookie", "theme=dark; jukebox_session=0123abcd ; other=1")
    seed("web-form", "lines", "folder\tKids/Zog \"1\"\ncard\t04 A2\nop\tremove\nvalue\t3\n")
    seed("web-form", "settings", "k%3Aaudio.device=default&k%3Aaudio.start_volume=30&csrf=abc")
    small = ('# The music.\nmusic_dir = "/srv/music"\n\n# Audio output.\n[audio]\n# The ALSA device.\n'
             'device = "default"\n# Volume at start.\nstart_volume = 30\n\n[card_reader.lid]\ntype = "keyboard"\n')
    seed("settings-edit", "change", small + "\0k%3Aaudio.start_volume=45&k%3Aaudio.device=default")
    seed("settings-edit", "add-remove", small + "\0k%3Aaudio.device=&k%3Aweb.port=8081&k%3Adatabase=%2Fvar%2Fx.sqlite"
         "&k%3Aaudio.period_ms=20")
    seed("settings-edit", "demo", fixture("..", "..", "config", "demo.toml")
         + b"\0k%3Aaudio.device=null&k%3Aweb.port=80%0D%0A&k%3Aresume.on_start=")
    seed("settings-edit", "good", fixture("config", "good.toml") + b"\0k%3Amusic_dir=%2Fmnt%2Fusb\0x.y\01")
    seed("settings-edit", "raw-key", small + "\0\0card_reader.lid.device\0/dev/input/event0")
    seed("upload-path", "file", "Kids/Zog/01 Zog.mp3")
    seed("upload-path", "cover", "Uploads/cover.JPG")
    seed("upload-path", "book", "Audiobooks/Part 1/chapter 03.m4b")
    seed("upload-path", "escaped", "Album%20(2001)%2Fdisc%201%2Ftrack.flac")
    seed("upload-path", "sizes", b"\x00\x00\x00\x00\x00\xa0\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00A/b.lrc")
    reply = ("volume: 40\nstate: play\nlist_OK\nfile: A/01 One.mp3\nTitle: One\nArtist: Ann\nlist_OK\n"
             "sleep: 30\nsleep_left: 1500\nlist_OK\nOK\n")
    seed("mqtt-command", "commands", "\x00" + reply + "\0" + "040\n139.6\n2PRESS\n3\n4\n0 101\n130.0\n")
    seed("mqtt-command", "topics", "\x01" + reply.replace("\n", "\n\x01", 3) + "\0"
         + "home/jukebox/volume/set\t55\nhome/jukebox/sleep/set\t0\nother/topic\tx\n")
    seed("mqtt-command", "ack", "\x00ACK [5@0] {status} no\nstate: pause\nlist_OK\nlist_OK\nlist_OK\nOK\n\0002\n")
    # Findings 5 to 7 (docs/FUZZING.md), replayed by every smoke run.
    seed("web-form", "finding-7", "k;jukebox_session =1")
    seed("web-form", "finding-5", b"csrf=x&card=04+ic\x81\xaa\xb7one&1d&folder=K24siZ%Fd%0D%0ACo")
    seed("upload-path", "finding-6a", b"Kids*%00\x00\xd8\x80/Z\xf1o.g\x00\x00\x00-\x00")
    seed("upload-path", "finding-6b", "o/\u0301" + "0Zo")
    seed("web-login", "guesses", b"\x01" + bytes([0, 1] * 6 + [2, 200] + [4, 0] + [3, 255] + [5, 9]))
    seed("web-login", "setup", b"\x00" + bytes([3, 1, 0, 2, 0, 2, 0, 2, 2, 100] + [2, 1] * 40 + [0, 255] * 3))


for folder in os.listdir(FUZZ):
    corpus = os.path.join(FUZZ, folder, "corpus")
    if os.path.isdir(corpus):
        shutil.rmtree(corpus)
id3_seeds()
mp4_seeds()
flac_seeds()
ogg_seeds()
text_seeds()
protocol_seeds()
card_seeds()
console_seeds()
feed_seeds()
web_seeds()
shutil.rmtree(SCRATCH)
