import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// python-mpd2 against the real daemon on the generated tag library: a phone-style client
/// fetching cover art chunk by chunk with a small `binarylimit`, embedded pictures, stickers,
/// listfiles, readcomments, searchaddpl, replay gain and messages, with a second client's `idle`
/// woken by each kind of change; then stickers, the replay gain mode and MixRamp's level survive
/// a restart.
@Suite(.serialized) struct PicturesAndStickersDaemonTests {
    static let script = """
        import math, sys
        import mpd

        port, music = int(sys.argv[1]), sys.argv[2]
        mpd.MPDClient.add_command("binarylimit", mpd.MPDClient._parse_nothing)  # not in python-mpd2 3.0.5
        requests = []
        class Phone(mpd.MPDClient):
            def _write_command(self, command, args=[]):
                requests.append((command, list(args)))
                return super()._write_command(command, args)

        c = Phone(); c.timeout = 10; c.connect("127.0.0.1", port)

        def wakes(subsystem, change):
            # A client connected before `change` is woken by it in `idle subsystem` (a session
            # collects changes from its connection on; a missed one times out).
            w = mpd.MPDClient(); w.timeout = 10; w.idletimeout = 5; w.connect("127.0.0.1", port)
            change()
            assert w.idle(subsystem) == [subsystem], subsystem
            w.disconnect()

        # Cover art the way a phone fetches it: 1 KiB chunks, each asked at the offset it has.
        c.binarylimit(1024)
        cover = open(music + "/One/cover.jpg", "rb").read()
        art = c.albumart("One/01 First.mp3")
        assert art["binary"] == cover, (len(art["binary"]), len(cover))
        offsets = [int(a[1]) for (cmd, a) in requests if cmd == "albumart"]
        assert offsets == list(range(0, len(cover), 1024)), offsets[:5]
        assert len(offsets) == math.ceil(300000 / 1024)
        assert c.albumart("Bee/02 Two.mp3")["binary"] == open(music + "/Bee/cover.png", "rb").read()
        assert c.albumart("Misc/v1.mp3")["binary"] == open(music + "/Misc/folder.jpg", "rb").read()
        try:
            c.albumart("Nope/x.mp3"); assert False
        except mpd.CommandError as e:
            assert "No file exists" in str(e), e

        # Embedded pictures: ID3v2.4 in place, ID3v2.3, an unsynchronised v2.4 frame; none.
        picture = c.readpicture("One/01 First.mp3")
        assert picture["type"] == "image/jpeg" and len(picture["binary"]) == 100000, picture.get("type")
        assert picture["binary"][:4] == b"\\xff\\xd8\\xff\\xe0"
        assert c.readpicture("One/02 Second.mp3")["type"] == "image/png"
        unsync = c.readpicture("Bee/03 Three.mp3")["binary"]
        assert len(unsync) == 20000 and unsync[:4] == b"\\xff\\xd8\\xff\\xe0"
        assert c.readpicture("One/03 Third.mp3") == {}
        c.binarylimit(8192)
        # An MP4 cover of 5 MB in 8 KiB chunks: the bytes of the file's first covr image.
        cover = c.readpicture("MP4/covers.m4a")
        assert cover["type"] == "image/jpeg" and len(cover["binary"]) == 5000000, cover.get("type")
        assert open(music + "/MP4/covers.m4a", "rb").read().find(cover["binary"]) > 0
        assert c.readpicture("MP4/png.m4b")["type"] == "image/png"
        assert c.readcomments("MP4/png.m4b")["title"] == "Hörbuch"

        # Stickers, each change waking the idle client.
        wakes("sticker", lambda: c.sticker_set("song", "One/01 First.mp3", "rating", "5"))
        assert c.sticker_get("song", "One/01 First.mp3", "rating") == "5"
        c.sticker_set("song", "Bee/02 Two.mp3", "rating", "3")
        assert c.sticker_list("song", "One/01 First.mp3") == {"rating": "5"}
        found = c.sticker_find("song", "", "rating")
        assert [(f["file"], f["sticker"]) for f in found] == [("Bee/02 Two.mp3", "rating=3"), ("One/01 First.mp3", "rating=5")], found
        assert [f["file"] for f in c.sticker_find("song", "One", "rating", "=", "5")] == ["One/01 First.mp3"]
        wakes("sticker", lambda: c.sticker_delete("song", "Bee/02 Two.mp3", "rating"))
        try:
            c.sticker_get("song", "Bee/02 Two.mp3", "rating"); assert False
        except mpd.CommandError as e:
            assert "no such sticker" in str(e), e

        # Files and comments.
        names = sorted(e.get("file") or e.get("directory") for e in c.listfiles("One"))
        assert names == ["01 First.mp3", "02 Second.mp3", "03 Third.mp3", "cover.jpg"], names
        assert c.readcomments("One/01 First.mp3") == {"catalognumber": "JB-0001"}

        # searchaddpl wakes stored_playlist; replay_gain_mode wakes options.
        wakes("stored_playlist", lambda: c.searchaddpl("bees", "artist", "bee", "sort", "Title"))
        assert c.listplaylist("bees") == ["Bee/03 Three.mp3", "Bee/02 Two.mp3", "Bee/01 日本語.mp3"]
        wakes("options", lambda: c.replay_gain_mode("album"))
        assert c.replay_gain_status() == "album"
        assert c.listpartitions() == [{"partition": "default"}]
        assert c.channels() == []
        c.clearerror()

        # Messages: the subscriber's idle hears `message`, then it reads it.
        listener = mpd.MPDClient(); listener.timeout = 10; listener.connect("127.0.0.1", port)
        listener.subscribe("box")
        assert c.channels() == ["box"]
        wakes("subscription", lambda: c.subscribe("own"))
        c.sendmessage("box", "hello there")
        assert listener.idle("message") == ["message"]
        assert listener.readmessages() == [{"channel": "box", "message": "hello there"}]
        listener.disconnect()
        c.mixrampdb(-17)
        assert c.status()["mixrampdb"] == "-17"
        print("PASS")
        """

    @Test(.enabled(if: MPDDaemonTests.hasPythonMPD), .timeLimit(.minutes(10)))
    func aPhoneFetchesCoverArtInChunksAndStickersStay() throws {
        let port = freeLoopbackPort()
        let harness = try DaemonHarness(tracks: [], configExtra: "[network]\nport = \(port)", onStart: "off")
        try Fixtures.makeTagLibrary(in: harness.musicDir, withPictures: true)
        func start() throws -> MPDTestClient {
            let daemon = try harness.start()
            #expect(daemon.waitForLine(matching: "library scan of", on: .stderr) != nil, "\(harness.log)")
            return try MPDTestClient(port: port)
        }
        _ = try start()
        let path = harness.directory.file("phone.py")
        try Self.script.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try runTool(MPDDaemonTests.python, [path, "\(port)", harness.musicDir], timeout: .seconds(60))
        #expect(result.status == 0 && result.output.contains("PASS"), "\(result.output)\n\(harness.log)")

        harness.process?.closeStdin()
        harness.process?.kill(SIGTERM)
        #expect(harness.process?.waitForExit(timeout: .seconds(5)) == 0)
        let client = try start()
        #expect(client.command("sticker get song \"One/01 First.mp3\" rating") == ["sticker: rating=5", "OK"])
        #expect(client.command("replay_gain_status") == ["replay_gain_mode: album", "OK"])
        #expect(client.fields("status")["mixrampdb"] == "-17")
        harness.process?.closeStdin()
        harness.process?.kill(SIGTERM)
        _ = harness.process?.waitForExit(timeout: .seconds(5))
    }
}
